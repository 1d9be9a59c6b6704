"""The Mini App's Tricks and History panels, read through its API as the page reads them
when a panel opens: the hand's tricks as the whole table saw them (a failed throw with
what was tried, what beat it and who showed it, and its penalty: RULES 8.3, 13), the
point cards each team took, the kitty only to whoever may see it; the match's finished
hands with their dealer, trump, points and levels, and the level chart's points.
"""

import asyncio
import json
import random
from collections import Counter
from typing import Any

from bot.data.history import progression
from bot.data.saved import GameRecord
from bot.fake_telegram import FakeTelegram
from bot.views.card_labels import rank_label, suit_label
from bot.views.miniapp import history_view
from bot.views.projection import match_history, project
from engine.cards import points
from engine.match import MatchState
from engine.players import choose_bury, suggest
from engine.records import failed_throw_penalty
from engine.rules import RuleSet
from tests.e2e.harness import running_bot
from tests.e2e.harness import service as service_of
from tests.e2e.scripted import throws
from tests.e2e.seen import public
from tests.engine.test_match import play_hand
from tests.webapp.client import session, started_game
from tests.webapp.client import webapp as webapp_of

SEED = 7


async def panel(s: Any, name: str, game_id: int) -> dict[str, Any]:
    r = await s.client.get(f"/api/{name}", params={"game": str(game_id)}, headers=s.headers)
    assert r.status == 200, await r.text()
    return await r.json()


def ids(doc: dict[str, Any], cards: list[int]) -> Counter[int]:
    """Card ids as the page draws them: each one known to the document's legend."""
    assert all(str(c) in doc["cards"] for c in cards)
    return Counter(cards)


def check_tricks(hand: Any, doc: dict[str, Any], seat: int | None) -> None:
    """The panel says what the engine recorded, trick by trick, and shows no card the
    reader may not know (the kitty: to whoever buried it, to all after the hand)."""
    led = [trick for trick in hand.tricks if trick.plays]  # (the next trick, not led yet: none)
    assert doc["hand_no"] == hand.hand_number and len(doc["tricks"]) == len(led)
    for n, (trick, row) in enumerate(zip(led, doc["tricks"], strict=True), 1):
        assert row["n"] == n and row["leader"] == trick.leader
        assert row["winner"] == trick.winner and row["points"] == trick.points
        assert [p["seat"] for p in row["plays"]] == [p.seat for p in trick.plays]
        for play, shown in zip(trick.plays, row["plays"], strict=True):
            assert ids(doc, shown["cards"]) == Counter(play.cards)
            if play.attempted is None:
                assert "attempted" not in shown
                continue
            assert ids(doc, shown["attempted"]) == Counter(play.attempted)
            assert ids(doc, shown["beaten_by"]) == Counter(play.beaten_by or ())
            assert shown["beaten_by_seat"] == play.beaten_by_seat
            assert shown["penalty"] == failed_throw_penalty(hand.rules, play, hand.defenders)
    for team in (0, 1):
        won = [
            c
            for trick in hand.tricks
            if trick.winner is not None and trick.winner % 2 == team
            for play in trick.plays
            for c in play.cards
            if points(c)
        ]
        taken = doc["taken"][team]
        assert ids(doc, taken["cards"]) == Counter(won) and taken["points"] == sum(map(points, won))
    may_see = hand.phase == "done" or (seat is not None and seat == hand.buried_by)
    assert (doc["kitty"] is not None) == may_see
    allowed = set(public(hand)) | (set(hand.kitty) if may_see else set())
    assert {int(c) for c in doc["cards"]} <= allowed


