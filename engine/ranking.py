"""Ranking under a trump context (RULES.md section 3).

A :class:`TrumpContext` fixes the hand's level rank, trump suit (or no-trump)
and the ``permanent_twos`` option, and precomputes for every card id:

- ``suit_class[c]``: ``TRUMP`` (4) or the off-suit 0..3 (the unit of following);
- ``order[c]``: a dense rank inside that class, 0 = weakest. Equal cards (the
  off-suit level cards, the off-suit 2s under ``permanent_twos``) share a value,
  and two ranks are *adjacent* for tractors exactly when their values differ by
  one, because ranks that left the class (the level, the 2s) leave no gap;
- the *top trumps*: the trumps above the trump suit's plain cards (the jokers, the
  level cards of every suit, the 2s under ``permanent_twos``), i.e. the trumps
  whatever the trump suit; under no-trump, every trump.

Contexts are cached, so building one per trick costs nothing.
"""

from __future__ import annotations

from functools import cache

from engine.cards import BJ, LJ, NUM_DISTINCT, RANK_2, make

TRUMP = 4
NO_TRUMP = None


class TrumpContext:
    __slots__ = (
        "level",
        "trump",
        "permanent_twos",
        "suit_class",
        "order",
        "class_top",
        "sort_key",
        "top_from",
    )

    level: int
    trump: int | None
    permanent_twos: bool
    suit_class: tuple[int, ...]
    order: tuple[int, ...]
    class_top: tuple[int, ...]
    sort_key: tuple[int, ...]
    top_from: int  # the trump order where the top trumps begin

    def __new__(cls, level: int, trump: int | None, permanent_twos: bool = False) -> TrumpContext:
        return _context(level, trump, permanent_twos and level != RANK_2)

    def is_trump(self, card: int) -> bool:
        return self.suit_class[card] == TRUMP

    def is_top_trump(self, card: int) -> bool:
        """A trump ranked above every plain card of the trump suit: a joker, a level
        card (of any suit), a 2 under ``permanent_twos``; under no-trump, any trump."""
        return self.suit_class[card] == TRUMP and self.order[card] >= self.top_from

    def strength(self, card: int, led_class: int) -> int:
        """Strength of a card in a trick led in ``led_class``: -1 if it cannot win."""
        c = self.suit_class[card]
        if c == TRUMP:
            return 100 + self.order[card]
        return self.order[card] if c == led_class else -1

    def compare(self, a: int, b: int) -> str:
        """``a`` played first, then ``b``: 'a', 'b', 'equal' or 'unrelated' (conformance)."""
        ca, cb = self.suit_class[a], self.suit_class[b]
        if ca != cb:
            if cb == TRUMP:
                return "b"
            if ca == TRUMP:
                return "a"
            return "unrelated"
        oa, ob = self.order[a], self.order[b]
        if oa == ob:
            return "equal"
        return "a" if oa > ob else "b"

    def sorted(self, cards: list[int]) -> list[int]:
        """Display order: trumps (strongest first), then ♠ ♥ ♣ ♦ (strongest first)."""
        return sorted(cards, key=self.sort_key.__getitem__)

    def __repr__(self) -> str:
        return f"TrumpContext(level={self.level}, trump={self.trump}, pt={self.permanent_twos})"


@cache
def _context(level: int, trump: int | None, permanent_twos: bool) -> TrumpContext:
    ctx = object.__new__(TrumpContext)
    ctx.level, ctx.trump, ctx.permanent_twos = level, trump, permanent_twos
    suit_class = [0] * NUM_DISTINCT
    order = [0] * NUM_DISTINCT

    def special(rank: int) -> bool:
        return rank == level or (permanent_twos and rank == RANK_2)

    # Off-suit classes: every suit but the trump suit, plain ranks ascending.
    for s in range(4):
        n = 0
        for r in range(13):
            if special(r):
                continue
            suit_class[make(r, s)] = TRUMP if s == trump else s
            order[make(r, s)] = n
            n += 1
    # The trump class, weakest first: trump-suit plain ranks (already numbered
    # 0..n-1 above when there is a trump suit), then the special ranks.
    n = 0 if trump is None else (12 - (1 if permanent_twos else 0))
    ctx.top_from = n
    steps: list[list[int]] = []
    if permanent_twos:
        steps.append([make(RANK_2, s) for s in range(4) if s != trump])
        if trump is not None:
            steps.append([make(RANK_2, trump)])
    steps.append([make(level, s) for s in range(4) if s != trump])
    if trump is not None:
        steps.append([make(level, trump)])
    steps += [[LJ], [BJ]]
    for group in steps:
        for card in group:
            suit_class[card] = TRUMP
            order[card] = n
        n += 1
    ctx.suit_class = tuple(suit_class)
    ctx.order = tuple(order)
    tops = [0] * 5
    for card in range(NUM_DISTINCT):
        tops[suit_class[card]] = max(tops[suit_class[card]], order[card])
    ctx.class_top = tuple(tops)
    # Display key: class (trump first, then S H C D), stronger first, then suit for ties.
    ctx.sort_key = tuple(
        ((0 if suit_class[c] == TRUMP else 1 + suit_class[c]) * 100 + (99 - order[c])) * 8
        + (c // 13 if c < LJ else 0)
        for c in range(NUM_DISTINCT)
    )
    return ctx
