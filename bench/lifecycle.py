"""Memory over a long run: does a finished match leave the bot's memory?

    nice -n 10 .venv/bin/python bench/lifecycle.py [--matches 1000] [--marks 0,100,1000]

One bot process (the real Application from ``bot.app.build_application``, its
pacing on a virtual clock so no real time is waited) against the in-process fake
Telegram plays ``--matches`` short matches one after another, each in a new group
with a new person, as a host sees them: /newgame, the person takes a seat through its
deep link, adds three computers and taps Start (the deal begins, their DM gets the
hand), then /endgame and its confirm button. After each match, once the bot has
delivered its last messages, the fake forgets the group and the person (so that only
the bot's memory is measured). At each mark the bench prints the process's RSS (after
a full garbage collection) and the size of every per-game and per-chat structure of
the bot: games, what was published of them, timers, outboxes and their slots, the
lobby's and the update processor's locks, the rate limiter's buckets, the membership
cache and the ``shown`` rows in the store.

Figures (2 cores shared with other sessions; see docs/scaling.md for the dated run).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bot.app import ALLOWED_UPDATES, build_application  # noqa: E402
from bot.fake_telegram import FakeTelegram  # noqa: E402
from bot.infra.config import Settings  # noqa: E402

# the bot's own pauses cost nothing (a virtual clock); timers as in the e2e tests
QUICK = dict(
    deal_pace_seconds=0.01,
    group_interval_seconds=0.0,
    dm_interval_seconds=0.0,
    computer_delay_seconds=0.0,
    computer_strength="easy",  # the heuristic: what a game leaves behind, not its search
)


# how far the clock moves on after each match (a match lasts longer than that)
MATCH_SECONDS = 60.0


class JumpClock:
    """The bot's pacing clock: the fake's; a pause moves it on (no real waiting)."""

    def __init__(self, world: FakeTelegram) -> None:
        self.world = world

    def now(self) -> float:
        return self.world.clock.now()

    def wall(self) -> float:
        return self.world.clock.now()

    async def sleep(self, seconds: float) -> None:
        self.world.clock.advance(max(0.0, seconds))
        await asyncio.sleep(0)


def bot_busy(app: Any) -> bool:
    """The bot is still at work: an update in a handler, a game changing, a message
    state not delivered, a timer due within 50 ms."""
    if not app.bot_data.running:
        return False
    svc = app.bot_data.service
    if len(app.update_processor.locks) or any(g.lock.locked() for g in svc.games.values()):
        return True
    if svc.publisher.outboxes.pending():
        return True
    now = datetime.now(UTC)
    return any(
        j.next_t is not None and (j.next_t - now).total_seconds() < 0.05
        for j in app.job_queue.jobs()
    )


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def button(msg: Any, kind: str) -> Any:
    for row in msg.buttons():
        for b in row:
            if b.data and b.data.split("|", 1)[0] == kind:
                return b
    return None


async def structures(app: Any) -> dict[str, int]:
    """How many entries each per-game or per-chat structure of the bot holds."""
    svc = app.bot_data.service
    pub, boxes = svc.publisher, svc.publisher.outboxes._boxes
    limiter = app.bot.rate_limiter
    members = app.bot_data.members
    await svc.store.flush()  # the notes of what messages show, written with a commit
    async with svc.store.db.execute("SELECT count(*) FROM shown") as cur:
        row = await cur.fetchone()
    return {
        "games": len(svc.games),
        "games retiring": len(svc._retiring),
        "publisher DMs": len(pub._dms),
        "publisher won_at": len(pub._won_at),
        "publisher pressed": len(pub._pressed),
        "armed timers": len(svc.deadlines._armed),
        "jobs": len(app.job_queue.jobs()),
        "outboxes": len(boxes),
        "outbox slots": sum(len(b.slots) for b in boxes.values()),
        "outbox dropped keys": sum(len(b._dropped) for b in boxes.values()),
        "lobby chat locks": len(app.bot_data.lobby._chat_locks),
        "update locks": len(app.update_processor.locks),
        "limiter groups": len(limiter._groups),
        "limiter holds": len(limiter._held),
        "members known": len(members._known),
        "shown rows": row[0] if row else 0,
    }


async def until(cond: Callable[[], object], what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := cond()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.002)
    return value


async def play_match(world: FakeTelegram, app: Any, i: int) -> None:
    """One short match in a new group with a new person, ended by /endgame."""
    svc = app.bot_data.service
    ann = world.user(f"Ann{i}", started=True)
    group = world.group(f"Table {i}", admins=[ann])

    def bot_says(kind: str) -> Any:
        """The bot's newest message in the group, if it has a ``kind`` button."""
        for msg in reversed(world.transcript(group)):
            if msg.from_bot:
                return msg if button(msg, kind) is not None else None
        return None

    def game() -> Any:
        return next((g for g in svc.games.values() if g.rec.chat_id == group.id), None)

    await ann.send(group, "/newgame", settle=False)
    lobby = await until(lambda: game() and bot_says("S"), "the lobby")
    link = next(b for r in lobby.buttons() for b in r if b.url and b.url.endswith("_0"))
    await ann.press(lobby, text=link.text, settle=False)
    await until(lambda: game().rec.seats[0].user_id == ann.id, "the seat")
    for seat in (1, 2, 3):
        await ann.press(lobby, data=button(lobby, "C").data, settle=False)
        await until(lambda s=seat: game().rec.seats[s].computer, "a computer")
    await ann.press(lobby, data=button(lobby, "S").data, settle=False)
    started = await until(lambda: (g := game()) and g.rec.status == "running" and g, "the start")
    await until(lambda: any(m.from_bot for m in world.transcript(ann)), "the DM")
    await ann.send(group, "/endgame", settle=False)
    question = await until(lambda: bot_says("E"), "the /endgame question")
    await ann.press(question, data=button(question, "E").data, settle=False)
    game_id = started.rec.id
    # it ends, and leaves memory once its last messages are delivered
    await until(lambda: game_id not in svc.games and game_id not in svc._retiring, "its end")
    forget(world, [group.id, ann.id])


