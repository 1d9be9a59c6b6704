"""Distinct candidate plays for computer players (RULES.md sections 8 and 8.1).

Enumerating every legal follow is slow when a hand short of the led suit must fill
a long lead from its other cards (8,855 fills for a 4-card tractor and one heart).
Most fills are the same for the trick's outcome: a play of mixed classes never
wins, so only its points matter; a ruff wins or loses by its shape and top card.
So the candidates are one representative per outcome class, the cheapest one:

- enough cards of the led class: every legal play when there are few, else the
  cheapest, the strongest and the point-richest legal plays plus random legal ones;
- too few: all of them plus, for every number of point cards, the cheapest fill;
  when void in an off-suit lead, also the cheapest ruff for every distinct
  (top, points) among the plays of trumps that match the lead's shape.

"Cheap" is :func:`cost`: trumps, then points, then pairs are kept back.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import combinations, islice
from math import comb

from engine.cards import POINTS
from engine.hand import sub_multisets
from engine.ranking import TRUMP, TrumpContext
from engine.tricks import Lead, is_legal_follow, lead_summary, random_follow, ruff_top, trick_winner
from engine.units import Unit, decompose, pair_ids

ENUMERATE_UP_TO = 120  # same-class plays enumerated in full below this many
RANDOM_FOLLOWS = 6


def cost(ctx: TrumpContext, hand: list[int]) -> dict[int, tuple[int, ...]]:
    """How dear each card of ``hand`` is to give away (lower is cheaper)."""
    counts = Counter(hand)
    cls, order = ctx.suit_class, ctx.order
    return {c: (cls[c] == TRUMP, POINTS[c] > 0, counts[c] > 1, order[c], POINTS[c]) for c in counts}


def strength(ctx: TrumpContext, cards: list[int] | tuple[int, ...]) -> int:
    """What a play spends: card orders, trumps counted dear, points dearer."""
    return sum(map(_spend(ctx).__getitem__, cards))


@lru_cache(maxsize=64)
def _spend(ctx: TrumpContext) -> tuple[int, ...]:
    cls, order = ctx.suit_class, ctx.order
    return tuple(order[c] + (20 if cls[c] == TRUMP else 0) + POINTS[c] for c in range(54))


def is_special(ctx: TrumpContext, card: int) -> bool:
    """A joker or a level card (or a permanent 2): the trumps worth most to keep."""
    return card >= 52 or card % 13 == ctx.level or (ctx.permanent_twos and card % 13 == 0)


def follow_candidates(
    ctx: TrumpContext, lead: list[int], hand: list[int], rng: random.Random
) -> list[list[int]]:
    """Legal follows of ``lead`` from ``hand``, one per outcome class (at least one)."""
    key = (ctx, tuple(lead), tuple(hand))
    known = _remembered.get(key)
    if known is not None:
        return [list(p) for p in known]
    plays, drew = _follow_candidates(ctx, lead, hand, rng)
    if not drew:  # no random draws: the same question gets the same answer
        if len(_remembered) >= REMEMBER:
            _remembered.clear()
        _remembered[key] = [tuple(p) for p in plays]
    return plays


REMEMBER = 1 << 14  # follow questions remembered (playouts of one world ask them again)
_remembered: dict[tuple[TrumpContext, tuple[int, ...], tuple[int, ...]], list[tuple[int, ...]]] = {}


def _follow_candidates(
    ctx: TrumpContext, lead: list[int], hand: list[int], rng: random.Random
) -> tuple[list[list[int]], bool]:
    """The candidates, and whether they took random draws."""
    info = lead_summary(ctx, tuple(lead))
    n, klass = info.size, info.klass
    cls = ctx.suit_class
    same = [c for c in hand if cls[c] == klass]
    out: dict[tuple[int, ...], list[int]] = {}

    def add(play: list[int]) -> None:
        key = tuple(sorted(play))
        out.setdefault(key, list(key))

    if len(same) >= n:
        if n == 1:  # a single: every distinct card of the class, lowest id first
            return [[c] for c in sorted(set(same))], False
        distinct = len(set(same))
        if comb(distinct + n - 1, n) <= ENUMERATE_UP_TO or comb(len(same), n) <= ENUMERATE_UP_TO:
            legal = _legal_check(ctx, info, lead, hand, same)
            for play in sub_multisets(same, n):
                if legal(play):
                    add(play)
        else:
            dear = cost(ctx, same)
            for play in _extremes(ctx, same, n, info.pairs, dear):
                if is_legal_follow(ctx, lead, hand, play):
                    add(play)
            for _ in range(RANDOM_FOLLOWS):
                add(random_follow(ctx, lead, hand, rng))
            for play in islice(sub_multisets(same, n), ENUMERATE_UP_TO):
                if is_legal_follow(ctx, lead, hand, play):
                    add(play)
            return list(out.values()), True
        return list(out.values()), False
    rest = [c for c in hand if cls[c] != klass]
    k = n - len(same)
    dear = cost(ctx, rest)
    for fill in _fills(rest, k, dear):
        add(same + fill)
    if not same and klass != TRUMP:
        for play in _ruffs(ctx, info, [c for c in rest if cls[c] == TRUMP], dear):
            add(play)
    return list(out.values()), False


def _legal_check(
    ctx: TrumpContext, info: Lead, lead: list[int], hand: list[int], same: list[int]
) -> Callable[[list[int]], bool]:
    """``is_legal_follow`` for plays drawn from ``same`` (the led class, at least the lead's
    size), answered without the general check where 8.1 reduces to counting pairs."""
    if not info.pairs:
        return lambda play: True  # any cards of the led class
    if info.caps:
        return lambda play: is_legal_follow(ctx, lead, hand, play)
    need = min(len(pair_ids(ctx, same, info.klass)), info.pairs)
    if not need:
        return lambda play: True
    if info.size == 2:
        return lambda play: play[0] == play[1]
    klass = info.klass
    return lambda play: min(len(pair_ids(ctx, play, klass)), info.pairs) >= need


def _extremes(
    ctx: TrumpContext, same: list[int], n: int, led_pairs: int, dear: dict[int, tuple[int, ...]]
) -> list[list[int]]:
    """Cheapest, strongest and point-richest plays of ``n`` cards of one class, pairs first."""
    pairs = pair_ids(ctx, same, ctx.suit_class[same[0]])
    order = ctx.order
    plays = []
    keys = (
        dear.__getitem__,
        lambda card: -order[card],
        lambda card: (-POINTS[card], order[card]),
    )
    for key in keys:
        chosen: list[int] = []
        for p in sorted(pairs, key=key)[: min(led_pairs, n // 2)]:
            chosen += (p, p)
        rest = list(same)
        for c in chosen:
            rest.remove(c)
        chosen += sorted(rest, key=key)[: n - len(chosen)]
        plays.append(chosen)
    return plays


def _fills(rest: list[int], k: int, dear: dict[int, tuple[int, ...]]) -> list[list[int]]:
    """For every reachable point total: the cheapest ``k`` cards with that many points."""
    by_cost = sorted(rest, key=dear.__getitem__)
    plain = [c for c in by_cost if not POINTS[c]]
    fives = [c for c in by_cost if POINTS[c] == 5]
    tens = [c for c in by_cost if POINTS[c] == 10]
    best: dict[int, list[int]] = {}
    for a in range(min(k, len(fives)) + 1):
        for b in range(min(k - a, len(tens)) + 1):
            if k - a - b > len(plain):
                continue
            fill = fives[:a] + tens[:b] + plain[: k - a - b]
            total = 5 * a + 10 * b
            if total not in best or _dearer(best[total], fill, dear):
                best[total] = fill
    return [by_cost[:k], *best.values()]


def _dearer(a: list[int], b: list[int], dear: dict[int, tuple[int, ...]]) -> bool:
    """Whether giving away ``a`` costs more than ``b`` (their dearest cards compared first)."""
    return sorted((dear[c] for c in a), reverse=True) > sorted((dear[c] for c in b), reverse=True)


def _ruffs(
    ctx: TrumpContext, info: Lead, trumps: list[int], dear: dict[int, tuple[int, ...]]
) -> list[list[int]]:
    """The cheapest winning-shaped play of trumps for every distinct (ruff top, points)."""
    n = info.size
    if len(trumps) < n:
        return []
    pairs = pair_ids(ctx, trumps, TRUMP)
    if len(pairs) < info.pairs:
        return []
    best: dict[tuple[int, int], list[int]] = {}
    for chosen_pairs in combinations(sorted(set(pairs), key=ctx.order.__getitem__), info.pairs):
        chosen = [c for p in chosen_pairs for c in (p, p)]
        rest = list(trumps)
        for c in chosen:
            rest.remove(c)
        rest.sort(key=dear.__getitem__)
        singles = n - len(chosen)
        options = [rest[:singles]]
        if singles:  # a single-card top counts only when no pairs were led
            options += [[c] + [x for x in rest if x != c][: singles - 1] for c in set(rest)]
        for fill in options:
            if len(fill) < singles:
                continue
            play = chosen + fill
            top = ruff_top(ctx, info, play)
            if top < 0:
                continue
            key = (top, sum(POINTS[c] for c in play))
            if key not in best or strength(ctx, play) < strength(ctx, best[key]):
                best[key] = play
    return list(best.values())


def lead_candidates(ctx: TrumpContext, hand: list[int]) -> list[Unit]:
    """Every unit of the hand's decomposition, plus each distinct single (one-unit leads)."""
    by_class: dict[int, list[int]] = {}
    for c in hand:
        by_class.setdefault(ctx.suit_class[c], []).append(c)
    units: list[Unit] = []
    seen: set[tuple[int, ...]] = set()
    for cards in by_class.values():
        for u in decompose(ctx, cards) or []:
            units.append(u)
            seen.add(u.cards)
        for c in set(cards):
            if (c,) not in seen:
                seen.add((c,))
                units.append(Unit(0, ctx.order[c], (c,)))
    return units


