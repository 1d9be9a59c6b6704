"""The Mini App's API as people use it: who may read what, and acting through it.

Every request is proven by Telegram's signed launch data; a seat's app reads that seat's
observation and nothing more (checked against the engine over whole hands); actions go
through the DM buttons' own path and are refused with the DM's own words.
"""

import asyncio
import json
from collections import Counter
from typing import Any

import pytest

from bot.edges.miniapp.auth import InitDataError, sign, validate
from bot.fake_telegram import FakeTelegram
from bot.i18n import t
from bot.views.names import isolate
from engine.errors import IllegalAction
from engine.hand import Play, Show
from engine.tricks import followable
from tests.e2e.harness import hand_message, press, running_bot, wait_for
from tests.e2e.harness import service as service_of
from tests.e2e.seen import public
from tests.webapp.client import launch_data, session, started_game, webapp

TOKEN = "123456:ABC-test-token"
NOW = 1_800_000_000.0


def people_at(world: FakeTelegram) -> tuple[list[Any], Any]:
    people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
    group = world.group("Table", members=people[1:], admins=people[:1])
    return people, group


# ---------------------------------------------------------------------- launch data
def test_launch_data_signed_by_telegram_for_this_bot_names_its_user():
    data = launch_data(_Person(7, "Ann"), TOKEN, NOW - 10)
    launch = validate(data, TOKEN, max_age=3600, now=NOW)
    assert launch.user.id == 7 and launch.user.first_name == "Ann"


@pytest.mark.parametrize(
    "case",
    ["forged", "other bot", "expired", "future", "tampered user", "tampered date", "no hash"],
)
def test_launch_data_not_proven_is_refused(case):
    ann = _Person(7, "Ann")
    data = launch_data(ann, TOKEN, NOW - 10)
    if case == "forged":  # the right fields with a made-up hash
        data = data.rsplit("hash=", 1)[0] + "hash=" + "0" * 64
    elif case == "other bot":
        data = launch_data(ann, "999:other-token", NOW - 10)
    elif case == "expired":
        data = launch_data(ann, TOKEN, NOW - 3601)
    elif case == "future":
        data = launch_data(ann, TOKEN, NOW + 3600)
    elif case == "tampered user":  # Ann's signature with Ben's id in the user field
        data = data.replace("%22id%22%3A7", "%22id%22%3A8")
        assert "%22id%22%3A8" in data
    elif case == "tampered date":
        data = data.replace(f"auth_date={int(NOW - 10)}", f"auth_date={int(NOW)}")
    elif case == "no hash":
        data = data.rsplit("&hash=", 1)[0]
    with pytest.raises(InitDataError):
        validate(data, TOKEN, max_age=3600, now=NOW)


def test_the_check_string_is_every_field_but_the_hash_sorted_and_newline_joined():
    # the Bot API's own recipe, computed here independently of the module
    import hashlib
    import hmac

    fields = {"auth_date": str(int(NOW)), "user": '{"id":7}', "query_id": "q", "signature": "s"}
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    check = f'auth_date={int(NOW)}\nquery_id=q\nsignature=s\nuser={{"id":7}}'
    digest = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    assert sign(fields, TOKEN).endswith(f"hash={digest}")


class _Person:
    def __init__(self, id, name):
        self.id, self.name = id, name
        self.user = type("U", (), {"language_code": "en"})()


# ---------------------------------------------------------------------- the API
async def test_requests_without_proof_are_refused_and_a_replay_is_only_its_own_user(tmp_path):
    async with FakeTelegram() as world:
        people, group = people_at(world)
        stranger = world.user("Eve", started=True)
        async with running_bot(world, tmp_path / "db") as app, webapp(app) as client:
            game_id = await started_game(world, group, people)
            svc = service_of(app)
            r = await client.get("/api/view", params={"game": str(game_id)})
            assert r.status == 401
            bad = launch_data(people[0], "999:other", svc.wall())
            r = await client.get(
                "/api/view", params={"game": str(game_id)}, headers={"Authorization": f"tma {bad}"}
            )
            assert r.status == 401
            old = launch_data(people[0], app.bot.token, svc.wall() - 2 * 86400)
            r = await client.get(
                "/api/view", params={"game": str(game_id)}, headers={"Authorization": f"tma {old}"}
            )
            assert r.status == 401
            # Eve replays her own valid launch data: she is Eve, not in the group
            status, _ = await session(client, app, stranger).get(game_id)
            assert status == 403
            # Ben's launch data reads Ben's seat, whatever game or seat it asks for
            ben = await session(client, app, people[1]).view(game_id)
            assert ben["me"]["seat"] == 1
            status, _ = await session(client, app, people[1]).get(game_id + 1000)
            assert status == 404


