"""Inline keyboards as plain data, for the messages rendered on every change.

A player's DM hand is rendered whenever what its reader needs changes, with one button
per card (up to ~40). Built as python-telegram-bot objects, each button costs dozens of
attribute checks, and the keyboard is then turned back into a dict to be sent and
digested. :class:`Keyboard` holds the same rows as plain tuples and serialises to the
very JSON PTB's ``InlineKeyboardMarkup.to_dict`` gives (so digests stored before are
still valid). Tests and callers read it like PTB's: ``inline_keyboard`` rows of
buttons with ``text`` and ``callback_data``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Button:
    text: str
    callback_data: str
    url: None = None  # callback buttons only (read like PTB's button)

    def to_dict(self) -> dict[str, str]:
        return {"text": self.text, "callback_data": self.callback_data}


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
    def of(cls, rows: list[list[Button | WebAppButton]]) -> Keyboard:
        return cls(tuple(tuple(row) for row in rows))

    def to_dict(self) -> dict[str, Any]:
        return {"inline_keyboard": [[b.to_dict() for b in row] for row in self.inline_keyboard]}