@lru_cache(maxsize=1 << 16)
def _winner(ctx: TrumpContext, plays: tuple[tuple[int, ...], ...]) -> int:
    return trick_winner(ctx, plays)


def winner(ctx: TrumpContext, plays: Sequence[Sequence[int]]) -> int:
    """:func:`~engine.tricks.trick_winner`, remembered: playouts meet the same tricks again."""
    return _winner(ctx, tuple(map(tuple, plays)))


def interchangeable(ctx: TrumpContext, hand: list[int], gone: list[int], a: int, b: int) -> bool:
    """Whether playing single ``a`` or single ``b`` from ``hand`` makes no difference to
    anything that can still happen: same class and points, each held once with its other
    copy ``gone`` (played, or buried by this seat), and every other card of the class
    ranking from one to the other gone too. Then no card still in play sits between them,
    ties either of them, or can pair with either, so every trick goes the same."""
    cls, order = ctx.suit_class, ctx.order
    if cls[a] != cls[b] or POINTS[a] != POINTS[b] or a == b:
        return False
    if hand.count(a) != 1 or hand.count(b) != 1 or gone[a] != 1 or gone[b] != 1:
        return False
    low, high = sorted((order[a], order[b]))
    klass = cls[a]
    for c in range(54):
        if c != a and c != b and cls[c] == klass and low <= order[c] <= high and gone[c] < 2:
            return False
    return True


