"""Compact card labels: colour-marked suits (♥️♦️ red, ♠️♣️ black) and 🃏 for jokers."""

from __future__ import annotations

from collections.abc import Iterable

from bot.i18n import t
from engine.cards import BJ, LJ, RANKS

SUIT_MARKS = ("♠️", "♥️", "♣️", "♦️")


def suit_label(suit: int | None, lang: str) -> str:
    return t(lang, "no_trump") if suit is None else SUIT_MARKS[suit]


def card_label(card: int, lang: str) -> str:
    if card == BJ:
        return t(lang, "card.bj")
    if card == LJ:
        return t(lang, "card.lj")
    return SUIT_MARKS[card // 13] + RANKS[card % 13]


def cards_label(cards: Iterable[int], lang: str) -> str:
    return " ".join(card_label(c, lang) for c in cards)


def rank_label(rank: int) -> str:
    return RANKS[rank]