async def test_a_group_member_who_does_not_play_watches_the_public_view(tmp_path):
    async with FakeTelegram() as world:
        people, group = people_at(world)
        watcher = world.user("Fay", started=True)
        world.core.chat(group.id).members[watcher.id] = "member"
        async with running_bot(world, tmp_path / "db") as app, webapp(app) as client:
            game_id = await started_game(world, group, people)
            view = await session(client, app, watcher).view(game_id)
            assert view["me"] is None and view["kitty"] is None
            assert [s["name"] for s in view["seats"]] == [
                isolate(n) for n in ("Ann", "Ben", "Cai", "Dee")
            ]
            # the direct link's signed start parameter names the game too
            from bot.views import codec

            link = session(client, app, watcher, start_param=codec.open_payload(game_id))
            status, body = await link.get(None)
            assert status == 200 and body["game"] == game_id


def _cards_in(doc: Any) -> Counter[int]:
    """Every card the document shows (card objects anywhere, outside the reader's own part)."""
    found: Counter[int] = Counter()
    if isinstance(doc, dict):
        if "id" in doc and "r" in doc:
            found[doc["id"]] += 1
        for key, value in doc.items():
            if key != "me":
                found += _cards_in(value)
    elif isinstance(doc, list):
        for value in doc:
            found += _cards_in(value)
    return found


def _check_privacy(hand: Any, seat: int | None, doc: dict) -> None:
    """The document holds the engine's observation for ``seat`` and no other card."""
    allowed = set(public(hand))
    if seat is None:
        assert doc["me"] is None
    else:
        obs = hand.observation(seat)
        me = doc["me"]
        assert Counter(me["hand"]) == Counter(obs.hand)
        grouped = [c["id"] for g in me["groups"] for c in g["cards"]]
        assert Counter(grouped) == Counter(obs.hand)
        assert (me["kitty"] is None) == (obs.kitty is None)
        if obs.kitty is not None:
            assert Counter(c["id"] for c in me["kitty"]) == Counter(obs.kitty)
            allowed |= set(obs.kitty)
        for option in me["shows"]:
            assert not Counter(option["cards"]) - Counter(obs.hand)
        assert not Counter(me["selection"]) - Counter(obs.hand)
        trick = obs.current_trick
        following = obs.my_turn and obs.phase == "playing" and trick is not None
        if following and trick.plays:  # the engine's answer, as the page dims the rest
            assert me["playable"] == sorted(followable(obs.ctx, trick.plays[0].cards, obs.hand))
        else:
            assert me["playable"] is None
    assert set(_cards_in(doc)) <= allowed, (seat, set(_cards_in(doc)) - allowed)


async def play_hand_through_the_app(world, app, sessions, game_id, watcher=None, check=True):
    """Every seat acts through its Mini App only: pass in windows, hint then play."""
    svc = service_of(app)
    game = svc.games[game_id]
    steps = Counter()
    for _ in range(3000):
        await world.settle()
        hand = game.match.hand
        if check:
            for seat, s in [*sessions.items(), (None, watcher)]:
                if s is None:
                    continue
                doc = await s.view(game_id)
                while doc["version"] != hand.version:  # the deal moved on meanwhile
                    doc = await s.view(game_id)
                _check_privacy(hand, seat, doc)
                steps["checked"] += 1
        if hand.phase == "done":
            return steps
        if hand.phase == "dealing":
            await asyncio.sleep(0.01)
            continue
        if hand.phase == "after_deal":
            for seat, s in sessions.items():
                if hand.can_pass(seat):
                    answer = await s.act(game_id, "pass", await s.view(game_id))
                    assert answer["text"] == t("en", "ack.pass"), answer
            continue
        seat = hand.turn
        s = sessions[seat]
        view = await s.view(game_id)
        if hand.phase == "chaodi":
            await s.act(game_id, "pass", view)
            continue
        hinted = await s.act(game_id, "hint", view)
        chosen = hinted["view"]["me"]["selection"]
        playable = hinted["view"]["me"]["playable"]
        assert playable is None or set(chosen) <= set(playable)  # the hint matches the lead
        answer = await s.act(game_id, "play", hinted["view"], cards=chosen)
        assert not answer["alert"], answer
        steps["plays"] += 1
    raise AssertionError("the hand did not end")


