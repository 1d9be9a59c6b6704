"""What a person waits for during the deal: from a deal batch's timer going off to the
batch shown with the computers' shows, by computer strength.

    .venv/bin/python bench/bench_deal_latency.py [--hands 8] [--strengths easy,normal,hard]
        [--burn 0]

A table of one person (who never shows) and three computers, the bot's pace (3 cards a
seat a batch, ``bot.infra.config.Settings``), classic rules, hand 1 of seeds from 5000. Every
deal timer and after-deal window timer goes the bot's way (``bot.edges.timers.Deadlines``):
at a search strength the computers' shows are decided in the process pool (2 workers,
warmed up first) before the timer's change; easy decides them with the heuristic inside
the change. Timed: the decisions plus the change (``bot.table.apply``), wall clock; the
deal pace itself (1.5 s) is not waited. Prints medians, p95 and max per timer kind, the
same over the timers at which a computer thought in the pool ("searched": the others
cost what easy does); "seen": of those, what the batch waits for once its timer is due,
the thinking having started when the timer was armed (``bot.edges.timers``: the deal's pace or
the computers' delay covers it); and how many decisions went to the pool. ``--burn N``
runs N CPU burner processes meanwhile (``bench/burn.py``; it prints the machine's load):
each search decision then stops at the bot's wall-clock ceiling (``bot.edges.computer``).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.burn import Burners  # noqa: E402
from bot import table
from bot.data.saved import GameRecord
from bot.edges import computer
from bot.edges.computer import Computers
from bot.infra.config import Settings
from bot.table import Moment, Table  # noqa: E402
from bot.table.commands import AddComputer, Join, Start, Tick, Token  # noqa: E402


def new_table(seed: int, strength: str, settings: Settings) -> Table:
    rec = GameRecord(id=1, chat_id=-1, creator_id=1, seed=seed, created_at=0.0)
    rec.computer_strength = strength
    t = Table(rec)
    at = Moment(0.0, 0.0)
    table.apply(t, Join(0, 1, "Ann", "en"), settings, at)
    for command in (AddComputer(1), AddComputer(1), AddComputer(1), Start(1)):
        table.apply(t, command, settings, at)
    assert t.match is not None
    return t


async def decide(t: Table, token: Token, computers: Computers, settings: Settings) -> Tick:
    """``bot.edges.timers.Deadlines._think`` for a show window's timer."""
    strength = t.rec.computer_strength
    if not computer.searches(strength):
        return Tick(token)
    asked = table.showing(t, token, settings)
    shows = await asyncio.gather(*(computers.act(strength, o, r) for o, r in asked))
    return Tick(token, shows={o.seat: a for (o, _), a in zip(asked, shows, strict=True)})


async def run(strength: str, hands: int, computers: Computers, settings: Settings) -> None:
    times: dict[str, list[float]] = {"deal": [], "robots": [], "searched": [], "seen": []}
    before = sum(computers.searched.values())
    now = 0.0
    for seed in range(5000, 5000 + hands):
        t = new_table(seed, strength, settings)
        assert t.match is not None
        while t.match.hand.phase in ("dealing", "after_deal"):
            due = table.due(t, settings, Moment(now, now))
            assert due is not None
            token, delay = due
            now += delay
            if token[2] not in times:  # the person's own window: the deal is over
                break
            asked = sum(computers.searched.values())
            start = time.perf_counter()
            tick = await decide(t, token, computers, settings)
            table.apply(t, tick, settings, Moment(now, now))
            took = time.perf_counter() - start
            times[token[2]].append(took)
            if sum(computers.searched.values()) > asked:  # a computer thought
                times["searched"].append(took)
                # decided while the timer waits (bot.edges.timers): what is left after its delay
                times["seen"].append(max(0.0, took - delay))
    searched = sum(computers.searched.values()) - before
    for kind, xs in times.items():
        if not xs:
            continue
        xs.sort()
        p95 = xs[min(len(xs) - 1, int(0.95 * len(xs)))]
        print(
            f"{strength:7} {kind:7} n={len(xs):3}  median {1000 * statistics.median(xs):7.1f} ms"
            f"  p95 {1000 * p95:7.1f} ms  max {1000 * xs[-1]:7.1f} ms"
        )
    print(f"{strength:7} decisions in the pool: {searched}")


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=8)
    ap.add_argument("--strengths", default="easy,normal,hard")
    ap.add_argument("--burn", type=int, default=0, help="CPU burner processes meanwhile")
    args = ap.parse_args()
    settings = Settings(_env_file=None, bot_token="0:x")  # type: ignore[call-arg]
    computers = Computers(
        wall_factor=settings.computer_wall_factor,
        wall_max_seconds=settings.computer_wall_max_seconds,
    )
    try:
        await run("normal", 1, computers, settings)  # start and warm the pool's workers
        print("--")
        with Burners(args.burn) as burners:
            for strength in args.strengths.split(","):
                await run(strength, args.hands, computers, settings)
        print(burners.summary())
    finally:
        computers.close()


if __name__ == "__main__":
    asyncio.run(main())
