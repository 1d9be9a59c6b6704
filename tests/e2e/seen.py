"""Which cards a text shows, and which cards of a hand are public: the privacy checks."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from bot.fake_telegram import parse_html
from bot.i18n import t
from bot.views.card_labels import card_label
from engine.cards import NUM_DISTINCT

LABELS = {card_label(c, lang): c for c in range(NUM_DISTINCT) for lang in ("en", "zh")}
# longest first, so that "♠️10" is never read as "♠️1"
CARD = re.compile("|".join(re.escape(x) for x in sorted(LABELS, key=len, reverse=True)))


# a hand's counts per suit in Chinese, "♠️5张" (five spades), name no card
COUNT = re.compile(r"[♠♥♣♦]\ufe0f?\d+张")


def cards_in(text: str | None) -> Counter[int]:
    return Counter(LABELS[m] for m in CARD.findall(COUNT.sub("", text or "")))


def cards_stated(text: str | None) -> Counter[int]:
    """The cards a message states, each as many times as one line of it shows it: a DM
    lists a card picked up from the kitty and again when it is selected, a table shows a
    trick and again as the last one (one card, two statements of it, not two cards)."""
    stated: Counter[int] = Counter()
    for line in (text or "").splitlines():
        stated |= cards_in(line)
    return stated


# the card counter's last line, in either language: its block runs from "🧮" to it
COUNTER_ENDS = {
    t(lang, key) for lang in ("en", "zh") for key in ("counter.out.hands", "counter.out.kitty")
}


def split_counter(text: str | None) -> tuple[str, str]:
    """A DM's text without its card counter, and the counter: the counter names the cards
    its reader has not seen (the high ones and the points still out), not cards of theirs."""
    rest: list[str] = []
    counter: list[str] = []
    inside = False
    for line in (text or "").splitlines():
        inside = inside or line.startswith("🧮")
        (counter if inside else rest).append(line)
        if inside and line in COUNTER_ENDS:
            inside = False
    return "\n".join(rest), "\n".join(counter)


def public(hand: Any) -> Counter[int]:
    """Cards of this hand everyone may have seen: plays, failed throws, shows, shown kitties."""
    seen: Counter[int] = Counter()
    for trick in hand.tricks:
        for play in trick.plays:
            seen.update(play.cards)
            if play.attempted is not None:
                seen.update(play.attempted)  # a failed throw was shown to all
                seen.update(play.beaten_by or ())  # and what beat it (RULES 8.3)
    for show in hand.declaring.shows:
        seen.update(show.cards)
    if hand.revealed_kitty is not None:
        seen.update(hand.revealed_kitty)
    if hand.phase == "done":
        seen.update(hand.kitty)
    return seen


def shown(world: Any, chat: Any) -> list[str]:
    """Every text the bot showed in a chat, oldest first, as its readers saw it: each
    message as sent and again after each edit (the transcript keeps only the last)."""
    chat_id = str(world.chat_of(chat).id)
    out = []
    for r in world.requests():
        if r.ok and r.method in ("sendMessage", "editMessageText") and str(r.chat_id) == chat_id:
            out.append(parse_html(str(r.params["text"]))[0])
    return out
