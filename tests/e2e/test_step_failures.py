"""A change that fails half-way (GameService.change) leaves nothing half-done.

A failure is injected, once, into each kind of step of the change path while a
player presses Play: the engine (it changed the game, then raised), the save, the
publishing (a DM's rendering) and the arming of the game's timer. Each time the game
in memory is exactly the one saved, the player gets an answer in their language, the
error is logged once with the game's id, and the game plays on afterwards."""

import logging

import pytest

from bot.fake_telegram import FakeTelegram
from bot.i18n import t
from bot.views import dm_hand as render_hand
from engine.match import MatchState
from tests.e2e.harness import (
    find,
    hand_message,
    pending_timer,
    play_out,
    press,
    running_bot,
    seat_players,
    service,
)


class Boom(RuntimeError):
    pass


def once(real, before=False):
    """``real``, but its first call raises (after doing its work, unless ``before``)."""
    fired = []

    def wrapper(*args, **kwargs):
        if not fired:
            fired.append(True)
            if before:
                raise Boom("injected")
            real(*args, **kwargs)
            raise Boom("injected")
        return real(*args, **kwargs)

    return wrapper


def inject(kind, svc, monkeypatch):
    if kind == "engine":  # the engine changed the game, then raised
        monkeypatch.setattr(MatchState, "apply", once(MatchState.apply))
    elif kind == "save":
        real = svc.store.save_game
        fired = []

        async def save_game(*args, **kwargs):
            if not fired:
                fired.append(True)
                raise Boom("injected: disk full")
            return await real(*args, **kwargs)

        monkeypatch.setattr(svc.store, "save_game", save_game)
    elif kind == "publish":  # a DM cannot be rendered
        monkeypatch.setattr(render_hand, "hand_message", once(render_hand.hand_message, True))
    else:  # the timer cannot be armed
        schedule = svc.deadlines.schedule
        monkeypatch.setattr(schedule, "arm", once(schedule.arm, True))


async def as_saved(svc, game_id):
    """The game in memory is the game in the store (its record and its match)."""
    game = svc.games[game_id]
    stored = await svc.store.load_game(game_id)
    assert game.rec.model_dump_json() == stored.model_dump_json()
    assert game.match.model_dump_json() == stored.match_json
    return stored


async def play_hinted(world, user, game_id):
    """Hint, then Play what the hint selected: the press's callback record."""
    await press(user, hand_message(world, user, game_id), "H")
    return await press(user, hand_message(world, user, game_id), "P")


@pytest.mark.parametrize("kind", ["engine", "save", "publish", "arm"])
async def test_a_change_that_fails_leaves_the_game_as_saved_and_playable(
    tmp_path, monkeypatch, caplog, kind
):
    async with FakeTelegram() as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        async with running_bot(world, tmp_path / "db") as app:
            svc = service(app)
            game_id, _ = await seat_players(world, group, people)
            lobby = world.last_message(group, from_bot=True)
            await people[0].press(lobby, data=find(lobby, "S").data)
            users = dict(enumerate(people))
            playing = lambda g: g.match.hand.phase == "playing"  # noqa: E731
            await play_out(world, app, game_id, users, stop=playing)
            game = svc.games[game_id]
            seat = game.match.hand.turn
            user = people[seat]
            lang = game.rec.seat_lang(seat)
            await press(user, hand_message(world, user, game_id), "H")
            before = await as_saved(svc, game_id)
            version = game.match.hand.version

            inject(kind, svc, monkeypatch)
            caplog.clear()
            with caplog.at_level(logging.ERROR):
                answer = await press(user, hand_message(world, user, game_id), "P")
            errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
            assert len(errors) == 1, [r.getMessage() for r in errors]
            assert f"game {game_id}:" in errors[0].getMessage()
            assert isinstance(errors[0].exc_info[1], Boom)
            game = svc.games[game_id]
            after = await as_saved(svc, game_id)
            assert answer.answered
            if kind in ("engine", "save"):  # nothing happened: the player is told so
                assert (answer.text, answer.show_alert) == (t(lang, "error.undone"), True)
                assert after.model_dump_json() == before.model_dump_json()
                assert game.match.hand.version == version and game.match.hand.turn == seat
                again = await press(user, hand_message(world, user, game_id), "P")
            else:  # the play was saved: it stands, shown and armed as saved
                assert (answer.text, answer.show_alert) == (t(lang, "ack.play"), False)
                assert game.match.hand.version > version and game.match.hand.turn != seat
                again = None
            # playable: every DM shows the game as saved, its timer is armed, and the
            # next player's Play is taken
            await world.settle()
            assert pending_timer(app, game_id) is not None
            if again is not None:
                assert (again.text, again.show_alert) == (t(lang, "ack.play"), False)
            nxt = game.match.hand.turn
            assert nxt != seat
            follow = await play_hinted(world, people[nxt], game_id)
            assert not follow.show_alert, follow.text
            assert svc.games[game_id].match.hand.turn not in (seat, nxt)
            await as_saved(svc, game_id)


