"""A message's text and entities as safe HTML for the sandbox page, as a Telegram client shows it.

The fake Telegram stores what Telegram stores: the visible text and its entities (UTF-16
offsets). Everything in the text is escaped; only the tags below are produced, and a link
keeps its address only if it is http(s) or tg://. Bare ``/commands`` and ``t.me`` addresses in
plain text become tappable, as Telegram's clients make them.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

_TAGS: dict[str, tuple[str, str]] = {
    "bold": ("<b>", "</b>"),
    "italic": ("<i>", "</i>"),
    "underline": ("<u>", "</u>"),
    "strikethrough": ("<s>", "</s>"),
    "code": ("<code>", "</code>"),
    "pre": ("<pre>", "</pre>"),
    "spoiler": ('<span class="spoiler">', "</span>"),
    "blockquote": ("<blockquote>", "</blockquote>"),
    "expandable_blockquote": ('<blockquote class="expandable">', "</blockquote>"),
}
_SAFE_URL = re.compile(r"^(https?://|tg://)", re.IGNORECASE)
# In plain text: /commands (at the start of a word, as Telegram finds them) and t.me links.
_AUTOLINK = re.compile(
    r"(?P<url>https?://t\.me/[A-Za-z0-9_]+(?:\?[A-Za-z0-9_=&-]*)?)"
    r"|(?<!\S)(?P<cmd>/[A-Za-z][A-Za-z0-9_]{0,31}(?:@[A-Za-z0-9_]{3,32})?)(?![\w/])"
)


def to_html(text: str, entities: list[dict[str, Any]]) -> str:
    """Render ``text`` with Telegram ``entities`` (UTF-16 offsets) as escaped HTML."""
    units = text.encode("utf-16-le")
    spans = [e for e in entities if _open_tag(e) is not None and e.get("length", 0) > 0]
    points = sorted(
        {0, len(units) // 2}
        | {e["offset"] for e in spans}
        | {e["offset"] + e["length"] for e in spans}
    )
    out: list[str] = []
    stack: list[dict[str, Any]] = []
    for start, end in zip(points, points[1:], strict=False):
        # close what ends here (re-opening anything closed only because it was inside)
        ending = [e for e in stack if e["offset"] + e["length"] <= start]
        if ending:
            depth = min(stack.index(e) for e in ending)
            for e in reversed(stack[depth:]):
                out.append(_close_tag(e))
            reopen = [e for e in stack[depth:] if e not in ending]
            del stack[depth:]
            for e in reopen:
                out.append(_open_tag(e) or "")
                stack.append(e)
        starting = [e for e in spans if e["offset"] == start]
        for e in sorted(starting, key=lambda e: -e["length"]):  # outer first
            out.append(_open_tag(e) or "")
            stack.append(e)
        chunk = units[start * 2 : end * 2].decode("utf-16-le", errors="replace")
        plain = not any(e["type"] in {"code", "pre", "text_link"} for e in stack)
        out.append(_autolink(chunk) if plain else escape(chunk))
    for e in reversed(stack):
        out.append(_close_tag(e))
    return "".join(out)


def _open_tag(entity: dict[str, Any]) -> str | None:
    kind = entity.get("type")
    if kind == "date_time":  # the page shows it in the browser's time zone (app.js)
        unix = int(entity.get("unix_time", 0))
        fmt = escape(str(entity.get("date_time_format", "")))
        return f'<time class="dt" data-unix="{unix}" data-format="{fmt}">'
    if kind == "text_link":
        url = str(entity.get("url", ""))
        if not _SAFE_URL.match(url):
            return '<a class="link">'
        return f'<a class="link" href="{escape(url)}">'
    pair = _TAGS.get(str(kind))
    return pair[0] if pair else None


def _close_tag(entity: dict[str, Any]) -> str:
    if entity.get("type") == "text_link":
        return "</a>"
    if entity.get("type") == "date_time":
        return "</time>"
    return _TAGS[entity["type"]][1]


def _autolink(chunk: str) -> str:
    out: list[str] = []
    last = 0
    for m in _AUTOLINK.finditer(chunk):
        out.append(escape(chunk[last : m.start()]))
        if m.group("url"):
            url = escape(m.group("url"))
            out.append(f'<a class="link" href="{url}">{url}</a>')
        else:
            cmd = escape(m.group("cmd"))
            out.append(f'<a class="cmd" data-cmd="{cmd}">{cmd}</a>')
        last = m.end()
    out.append(escape(chunk[last:]))
    return "".join(out)
