"""A scripted hand-1 policy shared by the whole-hand e2e test and its seed check.

The test plays through the DM buttons; :func:`simulate` plays the same policy on the
engine alone, so a seed can be checked (and searched) without Telegram:

    .venv/bin/python -m tests.e2e.scripted 1000 2000   # seeds whose hand has it all

The policy: the deal comes in two steps of 13 cards a seat; after the first, the
first seat with a single level card declares; after the last, the next seat (from the
declarer on) that can overturns; everyone passes; the dealer buries the hint's 8
cards. A leader plays, in this order until each happened once: a throw that fails,
a throw that succeeds, a tractor, a pair; otherwise the hint. The first follower who
could break the follow-suit rule first tries to (the engine refuses); every follow
is the hint.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field

from engine.cards import POINTS
from engine.hand import Bury, Deal, HandState, Pass, Play, Show
from engine.match import MatchState
from engine.players import choose_bury, suggest
from engine.ranking import TRUMP
from engine.rules import RuleSet
from engine.tricks import check_follow, check_throw
from engine.units import decompose

DEAL_BATCH = 13  # cards per seat per deal step: two steps (52 + 48 cards)
GOALS = ("failed_throw", "throw", "tractor", "pair")


def lead_kind(hand: HandState, trick_index: int) -> str:
    play = hand.tricks[trick_index].plays[0]
    if play.attempted is not None:
        return "failed_throw"
    units = decompose(hand.ctx, play.cards)
    assert units is not None
    if len(units) > 1:
        return "throw"
    return {0: "single", 1: "pair"}.get(units[0].pairs, "tractor")


def leads_so_far(hand: HandState) -> list[str]:
    return [lead_kind(hand, i) for i, t in enumerate(hand.tricks) if t.plays]


def first_declaration(hand: HandState) -> tuple[int, list[int]] | None:
    """After the first deal step: the first seat that can declare with one level card."""
    for seat in range(4):
        for cards in hand.show_options(seat):
            if len(cards) == 1:
                return seat, cards
    return None


def overturn(hand: HandState, declarer: int) -> tuple[int, list[int]] | None:
    """After the deal (hand 1: overturns in the after-deal window): the next seat that can."""
    for i in (1, 2, 3):
        seat = (declarer + i) % 4
        options = hand.show_options(seat)
        if options:
            return seat, options[0]
    return None


def _classes(hand: HandState, seat: int) -> dict[int, list[int]]:
    ctx = hand.ctx
    out: dict[int, list[int]] = {}
    for c in hand.hands[seat]:
        out.setdefault(ctx.suit_class[c], []).append(c)
    return out


def throws(hand: HandState, seat: int) -> list[tuple[list[int], list[int] | None]]:
    """Multi-unit leads of a class's strongest cards: (cards, forced play or None)."""
    ctx = hand.ctx
    others = [hand.hands[(seat + i) % 4] for i in (1, 2, 3)]
    out = []
    for klass in (0, 1, 2, 3, TRUMP):
        cards = sorted(_classes(hand, seat).get(klass, []), key=lambda c: -ctx.order[c])
        for size in range(len(cards), 1, -1):
            lead = cards[:size]
            units = decompose(ctx, lead)
            if units is None or len(units) < 2:
                continue
            out.append((lead, check_throw(ctx, lead, others)))
    return out


def planned_lead(hand: HandState, seat: int) -> tuple[str, list[int]] | None:
    """What the leader plays to reach a goal not reached yet (None: the hint)."""
    done = set(leads_so_far(hand))
    options = throws(hand, seat)
    for goal in GOALS:
        if goal in done:
            continue
        if goal == "failed_throw":
            bad = [cards for cards, forced in options if forced is not None]
            if bad:
                return goal, bad[0]
        elif goal == "throw":
            good = [cards for cards, forced in options if forced is None]
            if good:
                return goal, good[0]
        else:
            for cards in _classes(hand, seat).values():
                for unit in decompose(hand.ctx, cards) or []:
                    if (goal == "tractor" and unit.pairs >= 2) or (
                        goal == "pair" and unit.pairs == 1
                    ):
                        return goal, list(unit.cards)
    return None


