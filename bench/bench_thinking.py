"""Press latency while computers think: ten search decisions in flight against none.

    .venv/bin/python bench/bench_thinking.py [--thinkers 10] [--hands 2] [--strength hard]

One group of four people plays whole hands through its DM keyboards on the fake
Telegram, as in ``bench/bench_bot.py`` (Hint then Play as fast as they can), three
times: with no computer thinking; with ``--thinkers`` search decisions of other games
in flight at once through the bot's own ``Computers`` (its process pool: each finished
decision is replaced by the next); and, to show what the pool buys, with the same
decisions made in the event loop. Prints median, p95, p99 and max press→answer (the
fake's ``answered_at - created_at``), presses still unanswered when a run hit ``--limit``
seconds, and how many decisions the thinkers made.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_bot import Table, ms, play, seat, wire_wakeups  # noqa: E402
from bot.edges.computer import player_for
from bot.fake_telegram import FakeTelegram  # noqa: E402
from engine.hand import Deal, HandState, Observation  # noqa: E402
from engine.players import get  # noqa: E402
from engine.rules import RuleSet  # noqa: E402
from tests.e2e.harness import running_bot, service  # noqa: E402


def positions(n: int) -> list[Observation]:
    """Observations of seats to play in heuristic hands (a few tricks in)."""
    out: list[Observation] = []
    player, rng = get("heuristic"), random.Random(0)
    seed = 0
    while len(out) < n:
        state = HandState.new(RuleSet.from_preset("classic"), 4000 + seed, 2, seed % 4, [3, 3])
        seed += 1
        state.apply(Deal(n=100))
        while state.phase != "done":
            seat_ = (
                next(s for s in range(4) if state.can_pass(s))
                if state.phase == "after_deal"
                else state.turn
            )
            obs = state.observation(seat_)
            if state.phase == "playing" and 2 <= len(state.tricks) <= 12 and rng.random() < 0.2:
                out.append(obs)
            state.apply(player(obs, rng))
    return out[:n]


async def thinker(app, mode: str, strength: str, queue: list[Observation], done: list[int]):  # type: ignore[no-untyped-def]
    computers = service(app).deadlines.computers
    player = player_for(strength)
    rng = random.Random(len(done))
    i = 0
    while True:
        obs = queue[i % len(queue)]
        i += 1
        if mode == "pool":
            await computers.act(strength, obs, rng)
        else:  # in the event loop: what the pool avoids
            player(obs, rng)
            await asyncio.sleep(0)
        done[0] += 1


async def run(  # type: ignore[no-untyped-def]
    mode: str, thinkers: int, strength: str, hands: int, obs: list[Observation], limit: float
):
    async with FakeTelegram(http=False) as world:
        people = [world.user(f"P{s}", started=True) for s in range(4)]
        group = world.group("Table", members=people[1:], admins=people[:1])
        table = Table(0, group, dict(enumerate(people)))
        with tempfile.TemporaryDirectory() as tmp:
            async with running_bot(world, Path(tmp) / "bench.sqlite3") as app:
                await seat(world, app, table)
                await world.settle()
                wire_wakeups(world, [table])
                if mode == "pool":  # start the workers before measuring
                    await service(app).deadlines.computers.act(strength, obs[0], random.Random(0))
                done = [0]
                tasks = [
                    asyncio.create_task(thinker(app, mode, strength, obs[k::thinkers], done))
                    for k in range(thinkers)
                ]
                t0 = time.perf_counter()
                try:  # blocked by thinking in the loop, the hand may not end in time
                    await asyncio.wait_for(play(world, app, table, hands), limit)
                except (TimeoutError, AssertionError):  # AssertionError: a press stuck 30 s
                    pass
                seconds = time.perf_counter() - t0
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
    answered = sorted(ms(r) for r in table.presses if r.answered_at is not None)
    return answered, len(table.presses) - len(answered), done[0], seconds


def q(xs: list[float], p: float) -> float:
    return xs[min(len(xs) - 1, int(p * len(xs)))]


async def main_async(args: argparse.Namespace) -> None:
    obs = positions(max(40, args.thinkers * 4))
    print(
        f"{'thinkers':>8} {'where':>6} {'presses':>7} {'med ms':>7} {'p95 ms':>7} {'p99 ms':>7}"
        f" {'max ms':>7} {'unanswered':>10} {'decisions':>9} {'seconds':>7}"
    )
    for mode, n in (("none", 0), ("pool", args.thinkers), ("loop", args.thinkers)):
        lat, lost, decisions, seconds = await run(
            mode, n, args.strength, args.hands, obs, args.limit
        )
        if not lat:  # nothing answered within the limit
            print(
                f"{n:>8} {mode:>6} {0:>7} {'-':>7} {'-':>7} {'-':>7} {'-':>7} {lost:>10}"
                f" {decisions:>9} {seconds:>7.1f}",
                flush=True,
            )
            continue
        print(
            f"{n:>8} {mode:>6} {len(lat):>7} {statistics.median(lat):>7.1f} {q(lat, 0.95):>7.1f}"
            f" {q(lat, 0.99):>7.1f} {lat[-1]:>7.1f} {lost:>10} {decisions:>9} {seconds:>7.1f}",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--thinkers", type=int, default=10)
    ap.add_argument("--hands", type=int, default=2)
    ap.add_argument("--strength", default="hard", choices=("normal", "hard"))
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per run at most")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
