"""The card counter (记牌器) and 托管 by choice through the Mini App's API: each seat's
app reads the counter of its own observation at every step of a whole hand, and "I'm
away" puts the seat on 托管 for everyone to see."""

import asyncio
from typing import Any

from bot.fake_telegram import FakeTelegram
from bot.i18n import t
from engine.counter import card_counter
from tests.e2e.harness import hand_message, running_bot
from tests.e2e.harness import service as service_of
from tests.webapp.client import session, started_game, webapp
from tests.webapp.test_api import people_at


def as_doc(count: Any) -> dict[str, Any]:
    """What the page must show of an engine counter: per class the cards out, each high
    card with its copies out, the cards played; the points; the voids by seat."""
    return {
        "classes": [
            (c.out, [(card, n) for card, n in c.high], list(c.played)) for c in count.classes
        ],
        "points": (count.points_unplayed, count.points_mine, count.points_buried),
        "points_out": list(count.points_out),
        "voids": [seat for seat, v in enumerate(count.voids) if v],
        "kitty_known": count.kitty_known,
    }


def from_page(doc: dict[str, Any]) -> dict[str, Any]:
    p = doc["points"]
    return {
        "classes": [
            (c["out"], [(h["id"], h["n"]) for h in c["high"]], [x["id"] for x in c["played"]])
            for c in doc["classes"]
        ],
        "points": (p["unplayed"], p["mine"], p["buried"]),
        "points_out": [(x["id"], x["n"]) for x in p["out"]],
        "voids": [v["seat"] for v in doc["voids"]],
        "kitty_known": doc["kitty_known"],
    }


async def test_each_app_shows_its_seats_counter_at_every_play_of_a_whole_hand(tmp_path):
    async with FakeTelegram() as world:
        people, group = people_at(world)
        async with (
            running_bot(world, tmp_path / "db", webapp_rate_per_minute=100_000) as app,
            webapp(app) as client,
        ):
            game_id = await started_game(world, group, people)
            game = service_of(app).games[game_id]
            sessions = {i: session(client, app, p) for i, p in enumerate(people)}
            checked = 0
            for _ in range(3000):
                await world.settle()
                hand = game.match.hand
                if hand.phase in ("dealing", "after_deal", "burying", "chaodi", "playing"):
                    for seat, s in sessions.items():
                        doc = await s.view(game_id)
                        while doc["version"] != hand.version:
                            doc = await s.view(game_id)
                        counter = doc["me"]["counter"]
                        if hand.phase != "playing":
                            assert counter is None  # nothing to count before the tricks
                            continue
                        expected = card_counter(hand.observation(seat))
                        assert from_page(counter) == as_doc(expected)
                        checked += 1
                if hand.phase == "done":
                    doc = await sessions[0].view(game_id)
                    assert doc["me"]["counter"] is None
                    break
                if hand.phase == "dealing":
                    await asyncio.sleep(0.01)
                    continue
                if hand.phase == "after_deal":
                    for seat, s in sessions.items():
                        if hand.can_pass(seat):
                            await s.act(game_id, "pass", await s.view(game_id))
                    continue
                s = sessions[hand.turn]
                view = await s.view(game_id)
                if hand.phase == "chaodi":
                    await s.act(game_id, "pass", view)
                    continue
                hinted = await s.act(game_id, "hint", view)
                chosen = hinted["view"]["me"]["selection"]
                await s.act(game_id, "play", hinted["view"], cards=chosen)
            assert game.match.hand.phase == "done"
            plays = sum(len(trick.plays) for trick in game.match.hand.tricks)
            assert checked == 4 * plays  # every seat before every play of the hand


async def test_im_away_in_the_app_puts_the_seat_on_托管_for_everyone_to_see(tmp_path):
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
            ben = sessions[1]
            answer = await ben.act(game_id, "away", await ben.view(game_id))
            assert (answer["text"], answer["alert"]) == (t("en", "auto.away"), False)
            await world.settle()
            assert answer["view"]["me"]["auto"]
            # the others' apps, the group's table and the others' DMs show Ben on 托管
            ann = await sessions[0].view(game_id)
            assert ann["seats"][1]["auto"] and not ann["seats"][0]["auto"]
            table = world.last_message(group, from_bot=True)
            assert "Ben" in table.text and "🤖" in table.text.split("Ben", 1)[1].split("\n")[0]
            dm = hand_message(world, people[2], game_id)
            assert t("en", "dm.auto.others", names="Ben") in dm.text.replace("\u2068", "").replace(
                "\u2069", ""
            )
            # 托管 passes for Ben in the window; any action of his ends it
            await world.settle()
            view = await ben.view(game_id)
            answer = await ben.act(game_id, "back", view)
            assert answer["text"] == t("en", "auto.off")
            assert not (await ben.view(game_id))["me"]["auto"]
