"""How instant the bot feels, and whether games slow each other down.

    .venv/bin/python bench/bench_bot.py [--games 1,4,16] [--hands 1] [--humans 4]

The real Application runs against the fake Telegram's in-process transport with no
rate limits and the e2e harness's FAST settings (pacing intervals 0, computer delay 0),
so what is measured is the bot's own work. For each G in ``--games`` a fresh bot (and
SQLite file) hosts G groups; in each, ``--humans`` simulated people (the other seats
computers) play ``--hands`` whole hands through their DM keyboards as fast as they can:
Pass in the overturn window and in chaodi, Hint then Play on a turn (Hint then Bury
for the kitty), "Next hand" in the group between hands. A person acts once their own
game is quiet (the press answered, the game's chats delivered): games run concurrently.

Figures:
* press latency: per callback press, the fake's ``CallbackRecord.answered_at -
  created_at`` (its clock ticks in real time here): from the fake creating the
  callback update to it recording the bot's answerCallbackQuery. Median and p95.
* dm: median time from a press until it is answered *and* the presser's DM shows the
  new state (their outbox has nothing undelivered), seen by the waiting player.
* presses/s and hands/min over all games; hand s: median wall time of one hand.
* isolation: game A (the first group, the same deal in every run) alone (G=1) vs
  with the other groups busy (largest G): ratio of its median press latencies; the
  same for all presses.

Machines here are shared and noisy: compare medians and ratios, not single figures.
The SQLite file lives in ``--db-dir`` (default: the system temp dir); every accepted
action is saved with synchronous=FULL before it is answered, so that disk's fsync
is part of the latency.

Note (first runs, 4 humans, 1 hand): ~2 ms median per press alone, but the whole
process (bot, PTB and the fake share one event loop and one core) tops out at ~170
presses/s, so latency grows about linearly with G (x12 at G=16). A profile put ~40%
of the CPU in the outboxes' ``Slot.dirty``: ``Content.key`` JSON-dumps the keyboard
(PTB ``to_dict``) on every check, from ``_next`` and ``_prune``.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.fake_telegram import CallbackRecord, Chat, FakeTelegram, Message, SimUser  # noqa: E402
from tests.e2e.harness import (  # noqa: E402
    buttons,
    find,
    hand_message,
    running_bot,
    seat_players,
    service,
)

POLL = 0.002  # fallback wake-up of a waiting player (most wake on their chats' requests)


@dataclass
class Table:
    """One group and its game as its players see it."""

    index: int
    group: Chat
    users: dict[int, SimUser]  # seat -> person
    game_id: int = 0
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    open: list[CallbackRecord] = field(default_factory=list)
    presses: list[CallbackRecord] = field(default_factory=list)
    dm_ms: list[float] = field(default_factory=list)
    hand_s: list[float] = field(default_factory=list)
    hands: int = 0


@dataclass
class Run:
    games: int
    humans: int
    seconds: float
    tables: list[Table]

    @property
    def latencies(self) -> list[float]:
        return [ms(r) for t in self.tables for r in t.presses]


def ms(record: CallbackRecord) -> float:
    assert record.answered_at is not None
    return (record.answered_at - record.created_at) * 1000


def p95(values: list[float]) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(0.95 * len(values)))]


def wire_wakeups(world: FakeTelegram, tables: list[Table]) -> None:
    """Wake a table's players whenever the bot finishes a request to one of its chats
    (or answers one of its presses), instead of polling every millisecond."""
    core = world.core
    owner: dict[int, Table] = {}
    for t in tables:
        owner[t.group.id] = t
        for u in t.users.values():
            owner[u.id] = t
    handle = core.handle

    async def watched(token: str, method: str, raw: Any, files: Any = None) -> Any:
        try:
            return await handle(token, method, raw, files)
        finally:
            chat_id = raw.get("chat_id")
            if chat_id is None and "callback_query_id" in raw:
                rec = core.callbacks.get(str(raw["callback_query_id"]))
                chat_id = rec.user.id if rec is not None else None
            try:
                t = owner.get(int(chat_id)) if chat_id is not None else None
            except ValueError:
                t = None
            if t is not None:
                t.wake.set()

    core.handle = watched  # type: ignore[method-assign]


async def nap(t: Table) -> None:
    try:
        async with asyncio.timeout(POLL):
            await t.wake.wait()
    except TimeoutError:
        pass


def delivered(app: Any, chat_ids: list[int]) -> bool:
    """Every outbox of these chats is idle: it found nothing left to send. (Asking each
    slot ``dirty`` instead costs a JSON dump of its keyboard per slot, per check; polled
    by 64 players that was most of the CPU, so the outboxes' own idle flag is read.)"""
    boxes = app.bot_data.outboxes._boxes
    for c in chat_ids:
        box = boxes.get(c)
        if box is None or box._task is None or box._task.done():
            continue
        if not box._idle.is_set():
            return False
    return True


async def until(t: Table, cond, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        t.wake.clear()
        if cond():
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"table {t.index}: stuck")
        await nap(t)


async def quiet(app: Any, t: Table) -> None:
    """The game is still: presses answered, no handler inside it, its chats delivered."""
    svc = service(app)
    chats = [t.group.id, *(u.id for u in t.users.values())]

    def still() -> bool:
        game = svc.games[t.game_id]
        return all(r.answered for r in t.open) and not game.lock.locked() and delivered(app, chats)

    await until(t, still)
    t.open.clear()


async def tap(app: Any, t: Table, user: SimUser, msg: Message, kind: str) -> None:
    b = find(msg, kind)
    assert b is not None, f"{user.name}: no {kind} button in {msg.keyboard()}"
    t0 = time.perf_counter()
    rec = await user.press(msg, data=b.data, settle=False)
    assert isinstance(rec, CallbackRecord)
    t.open.append(rec)
    t.presses.append(rec)
    await until(t, lambda: rec.answered and delivered(app, [user.id]))
    t.dm_ms.append((time.perf_counter() - t0) * 1000)


def next_hand_button(world: FakeTelegram, group: Chat) -> Message | None:
    for msg in reversed(world.transcript(group)):
        if msg.from_bot and find(msg, "G") is not None:
            return msg
    return None


async def play(world: FakeTelegram, app: Any, t: Table, hands: int) -> None:
    """Start the match and play ``hands`` hands as fast as the players can."""
    svc = service(app)
    first = t.users[min(t.users)]
    lobby = world.last_message(t.group, from_bot=True)
    t0 = time.perf_counter()
    await tap(app, t, first, lobby, "S")
    counted = 0
    for _ in range(20_000):
        await quiet(app, t)
        game = svc.games[t.game_id]
        if game.rec.status != "running":
            return
        hand = game.match.hand
        if hand.phase == "done":
            if hand.hand_number != counted:
                counted = hand.hand_number
                t.hands += 1
                t.hand_s.append(time.perf_counter() - t0)
            if t.hands >= hands:
                return
            msg = next_hand_button(world, t.group)
            if msg is None:
                await nap(t)
                continue
            t0 = time.perf_counter()
            await tap(app, t, first, msg, "G")
        elif hand.phase == "dealing":
            await nap(t)
        elif hand.phase == "after_deal":
            for seat, user in t.users.items():
                if hand.can_pass(seat):
                    await tap(app, t, user, hand_message(world, user, t.game_id), "N")
            await nap(t)
        elif (seat := hand.turn) not in t.users:
            await nap(t)  # a computer's move is due
        elif hand.phase == "chaodi":
            user = t.users[seat]
            await tap(app, t, user, hand_message(world, user, t.game_id), "N")
        else:  # burying or playing: Hint, then Bury/Play the hinted cards
            user = t.users[seat]
            msg = hand_message(world, user, t.game_id)
            if find(msg, "H") is None:
                await nap(t)
                continue
            await tap(app, t, user, msg, "H")
            await quiet(app, t)
            await tap(app, t, user, hand_message(world, user, t.game_id), "P")
    raise AssertionError(f"table {t.index}: the hand did not end")


async def seat(world: FakeTelegram, app: Any, t: Table) -> None:
    people = list(t.users.values())
    t.game_id, _ = await seat_players(world, t.group, people)
    for _ in range(4 - len(people)):
        lobby = world.last_message(t.group, from_bot=True)
        await people[0].press(lobby, data=find(lobby, "C").data)  # type: ignore[union-attr]
        await world.settle()
    # every seat is taken: the lobby's Start button is there
    assert any(b.data and b.data.startswith("S|") for b in buttons(lobby_of(world, t)))


def lobby_of(world: FakeTelegram, t: Table) -> Message:
    return world.last_message(t.group, from_bot=True)


async def run(games: int, humans: int, hands: int, db_dir: Path) -> Run:
    async with FakeTelegram(http=False) as world:
        tables = []
        for i in range(games):
            people = [world.user(f"P{i}.{s}", started=True) for s in range(humans)]
            group = world.group(f"Table {i}", members=people[1:], admins=people[:1])
            tables.append(Table(i, group, dict(enumerate(people))))
        with tempfile.TemporaryDirectory(dir=db_dir) as tmp:
            async with running_bot(world, Path(tmp) / "bench.sqlite3") as app:
                for t in tables:  # one after the other: not measured
                    await seat(world, app, t)
                await world.settle()
                wire_wakeups(world, tables)
                t0 = time.perf_counter()
                await asyncio.gather(*(play(world, app, t, hands) for t in tables))
                seconds = time.perf_counter() - t0
    return Run(games, humans, seconds, tables)


def report(runs: list[Run]) -> None:
    print(
        f"{'G':>3} {'humans':>6} {'presses':>7} {'med ms':>7} {'p95 ms':>7} {'dm ms':>6} "
        f"{'A med':>6} {'presses/s':>9} {'hands':>5} {'hands/min':>9} {'hand s':>6}"
    )
    for r in runs:
        lat = r.latencies
        presses = len(lat)
        hands = sum(t.hands for t in r.tables)
        a = [ms(x) for x in r.tables[0].presses]
        dm = [x for t in r.tables for x in t.dm_ms]
        hand_s = [x for t in r.tables for x in t.hand_s]
        print(
            f"{r.games:>3} {r.humans:>6} {presses:>7} {statistics.median(lat):>7.2f} "
            f"{p95(lat):>7.2f} {statistics.median(dm):>6.2f} {statistics.median(a):>6.2f} "
            f"{presses / r.seconds:>9.0f} {hands:>5} {hands / r.seconds * 60:>9.0f} "
            f"{statistics.median(hand_s):>6.2f}"
        )
    alone = next((r for r in runs if r.games == 1), None)
    busy = max(runs, key=lambda r: r.games)
    if alone is not None and busy.games > 1:
        a1 = statistics.median(ms(x) for x in alone.tables[0].presses)
        an = statistics.median(ms(x) for x in busy.tables[0].presses)
        all1, alln = statistics.median(alone.latencies), statistics.median(busy.latencies)
        h1 = statistics.median(alone.tables[0].hand_s)
        hn = statistics.median(busy.tables[0].hand_s)
        print(
            f"isolation, G={busy.games} vs G=1: game A median press x{an / a1:.2f}, "
            f"all presses x{alln / all1:.2f}, game A hand time x{hn / h1:.2f}"
        )


async def main_async(args: argparse.Namespace) -> None:
    runs = []
    for g in args.games:
        r = await run(g, args.humans, args.hands, args.db_dir)
        runs.append(r)
        print(f"G={g}: {len(r.latencies)} presses in {r.seconds:.1f}s", file=sys.stderr)
    report(runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=lambda s: [int(x) for x in s.split(",")], default=[1, 4, 16])
    ap.add_argument("--hands", type=int, default=1, help="hands per game")
    ap.add_argument("--humans", type=int, default=4, choices=(1, 2, 3, 4))
    ap.add_argument("--db-dir", type=Path, default=Path(tempfile.gettempdir()))
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    t0 = time.perf_counter()
    asyncio.run(main_async(args))
    print(f"total {time.perf_counter() - t0:.0f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
