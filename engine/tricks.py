"""Playing tricks (RULES.md section 8): leads, following, throws, ruffs, the winner.

- 8 (leads): :func:`check_lead`, :func:`random_lead`.
- 8.1 (following): :func:`check_follow` / :func:`is_legal_follow` apply the
  formal rule 3. A play's score is (led pairs covered by tractors, led pairs
  covered at all). The second number is always ``min(pairs played, led pairs)``
  and the first is :func:`engine.units.tractor_cover` of the play's pairs, so a
  follow is legal iff both equal what the whole hand could reach.
- 8.2 (winner): :func:`trick_winner`, with shape-matching ruffs and over-ruffs.
- 8.3 (throws): :func:`failed_throw` decides a lead whole (check, the forced unit, the
  penalty) for the hand and for every computer player's playouts and endgames;
  :func:`check_throw` is its check; what a failed throw shows (13): :func:`throw_beater`.

Hands and plays are lists of card ids; these functions are on the computer
players' hot path, so they work on counts and cached lead summaries.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import combinations
from typing import NamedTuple

from engine.errors import (
    EMPTY_PLAY,
    MIXED_SUITS,
    MUST_FOLLOW_SUIT,
    MUST_PLAY_PAIR,
    MUST_PLAY_TRACTOR,
    NOT_IN_HAND,
    WRONG_COUNT,
    IllegalAction,
)
from engine.ranking import TRUMP, TrumpContext
from engine.rules import RuleSet
from engine.scoring import throw_penalty
from engine.seats import Seat, Team, team_of
from engine.units import (
    Unit,
    best_placed_top,
    best_tractor_top,
    can_place,
    cover_plan,
    decompose,
    longest_run,
    pair_ids,
    profile_of,
    runs,
    tractor_cover,
)


class Lead(NamedTuple):
    """What following and ruffing need to know about a lead."""

    klass: int  # its suit class
    size: int  # cards
    units: tuple[Unit, ...]  # largest first
    pairs: int  # led pairs, those inside tractors included
    caps: tuple[int, ...]  # led tractor lengths, longest first
    loose_pairs: int  # led pairs not inside a tractor


@lru_cache(maxsize=1 << 14)
def lead_summary(ctx: TrumpContext, lead: tuple[int, ...]) -> Lead:
    """Summary of a lead of one suit class; ValueError for an empty or mixed lead."""
    units = decompose(ctx, lead)
    if units is None:
        raise ValueError(f"not a lead of one suit class: {lead}")
    caps = tuple(u.pairs for u in units if u.pairs >= 2)
    loose = sum(1 for u in units if u.pairs == 1)
    return Lead(ctx.suit_class[lead[0]], len(lead), tuple(units), sum(caps) + loose, caps, loose)


def _missing(hand: Sequence[int], cards: Sequence[int]) -> list[int]:
    """Cards of ``cards`` that ``hand`` does not hold (multiplicity respected)."""
    return [c for c in set(cards) if cards.count(c) > hand.count(c)]


# ---- leading ---------------------------------------------------------------------


def check_lead(ctx: TrumpContext, hand: Sequence[int], cards: Sequence[int]) -> list[Unit]:
    """The lead's units (section 8); IllegalAction if empty, not held or of mixed classes.

    Whether a lead of several units is an allowed throw is :func:`check_throw`'s question.
    """
    if not cards:
        raise IllegalAction(EMPTY_PLAY)
    missing = _missing(hand, cards)
    if missing:
        raise IllegalAction(NOT_IN_HAND, cards=missing)
    units = decompose(ctx, cards)
    if units is None:
        raise IllegalAction(MIXED_SUITS)
    return units


def random_lead(ctx: TrumpContext, hand: Sequence[int], rng: random.Random) -> list[int]:
    """A random one-unit lead: a kind the hand has (single, pair, tractor), then one of it."""
    klass = ctx.suit_class[rng.choice(hand)]
    pairs = pair_ids(ctx, hand, klass)
    kinds = ["single"]
    if pairs:
        kinds.append("pair")
        prof = profile_of(ctx, pairs, klass)
        if longest_run(prof) >= 2:
            kinds.append("tractor")
    kind = rng.choice(kinds)
    if kind == "single":
        return [rng.choice([c for c in hand if ctx.suit_class[c] == klass])]
    if kind == "pair":
        c = rng.choice(pairs)
        return [c, c]
    starts = [(s, j) for s, run in runs(prof) for j in range(2, run + 1)]
    start, j = rng.choice(starts)
    return _take_tractors(ctx, pairs, [(start, j)], rng)


def _take_tractors(
    ctx: TrumpContext, pairs: list[int], plan: list[tuple[int, int]], rng: random.Random
) -> list[int]:
    """Cards for tractors ``(lowest order, length)``, picking at random among equal pairs.

    Removes the pairs used from ``pairs``.
    """
    order = ctx.order
    out: list[int] = []
    for start, j in plan:
        for o in range(start, start + j):
            c = rng.choice([p for p in pairs if order[p] == o])
            pairs.remove(c)
            out += (c, c)
    return out


# ---- following -------------------------------------------------------------------


def check_follow(
    ctx: TrumpContext, lead: Sequence[int], hand: Sequence[int], play: Sequence[int]
) -> None:
    """Raise IllegalAction unless ``play`` (from ``hand``) legally follows ``lead`` (8.1)."""
    info = lead_summary(ctx, tuple(lead))
    missing = _missing(hand, play)
    if missing:
        raise IllegalAction(NOT_IN_HAND, cards=missing)
    n = info.size
    if len(play) != n:
        raise IllegalAction(WRONG_COUNT, required=n, played=len(play))
    cls = ctx.suit_class
    klass = info.klass
    h = 0
    for c in hand:
        if cls[c] == klass:
            h += 1
    played = 0
    for c in play:
        if cls[c] == klass:
            played += 1
    if played < h and played < n:
        raise IllegalAction(MUST_FOLLOW_SUIT, suit_class=klass, required=min(h, n), played=played)
    if h <= n:  # the whole class goes: nothing left to choose
        return
    if not info.pairs:
        return
    hand_pairs = pair_ids(ctx, hand, klass)
    if not hand_pairs:
        return
    play_pairs = pair_ids(ctx, play, klass)
    if info.caps:
        need = tractor_cover(profile_of(ctx, hand_pairs, klass), info.caps)
        if need:
            got = tractor_cover(profile_of(ctx, play_pairs, klass), info.caps)
            if got < need:
                raise IllegalAction(MUST_PLAY_TRACTOR, required=need, played=got)
    need = min(len(hand_pairs), info.pairs)
    got = min(len(play_pairs), info.pairs)
    if got < need:
        raise IllegalAction(MUST_PLAY_PAIR, required=need, played=got)


def is_legal_follow(
    ctx: TrumpContext, lead: Sequence[int], hand: Sequence[int], play: Sequence[int]
) -> bool:
    try:
        check_follow(ctx, lead, hand, play)
    except IllegalAction:
        return False
    return True


def followable(ctx: TrumpContext, lead: Sequence[int], hand: Sequence[int]) -> set[int]:
    """The cards of ``hand`` that belong to at least one legal follow of ``lead`` (8.1):
    what a player may still choose from; every other card cannot be played now.

    Each legal follow holds ``need`` pairs of the led class (the pairs the rule asks
    for, the tractors among them) and ``free`` cards of the class besides; any card of
    the class can take a free place. With no free place every card is in a pair: the
    pairs that some legal set of ``need`` pairs contains are found by trying each set
    (a hand holds a dozen pairs of a class at most).
    """
    info = lead_summary(ctx, tuple(lead))
    n, klass = info.size, info.klass
    cls = ctx.suit_class
    same = [c for c in hand if cls[c] == klass]
    if len(same) < n:
        return set(hand)  # the whole class, then any others
    if len(same) == n or not info.pairs:
        return set(same)
    pairs = pair_ids(ctx, same, klass)
    need = min(len(pairs), info.pairs)
    if n > 2 * need:
        return set(same)
    return {
        c
        for chosen in combinations(pairs, need)
        for c in chosen
        if is_legal_follow(ctx, lead, hand, [c for p in chosen for c in (p, p)])
    }


def unfollowable_reason(
    ctx: TrumpContext, lead: Sequence[int], hand: Sequence[int], card: int
) -> str:
    """Why ``card``, one :func:`followable` leaves out, is in no legal follow of
    ``lead`` (8.1), as the :class:`IllegalAction` a play holding it would raise: a card
    outside the led class while the hand has enough of it (``must_follow_suit``); one
    of the class while the pairs (the tractors) the rule asks for take every place
    (``must_play_tractor`` when the lead has a tractor the hand can answer, else
    ``must_play_pair``)."""
    info = lead_summary(ctx, tuple(lead))
    klass = info.klass
    if ctx.suit_class[card] != klass:
        return MUST_FOLLOW_SUIT
    if info.caps:
        same = [c for c in hand if ctx.suit_class[c] == klass]
        if tractor_cover(profile_of(ctx, pair_ids(ctx, same, klass), klass), info.caps):
            return MUST_PLAY_TRACTOR
    return MUST_PLAY_PAIR


def unfollowable_reasons(
    ctx: TrumpContext, lead: Sequence[int], hand: Sequence[int], cards: Iterable[int]
) -> dict[int, str]:
    """:func:`unfollowable_reason` for each of ``cards``; the reason for the led class's
    cards is the same for all of them, worked out once."""
    klass = lead_summary(ctx, tuple(lead)).klass
    inside: str | None = None
    out: dict[int, str] = {}
    for c in cards:
        if ctx.suit_class[c] != klass:
            out[c] = MUST_FOLLOW_SUIT
        else:
            if inside is None:
                inside = unfollowable_reason(ctx, lead, hand, c)
            out[c] = inside
    return out


def random_follow(
    ctx: TrumpContext, lead: Sequence[int], hand: Sequence[int], rng: random.Random
) -> list[int]:
    """A random legal follow: required tractors and pairs chosen at random, then random fill."""
    info = lead_summary(ctx, tuple(lead))
    n, klass = info.size, info.klass
    cls = ctx.suit_class
    same = [c for c in hand if cls[c] == klass]
    if len(same) <= n:
        others = [c for c in hand if cls[c] != klass]
        return same + rng.sample(others, n - len(same))
    chosen: list[int] = []
    if info.pairs:
        pairs = pair_ids(ctx, same, klass)
        covered = 0
        if info.caps and pairs:
            covered, plan = cover_plan(profile_of(ctx, pairs, klass), info.caps, rng)
            chosen = _take_tractors(ctx, pairs, plan, rng)
        for c in rng.sample(pairs, min(len(pairs), info.pairs - covered)):
            chosen += (c, c)
    rest = list(same)
    for c in chosen:
        rest.remove(c)
    return chosen + rng.sample(rest, n - len(chosen))


# ---- the winner ------------------------------------------------------------------


def trick_winner(ctx: TrumpContext, plays: Sequence[Sequence[int]]) -> int:
    """Index of the winning play (section 8.2); ``plays[0]`` is the lead, taken as allowed."""
    info = lead_summary(ctx, tuple(plays[0]))
    klass = info.klass
    cls = ctx.suit_class
    if len(info.units) == 1:
        pairs = info.units[0].pairs
        best, best_key = 0, (0, info.units[0].top)
        for i in range(1, len(plays)):
            play = plays[i]
            c0 = cls[play[0]]
            if c0 != klass and c0 != TRUMP:
                continue
            units = decompose(ctx, play)
            if units is None or len(units) != 1 or units[0].pairs != pairs:
                continue
            key = (0 if c0 == klass else 1, units[0].top)
            if key > best_key:
                best, best_key = i, key
        return best
    if klass == TRUMP:  # a throw of trumps: nobody can ruff it
        return 0
    best, best_top = 0, -1
    for i in range(1, len(plays)):
        top = ruff_top(ctx, info, plays[i])
        if top > best_top:
            best, best_top = i, top
    return best


def ruff_top(ctx: TrumpContext, info: Lead, play: Sequence[int]) -> int:
    """For a shape-matching ruff of an off-suit lead: its comparison rank, else -1.

    The rank is the top of the highest unit of the kind and size of the lead's
    largest unit that a valid assignment of the ruff to the lead can use.
    """
    cls, order = ctx.suit_class, ctx.order
    for c in play:
        if cls[c] != TRUMP:
            return -1
    pairs = pair_ids(ctx, play, TRUMP)
    if len(pairs) < info.pairs:
        return -1
    if info.caps:
        prof = profile_of(ctx, pairs, TRUMP)
        if len(info.caps) == 1:
            return best_tractor_top(prof, info.caps[0])
        if not can_place(prof, info.caps):
            return -1
        return best_placed_top(prof, info.caps)
    if info.pairs:
        return max(order[c] for c in pairs)
    return max(order[c] for c in play)


# ---- throws ----------------------------------------------------------------------


def check_throw(
    ctx: TrumpContext, throw: Sequence[int], others: Sequence[Sequence[int]]
) -> list[int] | None:
    """None if the throw is allowed (8.3), else the cards that must be played instead.

    Each unit must be the highest of its kind and size in its class against every
    other hand. A failed throw forces its lowest beatable unit: by top, then the
    smaller unit, then the **last** in display order (RULES 8.3: of two off-suit
    level singles ``7♥ 7♣`` it is ``7♣``). A one-unit lead is always allowed.
    """
    info = lead_summary(ctx, tuple(throw))
    if len(info.units) == 1:
        return None
    klass = info.klass
    cls, order = ctx.suit_class, ctx.order
    best_single = best_pair = -1
    profiles: list[tuple[int, ...]] = []
    for hand in others:
        for c in hand:
            if cls[c] == klass and order[c] > best_single:
                best_single = order[c]
        pairs = pair_ids(ctx, hand, klass)
        if pairs:
            best_pair = max(best_pair, max(order[c] for c in pairs))
            profiles.append(profile_of(ctx, pairs, klass))
    beaten: list[Unit] = []
    for u in info.units:
        if u.pairs == 0:
            rival = best_single
        elif u.pairs == 1:
            rival = best_pair
        else:
            rival = max((best_tractor_top(p, u.pairs) for p in profiles), default=-1)
        if rival > u.top:
            beaten.append(u)
    if not beaten:
        return None
    key = ctx.sort_key
    forced = min(beaten, key=lambda u: (u.top, u.pairs, -key[u.cards[0]]))
    return list(forced.cards)


class ThrowFailure(NamedTuple):
    """A lead that failed as a throw (RULES 8.3): ``forced`` is what is played instead,
    ``penalty`` the change to the attackers' points (positive when a defender failed)."""

    forced: list[int]
    penalty: int


