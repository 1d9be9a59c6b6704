"""Soak the bot: the chaos scenario of ``tests/e2e/test_chaos.py`` (a crowd playing two
groups at once through the fake Telegram, with stale, foreign and forged presses, stray
commands, idle players, takeovers and restarts) for longer, over several seeds.

    .venv/bin/python bench/soak_bot.py [--games 4] [--seeds 5] [--first-seed 100]
                                       [--hands 3] [--restart-rate 0.01]

``--games``: matches played in each group per seed; ``--hands``: after this many hands a
match is ended with /endgame (start level A: many end earlier with a winner).
Prints one line per seed and a summary; exits 1 if any invariant failed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.e2e.test_chaos import Stats, run_chaos  # noqa: E402


async def soak(args: argparse.Namespace) -> Stats:
    total = Stats()
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            try:
                stats = await run_chaos(
                    Path(tmp),
                    seed,
                    matches=args.games,
                    hand_bound=args.hands,
                    max_steps=args.max_steps,
                    restart_rate=args.restart_rate,
                )
            except Exception as e:  # a crash of the scenario itself is a failure too
                stats = Stats(seed=seed, failures=[f"seed {seed}: {type(e).__name__}: {e}"])
            total.add(stats)
            status = "ok" if not stats.failures else "FAIL " + stats.failures[0][:300]
            print(
                f"seed {seed}: {stats.finished} won + {stats.ended} ended, {stats.hands} hands, "
                f"{stats.steps} steps, {stats.presses} presses ({stats.alerts} alerts), "
                f"{stats.restarts} restarts, {stats.seconds:.1f}s: {status}",
                flush=True,
            )
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4, help="matches per group per seed")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=100)
    parser.add_argument("--hands", type=int, default=3, help="hands before /endgame")
    parser.add_argument("--max-steps", type=int, default=20000)
    parser.add_argument("--restart-rate", type=float, default=0.01)
    args = parser.parse_args()
    t0 = time.perf_counter()
    total = asyncio.run(soak(args))
    wall = time.perf_counter() - t0
    print(
        f"\n{args.seeds} seeds in {wall:.0f}s: {total.finished + total.ended} matches "
        f"({total.finished} won, {total.ended} ended), {total.hands} hands, "
        f"{total.steps} steps, {total.presses} presses, {total.alerts} alerts "
        f"({total.refused_plays} refused plays), {total.stale} stale, {total.foreign} foreign, "
        f"{total.forged} forged, {total.commands} commands, {total.timeouts} time-outs, "
        f"{total.takeovers} takeovers, {total.restarts} restarts; "
        f"invariant failures: {len(total.failures)}"
    )
    for failure in total.failures:
        print("  " + failure[:2000])
    return 1 if total.failures else 0


if __name__ == "__main__":
    sys.exit(main())
