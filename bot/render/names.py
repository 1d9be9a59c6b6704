"""Names as shown in chats: cut by grapheme clusters, never inside an emoji.

A person's name may hold emoji built from several code points (a family joined by
zero-width joiners, a flag, a skin tone); cutting by code points leaves half an
emoji or a dangling joiner. The ``regex`` module's ``\\X`` matches one extended
grapheme cluster (what a reader sees as one character).
"""

from __future__ import annotations

import regex

_GRAPHEME = regex.compile(r"\X")
ELLIPSIS = "…"


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` graphemes (an ellipsis marks a cut)."""
    graphemes = _GRAPHEME.findall(text)
    if len(graphemes) <= limit:
        return text
    return "".join(graphemes[: max(0, limit - 1)]).rstrip() + ELLIPSIS