def refused_follow(hand: HandState, seat: int) -> list[int] | None:
    """A follow breaking the follow-suit rule (other classes while holding the led one)."""
    trick = hand.current_trick
    assert trick is not None and trick.plays
    lead = trick.plays[0].cards
    klass = hand.ctx.suit_class[lead[0]]
    mine = _classes(hand, seat)
    off = [c for k, cs in sorted(mine.items()) if k != klass for c in cs]
    if not mine.get(klass) or len(off) < len(lead):
        return None
    try:
        check_follow(hand.ctx, lead, hand.hands[seat], off[: len(lead)])
    except Exception:
        return off[: len(lead)]
    return None


def bury_choice(hand: HandState, dealer: int) -> list[int]:
    """The hint's 8 cards, but off-suit point cards (5, 10, K) replace the first of them:
    a kitty with points, so the attackers' last trick can win a bonus."""
    hint = choose_bury(hand.observation(dealer))
    ctx = hand.ctx
    spare = Counter(hand.hands[dealer]) - Counter(hint)
    points = [c for c in spare.elements() if POINTS[c] and ctx.suit_class[c] != TRUMP]
    points = sorted(points, key=lambda c: (ctx.order[c], c))[:3]
    return points + hint[len(points) :]


@dataclass
class Outcome:
    declarer: int | None = None
    overturner: int | None = None
    refused_at: tuple[int, int] | None = None  # (trick index, seat)
    leads: list[str] = field(default_factory=list)
    bonus: int = 0
    kitty_points: int = 0

    @property
    def fit(self) -> bool:
        return (
            self.overturner is not None
            and self.refused_at is not None
            and all(g in self.leads for g in GOALS)
            and self.bonus > 0
        )


def simulate(seed: int) -> Outcome:
    """Play hand 1 of a classic match dealt from ``seed`` with the policy, engine only."""
    match = MatchState.new(RuleSet.from_preset("classic"), seed)
    hand = match.hand
    out = Outcome()
    match.apply(Deal(n=4 * DEAL_BATCH))
    first = first_declaration(hand)
    if first is None:
        return out
    out.declarer = first[0]
    match.apply(Show(seat=first[0], cards=first[1]))
    match.apply(Deal(n=4 * DEAL_BATCH))
    second = overturn(hand, first[0])
    if second is None:
        return out
    out.overturner = second[0]
    match.apply(Show(seat=second[0], cards=second[1]))
    for seat in range(4):
        match.apply(Pass(seat=seat))
    dealer = hand.turn
    assert dealer is not None
    match.apply(Bury(seat=dealer, cards=bury_choice(hand, dealer)))
    while hand.phase == "playing":
        seat = hand.turn
        assert seat is not None
        trick = hand.current_trick
        assert trick is not None
        if not trick.plays:
            plan = planned_lead(hand, seat)
            if plan is not None:
                match.apply(Play(seat=seat, cards=plan[1]))
                continue
        elif out.refused_at is None and refused_follow(hand, seat) is not None:
            out.refused_at = (len(hand.tricks) - 1, seat)
        match.apply(Play(seat=seat, cards=suggest(hand.observation(seat))))
    out.leads = leads_so_far(hand)
    assert hand.result is not None
    out.bonus, out.kitty_points = hand.result.kitty_bonus, hand.result.kitty_points
    return out


def _main(lo: int, hi: int) -> None:
    for seed in range(lo, hi):
        o = simulate(seed)
        if o.fit:
            print(seed, o.declarer, o.overturner, o.refused_at, Counter(o.leads), o.bonus)


if __name__ == "__main__":
    _main(int(sys.argv[1]), int(sys.argv[2]))
