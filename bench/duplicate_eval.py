"""Duplicate evaluation of two computer players (../shared/notes/computer-players.md).

    .venv/bin/python bench/duplicate_eval.py [--pairs 200] [--a heuristic] [--b random]
    (a player is `heuristic`, `random`, or `module:function` taking (observation, rng))

Each deal is played twice with the teams swapped; the unit is the deal pair. Prints the
mean paired difference in the attackers' points and in levels per hand, with a 95%
interval. A player against itself scores exactly zero.
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
from collections.abc import Callable

from engine.hand import Deal, HandState, Observation
from engine.players import choose_action
from engine.players.randomplayer import random_seat_action
from engine.rules import RuleSet

Player = Callable[[Observation, random.Random], object]


def load(name: str) -> Player:
    if name == "heuristic":
        return choose_action
    if name == "random":
        return random_seat_action
    module, func = name.split(":")
    return getattr(importlib.import_module(module), func)


def play(rules: RuleSet, seed: int, players: list[Player]) -> HandState:
    """One hand (a later hand, dealer seat 0, both teams at level 5); seats 0/2 use players[0]."""
    state = HandState.new(rules, seed, 2, 0, [3, 3])
    rng = random.Random(seed)
    while state.phase != "done":
        if state.phase == "dealing":
            state.apply(Deal(n=100))
            continue
        if state.phase == "after_deal":
            seat = next(s for s in range(4) if state.can_pass(s))
        else:
            seat = state.turn
        action = players[seat % 2](state.observation(seat), rng)
        state.apply(action)
    return state


def value(state: HandState, team: int) -> tuple[int, int]:
    """(points, levels) from ``team``'s side: attackers' points if it attacked, else minus."""
    r = state.result
    assert r is not None
    sign = -1 if r.defenders == team else 1
    gained = [b - a for a, b in zip(r.levels_before, r.levels_after, strict=True)]
    return sign * r.attackers_points, gained[team] - gained[1 - team]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--a", default="heuristic")
    ap.add_argument("--b", default="random")
    ap.add_argument("--preset", default="classic")
    args = ap.parse_args()
    a, b = load(args.a), load(args.b)
    rules = RuleSet.from_preset(args.preset)
    points, levels = [], []
    for seed in range(args.pairs):
        first = value(play(rules, seed, [a, b]), 0)  # a defends
        second = value(play(rules, seed, [b, a]), 1)  # a attacks the same deal
        points.append(first[0] + second[0])
        levels.append(first[1] + second[1])
    for name, xs in (("points", points), ("levels", levels)):
        m = statistics.fmean(xs)
        half = 1.96 * statistics.stdev(xs) / len(xs) ** 0.5
        print(f"{args.a} vs {args.b}: {name} per deal pair {m:+.2f} ± {half:.2f} (95%)")


if __name__ == "__main__":
    main()
