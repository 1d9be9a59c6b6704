"""Computer players' decision times: median, p95, p99 and max per decision.

    .venv/bin/python bench/bench_players.py [--player heuristic] [--hands 200]
        [--budget-ms N] [--others heuristic]

CPU time of this thread (the machine is shared: wall time would count other processes),
with the garbage collector paused during each timed call (``--gc`` lets it run: its pauses
come from the whole process's garbage, here the pydantic hand states, not from the decision).
Seats 0 and 2 use ``--player`` (timed), seats 1 and 3 ``--others``; later hands of the
classic preset at level 5, dealt at once: every decision of the after-deal window (show
or pass), 炒底, the bury and card play, in all and by kind (one core, this process).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.duplicate_eval import load  # noqa: E402
from engine.hand import Deal, HandState  # noqa: E402
from engine.rules import RuleSet  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--player", default="heuristic")
    ap.add_argument("--others", default="heuristic")
    ap.add_argument("--budget-ms", type=int, default=None)
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--gc", action="store_true", help="let the garbage collector run")
    args = ap.parse_args()
    timed, others = load(args.player, args.budget_ms), load(args.others, args.budget_ms)
    rules = RuleSet.from_preset("classic")
    times: list[float] = []
    kinds: dict[str, list[float]] = {}
    for i in range(args.hands):
        state = HandState.new(rules, 90_000 + i, 2, i % 4, [3, 3])
        rng = random.Random(i)
        state.apply(Deal(n=100))
        while state.phase != "done":
            if state.phase == "after_deal":
                seat = next(s for s in range(4) if state.can_pass(s))
            else:
                seat = state.turn
            obs = state.observation(seat)
            player = timed if seat % 2 == 0 else others
            if not args.gc:
                gc.disable()
            t0 = time.thread_time()
            action = player(obs, rng)
            dt = time.thread_time() - t0
            gc.enable()
            if seat % 2 == 0:
                kind = "declaring" if state.phase in ("after_deal", "chaodi") else state.phase
                times.append(dt * 1000)
                kinds.setdefault(kind, []).append(dt * 1000)
            state.apply(action)
    print(f"{args.player}: {len(times)} decisions in {args.hands} hands; ms per decision:")
    for kind, xs in [("all", times), *sorted(kinds.items())]:
        print(f"  {kind:9} {summary(xs)}")


def summary(xs: list[float]) -> str:
    xs = sorted(xs)

    def q(p: float) -> float:
        return xs[min(len(xs) - 1, int(p * len(xs)))]

    return (
        f"n {len(xs):5}  median {statistics.median(xs):.3f}  p95 {q(0.95):.3f}"
        f"  p99 {q(0.99):.3f}  max {xs[-1]:.3f}"
    )


if __name__ == "__main__":
    main()
