"""Names as shown in chats: cut by grapheme clusters, never inside an emoji, and
isolated from the text around them.

A person's name may hold emoji built from several code points (a family joined by
zero-width joiners, a flag, a skin tone); cutting by code points leaves half an
emoji or a dangling joiner. The ``regex`` module's ``\\X`` matches one extended
grapheme cluster (what a reader sees as one character).
"""

from __future__ import annotations

from functools import lru_cache
from html import escape

import regex

_GRAPHEME = regex.compile(r"\X")
ELLIPSIS = "…"
# A name may carry bidi controls (U+202E right-to-left override…) that would reverse
# the text after it. Shown between FSI (U+2068) and PDI (U+2069), a name's direction
# stays inside it: the PDI ends any embedding or override the name opened (Unicode
# UAX #9). Isolate marks of the name itself are dropped, lest one close ours early.
FSI, PDI = "\u2068", "\u2069"
_ISOLATE_MARKS = regex.compile("[\u2066-\u2069]")


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` graphemes (an ellipsis marks a cut)."""
    graphemes = _GRAPHEME.findall(text)
    if len(graphemes) <= limit:
        return text
    return "".join(graphemes[: max(0, limit - 1)]).rstrip() + ELLIPSIS


def isolate(name: str) -> str:
    """``name`` as one bidi-isolated run (FSI … PDI)."""
    return FSI + _ISOLATE_MARKS.sub("", name) + PDI


@lru_cache(maxsize=4096)  # the same names, in every message of their tables
def shown(name: str, limit: int | None = None) -> str:
    """A person's (or a group's) name for an HTML message: cut, escaped, isolated."""
    return isolate(escape(clip(name, limit) if limit else name))
