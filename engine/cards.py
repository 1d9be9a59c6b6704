"""Cards and notation (RULES.md section 2).

A card is a small int, ``0..53``: ``suit * 13 + rank`` for the 52 suited cards
(suits ``S H C D`` = 0..3 in display order, ranks ``2..A`` = 0..12), then
``LJ`` = 52 and ``BJ`` = 53. The shoe holds every card twice (108 cards).
Hands are plain lists of ints; two equal ints are a pair.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TypeAlias

Card: TypeAlias = int
"""A card id ``0..53`` (see the module docstring); a readable name in signatures."""

SUITS = "SHCD"
SUIT_SYMBOLS = "♠♥♣♦"
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SPADES, HEARTS, CLUBS, DIAMONDS = range(4)
LJ = 52
BJ = 53
NUM_DISTINCT = 54
DECK_SIZE = 108
KITTY_SIZE = 8
HAND_SIZE = 25

RANK_2, RANK_5, RANK_10, RANK_K, RANK_A = 0, 3, 8, 11, 12


class NotationError(ValueError):
    """A card token that is not valid notation; ``token`` names it."""

    def __init__(self, token: str) -> None:
        super().__init__(f"not a card: {token!r}")
        self.token = token


def make(rank: int, suit: int) -> int:
    return suit * 13 + rank


def suit_of(card: int) -> int | None:
    """The printed suit, or None for a joker."""
    return None if card >= LJ else card // 13


def rank_of(card: int) -> int | None:
    """The rank index (0 = '2' .. 12 = 'A'), or None for a joker."""
    return None if card >= LJ else card % 13


def points(card: int) -> int:
    """5s score 5, 10s and Ks score 10 (section 9)."""
    r = rank_of(card)
    if r == RANK_5:
        return 5
    if r == RANK_10 or r == RANK_K:
        return 10
    return 0


POINTS = tuple(points(c) for c in range(NUM_DISTINCT))


def total_points(cards: Iterable[int]) -> int:
    return sum(POINTS[c] for c in cards)


def parse_rank(token: str) -> int:
    t = token.upper()
    if t == "T":
        t = "10"
    try:
        return RANKS.index(t)
    except ValueError:
        raise NotationError(token) from None


def parse_suit(token: str) -> int:
    t = token.upper()
    if len(t) == 1 and t in SUITS:
        return SUITS.index(t)
    if len(token) == 1 and token in SUIT_SYMBOLS:
        return SUIT_SYMBOLS.index(token)
    raise NotationError(token)


_JOKERS = {"BJ": BJ, "LJ": LJ, "大王": BJ, "小王": LJ, "SJ": LJ}


def parse_card(token: str) -> int:
    """Parse ``10H``, ``AS``, ``A♠``, ``♠A``, ``BJ``, ``大王``; raise NotationError."""
    t = token.strip()
    if t.upper() in _JOKERS:
        return _JOKERS[t.upper()]
    if t in _JOKERS:
        return _JOKERS[t]
    if len(t) < 2:
        raise NotationError(token)
    for rank_part, suit_part in ((t[:-1], t[-1]), (t[1:], t[0])):
        try:
            return make(parse_rank(rank_part), parse_suit(suit_part))
        except NotationError:
            continue
    raise NotationError(token)


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Parse space-separated cards (or an iterable of tokens)."""
    tokens = text.split() if isinstance(text, str) else list(text)
    return [parse_card(t) for t in tokens]


def format_card(card: int, symbols: bool = False) -> str:
    if card == BJ:
        return "BJ"
    if card == LJ:
        return "LJ"
    if not 0 <= card < NUM_DISTINCT:
        raise ValueError(f"not a card id: {card}")
    suits = SUIT_SYMBOLS if symbols else SUITS
    return RANKS[card % 13] + suits[card // 13]


def format_cards(cards: Iterable[int], symbols: bool = False) -> str:
    return " ".join(format_card(c, symbols) for c in cards)


def new_shoe() -> list[int]:
    """The 108-card shoe in a fixed order."""
    return [c for c in range(NUM_DISTINCT) for _ in range(2)]


def shuffled_shoe(seed: int) -> list[int]:
    shoe = new_shoe()
    random.Random(seed).shuffle(shoe)
    return shoe


def counts(cards: Iterable[int]) -> list[int]:
    """Per-card-id counts (length 54)."""
    c = [0] * NUM_DISTINCT
    for card in cards:
        c[card] += 1
    return c
