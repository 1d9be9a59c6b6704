"""The search player's thinking: CPU ms and sampled worlds per decision, on fixed positions.

    .venv/bin/python bench/bench_search.py [--positions 100] [--budget-ms 300]
        [--phase middle|endgame] [--decisions out.txt] [--halving 1]

Positions are seats to play in heuristic hands of the classic preset (about one in seven
plays, seeds from 4000): ``middle`` while some hand holds more than 4 cards (playouts),
``endgame`` once none does (exact solving). Each decision gets the same random stream,
so two versions of the player can be compared decision by decision (``--decisions``
writes one line per position) and by CPU time for the same worlds: a faster player
spends less CPU on the same worlds, as the budget is counted in simulated plays.
CPU time of this thread, the garbage collector paused during each decision. Prints the
median, p95 and max over the decisions that searched (sampled at least one world), and
how many of those drew as many worlds as ``max_worlds`` allows (where the cap, not the
budget, set the number of worlds).
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

import engine.players.search as search  # noqa: E402
from engine.hand import Deal, HandState, Observation  # noqa: E402
from engine.players import get  # noqa: E402
from engine.rules import RuleSet  # noqa: E402

ENDGAME = 4  # cards per hand at most, for --phase endgame


def positions(n: int, endgame: bool) -> list[Observation]:
    out: list[Observation] = []
    player, rng = get("heuristic"), random.Random(0)
    seed = 0
    while len(out) < n:
        state = HandState.new(RuleSet.from_preset("classic"), 4000 + seed, 2, seed % 4, [3, 3])
        seed += 1
        state.apply(Deal(n=100))
        while state.phase != "done":
            if state.phase == "after_deal":
                seat = next(s for s in range(4) if state.can_pass(s))
            else:
                seat = state.turn
            obs = state.observation(seat)
            late = max(obs.card_counts) <= ENDGAME
            if state.phase == "playing" and late == endgame and rng.random() < 0.15:
                out.append(obs)
            state.apply(player(obs, rng))
    return out[:n]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=100)
    ap.add_argument("--budget-ms", type=int, default=search.DEFAULT_BUDGET_MS)
    ap.add_argument("--phase", choices=("middle", "endgame"), default="middle")
    ap.add_argument("--decisions", default=None, help="write each decision to this file")
    ap.add_argument("--halving", type=int, default=0, help="1: successive halving of candidates")
    args = ap.parse_args()
    obs = positions(args.positions, args.phase == "endgame")
    worlds = [0]
    sample = search.sample

    def counted(*a, **k):  # type: ignore[no-untyped-def]
        worlds[0] += 1
        return sample(*a, **k)

    search.sample = counted  # type: ignore[assignment]
    player = search.SearchPlayer(budget_ms=args.budget_ms, halving=args.halving)
    times: list[float] = []
    per: list[int] = []
    decisions: list[list[int]] = []
    for o in obs:
        worlds[0] = 0
        gc.disable()
        t0 = time.thread_time()
        decisions.append(sorted(player.play(o, random.Random(1))))
        dt = (time.thread_time() - t0) * 1000
        gc.enable()
        if worlds[0]:
            times.append(dt)
            per.append(worlds[0])
    times.sort()
    print(
        f"{args.phase}, budget {args.budget_ms} ms: searched {len(times)} of {len(obs)} positions;"
        f" CPU ms per decision median {statistics.median(times):.1f}"
        f"  p95 {times[int(0.95 * len(times))]:.1f}  max {times[-1]:.1f};"
        f" worlds per decision median {statistics.median(per):g};"
        f" capped at max_worlds ({player.max_worlds}) in {sum(w >= player.max_worlds for w in per)}"
    )
    if args.decisions:
        Path(args.decisions).write_text("".join(f"{d}\n" for d in decisions))


if __name__ == "__main__":
    main()