def distinct_in_effect(
    ctx: TrumpContext, hand: list[int], gone: list[int], plays: list[list[int]]
) -> list[list[int]]:
    """``plays`` without those :func:`interchangeable` with an earlier one (order kept)."""
    out: list[list[int]] = []
    for play in plays:
        if len(play) == 1 and any(
            len(kept) == 1 and interchangeable(ctx, hand, gone, kept[0], play[0]) for kept in out
        ):
            continue
        out.append(play)
    return out


class Contest:
    """Whether a play would win a trick as it stands, compared with its current winner only.

    Equivalent to asking :func:`~engine.tricks.trick_winner` of the whole trick (8.2 picks
    the first strictly strongest play), without decomposing every play again: singles and
    pairs, the usual leads, are decided from two numbers.
    """

    __slots__ = ("ctx", "lead", "best", "pairs", "key", "klass")

    def __init__(
        self, ctx: TrumpContext, plays: list[list[int]], current: int | None = None
    ) -> None:
        info = lead_summary(ctx, tuple(plays[0]))
        self.ctx = ctx
        self.lead = plays[0]
        self.klass = info.klass
        if current is None:
            current = winner(ctx, plays) if len(plays) > 1 else 0
        self.best = plays[current] if current else None
        unit = info.units[0]
        self.pairs = unit.pairs if len(info.units) == 1 and unit.pairs <= 1 else -1
        self.key = self._key(plays[current]) if self.pairs >= 0 else (0, 0)

    def _key(self, play: list[int]) -> tuple[int, int]:
        c = play[0]
        k = self.ctx.suit_class[c]
        return (0 if k == self.klass else 1, self.ctx.order[c])

    def wins(self, play: list[int]) -> bool:
        if self.pairs == 0 or (self.pairs == 1 and play[0] == play[1]):
            k = self.ctx.suit_class[play[0]]
            return (k == self.klass or k == TRUMP) and self._key(play) > self.key
        if self.pairs == 1:
            return False
        if self.best is None:
            return winner(self.ctx, [self.lead, play]) == 1
        return winner(self.ctx, [self.lead, self.best, play]) == 2
