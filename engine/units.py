"""Units: singles, pairs and tractors (RULES.md section 4), and shape matching.

A :class:`Unit` is one single, pair or tractor of one suit class. Cards of one
class are decomposed into units by the section-4 rule: the most cards in
tractors, then the fewest tractors; a pair is never split into singles.

Shape questions (following, ruffing, throws; sections 8.1-8.3) only need the
*pair profile* of some cards of one class: a tuple whose item ``o`` counts the
pairs whose cards have class order ``o``. Tractors are runs of consecutive
non-zero items, one pair per order. Most orders hold at most one pair; only
the equal off-suit level cards (and off-suit 2s under ``permanent_twos``) may
stack up to three, which is why the searches below work on counts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.ranking import TrumpContext


@dataclass(frozen=True, slots=True)
class Unit:
    """One unit: ``pairs`` = 0 (single), 1 (pair) or k >= 2 (tractor of k pairs).

    ``top`` is the class order of its highest card; ``cards`` are strongest first.
    """

    pairs: int
    top: int
    cards: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def kind(self) -> str:
        return "single" if self.pairs == 0 else "pair" if self.pairs == 1 else "tractor"

    @property
    def name(self) -> str:
        return (
            "single" if self.pairs == 0 else "pair" if self.pairs == 1 else f"tractor{self.pairs}"
        )


def shape_names(units: Sequence[Unit]) -> list[str]:
    return [u.name for u in units]


def decompose(ctx: TrumpContext, cards: Sequence[int]) -> list[Unit] | None:
    """The section-4 decomposition, largest unit first; None if empty or of mixed classes."""
    if not cards:
        return None
    cls = ctx.suit_class
    klass = cls[cards[0]]
    counts: dict[int, int] = {}
    for c in cards:
        if cls[c] != klass:
            return None
        counts[c] = counts.get(c, 0) + 1
    order, key = ctx.order, ctx.sort_key
    units: list[Unit] = []
    by_order: dict[int, list[int]] = {}
    for c, n in counts.items():
        for _ in range(n // 2):
            by_order.setdefault(order[c], []).append(c)
        if n % 2:
            units.append(Unit(0, order[c], (c,)))
    levels = [(o, sorted(by_order[o], key=key.__getitem__)) for o in sorted(by_order)]
    for chain in _chains(levels):
        cards_high_first = tuple(c for c in reversed(chain) for _ in (0, 1))
        units.append(Unit(len(chain), order[chain[-1]], cards_high_first))
    units.sort(key=lambda u: (-u.pairs, -u.top, key[u.cards[0]]))
    return units


def _chains(levels: list[tuple[int, list[int]]]) -> list[list[int]]:
    """Split pairs (given as ``(order, pair ids)`` ascending) into chains, low to high.

    A chain of one pair is a lone pair. Maximises the pairs in chains of two or
    more, then minimises their number. Where no order holds two pairs, every
    run of consecutive orders is one chain; otherwise a small DP over
    (open chains of length 1, open chains of length >= 2) decides.
    """
    if all(len(ids) == 1 for _, ids in levels):
        chains: list[list[int]] = []
        prev = -2
        for o, ids in levels:
            if o == prev + 1:
                chains[-1].append(ids[0])
            else:
                chains.append([ids[0]])
            prev = o
        return chains
    choices = _chain_choices(levels)
    done: list[list[int]] = []
    open1: list[list[int]] = []
    open2: list[list[int]] = []
    for (_, ids), (x1, x2) in zip(levels, choices, strict=True):
        cont = open1[:x1] + open2[:x2]
        done += open1[x1:] + open2[x2:]
        for chain, c in zip(cont, ids, strict=False):
            chain.append(c)
        open1 = [[c] for c in ids[len(cont) :]]
        open2 = cont
    return done + open1 + open2


def _chain_choices(levels: list[tuple[int, list[int]]]) -> list[tuple[int, int]]:
    """Per level, how many open chains of length 1 and of length >= 2 continue."""
    # value = 100 * pairs in tractors - tractors (at most 54 pairs, so 100 dominates)
    states: dict[tuple[int, int], int] = {(0, 0): 0}
    history: list[dict[tuple[int, int], tuple[tuple[int, int], int, int]]] = []
    prev = -2
    for o, ids in levels:
        width = len(ids)
        adjacent = o == prev + 1
        new: dict[tuple[int, int], int] = {}
        back: dict[tuple[int, int], tuple[tuple[int, int], int, int]] = {}
        for (a, b), value in states.items():
            for x1 in range(a + 1 if adjacent else 1):
                for x2 in range(min(b, width - x1) + 1 if adjacent else 1):
                    v = value + 199 * x1 + 100 * x2
                    st = (width - x1 - x2, x1 + x2)
                    if v > new.get(st, -1):
                        new[st] = v
                        back[st] = ((a, b), x1, x2)
        history.append(back)
        states = new
        prev = o
    st = max(states, key=states.__getitem__)
    choices: list[tuple[int, int]] = []
    for back in reversed(history):
        st, x1, x2 = back[st]
        choices.append((x1, x2))
    choices.reverse()
    return choices


# ---- pair profiles -------------------------------------------------------------


def pair_ids(ctx: TrumpContext, cards: Sequence[int], klass: int) -> list[int]:
    """The card id of every pair among ``cards`` of class ``klass`` (once per pair)."""
    cls = ctx.suit_class
    seen: set[int] = set()
    pairs: list[int] = []
    for c in cards:
        if cls[c] == klass:
            if c in seen:
                pairs.append(c)
                seen.discard(c)
            else:
                seen.add(c)
    return pairs


def profile_of(ctx: TrumpContext, pairs: Sequence[int], klass: int) -> tuple[int, ...]:
    """Pair counts per class order, for pairs given by their card ids."""
    prof = [0] * (ctx.class_top[klass] + 1)
    order = ctx.order
    for c in pairs:
        prof[order[c]] += 1
    return tuple(prof)


def longest_run(profile: Sequence[int]) -> int:
    """The longest tractor (in pairs) in a profile; 1 for lone pairs, 0 for none."""
    best = run = 0
    for n in profile:
        if n:
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    return best


def best_tractor_top(profile: Sequence[int], length: int) -> int:
    """The highest top of a tractor of ``length`` pairs in the profile, or -1."""
    run = 0
    best = -1
    for o, n in enumerate(profile):
        run = run + 1 if n else 0
        if run >= length:
            best = o
    return best


@lru_cache(maxsize=1 << 16)
def tractor_cover(profile: tuple[int, ...], caps: tuple[int, ...]) -> int:
    """Most led pairs that tractors of the profile can cover (section 8.1 rule 3).

    ``caps`` lists the led tractors' lengths; each may receive one tractor of
    2..cap pairs, disjoint from the others.
    """
    if len(caps) == 1:
        run = min(longest_run(profile), caps[0])
        return run if run >= 2 else 0
    return cover_plan(profile, caps)[0]


def cover_plan(
    profile: tuple[int, ...], caps: tuple[int, ...], rng: random.Random | None = None
) -> tuple[int, list[tuple[int, int]]]:
    """An optimal :func:`tractor_cover` with its tractors as ``(lowest order, pairs)``.

    With ``rng`` the search tries placements in random order, so ties between
    optimal plans are broken at random.
    """
    return _cover_search(profile, 0, caps, rng, {})


def _cover_search(
    prof: tuple[int, ...],
    i: int,
    caps: tuple[int, ...],
    rng: random.Random | None,
    memo: dict[tuple[tuple[int, ...], int], tuple[int, list[tuple[int, int]]]],
) -> tuple[int, list[tuple[int, int]]]:
    """:func:`cover_plan` from the ``i``-th led tractor on (module level, not a closure
    that calls itself, which would be a reference cycle left to the cycle collector)."""
    if i == len(caps) or sum(prof) < 2:
        return 0, []
    if (prof, i) in memo:
        return memo[prof, i]
    bound = min(sum(caps[i:]), sum(prof))
    best, plan = _cover_search(prof, i + 1, caps, rng, memo)
    options = [(start, j) for start, run in runs(prof) for j in range(2, min(run, caps[i]) + 1)]
    if rng is not None:
        rng.shuffle(options)
    for start, j in options:
        if best == bound:
            break
        sub = list(prof)
        for o in range(start, start + j):
            sub[o] -= 1
        value, rest = _cover_search(tuple(sub), i + 1, caps, rng, memo)
        if value + j > best:
            best, plan = value + j, [(start, j), *rest]
    memo[prof, i] = best, plan
    return best, plan


def runs(profile: Sequence[int]) -> list[tuple[int, int]]:
    """``(start, run length)`` for every order with a pair, counting the run upward from it."""
    out: list[tuple[int, int]] = []
    run = 0
    for o in range(len(profile) - 1, -1, -1):
        run = run + 1 if profile[o] else 0
        if run:
            out.append((o, run))
    return out


@lru_cache(maxsize=1 << 14)
def can_place(profile: tuple[int, ...], lengths: tuple[int, ...]) -> bool:
    """Whether disjoint tractors of exactly these lengths fit in the profile (cutting allowed)."""
    if not lengths:
        return True
    k, rest = lengths[0], lengths[1:]
    for start, run in runs(profile):
        if run >= k:
            sub = list(profile)
            for o in range(start, start + k):
                sub[o] -= 1
            if can_place(tuple(sub), rest):
                return True
    return False


def best_placed_top(profile: tuple[int, ...], lengths: tuple[int, ...]) -> int:
    """The highest top of a tractor of ``lengths[0]`` pairs usable in a full placement, or -1."""
    k, rest = lengths[0], lengths[1:]
    for start, run in sorted(runs(profile), reverse=True):
        if run >= k:
            sub = list(profile)
            for o in range(start, start + k):
                sub[o] -= 1
            if can_place(tuple(sub), rest):
                return start + k - 1
    return -1