async def worker(world: FakeTelegram, app: Any, queue: Iterator[int]) -> None:
    for i in queue:
        await play_match(world, app, i)


def forget(world: FakeTelegram, chat_ids: list[int]) -> None:
    """The fake forgets these chats and everything it logged (only the bot is measured);
    time moves on as between two matches of a host (caches of the bot expire)."""
    world.clock.advance(MATCH_SECONDS)
    core = world.core
    for chat_id in chat_ids:
        core.chats.pop(chat_id, None)
        core.users.pop(chat_id, None)
        core.accounting.by_chat.pop(chat_id, None)
    core.accounting.overall.clear()
    core.log.clear()
    core.callbacks.clear()


async def run(
    matches: int,
    marks: list[int],
    report: Callable[[int, int, dict[str, int]], Awaitable[None]],
    parallel: int = 8,
) -> None:
    """Play ``matches`` matches, ``parallel`` at a time; at each mark (a number of
    finished matches) call ``report(n, rss, structures)``."""
    async with FakeTelegram(http=False) as world:
        # the store on a RAM disk where there is one: memory is measured, not fsyncs
        ram = "/dev/shm" if os.path.isdir("/dev/shm") else None
        with tempfile.TemporaryDirectory(dir=ram) as tmp:
            settings = Settings(
                _env_file=None,  # type: ignore[call-arg]
                bot_token=world.token,
                database_path=Path(tmp) / "lifecycle.sqlite3",
                **QUICK,  # type: ignore[arg-type]
            )
            app = build_application(
                settings,
                request=world.request(),
                get_updates_request=world.request(),
                clock=JumpClock(world),
            )
            world.settle_quiet = 0.005
            busy = lambda: bot_busy(app)  # noqa: E731
            async with world.running(app, allowed_updates=ALLOWED_UPDATES, busy=busy):
                done = 0
                for mark in sorted(set(marks) | {matches}):
                    # ``parallel`` tables at a time, all idle at each mark
                    queue = iter(range(done, mark))
                    await asyncio.gather(*(worker(world, app, queue) for _ in range(parallel)))
                    await world.settle()
                    done = mark
                    if mark in marks:
                        gc.collect()
                        await report(mark, rss(), await structures(app))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--marks", type=lambda s: [int(x) for x in s.split(",")], default=None)
    ap.add_argument("--parallel", type=int, default=8, help="tables playing at a time")
    args = ap.parse_args(argv)
    marks = args.marks or [0, 100, args.matches]
    rows: list[tuple[int, int, dict[str, int]]] = []
    t0 = time.monotonic()

    async def report(n: int, size: int, s: dict[str, int]) -> None:
        rows.append((n, size, s))
        print(f"after {n} matches: RSS {size / 2**20:.1f} MiB ({time.monotonic() - t0:.0f} s)")

    asyncio.run(run(args.matches, marks, report, args.parallel))
    names = list(rows[0][2])
    print(f"\n{'finished matches':<22}" + "".join(f"{n:>10}" for n, _, _ in rows))
    print(f"{'RSS MiB':<22}" + "".join(f"{size / 2**20:>10.1f}" for _, size, _ in rows))
    for name in names:
        print(f"{name:<22}" + "".join(f"{s[name]:>10}" for _, _, s in rows))
    if len(rows) >= 3:
        (a, ra, _), (b, rb, _) = rows[-2], rows[-1]
        print(f"\nRSS growth from {a} to {b} matches: {(rb - ra) / 1024 / (b - a):.2f} KiB a match")


if __name__ == "__main__":
    main()
