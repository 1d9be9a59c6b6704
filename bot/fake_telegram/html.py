"""Telegram's ``parse_mode=HTML`` subset: text plus entities with UTF-16 offsets.

Strict on purpose: whatever Telegram rejects with "can't parse entities" is
rejected here too, so an unescaped user name fails in tests, not in production.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .api_errors import ApiError, bad_request

# tag -> entity type; None means the tag needs attribute-dependent handling.
_SIMPLE_TAGS: dict[str, str] = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "code": "code",
    "pre": "pre",
    "tg-spoiler": "spoiler",
    "blockquote": "blockquote",
}
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_ENTITY_RE = re.compile(r"&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|lt|gt|amp|quot);")
# <tg-time>'s format (Bot API 9.5, "date-time entity formatting"): relative, or the day of
# the week, the date (short d / long D) and the time (short t / long T), each optional
_DATE_TIME_FORMAT = re.compile(r"r|w?[dD]?[tT]?")
_ATTR_RE = re.compile(r"""\s*([a-zA-Z_-]+)\s*(?:=\s*("[^"]*"|'[^']*'|[^\s"'>]+))?""")


def utf16_len(text: str) -> int:
    """Telegram measures entity offsets in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def parse_error(reason: str) -> ApiError:
    return bad_request(f"can't parse entities: {reason}")


@dataclass
class _Open:
    name: str
    entity: dict[str, Any] | None
    start: int  # UTF-16 offset in the output text
    children: list[_Open] = field(default_factory=list)


class _HtmlParser:
    def __init__(self, source: str) -> None:
        self.src = source
        self.pos = 0
        self.out: list[str] = []
        self.length = 0  # UTF-16 length of the output so far
        self.stack: list[_Open] = []
        self.entities: list[dict[str, Any]] = []

    def byte_offset(self, index: int) -> int:
        return len(self.src[:index].encode("utf-8"))

    def emit(self, text: str) -> None:
        self.out.append(text)
        self.length += utf16_len(text)

    def run(self) -> tuple[str, list[dict[str, Any]]]:
        while self.pos < len(self.src):
            char = self.src[self.pos]
            if char == "<":
                self.tag()
            elif char == "&":
                self.entity()
            else:
                self.emit(char)
                self.pos += 1
        if self.stack:
            raise parse_error(
                f'Can\'t find end tag corresponding to start tag "{self.stack[-1].name}"'
            )
        entities = sorted(self.entities, key=lambda e: (e["offset"], -e["length"]))
        return "".join(self.out), entities

    def entity(self) -> None:
        match = _ENTITY_RE.match(self.src, self.pos)
        if match is None:  # Telegram keeps a lone '&' as text
            self.emit("&")
            self.pos += 1
            return
        name = match.group(1)
        if name.startswith("#x") or name.startswith("#X"):
            code = int(name[2:], 16)
        elif name.startswith("#"):
            code = int(name[1:])
        else:
            code = -1
        if code == -1:
            self.emit(_NAMED_ENTITIES[name])
        elif 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF:
            self.emit(chr(code))
        else:
            self.emit(match.group(0))
        self.pos = match.end()

    def tag(self) -> None:
        start = self.pos
        end = self.src.find(">", start)
        if self.src.startswith("</", start):
            if end == -1:
                raise parse_error(f"Unclosed end tag at byte offset {self.byte_offset(start)}")
            self.close_tag(self.src[start + 2 : end].strip().lower(), start)
        else:
            if end == -1:
                raise parse_error(f"Unclosed start tag at byte offset {self.byte_offset(start)}")
            self.open_tag(self.src[start + 1 : end], start)
        self.pos = end + 1

    def open_tag(self, inner: str, start: int) -> None:
        match = re.match(r"[a-zA-Z][a-zA-Z0-9-]*", inner)
        name = match.group(0).lower() if match else ""
        offset = self.byte_offset(start)
        attrs = _parse_attrs(inner[len(name) :])
        entity = self.entity_for(name, attrs, offset)
        self.stack.append(_Open(name, entity, self.length))

    def entity_for(self, name: str, attrs: dict[str, str], offset: int) -> dict[str, Any] | None:
        if name == "a":
            href = attrs.get("href")
            return {"type": "text_link", "url": href} if href else None
        if name == "span":
            if attrs.get("class") != "tg-spoiler":
                raise parse_error(
                    f'Tag "span" must have class "tg-spoiler" at byte offset {offset}'
                )
            return {"type": "spoiler"}
        if name == "tg-time":  # a moment each reader's client shows in their own time zone
            unix = attrs.get("unix", "")
            if not unix.isdigit():
                raise parse_error(
                    f'Tag "tg-time" must have attribute "unix" at byte offset {offset}'
                )
            entity: dict[str, Any] = {"type": "date_time", "unix_time": int(unix)}
            fmt = attrs.get("format")
            if fmt is not None:
                if not _DATE_TIME_FORMAT.fullmatch(fmt):
                    raise parse_error(f'Invalid date-time format "{fmt}" at byte offset {offset}')
                entity["date_time_format"] = fmt
            return entity
        if name == "blockquote" and "expandable" in attrs:
            return {"type": "expandable_blockquote"}
        if name == "code" and self.stack and self.stack[-1].name == "pre":
            language = attrs.get("class", "")
            if language.startswith("language-") and self.stack[-1].entity is not None:
                self.stack[-1].entity["language"] = language.removeprefix("language-")
                return None  # Telegram folds <pre><code class=..> into one pre entity
        if name not in _SIMPLE_TAGS:
            raise parse_error(f'Unsupported start tag "{name}" at byte offset {offset}')
        return {"type": _SIMPLE_TAGS[name]}

    def close_tag(self, name: str, start: int) -> None:
        offset = self.byte_offset(start)
        if not self.stack:
            raise parse_error(f"Unexpected end tag at byte offset {offset}")
        top = self.stack.pop()
        if top.name != name:
            raise parse_error(
                f'Unmatched end tag at byte offset {offset}, expected "</{top.name}>", '
                f'found "</{name}>"'
            )
        length = self.length - top.start
        if top.entity is not None and length > 0:
            self.entities.append({**top.entity, "offset": top.start, "length": length})


def _parse_attrs(text: str) -> dict[str, str]:
    attrs: dict[str, str] = {}
    text = text.strip().rstrip("/")
    for match in _ATTR_RE.finditer(text):
        value = match.group(2) or ""
        if value[:1] in {'"', "'"}:
            value = value[1:-1]
        attrs[match.group(1).lower()] = _ENTITY_RE.sub(_decode_entity, value)
    return attrs


def _decode_entity(match: re.Match[str]) -> str:
    name = match.group(1)
    if name in _NAMED_ENTITIES:
        return _NAMED_ENTITIES[name]
    code = int(name[2:], 16) if name[1:2] in {"x", "X"} else int(name[1:])
    return chr(code) if 0 < code <= 0x10FFFF else match.group(0)


def parse_html(source: str) -> tuple[str, list[dict[str, Any]]]:
    """Return (visible text, entities) or raise 400 "can't parse entities"."""
    return _HtmlParser(source).run()


_TAG_RE = re.compile(r"</?[a-zA-Z][a-zA-Z0-9-]*(\s[^<>]*)?>")


def unescaped(source: str) -> list[str]:
    """The ``<``, ``>`` and ``&`` of ``source`` that are neither part of a tag nor of an
    entity: Telegram tolerates a lone ``&`` or ``>``, but the Bot API asks for every one
    escaped (``&lt;`` ``&gt;`` ``&amp;``), and a careful bot follows it."""
    rest = _ENTITY_RE.sub("", _TAG_RE.sub("", source))
    return [c for c in rest if c in "<>&"]
