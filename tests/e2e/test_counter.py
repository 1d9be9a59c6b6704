"""The card counter (记牌器) in the DM on request, its /settings row, and 托管 by choice
from the DM: each as a player taps it and as every reader then sees it."""

import html
import re
from collections import Counter

from bot.fake_telegram import FakeTelegram
from bot.i18n import t
from bot.views.card_labels import card_label, class_label
from engine.counter import card_counter
from tests.e2e.harness import (
    find,
    game_of,
    hand_message,
    play_out,
    press,
    running_bot,
    wait_for,
)
from tests.e2e.seen import cards_stated, public, split_counter
from tests.e2e.test_resilience import start_with_computers
from tests.e2e.test_settings import choose
from tests.webapp.client import session, webapp

TALLY, AWAY, BACK = "M", "W", "A"


def plain(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", text)).replace("\u2068", "").replace("\u2069", "")


def my_turn_in_play(game) -> bool:
    hand = game.match.hand
    return hand.phase == "playing" and hand.turn == 0 and len(hand.tricks) >= 3


async def test_the_dm_counter_shows_on_request_what_the_seat_may_count_after_trick_k(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            game_id = await start_with_computers(world, group, [alice])
            dm = hand_message(world, alice, game_id)
            assert find(dm, TALLY) is None  # no counting before the tricks
            await play_out(world, app, game_id, {0: alice}, stop=my_turn_in_play)
            dm = hand_message(world, alice, game_id)
            assert find(dm, TALLY).text == t("en", "btn.tally")
            await press(alice, dm, TALLY)
            dm = hand_message(world, alice, game_id)
            text = plain(dm.text)
            game = await game_of(app, game_id)
            obs = game.match.hand.observation(0)
            count = card_counter(obs, obs.tricks_done)
            assert plain(t("en", "counter.title", n=obs.tricks_done)) in text
            for c in count.classes:  # each class: the cards out, the high cards out
                high = " ".join(
                    card_label(card, "en") + (f"×{n}" if n > 1 else "") for card, n in c.high if n
                )
                line = t(
                    "en", "counter.class", suit=class_label(c.klass, "en"), out=c.out, high=high
                )
                assert line in text, (line, text)
            assert f"Points not played: {count.points_unplayed}" in text
            assert find(dm, TALLY).text == t("en", "btn.tally.hide")
            await press(alice, dm, TALLY)
            dm = hand_message(world, alice, game_id)
            assert plain(t("en", "counter.title", n=obs.tricks_done)) not in plain(dm.text)
            assert find(dm, TALLY).text == t("en", "btn.tally")


async def test_a_group_that_turns_the_counter_off_gets_none(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db") as app, webapp(app) as client:
            await choose(world, alice, group, t("en", "opt.cc"), t("en", "opt.cc.off"))
            game_id = await start_with_computers(world, group, [alice])
            await play_out(world, app, game_id, {0: alice}, stop=my_turn_in_play)
            game = await game_of(app, game_id)
            assert game.rec.card_counter is False
            assert find(hand_message(world, alice, game_id), TALLY) is None
            view = await session(client, app, alice).view(game_id)  # her Mini App
            assert view["phase"] == "playing" and view["me"]["counter"] is None


async def test_im_away_in_the_dm_is_托管_until_any_press_and_the_table_shows_it(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en")
        bob = world.user("Bob", language_code="en")
        group = world.group("Table", members=[bob], admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            game_id = await start_with_computers(world, group, [alice, bob])
            users = {0: alice, 1: bob}
            await play_out(world, app, game_id, users, stop=my_turn_in_play)
            dm = hand_message(world, alice, game_id)
            trick = len((await game_of(app, game_id)).match.hand.tricks) - 1
            answer = await press(alice, dm, AWAY)
            assert answer.text == t("en", "auto.away")
            game = await game_of(app, game_id)
            assert game.rec.seats[0].auto and game.rec.seats[0].away
            # the computer plays her turn (at once, as for a computer's seat)
            await wait_for(
                world, lambda: any(p.seat == 0 for p in game.match.hand.tricks[trick].plays)
            )
            mine = next(p for p in game.match.hand.tricks[trick].plays if p.seat == 0)
            assert mine.reason is not None  # decided by the computer, with its why
            dm = hand_message(world, alice, game_id)
            assert plain(t("en", "dm.auto.away")) in plain(dm.text)
            assert find(dm, AWAY) is None and find(dm, BACK) is not None
            # the group's table and Bob's DM show her on 托管
            table = next(m for m in reversed(world.transcript(group)) if "Alice" in m.text)
            line = next(x for x in table.text.splitlines() if "Alice" in x)
            assert "🤖" in line, table.text
            bobs = plain(hand_message(world, bob, game_id).text)
            assert t("en", "dm.auto.others", names="Alice") in bobs
            # back: any press ends it (here the DM's "I'm back")
            await press(alice, hand_message(world, alice, game_id), BACK)
            game = await game_of(app, game_id)
            assert not game.rec.seats[0].auto and not game.rec.seats[0].away
            assert t("en", "dm.auto.others", names="Alice") not in plain(
                hand_message(world, bob, game_id).text
            )


async def test_the_privacy_check_reads_the_counters_cards_as_out_not_as_hers(tmp_path):
    """The chaos run's privacy check (seed 2, step 164) once read the counter's point cards
    out as cards shown as hers: the counter's block names only cards she has not seen, the
    rest of her DM only cards she may see."""
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            game_id = await start_with_computers(world, group, [alice])
            await play_out(world, app, game_id, {0: alice}, stop=my_turn_in_play)
            await press(alice, hand_message(world, alice, game_id), TALLY)
            dm = hand_message(world, alice, game_id)
            hand = (await game_of(app, game_id)).match.hand
            mine = Counter(hand.hands[0]) + public(hand)
            if hand.buried_by == 0:
                mine += Counter(hand.kitty)
            assert cards_stated(dm.text) - mine  # the counter names cards out
            text, counter = split_counter(dm.text)
            assert counter.startswith("🧮") and "🧮" not in text
            assert not cards_stated(text) - mine
            assert cards_stated(counter)
