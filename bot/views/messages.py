"""The message model: what a message shows (:class:`Content`: its text and keyboard),
keyboards as plain data, and the :class:`Clock` that paces and dates them. Renderers
(``bot.views``) build these values and the outbox (``bot.delivery.outbox``) delivers them;
this module knows neither. How a keyboard's buttons are laid out in rows that a phone
shows uncut is here too (:func:`per_row`, :func:`even_rows`), and the keys that name
each message of a game (:class:`SlotKey`).

A player's DM hand is rendered whenever what its reader needs changes, with one button
per card (up to ~40). Built as python-telegram-bot objects, each button costs dozens of
attribute checks, and the keyboard is then turned back into a dict to be sent and
digested. :class:`Keyboard` holds the same rows as plain tuples and serialises to the
very JSON PTB's ``InlineKeyboardMarkup.to_dict`` gives (so digests stored before are
still valid). Tests and callers read it like PTB's: ``inline_keyboard`` rows of
buttons with ``text`` and ``callback_data``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, Literal, Protocol, TypeVar

import regex
from telegram import InlineKeyboardMarkup


@dataclass(frozen=True, slots=True)
class Button:
    text: str
    callback_data: str
    url: None = None  # callback buttons only (read like PTB's button)
    # the Bot API's button colour (primary, success, danger); None: the client's own
    style: str | None = None

    def to_dict(self) -> dict[str, str]:
        out = {"text": self.text, "callback_data": self.callback_data}
        if self.style is not None:
            out["style"] = self.style
        return out


@dataclass(frozen=True, slots=True)
class WebAppButton:
    """A button opening the Mini App at ``web_app_url`` (private chats only)."""

    text: str
    web_app_url: str
    callback_data: None = None
    url: None = None

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "web_app": {"url": self.web_app_url}}


@dataclass(frozen=True, slots=True)
class Keyboard:
    inline_keyboard: tuple[tuple[Button | WebAppButton, ...], ...]

    @classmethod
    def of(cls, rows: Sequence[Sequence[Button | WebAppButton]]) -> Keyboard:
        return cls(tuple(tuple(row) for row in rows))

    def to_dict(self) -> dict[str, Any]:
        return {"inline_keyboard": [[b.to_dict() for b in row] for row in self.inline_keyboard]}

    def to_json(self) -> str:
        """``json.dumps(self.to_dict(), sort_keys=True)``, character for character (the
        digests stored before stay valid), written directly: a DM's keyboard of ~40
        buttons is serialised on every render, for its digest and to be sent."""
        rows = ", ".join(
            "[" + ", ".join(map(_button_json, row)) + "]" for row in self.inline_keyboard
        )
        return '{"inline_keyboard": [' + rows + "]}"


_quoted = json.encoder.encode_basestring_ascii  # json.dumps's own (ensure_ascii)


def _button_json(b: Button | WebAppButton) -> str:
    if isinstance(b, Button):
        style = "" if b.style is None else ', "style": ' + _quoted(b.style)
        return (
            '{"callback_data": '
            + _quoted(b.callback_data)
            + style
            + ', "text": '
            + _quoted(b.text)
            + "}"
        )
    return '{"text": ' + _quoted(b.text) + ', "web_app": {"url": ' + _quoted(b.web_app_url) + "}}"


@dataclass(frozen=True)
class Content:
    text: str
    # PTB's, or the plain :class:`Keyboard` (same JSON, cheaper)
    markup: InlineKeyboardMarkup | Keyboard | None = None
    # HTML (the bot's own texts) or plain text (nothing in it is markup)
    html: bool = True
    # a reply to this message (commands are answered as replies in groups)
    reply_to: int | None = None
    # a picture (PNG) sent with ``text`` as its caption; only in one-shot slots
    photo: bytes | None = None
    # what this state is to its owner (the group's table: how many tricks it shows);
    # not part of what the message shows
    tag: object = field(default=None, compare=False)

    @cached_property
    def markup_json(self) -> str | None:
        """The keyboard as sent to Telegram, serialised once (for the digest too)."""
        markup = self.markup
        if isinstance(markup, Keyboard):
            return markup.to_json()
        return json.dumps(markup.to_dict(), sort_keys=True) if markup else None

    @cached_property
    def digest(self) -> str:
        """What the message shows, in 16 hex digits (computed once per content)."""
        m = self.markup_json or ""
        return hashlib.blake2b(f"{self.text}\0{m}".encode(), digest_size=8).hexdigest()


class Clock(Protocol):
    """``now`` paces calls (monotonic); ``wall`` dates a match (seconds since the epoch,
    saved with the game: a tournament's time limit counts across restarts)."""

    def now(self) -> float: ...

    def wall(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class LoopClock:
    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def wall(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


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


# Slot keys: which bot message a content is for (the outboxes' slots, bot/delivery/outbox.py).
# A key names a game and what its message is: ``g<game>:<kind>`` (the lobby, a seat's
# DM hand, the match's end, the level chart), ``g<game>:<kind>:<seat>`` (a DM that
# failed, a seat taken over) or ``g<game>:h<hand>:<kind>`` (a hand's group table and
# its result). Keys are stored (the store's ``shown`` table: a restart finds its
# messages by them), so a key's text never changes. Code holds a :class:`SlotKey` (or
# builds the key with :func:`slot_key`) and never takes a key apart.

SlotKind = Literal["lobby", "hand", "ended", "chart", "dmfail", "take", "table", "result"]
_SEAT_KINDS = ("dmfail", "take")
_HAND_KINDS = ("table", "result")


@dataclass(frozen=True, slots=True)
class SlotKey:
    """One message of a game: ``hand`` for a hand's (table, result), ``seat`` for a
    seat's (dmfail, take), neither for the rest."""

    game: int
    kind: SlotKind
    hand: int | None = None
    seat: int | None = None

    def __post_init__(self) -> None:
        hand_ok = (self.hand is not None) == (self.kind in _HAND_KINDS)
        seat_ok = (self.seat is not None) == (self.kind in _SEAT_KINDS)
        if not (hand_ok and seat_ok):
            raise ValueError(f"slot {self.kind!r} with hand={self.hand}, seat={self.seat}")

    @property
    def key(self) -> str:
        if self.hand is not None:
            return f"g{self.game}:h{self.hand}:{self.kind}"
        if self.seat is not None:
            return f"g{self.game}:{self.kind}:{self.seat}"
        return f"g{self.game}:{self.kind}"

    @property
    def family(self) -> str | None:
        """A game's hand tables form one family: a newer one supersedes older ones not
        sent yet (bot/delivery/outbox.py); every other message stands alone."""
        return f"g{self.game}:table" if self.kind == "table" else None


def slot_key(game: int, kind: SlotKind, *, hand: int | None = None, seat: int | None = None) -> str:
    """The key of one message of a game (see :class:`SlotKey`)."""
    return SlotKey(game, kind, hand, seat).key