async def test_each_seat_reads_its_own_observation_and_no_other_card_over_a_whole_hand(
    tmp_path,
):
    async with FakeTelegram() as world:
        people, group = people_at(world)
        watcher = world.user("Fay", started=True)
        world.core.chat(group.id).members[watcher.id] = "member"
        async with (
            running_bot(world, tmp_path / "db", webapp_rate_per_minute=100_000) as app,
            webapp(app) as client,
        ):
            game_id = await started_game(world, group, people)
            sessions = {i: session(client, app, p) for i, p in enumerate(people)}
            steps = await play_hand_through_the_app(
                world, app, sessions, game_id, session(client, app, watcher)
            )
            game = service_of(app).games[game_id]
            assert game.match.hand.phase == "done"
            plays = sum(len(trick.plays) for trick in game.match.hand.tricks)
            assert steps["plays"] == 1 + plays  # the burial and every play, through the app
            view = await sessions[0].view(game_id)
            assert view["result"] is not None and view["kitty"] is not None
            # the next hand, from the app, as the group's button would
            answer = await sessions[2].act(game_id, "next", view)
            assert not answer["alert"]
            await world.settle()
            assert game.match.hand_number == 2


async def test_an_illegal_play_is_answered_with_the_dm_buttons_reason(tmp_path):
    async with FakeTelegram() as world:
        people, group = people_at(world)
        async with running_bot(world, tmp_path / "db") as app, webapp(app) as client:
            game_id = await started_game(world, group, people)
            game = service_of(app).games[game_id]
            sessions = {i: session(client, app, p) for i, p in enumerate(people)}
            for _ in range(500):
                await world.settle()
                if game.match.hand.phase == "after_deal":
                    break
                await asyncio.sleep(0.01)
            # the window after the deal: a play is refused in the DM's own words
            hand = game.match.hand
            view = await sessions[1].view(game_id)
            card = view["me"]["hand"][0]
            expected = _refusal(game.match, Play(seat=1, cards=[card]))
            answer = await sessions[1].act(game_id, "play", view, cards=[card])
            assert answer == {"text": expected, "alert": True, "view": answer["view"]}
            assert Counter(game.match.hand.hands[1]) == Counter(view["me"]["hand"])
            # a show of a card not held
            missing = next(c for c in range(54) if c not in hand.hands[1])
            expected = _refusal(game.match, Show(seat=1, cards=[missing]))
            answer = await sessions[1].act(game_id, "show", view, cards=[missing])
            assert (answer["text"], answer["alert"]) == (expected, True)
            # a play of a view gone stale is "out of date", as an old keyboard's press
            old = {**view, "version": view["version"] - 1}
            answer = await sessions[1].act(game_id, "play", old, cards=[card])
            assert answer["text"] == t("en", "stale")


def _refusal(match, action) -> str:
    """What the DM says when the engine refuses ``action`` now."""
    try:
        match.model_copy(deep=True).apply(action)
    except IllegalAction as e:
        return t("en", f"reason.{e.reason}")
    raise AssertionError(f"{action} is legal")


async def test_a_person_asking_too_often_is_answered_429(tmp_path):
    async with FakeTelegram() as world:
        people, group = people_at(world)
        async with (
            running_bot(world, tmp_path / "db", webapp_rate_per_minute=5) as app,
            webapp(app) as client,
        ):
            game_id = await started_game(world, group, people)
            ann, ben = session(client, app, people[0]), session(client, app, people[1])
            statuses = [(await ann.get(game_id))[0] for _ in range(8)]
            assert statuses[:5] == [200] * 5 and 429 in statuses[5:]
            assert (await ben.get(game_id))[0] == 200  # per person


