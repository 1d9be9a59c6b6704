"""A DM never states what stopped being true (issue 16): whole hands played through the
DMs, with people and with computers, in Chinese and in English, through a turn time-out
(the warning, 托管 and the way back), a restart and ``/endgame``; after every Bot API
call every DM's statements are checked against the engine (tests/e2e/truth.py)."""

from __future__ import annotations

import asyncio
import re

from bot.fake_telegram import FakeTelegram
from bot.i18n import t
from tests.e2e.harness import (
    find,
    fire_timer,
    hand_message,
    play_out,
    press,
    running_bot,
    seat_players,
    service,
)
from tests.e2e.seen import shown
from tests.e2e.test_resilience import start_with_computers
from tests.e2e.truth import TruthWatch

PACED = dict(
    dm_interval_seconds=1.0,
    group_interval_seconds=3.2,
    deal_pace_seconds=0.5,
    next_hand_delay_seconds=3600.0,
)
# what a whole hand must have made the DMs say (and the check judged), at least once
EVERY_HAND = {
    "header",
    "table.dealing",
    "dm.window.first",
    "dm.window_waiting",
    "dm.clock.window",
    "dm.burying",
    "dm.your_turn.lead",
    "dm.trick.you_lead",
    "dm.trick.now",
    "dm.trick.mine",
    "dm.trick.done",
    "dm.points.after",
    "dm.not_your_turn",
    "dm.clock.turn",
    "result.title",
}


def assert_true(watch: TruthWatch, needed: set[str]) -> None:
    assert not watch.failures, "\n".join(watch.failures)
    missing = needed - set(watch.checked)
    assert not missing, (missing, watch.checked)
    assert watch.moments > 200, watch.moments


async def message_with(world, chat, button: str):
    """The chat's newest message with this button, once it arrived."""
    for _ in range(500):
        for msg in reversed(world.transcript(chat)):
            if any(b.text == button for row in msg.buttons() for b in row):
                return msg
        await asyncio.sleep(0.01)
    raise AssertionError(f"no {button!r}")


async def time_out_once(world, app, watch: TruthWatch) -> None:
    """The person whose turn it is idles: the warning, then 托管 plays for them."""
    game = service(app).games[watch.game_id]
    assert game.match.hand.turn in watch.users
    await fire_timer(world, app, watch.game_id, "warn")
    await app.bot_data.outboxes.drain()
    watch.check()  # the warning as it is shown
    seat = game.match.hand.turn
    await fire_timer(world, app, watch.game_id, "timeout")
    assert game.rec.seats[seat].auto  # 托管 played the turn; the player is back at once
    user, lang = watch.users[seat], game.rec.seat_lang(seat)
    dm = hand_message(world, user, watch.game_id)
    assert find(dm, "A").text == t(lang, "btn.auto.off")  # says what it does, not "◀ Back"
    back = await press(user, dm, "A")
    assert back.text == t(lang, "auto.off")
    assert not game.rec.seats[seat].auto


