"""A match between computer players, printed as a readable log.

    python -m bot --simulate [--seed N] [--preset classic|joker_declare|tournament]
                             [--hands N] [--start-level RANK]

A developer's tool (English only): trump, kitty, every trick, points, levels.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import TextIO

from engine.cards import RANKS, format_cards
from engine.hand import Deal, HandState
from engine.match import MatchState
from engine.players import choose_action
from engine.rules import PRESETS, RuleSet

SUIT_NAMES = {None: "no-trump", 0: "♠", 1: "♥", 2: "♣", 3: "♦"}


def play_hand(match: MatchState, rng: random.Random, out: TextIO | None = None) -> None:
    """Play the current hand to the end with heuristic players."""
    hand = match.hand
    shown = 0
    while hand.phase != "done":
        action = _next_action(hand, rng)
        match.apply(action)
        hand = match.hand
        if out is not None:
            shown = _narrate(hand, action, shown, out)


def _next_action(hand: HandState, rng: random.Random):  # type: ignore[no-untyped-def]
    if hand.phase == "dealing":
        for seat in range(4):
            obs = hand.observation(seat)
            if obs.show_options:
                action = choose_action(obs, rng)
                if action.kind == "show":
                    return action
        return Deal(n=4)
    if hand.phase == "after_deal":
        seat = next(s for s in range(4) if hand.can_pass(s))
        return choose_action(hand.observation(seat), rng)
    assert hand.turn is not None
    return choose_action(hand.observation(hand.turn), rng)


def _narrate(hand: HandState, action, shown: int, out: TextIO) -> int:  # type: ignore[no-untyped-def]
    p = lambda *a: print(*a, file=out)  # noqa: E731
    if action.kind == "show":
        p(
            f"  seat {action.seat} shows {format_cards(action.cards, True)}"
            f" → trump {SUIT_NAMES[hand.trump]}"
        )
    elif action.kind == "bury":
        p(f"  seat {action.seat} buries {format_cards(action.cards, True)}")
    elif action.kind == "pass" and hand.phase == "burying" and hand.turn == hand.dealer:
        p(
            f"  trump {SUIT_NAMES[hand.trump]}, dealer seat {hand.dealer}"
            + (" (from the kitty)" if hand.declaring.from_kitty else "")
        )
    done = [t for t in hand.tricks if t.winner is not None]
    for i, t in enumerate(done[shown:], start=shown + 1):
        plays = "  ".join(
            f"s{pl.seat}:{format_cards(pl.cards, True)}"
            + (f" (tried {format_cards(pl.attempted, True)})" if pl.attempted else "")
            for pl in t.plays
        )
        p(
            f"  trick {i:2}: {plays}  → seat {t.winner} +{t.points}  [attackers {hand.attackers_points}]"
        )
    if hand.result is not None and len(done) > shown:
        r = hand.result
        p(f"  kitty {format_cards(r.kitty, True)} ({r.kitty_points} points, bonus {r.kitty_bonus})")
        p(
            f"  attackers {r.attackers_points} points: {r.winner} +{r.steps};"
            f" levels {RANKS[r.levels_after[0]]}/{RANKS[r.levels_after[1]]};"
            f" next dealer seat {r.next_dealer}"
        )
    return len(done)


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    ap = argparse.ArgumentParser(prog="python -m bot --simulate")
    ap.add_argument("--simulate", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--preset", choices=PRESETS, default="classic")
    ap.add_argument("--hands", type=int, default=200, help="stop after this many hands")
    ap.add_argument("--start-level", default="2")
    args = ap.parse_args(argv)
    rules = RuleSet.from_preset(args.preset, start_level=args.start_level)
    match = MatchState.new(rules, args.seed)
    rng = random.Random(args.seed)
    while True:
        hand = match.hand
        print(
            f"Hand {hand.hand_number}: levels team0 {RANKS[match.levels[0]]},"
            f" team1 {RANKS[match.levels[1]]}",
            file=out,
        )
        play_hand(match, rng, out)
        if match.finished or match.hand_number >= args.hands:
            break
        match.start_next_hand()
    if match.winner is not None:
        print(
            f"Team {match.winner} (seats {match.winner} and {match.winner + 2}) wins the match"
            f" after {match.hand_number} hands.",
            file=out,
        )
    else:
        print(f"Stopped after {match.hand_number} hands.", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
