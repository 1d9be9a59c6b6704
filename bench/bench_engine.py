"""Engine speed: random full hands per second, follow-legality checks per second.

    .venv/bin/python bench/bench_engine.py [--runs 5] [--hands 200]

Prints the median of several runs (one core, this process) and each run's figure.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engine.cards import parse_cards
from engine.hand import HandState
from engine.players.randomplayer import random_action
from engine.ranking import TrumpContext
from engine.rules import RuleSet
from engine.tricks import is_legal_follow, random_follow


def hands_per_second(n: int, seed: int) -> float:
    rules = RuleSet.from_preset("classic")
    rng = random.Random(seed)
    t0 = time.perf_counter()
    for i in range(n):
        state = HandState.new(rules, seed * 100_000 + i, 2, i % 4, [i % 13, (i + 3) % 13])
        while state.phase != "done":
            state.apply(random_action(state, rng))
    return n / (time.perf_counter() - t0)


def follow_checks_per_second(n: int, seed: int) -> float:
    rng = random.Random(seed)
    ctx = TrumpContext(8, 0, False)
    leads = [parse_cards(x) for x in ("AH", "9H 9H", "5C 5C 4C 4C", "AD KD KD", "3S 3S", "QC")]
    cases = []
    for _ in range(200):
        shoe = list(range(54)) * 2
        rng.shuffle(shoe)
        hand = shoe[:25]
        lead = rng.choice(leads)
        cases.append((lead, hand, random_follow(ctx, lead, hand, rng)))
        cases.append((lead, hand, rng.sample(hand, len(lead))))
    t0 = time.perf_counter()
    k = 0
    while k < n:
        for lead, hand, play in cases:
            is_legal_follow(ctx, lead, hand, play)
        k += len(cases)
    return k / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--checks", type=int, default=100_000)
    args = ap.parse_args()
    for name, fn, n in (
        ("random full hands/s (deal → result)", hands_per_second, args.hands),
        ("follow-legality checks/s", follow_checks_per_second, args.checks),
    ):
        runs = [fn(n, seed) for seed in range(args.runs)]
        print(f"{name}: median {statistics.median(runs):,.0f}  runs {[round(r) for r in runs]}")


if __name__ == "__main__":
    main()