async def test_every_dm_statement_is_true_at_every_moment_with_people_and_computers(tmp_path):
    """Ann (English) and Ben (Chinese) with two computers: hand 1 with a time-out and a
    restart in the middle, the result, then hand 2 ended by /endgame while dealing."""
    db = tmp_path / "db"
    async with FakeTelegram() as world:
        ann = world.user("Ann", language_code="en", started=True)
        ben = world.user("Ben", language_code="zh-hans", started=True)
        group = world.group("Mixed", members=[ben], admins=[ann])
        users = {0: ann, 1: ben}
        watch = TruthWatch(world, 1, users, group)
        watch.install()
        async with running_bot(world, db, **PACED) as app:
            watch.app = app
            game_id = await start_with_computers(world, group, [ann, ben])
            assert game_id == watch.game_id

            def after(tricks):
                def stop(g):
                    hand = g.match.hand
                    return (
                        hand.phase == "playing" and len(hand.tricks) > tricks and hand.turn in users
                    )

                return stop

            await play_out(world, app, game_id, users, stop=after(3), group=group)
            await time_out_once(world, app, watch)
            await play_out(world, app, game_id, users, stop=after(6), group=group)
            await app.bot_data.outboxes.drain()
            await world.settle()
        watch.app = None
        async with running_bot(world, db, **PACED) as app:  # a restart mid-hand
            watch.app = app
            await world.settle()
            await play_out(world, app, game_id, users, stop=lambda g: g.match.hand.phase == "done")
            await app.bot_data.outboxes.drain()
            await world.settle()
            # the next hand; /endgame while it is being dealt
            await play_out(
                world,
                app,
                game_id,
                users,
                stop=lambda g: g.match.hand_number == 2 and g.match.hand.dealt > 0,
                group=group,
            )
            game = service(app).games[game_id]
            assert game.match.hand.phase == "dealing"
            await ann.send(group, "/endgame")
            yes = t(game.rec.lang, "btn.end_yes")
            question = await message_with(world, group, yes)
            await ann.press(question, text=yes)
            await world.settle()
            assert game.rec.status == "ended"
            await app.bot_data.outboxes.drain()
            await world.settle()
            watch.check()  # the last state, every chat settled
        assert_true(
            watch, EVERY_HAND | {"group.ended", "dm.ended", "dm.auto.on", "dm.clock.warning"}
        )


async def test_every_dm_statement_is_true_at_every_moment_with_four_people(tmp_path):
    """Four people, two reading Chinese and two English, a whole hand with a time-out."""
    async with FakeTelegram() as world:
        people = [
            world.user("Ann", language_code="en", started=True),
            world.user("Ben", language_code="zh-hans", started=True),
            world.user("Cai", language_code="zh-hans", started=True),
            world.user("Dee", language_code="en", started=True),
        ]
        group = world.group("Four", members=people[1:], admins=people[:1])
        users = dict(enumerate(people))
        watch = TruthWatch(world, 1, users, group)
        watch.install()
        async with running_bot(world, tmp_path / "db", **PACED) as app:
            watch.app = app
            game_id, lobby = await seat_players(world, group, people)
            lobby = world.last_message(group, from_bot=True)
            await people[0].press(lobby, data=find(lobby, "S").data)
            await play_out(
                world,
                app,
                game_id,
                users,
                stop=lambda g: g.match.hand.phase == "playing" and len(g.match.hand.tricks) > 8,
            )
            await time_out_once(world, app, watch)
            await play_out(world, app, game_id, users, stop=lambda g: g.match.hand.phase == "done")
            await app.bot_data.outboxes.drain()
            await world.settle()
            watch.check()
        more = {"dm.bury", "dm.your_turn.follow.other", "dm.your_turn.one_tap", "dm.auto.on"}
        assert_true(watch, EVERY_HAND | more)


async def test_your_cards_arrive_during_the_deal_within_the_dms_rate(tmp_path):
    """The DM shows the cards dealt so far as they arrive (not only at the end of the
    deal), paced at the DM's rate: one write a second, a burst of three.

    The deal's steps are the test's to fire, each once the bot is idle (its DM pacing
    runs on the fake clock): in real time a loaded machine took longer to deliver a
    step than the deal took to make the next, and the DM rightly showed only the newest."""
    async with FakeTelegram() as world:
        alice = world.user("Alice", started=True)
        group = world.group("Deal", admins=[alice])
        async with running_bot(
            world,
            tmp_path / "db",
            dm_interval_seconds=1.0,
            deal_batch=3,
            deal_pace_seconds=3600.0,  # (fired by the test)
            overturn_window_seconds=600.0,
        ) as app:
            svc = service(app)
            game_id = await start_with_computers(world, group, [alice])
            while svc.games[game_id].match.hand.phase == "dealing":
                await fire_timer(world, app, game_id, "deal")  # (settles)
            texts = shown(world, alice)
            counts = [int(m.group(1)) for x in texts if (m := re.search(r"Your (\d+) cards", x))]
            arriving = {n for n in counts if 0 < n < 25}
            assert len(arriving) >= 2, counts  # cards came in several steps
            assert counts == sorted(counts) and counts[-1] >= 25
            assert world.max_calls_in_window(alice, 1.0) <= 3