async def test_the_event_stream_pushes_each_change_to_the_open_app(tmp_path):
    async with FakeTelegram() as world:
        people, group = people_at(world)
        async with running_bot(world, tmp_path / "db") as app, webapp(app) as client:
            game_id = await started_game(world, group, people)
            game = service_of(app).games[game_id]
            ann, ben = session(client, app, people[0]), session(client, app, people[1])
            await wait_for(world, lambda: game.match.hand.phase == "after_deal")
            r = await client.get(
                "/api/events", params={"game": str(game_id), "auth": ann.init_data}
            )
            assert r.status == 200
            first = await _event(r)
            assert first["me"]["seat"] == 0 and first["phase"] == "after_deal"
            assert first["to_act"]["seats"] == [0, 1, 2, 3]
            # Ben passes in his app: Ann's app is told at once
            await ben.act(game_id, "pass", await ben.view(game_id))
            second = await _event(r)
            assert second["to_act"]["seats"] == [0, 2, 3]
            assert 0 < second["deadline"] <= app.settings.overturn_window_seconds
            # ... and so is a press in a DM: the one change path feeds both
            dm = hand_message(world, people[2], game_id)
            await press(people[2], dm, "N")
            third = await _event(r)
            assert third["to_act"]["seats"] == [0, 3]
            assert Counter(third["me"]["hand"]) == Counter(game.match.hand.hands[0])
            live = app.bot_data.hub
            assert live.connected(people[0].id) and not live.connected(people[1].id)
            r.close()  # the app is closed: the bot knows it is gone
            for _ in range(200):
                if not live.connected(people[0].id):
                    break
                await asyncio.sleep(0.01)
            assert not live.connected(people[0].id)


async def _event(response) -> dict:
    while True:
        line = await asyncio.wait_for(response.content.readline(), 5)
        if line.startswith(b"data: "):
            return json.loads(line[6:])


async def test_a_hint_at_normal_is_answered_at_once_and_the_suggestion_follows(tmp_path):
    # 普通: the app's Hint is answered before the search ends ("thinking"); the
    # suggestion, with the line saying why, reaches the app's view when it ends
    async with FakeTelegram() as world:
        people, group = people_at(world)
        async with (
            running_bot(world, tmp_path / "db", webapp_rate_per_minute=100_000) as app,
            webapp(app) as client,
        ):
            await people[0].send(group, "/settings")  # the group's admin picks Normal
            await world.settle()
            await people[0].press(world.last_message(group, from_bot=True), text=t("en", "opt.cs"))
            await world.settle()
            menu = world.last_message(group, from_bot=True)
            await people[0].press(menu, text=t("en", "opt.cs.normal"))
            await world.settle()
            game_id = await started_game(world, group, people)
            game = service_of(app).games[game_id]
            assert game.rec.computer_strength == "normal"
            sessions = {i: session(client, app, p) for i, p in enumerate(people)}
            hinted = 0
            for _ in range(3000):
                await world.settle()
                hand = game.match.hand
                if hand.phase in ("dealing", "after_deal", "chaodi"):
                    for seat, s in sessions.items():
                        if hand.phase != "dealing" and (hand.can_pass(seat) or hand.turn == seat):
                            await s.act(game_id, "pass", await s.view(game_id))
                    await asyncio.sleep(0.01)
                    continue
                seat = hand.turn
                s = sessions[seat]
                view = await s.view(game_id)
                answer = await s.act(game_id, "hint", view)
                if hand.phase == "playing":
                    assert answer["text"] == t(game.rec.seat_lang(seat), "hint.thinking"), answer
                    await world.settle()
                    view = await s.view(game_id)
                    me = view["me"]
                    assert me["hint"] is not None and me["hint"]["line"], me
                    assert me["selection"] and sorted(me["selection"]) == sorted(
                        game.rec.seats[seat].ui.hint.cards
                    )
                    hinted += 1
                    if hinted == 3:
                        return
                else:  # the bury's hint is the heuristic's, at once
                    assert answer["text"] == t(game.rec.seat_lang(seat), "hint.done"), answer
                    await world.settle()
                    view = await s.view(game_id)
                answer = await s.act(game_id, "play", view, cards=view["me"]["selection"])
                assert not answer["alert"], answer
            raise AssertionError("no three hints")
