"""The declaring search's thinking: CPU ms and sampled worlds per decision, on fixed moments.

    .venv/bin/python bench/bench_declare.py [--positions 60] [--budget-ms 300] [--batch 3]

Moments are seats that may show in heuristic hands of the classic preset (later hands,
seeds from 7000, dealt ``--batch`` cards a seat at a time): while dealing, in the
after-deal window and in 炒底. Each decision is the search player's with ``declare=1``
and the same random stream. CPU time of this thread, the garbage collector paused during
each decision. Prints the median, p95 and max, and the worlds each option met.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.hand import Deal, HandState, Observation, Show  # noqa: E402
from engine.players import declare, heuristic  # noqa: E402
from engine.players.search import DEFAULT_BUDGET_MS, PLAYS_PER_MS, SearchPlayer  # noqa: E402
from engine.rules import RuleSet  # noqa: E402


def moments(n: int, batch: int) -> list[Observation]:
    out: list[Observation] = []
    rng = random.Random(0)
    seed = 0
    while len(out) < n:
        state = HandState.new(RuleSet.from_preset("classic"), 7000 + seed, 2, seed % 4, [3, 3])
        seed += 1
        while state.phase not in ("playing", "done") and len(out) < n:
            if state.phase == "dealing":
                state.apply(Deal(n=4 * batch))
                for seat in range(4):
                    obs = state.observation(seat)
                    if state.phase == "dealing" and obs.show_options:
                        out.append(obs)
                        action = heuristic.choose_action(obs, rng)
                        if isinstance(action, Show):
                            state.apply(action)
                continue
            if state.phase == "after_deal":
                seat = next(s for s in range(4) if state.can_pass(s))
            else:
                assert state.turn is not None
                seat = state.turn
            obs = state.observation(seat)
            if obs.show_options:
                out.append(obs)
            state.apply(heuristic.choose_action(obs, rng))
    return out[:n]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--budget-ms", type=int, default=DEFAULT_BUDGET_MS)
    ap.add_argument("--batch", type=int, default=3)
    args = ap.parse_args()
    player = SearchPlayer(budget_ms=args.budget_ms, declare=1)
    plays = args.budget_ms * PLAYS_PER_MS * declare.BUDGET_FACTOR
    ms: list[float] = []
    worlds: list[int] = []
    phases: Counter[str] = Counter()
    for obs in moments(args.positions, args.batch):
        options = len({tuple(o) for o in obs.show_options}) + 1
        gc.disable()
        t = time.thread_time()
        player(obs, random.Random(1))
        ms.append((time.thread_time() - t) * 1000)
        gc.enable()
        worlds.append(min(player.max_worlds, plays // (options * declare.ROLLOUT_PLAYS)))
        phases[obs.phase] += 1
    ms.sort()
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    print(f"{len(ms)} decisions {dict(phases)}, budget {args.budget_ms} ms (CPU ms of one core)")
    print(f"  median {statistics.median(ms):.0f}  p95 {p95:.0f}  max {ms[-1]:.0f}")
    print(f"  worlds per option: median {statistics.median(worlds):.0f}, min {min(worlds)}")


if __name__ == "__main__":
    main()