async def test_a_command_whose_change_fails_is_answered_and_changes_nothing(
    tmp_path, monkeypatch, caplog
):
    """/start <seat link> (a join) while the save fails: the person is told in their
    DM, the seat stays free, the error is logged once; the same link works next."""
    async with FakeTelegram() as world:
        ann, ben = world.user("Ann", started=True), world.user("Ben", started=True)
        group = world.group("Table", members=[ben], admins=[ann])
        async with running_bot(world, tmp_path / "db") as app:
            svc = service(app)
            await ann.send(group, "/newgame")
            await world.settle()
            lobby = world.last_message(group, from_bot=True)
            link = next(b for row in lobby.buttons() for b in row if b.url and b.url.endswith("_1"))
            game_id = next(iter(svc.games))
            inject("save", svc, monkeypatch)
            caplog.clear()
            with caplog.at_level(logging.ERROR):
                await ben.press(lobby, text=link.text)
                await world.settle()
            errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
            assert len(errors) == 1 and f"game {game_id}:" in errors[0].getMessage()
            assert world.last_message(ben, from_bot=True).text == t("en", "error.undone")
            assert svc.games[game_id].rec.seats[1].empty
            stored = await svc.store.load_game(game_id)
            assert stored.seats[1].empty
            await ben.press(lobby, text=link.text)
            await world.settle()
            assert svc.games[game_id].rec.seats[1].user_id == ben.id


async def test_a_selection_saves_the_match_serialised_before_and_a_play_anew(tmp_path, monkeypatch):
    """A Hint changes only the record (the selection): the save writes the match's JSON
    of the last change again instead of serialising the match anew; a play serialises
    it. Either way the store holds the game exactly as it is in memory."""
    async with FakeTelegram() as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        async with running_bot(world, tmp_path / "db") as app:
            svc = service(app)
            game_id, _ = await seat_players(world, group, people)
            lobby = world.last_message(group, from_bot=True)
            await people[0].press(lobby, data=find(lobby, "S").data)
            playing = lambda g: g.match.hand.phase == "playing"  # noqa: E731
            await play_out(world, app, game_id, dict(enumerate(people)), stop=playing)
            user = people[svc.games[game_id].match.hand.turn]
            dumps = []
            real = MatchState.model_dump_json

            def counted(self, *args, **kwargs):
                dumps.append(self.hand.version)
                return real(self, *args, **kwargs)

            monkeypatch.setattr(MatchState, "model_dump_json", counted)
            await press(user, hand_message(world, user, game_id), "H")
            assert dumps == []
            stored = await as_saved(svc, game_id)
            assert any(s.ui.selection for s in stored.seats)
            dumps.clear()
            await press(user, hand_message(world, user, game_id), "P")
            assert dumps == [svc.games[game_id].match.hand.version]
            await as_saved(svc, game_id)
