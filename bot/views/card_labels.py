"""Card labels and how a hand is laid out for reading.

Suits are colour-marked (♥️♦️ red, ♠️♣️ black); the jokers read as players say them
(大王 / 小王, BJ / SJ). A hand is read by suit class, as the engine's trump context
classifies it: the trumps first, the jokers and level cards (and permanent 2s) in a
group of their own ahead of the trump suit's other cards, so that an off-suit level
card never sits among its printed suit; then each side suit.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from bot.i18n import t
from engine.cards import BJ, RANKS, rank_of, suit_of
from engine.ranking import TRUMP, TrumpContext

SUIT_MARKS = ("♠️", "♥️", "♣️", "♦️")


def suit_label(suit: int | None, lang: str) -> str:
    return t(lang, "no_trump") if suit is None else SUIT_MARKS[suit]


@lru_cache(maxsize=1024)
def card_label(card: int, lang: str) -> str:
    suit, rank = suit_of(card), rank_of(card)
    if suit is None or rank is None:
        return t(lang, "card.bj" if card == BJ else "card.lj")
    return SUIT_MARKS[suit] + RANKS[rank]


def cards_label(cards: Iterable[int], lang: str) -> str:
    return " ".join(card_label(c, lang) for c in cards)


def rank_label(rank: int) -> str:
    return RANKS[rank]


def suit_groups(ctx: TrumpContext, cards: Iterable[int]) -> list[tuple[int, list[list[int]]]]:
    """The cards by suit class in display order: ``(TRUMP, [top trumps, trump suit])``
    first, then ``(suit, [cards])`` for each side suit held; strongest first, empty
    parts left out."""
    ordered = ctx.sorted(list(cards))
    trumps = [c for c in ordered if ctx.suit_class[c] == TRUMP]
    out: list[tuple[int, list[list[int]]]] = []
    if trumps:
        top = [c for c in trumps if ctx.is_top_trump(c)]
        rest = [c for c in trumps if not ctx.is_top_trump(c)]
        out.append((TRUMP, [part for part in (top, rest) if part]))
    for suit in range(4):
        side = [c for c in ordered if ctx.suit_class[c] == suit]
        if side:
            out.append((suit, [side]))
    return out


def class_label(klass: int, lang: str) -> str:
    return t(lang, "hand.trumps") if klass == TRUMP else SUIT_MARKS[klass]


def counts_label(ctx: TrumpContext, cards: Iterable[int], lang: str) -> str:
    """``主11张 ♠️5张 ♥️7张`` / ``Trumps ×11 ♠️×5 ♥️×7``: how many cards of each suit
    class a hand holds (never ``♠️5``, which reads as a card)."""
    out = []
    for klass, parts in suit_groups(ctx, cards):
        n = sum(len(p) for p in parts)
        if klass == TRUMP:
            out.append(t(lang, "hand.count.trumps", n=n))
        else:
            out.append(t(lang, "hand.count.suit", suit=SUIT_MARKS[klass], n=n))
    return " ".join(out)


def hand_lines(ctx: TrumpContext, cards: Iterable[int], lang: str) -> list[str]:
    """A hand as text, one line per suit class (``主：大王 ♥️2 ♠️2 | ♥️A ♥️K``)."""
    return [
        t(
            lang,
            "hand.line",
            suit=class_label(klass, lang),
            cards=" | ".join(cards_label(p, lang) for p in parts),
        )
        for klass, parts in suit_groups(ctx, cards)
    ]
