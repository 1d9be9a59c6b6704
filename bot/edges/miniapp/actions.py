"""What the Mini App may ask (``POST /api/act``): its JSON body, parsed completely into the
table's own command (``bot.table.commands``) before anything is locked, as a DM
button's callback data is (``bot.views.codec.parse``).

    {"game": 12, "action": "play", "hand": 3, "version": 41, "cards": [7, 7, 20]}

``hand`` and ``version``: what the app showed (an older one is stale, as an old
keyboard's press); ``cards``: card ids (0–53), for ``show`` (the option's cards) and
``play`` (the cards to play or bury; none: the selection). A body that does not parse
(:class:`BadAction`) is answered politely by the server and changes nothing.

The other requests' game (``POST /api/here``'s body, ``?game=``) is parsed here too.
Every number is bounded (a game id fits the database's INTEGER; a count is one of
JSON's exact integers) and finite; pydantic's JSON parser refuses a body nested deeper
than its recursion limit (a few hundred) with a validation error, never a
``RecursionError``; the server bounds the body's size.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bot.table.commands import (
    Away,
    Back,
    Clear,
    Hint,
    NextHand,
    Pass,
    Play,
    Redeal,
    SeatCommand,
    Show,
)
from engine.cards import NUM_DISTINCT

MAX_CARDS = 40  # more than any hand holds

CardId = Annotated[int, Field(ge=0, lt=NUM_DISTINCT)]
Count = Annotated[int, Field(ge=0, le=2**53)]  # JSON's exact integers
MAX_GAME_ID = 2**63 - 1  # SQLite's INTEGER
GameId = Annotated[int, Field(ge=1, le=MAX_GAME_ID)]
_DIGITS = re.compile(r"[0-9]{1,19}")

_ARGLESS: dict[str, type[Hint | Clear | Pass | Redeal | Back | Away | NextHand]] = {
    "hint": Hint,
    "clear": Clear,
    "pass": Pass,
    "redeal": Redeal,
    "back": Back,
    "away": Away,  # "I'm away": 托管 by choice
    "next": NextHand,  # the result's "Next hand", as the group's button
}


class BadAction(ValueError):
    """A body the Mini App does not send."""


class Act(BaseModel):
    """The body of ``POST /api/act`` (fields the page adds beyond these are ignored)."""

    model_config = ConfigDict(strict=True, frozen=True, extra="ignore")

    game: GameId
    action: Literal["play", "show", "hint", "clear", "pass", "redeal", "back", "away", "next"]
    hand: Count = 0
    version: Count = 0
    cards: Annotated[list[CardId], Field(max_length=MAX_CARDS)] | None = None

    @model_validator(mode="after")
    def _cards_where_they_mean_something(self) -> Act:
        if self.action == "show" and not self.cards:
            raise ValueError("a show names its cards")
        if self.action not in ("play", "show") and self.cards:
            raise ValueError(f"{self.action} takes no cards")
        return self

    def command(self, user_id: int, code: str | None) -> SeatCommand:
        """The table's command for the person ``user_id`` (``code``: their language)."""
        hand, version = self.hand, self.version
        if self.action == "play":
            cards = tuple(self.cards) if self.cards else None  # none: the selection
            return Play(user_id, hand, version, cards, code=code)
        if self.action == "show":
            return Show(user_id, hand, version, tuple(self.cards or ()), code=code)
        return _ARGLESS[self.action](user_id, hand, version, code=code)


class Here(BaseModel):
    """The body of ``POST /api/here``: ``{"game": 12}``."""

    model_config = ConfigDict(strict=True, frozen=True, extra="ignore")

    game: GameId


def parse(raw: bytes | str) -> Act:
    """The request's body as an action, or :class:`BadAction`."""
    try:
        return Act.model_validate_json(raw)
    except ValidationError as e:
        raise BadAction(_first(e)) from None


def parse_here(raw: bytes | str) -> int:
    """The game of a ``here`` body, or :class:`BadAction`."""
    try:
        return Here.model_validate_json(raw).game
    except ValidationError as e:
        raise BadAction(_first(e)) from None


def game_param(text: str) -> int:
    """A game id written in a URL (``?game=``): decimal digits only, or :class:`BadAction`."""
    if _DIGITS.fullmatch(text) is None or not 1 <= (game := int(text)) <= MAX_GAME_ID:
        raise BadAction("game: not a game id")
    return game


def _first(e: ValidationError) -> str:
    error: dict[str, Any] = dict(e.errors()[0])
    return f"{'.'.join(map(str, error.get('loc', ())))}: {error.get('msg', '')}"
