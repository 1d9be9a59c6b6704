"""Compact callback data and deep-link payloads (Telegram: callback_data ≤ 64 bytes).

Callback data is ``kind|game|hand|version|arg``: the game id, the hand number and the
engine's state version (base 36), so a press on an old hand's or an old trick's
button is recognised as stale. Nothing is trusted: every press is checked against
the game (seat, phase, version) before anything changes. Cards are one character
each from a 64-letter alphabet.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from engine.cards import NUM_DISTINCT

_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_"
_CARD_CHARS = _ALPHABET[:NUM_DISTINCT]
_B36 = re.compile(r"^[0-9a-z]{1,12}$")
MAX_BYTES = 64


class Kind(StrEnum):
    """What a game button does (one character on the wire)."""

    # lobby, in the group
    LEAVE = "L"
    ADD_COMPUTER = "C"
    REMOVE_COMPUTER = "R"
    START = "S"
    CANCEL = "X"
    # the /endgame question, in the group
    END = "E"
    KEEP = "K"
    # the result, in the group
    NEXT_HAND = "G"
    # a hand, in a DM
    TOGGLE = "T"  # select or unselect one card (arg: card + copy); one tap may play it
    PLAY = "P"  # play (or bury) the selection
    HINT = "H"
    CLEAR = "O"
    SHOW = "D"  # declare, reinforce or overturn (arg: the cards)
    PASS = "N"  # nothing to show in the overturn window, or in 炒底
    REDEAL = "V"
    BACK = "A"  # back from 托管


LOBBY_KINDS = frozenset(
    {Kind.LEAVE, Kind.ADD_COMPUTER, Kind.REMOVE_COMPUTER, Kind.START, Kind.CANCEL}
)
END_KINDS = frozenset({Kind.END, Kind.KEEP})


class BadData(ValueError):
    """Callback data or a payload that this bot did not produce."""


def b36(n: int) -> str:
    if n < 0:
        raise ValueError("negative")
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def from_b36(s: str) -> int:
    if not _B36.match(s):
        raise BadData(s)
    return int(s, 36)


def encode_cards(cards: list[int]) -> str:
    return "".join(_CARD_CHARS[c] for c in cards)


def decode_cards(s: str) -> list[int]:
    try:
        return [_CARD_CHARS.index(ch) for ch in s]
    except ValueError:
        raise BadData(s) from None


@dataclass(frozen=True)
class Press:
    kind: Kind
    game: int
    hand: int
    version: int
    arg: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", Kind(self.kind))

    def encode(self) -> str:
        data = f"{self.kind}|{b36(self.game)}|{b36(self.hand)}|{b36(self.version)}|{self.arg}"
        if len(data.encode()) > MAX_BYTES:
            raise ValueError(f"callback data too long: {data!r}")
        return data

    @property
    def cards(self) -> list[int]:
        return decode_cards(self.arg)


def press_encoder(game: int, hand: int, version: int) -> Callable[..., str]:
    """``(kind, arg="") -> data``: the same as ``Press(kind, game, hand, version,
    arg).encode()``, with the common part encoded once (a hand's keyboard has a button
    for every card)."""
    middle = f"|{b36(game)}|{b36(hand)}|{b36(version)}|"

    def encode(kind: str, arg: str = "") -> str:
        if kind not in _KINDS:
            raise ValueError(f"unknown press kind {kind!r}")
        data = f"{kind}{middle}{arg}"
        if len(data.encode()) > MAX_BYTES:
            raise ValueError(f"callback data too long: {data!r}")
        return data

    return encode


def _size(data: str) -> int:
    """Bytes in UTF-8; forged data that is not valid Unicode (a lone surrogate) is bad."""
    try:
        return len(data.encode())
    except UnicodeEncodeError:
        raise BadData("not valid Unicode") from None


def decode(data: str | None) -> Press:
    if not data or _size(data) > MAX_BYTES:
        raise BadData(data)
    parts = data.split("|")
    if len(parts) != 5 or parts[0] not in _KINDS:
        raise BadData(data)
    kind, game, hand, version, arg = parts
    if arg and not all(ch in _ALPHABET for ch in arg):
        raise BadData(data)
    return Press(Kind(kind), from_b36(game), from_b36(hand), from_b36(version), arg)


_KINDS = frozenset(k.value for k in Kind)


# Settings buttons carry no game: "cfg|<key>|<value>".
def settings_data(key: str, value: str) -> str:
    return f"cfg|{key}|{value}"


def decode_settings(data: str) -> tuple[str, str]:
    if _size(data) > MAX_BYTES:
        raise BadData(data)
    parts = data.split("|")
    if len(parts) != 3 or parts[0] != "cfg":
        raise BadData(data)
    return parts[1], parts[2]


# Deep links: /start j<game>_<seat>  (seat 0..3); /start g<game> opens the DM for a game;
# /start t<game>_<seat> takes over a seat whose player is absent.
_JOIN = re.compile(r"^j([0-9a-z]{1,12})_([0-3])$")
_TAKE = re.compile(r"^t([0-9a-z]{1,12})_([0-3])$")
_OPEN = re.compile(r"^g([0-9a-z]{1,12})$")


def deep_link(bot_username: str, payload: str) -> str:
    """The link that opens the bot's DM and sends ``/start <payload>`` (one of below)."""
    return f"https://t.me/{bot_username}?start={payload}"


def join_payload(game: int, seat: int) -> str:
    return f"j{b36(game)}_{seat}"


def take_payload(game: int, seat: int) -> str:
    return f"t{b36(game)}_{seat}"


def open_payload(game: int) -> str:
    return f"g{b36(game)}"


def decode_payload(payload: str) -> tuple[str, int, int | None]:
    """('join', game, seat), ('take', game, seat) or ('open', game, None); else BadData."""
    if m := _JOIN.match(payload):
        return "join", int(m.group(1), 36), int(m.group(2))
    if m := _TAKE.match(payload):
        return "take", int(m.group(1), 36), int(m.group(2))
    if m := _OPEN.match(payload):
        return "open", int(m.group(1), 36), None
    raise BadData(payload)