def failed_throw(
    ctx: TrumpContext,
    rules: RuleSet,
    hands: Sequence[Sequence[int]],
    seat: Seat,
    lead: Sequence[int],
    defenders: Team | None,
) -> ThrowFailure | None:
    """The one place a lead is decided as a throw (RULES 8.3): None if ``lead`` stands
    (one unit, or every unit the highest of its kind against the other three of
    ``hands``, indexed by seat), else the forced unit and the penalty for the cards
    taken back. The hand and every search player's playouts and endgames call this."""
    if len(lead) < 2:
        return None
    others = [hands[(seat + i) % 4] for i in (1, 2, 3)]
    forced = check_throw(ctx, lead, others)
    if forced is None:
        return None
    attacker = team_of(seat) != defenders
    return ThrowFailure(forced, throw_penalty(rules, len(lead) - len(forced), attacker))


class Beater(NamedTuple):
    """What a failed throw shows (RULES 8.3 and 13): ``holder`` is the index in
    ``others`` of the first hand that beats the forced unit, ``cards`` its lowest unit
    that does (strongest card first)."""

    holder: int
    cards: list[int]


def throw_beater(
    ctx: TrumpContext, unit_cards: Sequence[int], others: Sequence[Sequence[int]]
) -> Beater | None:
    """What a failed throw shows (RULES 13): the first of ``others`` (the next seats in
    playing order) holding a unit of the forced unit's kind and size in its class that
    beats it shows the lowest such unit (on equal rank, the last in display order), as
    the holder would at a real table; None when no other hand beats it."""
    units = decompose(ctx, list(unit_cards))
    if not units or len(units) != 1:
        return None
    unit = units[0]
    klass = ctx.suit_class[unit.cards[0]]
    for i, hand in enumerate(others):
        cards = _lowest_beating(ctx, unit, klass, hand)
        if cards:
            return Beater(i, cards)
    return None


