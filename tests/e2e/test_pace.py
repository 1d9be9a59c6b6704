"""The group keeps up with the table (bot/delivery/publish.py, bot/edges/timers.py).

The group's output is paced (about 20 calls a minute), so tricks may finish faster
than the group can be shown them. Then the next table delivered repeats, in full, every
trick the group missed: nothing is skipped, and the group catches up in one edit, not
by a backlog of old states. Computers never finish a trick before the group could be
shown the previous one, so with computers at the table the group is never more than
one trick behind. Every person's DM shows every trick with its winner, too.
"""

import asyncio
import random
import re

from bot.edges import timers
from bot.fake_telegram import FakeClock, FakeTelegram, RateLimits, parse_html
from bot.views.messages import LoopClock
from bot.views.names import isolate
from tests.e2e.harness import find, hand_message, running_bot, service
from tests.e2e.seen import shown
from tests.e2e.test_budget import (
    SharedTime,
    link_of,
    lobby_of,
    pause,
    play_a_hand_at_a_human_pace,
    start_a_table,
)
from tests.e2e.test_table import trick_parts

WON = re.compile(r"^Trick (\d+) · 🏆", re.M)


def tricks_won_in(text: str) -> list[int]:
    """The numbers of the finished tricks a group table shows."""
    return [int(n) for n in WON.findall(text)]


def check_tables(hand, tables: list[str], names: dict[int, str]) -> list[list[int]]:
    """Every finished trick is shown in full in some table, with its winner; no table
    skips a trick the one before it did not show. Returns what each table showed."""
    shows, last = [], 0
    for text in tables:
        won = []
        for n, title, plays in trick_parts(text):
            trick = hand.tricks[n - 1]
            if "🏆" in title:
                assert len(plays) == len(trick.plays) == 4, (n, text)
                assert f"🏆 {names[trick.winner]} wins (+{trick.points})" in title
                won.append(n)
        if won:
            assert won == list(range(won[0], won[-1] + 1)), text  # in order, none left out
            assert won[0] <= last + 1, (last, won)  # nothing missed since the last table
            last = won[-1]
        shows.append(won)
    assert last == len(hand.tricks)
    return shows


async def test_when_tricks_come_faster_than_the_group_is_paced_the_next_table_repeats_them(
    tmp_path,
):
    rng = random.Random(3)
    clock = FakeClock(ticking=False)
    async with FakeTelegram(rate_limits=RateLimits(), clock=clock) as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        interval = 8.0  # a group slower than the players: tricks come every ~4 s
        async with running_bot(
            world,
            tmp_path / "db",
            clock=SharedTime(world),
            group_interval_seconds=interval,
            dm_interval_seconds=1.0,
            deal_pace_seconds=0.05,
            overturn_window_seconds=600.0,
        ) as app:
            svc = service(app)
            first = await start_a_table(world, app, group, people)
            await play_a_hand_at_a_human_pace(world, app, 1, people, rng, think=(0.2, 0.6))
            ended = world.clock.now()
            while svc.publisher.outboxes.pending():
                await pause(world, 0.5)
            hand = svc.games[1].match.hand
            tables = [x for x in shown(world, group) if x.startswith("🀄 Hand 1")]
            shows = check_tables(
                hand, tables, {i: isolate(n) for i, n in enumerate(("Ann", "Ben", "Cai", "Dee"))}
            )
            # the group was behind, and caught up by repeating what it missed
            assert any(len(won) >= 3 for won in shows), shows
            # no backlog: the table with the last trick went out in the group's next
            # slot or two (a queue of every finished trick's state would take a slot a
            # trick)
            last = f"Trick {len(hand.tricks)} · 🏆"
            caught_up = next(
                r.time
                for r in world.core.log[first:]
                if str(r.chat_id) == str(group.id)
                and last in parse_html(str(r.params.get("text", "")))[0]
            )
            assert caught_up - ended <= 2 * interval + 1, caught_up - ended
            # fewer table edits than tricks: one edit brings several tricks
            edits = [
                r
                for r in world.core.log[first:]
                if r.method == "editMessageText" and str(r.chat_id) == str(group.id)
            ]
            assert len(edits) < len(hand.tricks) + 10
            assert not [r for r in world.core.log if r.error_code == 429]

            # each DM showed every trick with its winner (at its reader's next turn, and
            # the last one with the result)
            for user in people:
                dm = "\n".join(shown(world, user))
                for n, _trick in enumerate(hand.tricks, start=1):
                    assert re.search(rf"Trick {n} \(finished\): .* → 🏆 ", dm), (user.name, n)


