"""Which cards a text shows, and which cards of a hand are public: the privacy checks."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from bot.render.cards import card_label
from engine.cards import NUM_DISTINCT

LABELS = {card_label(c, lang): c for c in range(NUM_DISTINCT) for lang in ("en", "zh")}
# longest first, so that "♠️10" is never read as "♠️1"
CARD = re.compile("|".join(re.escape(x) for x in sorted(LABELS, key=len, reverse=True)))


def cards_in(text: str | None) -> Counter[int]:
    # "… — its third card ♣️5 makes ♣️ trump" names a card of the kitty just listed
    lines = [
        line.split(" — its third card")[0].split(" —— 第三张")[0]
        for line in (text or "").splitlines()
    ]
    return Counter(LABELS[m] for m in CARD.findall("\n".join(lines)))


def public(hand: Any) -> Counter[int]:
    """Cards of this hand everyone may have seen: plays, failed throws, shows, shown kitties."""
    seen: Counter[int] = Counter()
    for trick in hand.tricks:
        for play in trick.plays:
            seen.update(play.cards)
            if play.attempted is not None:
                seen.update(play.attempted)  # a failed throw was shown to all
    for show in hand.declaring.shows:
        seen.update(show.cards)
    if hand.revealed_kitty is not None:
        seen.update(hand.revealed_kitty)
    if hand.phase == "done":
        seen.update(hand.kitty)
    return seen