def _lowest_beating(ctx: TrumpContext, unit: Unit, klass: int, hand: Sequence[int]) -> list[int]:
    """The hand's lowest unit of ``unit``'s kind and size in ``klass`` above it, or []."""
    order, key = ctx.order, ctx.sort_key
    if unit.pairs == 0:
        pool = [c for c in hand if ctx.suit_class[c] == klass]
    else:
        pool = pair_ids(ctx, hand, klass)
    # per rank, the card last in display order (the tie-break of RULES 8.3)
    last: dict[int, int] = {}
    for c in pool:
        o = order[c]
        if o not in last or key[c] > key[last[o]]:
            last[o] = c
    k = max(unit.pairs, 1)
    for top in range(unit.top + 1, ctx.class_top[klass] + 1):
        if all(top - j in last for j in range(k)):
            picked = [last[top - j] for j in range(k)]
            return picked if unit.pairs == 0 else [c for c in picked for _ in (0, 1)]
    return []


def play_kind(
    ctx: TrumpContext, lead: Sequence[int], cards: Sequence[int], leads: bool
) -> str | None:
    """How a play reads at the table: ``"throw"`` (甩牌: a lead of several units that
    stood), ``"ruff"`` (毙: trumps matching the shape of an off-suit lead), else None."""
    info = lead_summary(ctx, tuple(lead))
    if leads:
        return "throw" if len(info.units) > 1 else None
    if info.klass != TRUMP and ruff_top(ctx, info, cards) >= 0:
        return "ruff"
    return None
