"""How a keyboard's buttons are laid out in rows that a phone shows uncut (the buttons
themselves: :mod:`bot.messages`)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from typing import TypeVar

import regex

T = TypeVar("T")


# Rows that a phone shows uncut. Telegram gives each button of a row the same width, so
# a row holds as many buttons as its widest label allows: ROW_UNITS units of about one
# digit's width at a phone's button font for a 360 px wide screen, at most ROW_MAX
# (Telegram's). Measured in the sandbox page at 360×640 (tests/sandbox/test_browser.py):
# 7 × "✓♦️10" fit and 8 do not (44 units fit, 48 cut); 40 keeps one button of margin.
ROW_MAX = 8
ROW_UNITS = 40
_GRAPHEME = regex.compile(r"\X")


@lru_cache(maxsize=4096)  # labels repeat: the cards' (✓ or not), the buttons'
def label_units(text: str) -> int:
    """A label's width in units: an emoji or a CJK character 2, anything else 1, plus 1
    of the button's padding."""
    units = 1
    for g in _GRAPHEME.findall(text):
        wide = "\ufe0f" in g or ord(g[0]) >= 0x1F000
        wide = wide or unicodedata.east_asian_width(g[0]) in ("W", "F")
        units += 2 if wide else 1
    return units


def per_row(labels: Sequence[str]) -> int:
    """How many buttons with these labels fit a row uncut."""
    widest = max((label_units(x) for x in labels), default=1)
    return max(1, min(ROW_MAX, ROW_UNITS // widest))


def even_rows(items: Sequence[T], n: int) -> list[list[T]]:
    """``items`` in rows of at most ``n``, as even as can be: 9 in rows of 8 are 5 + 4,
    never 8 + a lone one."""
    if not items:
        return []
    count = -(-len(items) // n)
    size, extra = divmod(len(items), count)
    rows, at = [], 0
    for i in range(count):
        take = size + (1 if i < extra else 0)
        rows.append(list(items[at : at + take]))
        at += take
    return rows
