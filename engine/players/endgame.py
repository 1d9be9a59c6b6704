"""Exact endgames: the rest of a hand solved with every card known (RULES.md sections 8-10).

When few cards are left, the search player solves each sampled world exactly instead of
playing it out with the heuristic: the attackers choose plays to make their final total
(trick points, throw penalties and the kitty bonus) as large as possible, the defenders
as small. Every distinct legal play is tried (every one-class lead, throws included,
failed throws forced and fined as in 8.3; every legal follow), with alpha-beta pruning and
a table of the positions at the start of a trick (whose value does not depend on how the
hand got there: what is still to come only adds to the total).

The final total is kept at 0 or above (section 9); that clamp is monotone, so it is applied
once to the solved value rather than inside the search.

Given a wall-clock :class:`~engine.players.deadline.Deadline`, the solver looks at it every
``CHECK_NODES`` positions and raises :class:`~engine.players.deadline.OutOfTime` once it
has passed; given ``max_nodes``, it raises :class:`TooBig` past that many positions (work,
so reproducible): one world of a large endgame can take many times a small budget.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine.cards import POINTS
from engine.hand import sub_multisets
from engine.players.candidates import winner
from engine.players.deadline import CHECK_NODES, Deadline, OutOfTime
from engine.ranking import TrumpContext
from engine.rules import RuleSet
from engine.scoring import kitty_bonus_for_lead
from engine.seats import team_of
from engine.tricks import failed_throw, is_legal_follow

Hand = tuple[int, ...]
INF = 10**6


class TooBig(Exception):
    """The world needs more positions than the solver was given (``max_nodes``)."""


def plays_for(ctx: TrumpContext, hand: Hand, lead: Sequence[int] | None) -> list[Hand]:
    """Every distinct legal play: any one-class multiset when leading, else a legal follow."""
    if lead is None:
        by_class: dict[int, list[int]] = {}
        for c in hand:
            by_class.setdefault(ctx.suit_class[c], []).append(c)
        return [
            tuple(p)
            for cards in by_class.values()
            for size in range(1, len(cards) + 1)
            for p in sub_multisets(cards, size)
        ]
    return [
        tuple(p)
        for p in sub_multisets(list(hand), len(lead))
        if is_legal_follow(ctx, lead, hand, p)
    ]


def _without(hand: Hand, cards: Sequence[int]) -> Hand:
    left = Counter(hand)
    left.subtract(cards)
    return tuple(sorted(left.elements()))


class Solver:
    """Exact values of positions of one world (one deal of the unseen cards)."""

    def __init__(
        self,
        ctx: TrumpContext,
        rules: RuleSet,
        kitty: Sequence[int],
        defenders: int,
        deadline: Deadline | None = None,
        max_nodes: int | None = None,
    ) -> None:
        self.deadline = deadline
        self.max_nodes = max_nodes if max_nodes is not None else INF * INF
        self.ctx = ctx
        self.rules = rules
        self.kitty = list(kitty)
        self.defenders = defenders
        self.table: dict[tuple[int, tuple[Hand, ...]], tuple[int, int]] = {}
        self.nodes = 0

    def attacker(self, seat: int) -> bool:
        return team_of(seat) != self.defenders

    def value(
        self,
        hands: Sequence[Hand],
        trick: Sequence[tuple[int, Hand]],
        seat: int,
        play: Hand | None = None,
    ) -> int:
        """What is still to come for the attackers (points, penalties, kitty bonus), with
        best play by both teams, from ``seat``'s turn in ``trick`` (its plays so far as
        ``(seat, cards)``, empty for a lead); with ``play`` given, after ``seat`` plays it."""
        hands = tuple(tuple(sorted(h)) for h in hands)
        if play is None:
            return self._turn(hands, tuple(trick), seat, -INF, INF)
        return self._after(hands, tuple(trick), seat, play, -INF, INF)

    def _turn(
        self,
        hands: tuple[Hand, ...],
        trick: tuple[tuple[int, Hand], ...],
        seat: int,
        alpha: int,
        beta: int,
    ) -> int:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise TooBig
        if self.deadline is not None and self.nodes % CHECK_NODES == 0 and self.deadline.passed():
            raise OutOfTime
        key = None
        if not trick:
            key = (seat, hands)
            hit = self.table.get(key)
            if hit is not None:
                lo, hi = hit
                if lo >= beta or lo == hi:
                    return lo
                if hi <= alpha:
                    return hi
                alpha, beta = max(alpha, lo), min(beta, hi)
        a0, b0 = alpha, beta
        lead = trick[0][1] if trick else None
        maximize = self.attacker(seat)
        best = -INF if maximize else INF
        for play in plays_for(self.ctx, hands[seat], lead):
            v = self._after(hands, trick, seat, play, alpha, beta)
            if maximize:
                if v > best:
                    best = v
                alpha = max(alpha, v)
            else:
                if v < best:
                    best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        if key is not None:
            lo, hi = self.table.get(key, (-INF, INF))
            if best <= a0:
                hi = min(hi, best)
            elif best >= b0:
                lo = max(lo, best)
            else:
                lo = hi = best
            self.table[key] = (lo, hi)
        return best

    def _after(
        self,
        hands: tuple[Hand, ...],
        trick: tuple[tuple[int, Hand], ...],
        seat: int,
        play: Hand,
        alpha: int,
        beta: int,
    ) -> int:
        gained = 0
        if not trick:
            failed = failed_throw(self.ctx, self.rules, hands, seat, play, self.defenders)
            if failed is not None:
                gained = failed.penalty
                play = tuple(failed.forced)
        hands = tuple(_without(h, play) if s == seat else h for s, h in enumerate(hands))
        trick = (*trick, (seat, play))
        if len(trick) < 4:
            return gained + self._turn(hands, trick, (seat + 1) % 4, alpha - gained, beta - gained)
        plays = [p for _, p in trick]
        won_by = trick[winner(self.ctx, plays)][0]
        attackers_won = self.attacker(won_by)
        if attackers_won:
            gained += sum(POINTS[c] for p in plays for c in p)
        if not hands[won_by]:
            bonus = kitty_bonus_for_lead(self.ctx, self.rules, self.kitty, plays[0], attackers_won)
            return gained + bonus
        return gained + self._turn(hands, (), won_by, alpha - gained, beta - gained)