async def test_the_tricks_panel_and_the_history_panel_over_a_hand_with_a_failed_throw(tmp_path):
    async with FakeTelegram() as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        watcher = world.user("Fay", started=True)
        group = world.group("Table", members=people[1:], admins=people[:1])
        world.core.chat(group.id).members[watcher.id] = "member"
        async with (
            running_bot(world, tmp_path / "db", seed=SEED, webapp_rate_per_minute=100_000) as app,
            webapp_of(app) as client,
        ):
            game_id = await started_game(world, group, people)
            game = service_of(app).games[game_id]
            apps = {seat: session(client, app, user) for seat, user in enumerate(people)}
            fay = session(client, app, watcher)
            # before any hand ended the history has none, only the levels to start from
            history = await panel(fay, "history", game_id)
            assert history["hands"] == [] and history["progression"] == progression(game.match)
            assert len(history["progression"]) == 1

            failed = None
            for _ in range(3000):
                await world.settle()
                hand = game.match.hand
                if hand.phase == "done":
                    break
                if hand.phase == "dealing":
                    await asyncio.sleep(0.01)
                    continue
                if hand.phase == "after_deal":
                    for seat, s in apps.items():
                        if hand.can_pass(seat):
                            await s.act(game_id, "pass", await s.view(game_id))
                    continue
                seat = hand.turn
                s = apps[seat]
                view = await s.view(game_id)
                if hand.phase == "chaodi":
                    await s.act(game_id, "pass", view)
                    continue
                trick = hand.current_trick
                obs = hand.observation(seat)
                cards = list(choose_bury(obs) if hand.phase == "burying" else suggest(obs))
                leading = hand.phase == "playing" and trick is not None and not trick.plays
                if leading and failed is None:
                    bad = [lead for lead, forced in throws(hand, seat) if forced is not None]
                    if bad:
                        cards, failed = bad[0], len(hand.tricks)
                answer = await s.act(game_id, "play", view, cards=cards)
                assert not answer["alert"], answer
                if failed == len(hand.tricks) and len(hand.current_trick.plays) == 1:
                    # the failed throw, just played: every reader's panel has it
                    for reader, r in [*apps.items(), (None, fay)]:
                        doc = await panel(r, "tricks", game_id)
                        check_tricks(hand, doc, reader)
                        lead = doc["tricks"][-1]["plays"][0]
                        assert lead["beaten_by"] and lead["penalty"] != 0
                elif hand.phase == "playing" and len(hand.tricks) % 6 == 0:
                    for reader, r in [*apps.items(), (None, fay)]:
                        check_tricks(hand, await panel(r, "tricks", game_id), reader)
            hand = game.match.hand
            assert hand.phase == "done" and failed is not None
            for reader, r in [*apps.items(), (None, fay)]:
                doc = await panel(r, "tricks", game_id)
                check_tricks(hand, doc, reader)  # the kitty, to all now
                assert doc["kitty_bonus"] == hand.result.kitty_bonus

            # the next hand: its history panel has hand 1 as its result said it
            result = hand.result
            view = await apps[0].view(game_id)
            assert not (await apps[0].act(game_id, "next", view))["alert"]
            await world.settle()
            assert game.match.hand_number == 2
            history = await panel(fay, "history", game_id)
            assert history["hand_no"] == 2
            [row] = history["hands"]
            assert row["n"] == 1 and row["dealer"] == result.dealer
            assert row["trump"] == suit_label(hand.trump, "en")
            assert row["level"] == rank_label(result.levels_before[result.defenders])
            assert row["points"] == result.attackers_points and row["winner"] == result.winner
            assert row["team"] == result.winning_team
            assert row["up"] == result.climbed(game.match.rules)[result.winning_team]
            assert row["levels"] == [rank_label(x) for x in result.levels_after]
            assert history["progression"] == progression(game.match)
            # hand 2 has begun: its tricks panel starts empty, nothing of hand 1 in it
            doc = await panel(apps[1], "tricks", game_id)
            assert doc["hand_no"] == 2 and doc["tricks"] == [] and doc["kitty"] is None


async def test_the_panels_are_asked_for_not_sent_with_every_change(tmp_path):
    """The view the stream sends on every change has none of the panels' data."""
    async with FakeTelegram() as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        stranger = world.user("Eve", started=True)
        async with running_bot(world, tmp_path / "db") as app, webapp_of(app) as client:
            game_id = await started_game(world, group, people)
            view = await session(client, app, people[0]).view(game_id)
            assert not {"tricks", "hands", "progression", "taken"} & set(view)
            # the panels are read as the view is: Telegram's proof, a member of the group
            r = await client.get("/api/tricks", params={"game": str(game_id)})
            assert r.status == 401
            eve = session(client, app, stranger)
            for name in ("tricks", "history"):
                r = await client.get(
                    f"/api/{name}", params={"game": str(game_id)}, headers=eve.headers
                )
                assert r.status == 403


def test_a_hand_kept_before_its_trump_was_says_so_in_the_history():
    """A match saved by an earlier version: its results have no trump. The History panel
    says "?" for those hands rather than a trump they may not have had."""
    match = MatchState.new(RuleSet.from_preset("classic"), seed=3)
    play_hand(match, random.Random(3))
    rec = GameRecord(id=1, chat_id=-1, creator_id=1, status="running")
    saved = json.loads(match.model_dump_json())
    for result in saved["results"]:
        del result["trump"], result["trump_known"]
    for kept, trump in ((match, suit_label(match.hand.trump, "en")), (MatchState(**saved), "?")):
        doc = history_view(rec, project(rec, kept, None), match_history(kept), "en")
        assert [row["trump"] for row in doc["hands"]] == [trump]
