"""Each preset played through the UI for a few hands: declaring (with the preset's shows),
overturning in the preset's window, burying, tricks, results — with no error anywhere."""

import logging

import pytest

from bot.fake_telegram import FakeTelegram
from bot.views import codec
from engine.cards import LJ
from tests.e2e.harness import (
    DEFAULT_SEED,
    find,
    hand_message,
    play_out,
    press,
    running_bot,
    seat_players,
)
from tests.e2e.harness import service as service_of

# deals where a later hand sees 炒底 by hand 3, so three hands are enough (with the default
# seed joker_declare's first 炒底 comes in hand 6)
SEED = {"joker_declare": 1}
PRESET_BUTTON = {"joker_declare": "joker declare", "tournament": "tournament", "classic": "classic"}


async def show_when_possible(world, game, users, shown):
    """Every person presses their first Show button whenever one is there (the race)."""
    hand = game.match.hand
    for seat, user in users.items():
        if not hand.show_options(seat):
            continue
        msg = hand_message(world, user, game.rec.id)
        button = find(msg, "D")
        if button is not None:
            moment = (hand.hand_number, hand.phase, seat, codec.decode(button.data).cards)
            answer = await press(user, msg, "D")
            assert answer.answered and not answer.show_alert
            shown.append(moment)
            return True
    return False


@pytest.mark.parametrize("preset", ["classic", "joker_declare", "tournament"])
async def test_three_hands_of_each_preset_through_the_dms(tmp_path, caplog, preset):
    caplog.set_level(logging.ERROR)
    async with FakeTelegram() as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cy", "Di")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        users = dict(enumerate(people))
        # the whole deal at once: shows happen in the windows, the same on any machine
        async with running_bot(
            world,
            tmp_path / "db",
            seed=SEED.get(preset, DEFAULT_SEED),
            next_hand_delay_seconds=0.01,
            deal_batch=25,
        ) as app:
            await people[0].send(group, "/settings")
            await world.settle()
            await people[0].press(
                world.last_message(group, from_bot=True), data=f"cfg|preset|{preset}"
            )
            await world.settle()
            game_id, _ = await seat_players(world, group, people)
            lobby = world.last_message(group, from_bot=True)
            assert PRESET_BUTTON[preset] in lobby.text
            await people[0].press(lobby, data=find(lobby, "S").data)
            await world.settle()
            game = service_of(app).games[game_id]
            assert game.match.rules.preset == preset
            shown = []

            def watch(g):
                # at least three hands, and on until a later hand saw 炒底 (bounded)
                chaodi = any(h > 1 and phase == "chaodi" for h, phase, *_ in shown)
                return g.match.hand_number > (3 if chaodi else 12) or g.match.finished

            while not watch(game):
                await world.settle()
                if game.match.hand.phase in ("dealing", "after_deal", "chaodi"):
                    if await show_when_possible(world, game, users, shown):
                        continue
                await play_out(
                    world,
                    app,
                    game_id,
                    users,
                    group=group,
                    stop=lambda g: watch(g) or any(g.match.hand.show_options(s) for s in range(4)),
                )
            assert game.match.hand_number > 3
            assert len(game.match.results) >= 3
            assert any(h == 1 for h, *_ in shown), "somebody declared in hand 1"
            later_shows = {phase for h, phase, _, _ in shown if h > 1}
            # 炒底 after burying, in every preset (tournament: seed 002's 炒地皮)
            assert "chaodi" in later_shows
            if preset == "joker_declare":  # a level card goes with a joker of its colour
                assert all(any(c >= LJ for c in cards) for *_, cards in shown)
            for r in game.match.results:
                assert r.multiplier >= 1
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert not errors, [r.getMessage() for r in errors]
        assert all(c.answered for c in world.callbacks())