async def test_with_computers_at_the_table_the_group_is_never_more_than_one_trick_behind(
    tmp_path, monkeypatch
):
    interval = 0.2
    # in real time on a busy machine a delivery may take longer than the safety valve
    # (a computer plays on anyway after a few intervals): not what is tested here
    monkeypatch.setattr(timers, "HOLD_LIMIT_INTERVALS", 100.0)
    async with FakeTelegram(clock=FakeClock()) as world:
        ann = world.user("Ann", started=True)
        group = world.group("Table", admins=[ann])
        async with running_bot(
            world,
            tmp_path / "db",
            clock=LoopClock(),  # real time: the timers' clock (the JobQueue's) too
            group_interval_seconds=interval,
            dm_interval_seconds=0.0,
            deal_pace_seconds=0.0,
            computer_delay_seconds=0.01,
            overturn_window_seconds=600.0,
        ) as app:
            svc = service(app)
            await ann.send(group, "/newgame", settle=False)
            while not (lobby := lobby_of(world, group)) or not link_of(lobby, 0):
                await asyncio.sleep(0.01)
            await ann.press(lobby, text=link_of(lobby, 0).text, settle=False)
            for _ in range(3):
                while not find(lobby := lobby_of(world, group), "C"):
                    await asyncio.sleep(0.01)
                await ann.press(lobby, data=find(lobby, "C").data, settle=False)
                await asyncio.sleep(0.05)
            while (
                not svc.games or not svc.games[1].rec.full or not find(lobby_of(world, group), "S")
            ):
                await asyncio.sleep(0.01)
            await ann.press(lobby_of(world, group), data=find(lobby_of(world, group), "S").data)
            behind = []
            for _ in range(20000):
                game = svc.games[1]
                hand = game.match.hand if game.match else None
                if hand is not None and hand.phase in ("playing", "done"):
                    done = sum(1 for x in hand.tricks if x.winner is not None)
                    table = next(
                        (
                            m.text
                            for m in reversed(world.transcript(group))
                            if m.text.startswith("🀄 Hand 1")
                        ),
                        "",
                    )
                    won = tricks_won_in(table)
                    behind.append(done - (won[-1] if won else 0))
                    if hand.phase == "done" and not svc.publisher.outboxes.pending():
                        break
                if hand is not None and hand.phase != "dealing":
                    msg = hand_message(world, ann, 1)
                    for kind in ("N", "H"):
                        if find(msg, kind):
                            await ann.press(msg, data=find(msg, kind).data, settle=False)
                            await asyncio.sleep(0.02)
                            if kind == "H":
                                msg = hand_message(world, ann, 1)
                                if find(msg, "P"):
                                    await ann.press(msg, data=find(msg, "P").data, settle=False)
                            break
                await asyncio.sleep(0.005)
            assert hand.phase == "done"
            assert max(behind) <= 1, behind
            # the outbox is empty once its last call left: the table it carried, once the
            # fake has taken it, shows every trick (on a busy machine the call may still be
            # on its way when the loop above sees the outbox empty)
            await world.settle()
            table = next(
                m.text for m in reversed(world.transcript(group)) if m.text.startswith("🀄 Hand 1")
            )
            assert tricks_won_in(table)[-1] == len(hand.tricks), (behind[-5:], table)
            tables = [x for x in shown(world, group) if x.startswith("🀄 Hand 1")]
            names = {0: isolate("Ann"), 1: "🤖 Computer 2", 2: "🤖 Computer 3", 3: "🤖 Computer 4"}
            check_tables(hand, tables, names)
