"""Compact callback data and deep-link payloads (Telegram: callback_data ≤ 64 bytes).

Callback data is ``kind|game|hand|version|arg``: the game id, the hand number and the
engine's state version (base 36), so a press on an old hand's or an old trick's
button is recognised as stale. Cards are one character each from a 64-letter alphabet.
Settings buttons carry no game: ``cfg|key|value``.

Each family of buttons is one class (as aiogram's ``CallbackData``): the keyboards build
it and ``pack()`` it, the router gets it back from :func:`parse`, which checks
everything the data says (fields, kind, base 36, card letters, the argument's shape) and
raises :class:`BadData` for anything this bot did not make. A parsed button becomes one
of the table's commands (``bot.table.commands``); whether it may happen now (seat,
phase, version, the rules) is the table's to check.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from bot.table.commands import (
    AddComputer,
    Away,
    Back,
    Cancel,
    Clear,
    Hint,
    Leave,
    LobbyCommand,
    NextHand,
    Pass,
    Play,
    Redeal,
    RemoveComputer,
    SeatCommand,
    Select,
    Show,
    Start,
    Tally,
    Why,
)
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
    WHY = "Y"  # why the computers played the last trick so (shown, or hidden again)
    CLEAR = "O"
    SHOW = "D"  # declare, reinforce or overturn (arg: the cards)
    PASS = "N"  # nothing to show in the overturn window, or in 炒底
    REDEAL = "V"
    BACK = "A"  # back from 托管
    AWAY = "W"  # "I'm away": 托管 by choice
    TALLY = "M"  # the card counter (记牌器) line, shown or hidden again


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


def encode_cards(cards: Iterable[int]) -> str:
    return "".join(_CARD_CHARS[c] for c in cards)


def decode_cards(s: str) -> list[int]:
    try:
        return [_CARD_CHARS.index(ch) for ch in s]
    except ValueError:
        raise BadData(s) from None


@dataclass(frozen=True)
class Press:
    """The envelope every game button shares on the wire (``kind|game|hand|version|arg``);
    what it means is its family's (:func:`parse`)."""

    kind: Kind
    game: int
    hand: int
    version: int
    arg: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", Kind(self.kind))

    def encode(self) -> str:
        return _pack(self.kind, self.game, self.hand, self.version, self.arg)

    @property
    def cards(self) -> list[int]:
        return decode_cards(self.arg)


@lru_cache(maxsize=1024)
def _middle(game: int, hand: int, version: int) -> str:
    # a hand's keyboard has a button for every card: the common part is encoded once
    return f"|{b36(game)}|{b36(hand)}|{b36(version)}|"


def _pack(kind: str, game: int, hand: int, version: int, arg: str = "") -> str:
    data = f"{kind}{_middle(game, hand, version)}{arg}"
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"callback data too long: {data!r}")
    return data


def _size(data: str) -> int:
    """Bytes in UTF-8; forged data that is not valid Unicode (a lone surrogate) is bad."""
    try:
        return len(data.encode())
    except UnicodeEncodeError:
        raise BadData("not valid Unicode") from None


def decode(data: str | None) -> Press:
    """The envelope of a game button (its argument unchecked: see :func:`parse`)."""
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


# ---------------------------------------------------------------------- button families
# One class per family of buttons: the keyboard packs it, the router parses it back
# (:func:`parse`), completely, before anything is locked; each family turns into the
# table's own command (``bot.table.commands``) with who pressed it.


@dataclass(frozen=True, slots=True)
class LobbyButton:
    """The lobby's buttons in the group: ``<kind>|<game>|0|0|``."""

    kind: Kind
    game: int

    def __post_init__(self) -> None:
        if self.kind not in LOBBY_KINDS:
            raise ValueError(f"not a lobby button: {self.kind!r}")

    def pack(self) -> str:
        return _pack(self.kind, self.game, 0, 0)

    @classmethod
    def unpack(cls, p: Press) -> LobbyButton:
        if p.kind not in LOBBY_KINDS or p.hand or p.version or p.arg:
            raise BadData(p)
        return cls(p.kind, p.game)

    def command(self, user_id: int, admin: bool) -> LobbyCommand:
        return _LOBBY_COMMANDS[self.kind](user_id, admin)


_LOBBY_COMMANDS: dict[Kind, type[LobbyCommand]] = {
    Kind.LEAVE: Leave,
    Kind.ADD_COMPUTER: AddComputer,
    Kind.REMOVE_COMPUTER: RemoveComputer,
    Kind.START: Start,
    Kind.CANCEL: Cancel,
}


@dataclass(frozen=True, slots=True)
class EndButton:
    """The /endgame question's two answers in the group: ``E`` (end) or ``K`` (keep
    playing), ``|<game>|<hand>|0|``."""

    end: bool
    game: int
    hand: int

    def pack(self) -> str:
        return _pack(Kind.END if self.end else Kind.KEEP, self.game, self.hand, 0)

    @classmethod
    def unpack(cls, p: Press) -> EndButton:
        if p.kind not in END_KINDS or p.version or p.arg:
            raise BadData(p)
        return cls(p.kind == Kind.END, p.game, p.hand)


@dataclass(frozen=True, slots=True)
class NextHandButton:
    """The result's "Next hand" in the group: ``G|<game>|<hand>|<version>|``."""

    game: int
    hand: int
    version: int

    def pack(self) -> str:
        return _pack(Kind.NEXT_HAND, self.game, self.hand, self.version)

    @classmethod
    def unpack(cls, p: Press) -> NextHandButton:
        if p.arg:
            raise BadData(p)
        return cls(p.game, p.hand, p.version)

    def command(self, user_id: int, code: str | None) -> SeatCommand:
        return NextHand(user_id, self.hand, self.version, code=code)


@dataclass(frozen=True, slots=True)
class HandButton:
    """A DM hand's buttons without an argument (play or bury the selection, hint,
    clear, pass, redeal, back from 托管): ``<kind>|<game>|<hand>|<version>|``."""

    kind: Kind
    game: int
    hand: int
    version: int

    def __post_init__(self) -> None:
        if self.kind not in _HAND_COMMANDS:
            raise ValueError(f"not a hand button without an argument: {self.kind!r}")

    def pack(self) -> str:
        return _pack(self.kind, self.game, self.hand, self.version)

    @classmethod
    def unpack(cls, p: Press) -> HandButton:
        if p.kind not in _HAND_COMMANDS or p.arg:
            raise BadData(p)
        return cls(p.kind, p.game, p.hand, p.version)

    def command(self, user_id: int, code: str | None) -> SeatCommand:
        return _HAND_COMMANDS[self.kind](user_id, self.hand, self.version, code=code)


_HAND_COMMANDS: dict[
    Kind, type[Play | Hint | Why | Tally | Clear | Pass | Redeal | Back | Away]
] = {
    Kind.PLAY: Play,
    Kind.HINT: Hint,
    Kind.WHY: Why,
    Kind.CLEAR: Clear,
    Kind.PASS: Pass,
    Kind.REDEAL: Redeal,
    Kind.BACK: Back,
    Kind.AWAY: Away,
    Kind.TALLY: Tally,
}


@dataclass(frozen=True, slots=True)
class CardButton:
    """A card of a DM hand: select or unselect one copy of it (``T|…|<card><copy>``)."""

    game: int
    hand: int
    version: int
    card: int
    copy: int

    def pack(self) -> str:
        arg = f"{_CARD_CHARS[self.card]}{self.copy}"
        return _pack(Kind.TOGGLE, self.game, self.hand, self.version, arg)

    @staticmethod
    def packer(game: int, hand: int, version: int) -> Callable[[int, int], str]:
        """``(card, copy) -> CardButton(game, hand, version, card, copy).pack()`` for a
        whole keyboard of cards: the common part packed (and its length checked) once."""
        head = _pack(Kind.TOGGLE, game, hand, version, "00")[:-2]  # an arg: 2 ASCII chars
        chars = _CARD_CHARS
        return lambda card, copy: f"{head}{chars[card]}{copy}"

    @classmethod
    def unpack(cls, p: Press) -> CardButton:
        if len(p.arg) != 2 or p.arg[1] not in "01":
            raise BadData(p)
        return cls(p.game, p.hand, p.version, decode_cards(p.arg[0])[0], int(p.arg[1]))

    def command(self, user_id: int, code: str | None) -> SeatCommand:
        return Select(user_id, self.hand, self.version, self.card, self.copy, code=code)


@dataclass(frozen=True, slots=True)
class ShowButton:
    """A show option of a DM hand: declare, reinforce or overturn with these cards
    (``D|…|<cards>``)."""

    game: int
    hand: int
    version: int
    cards: tuple[int, ...]

    def pack(self) -> str:
        return _pack(Kind.SHOW, self.game, self.hand, self.version, encode_cards(self.cards))

    @classmethod
    def unpack(cls, p: Press) -> ShowButton:
        if not p.arg:
            raise BadData(p)
        return cls(p.game, p.hand, p.version, tuple(decode_cards(p.arg)))

    def command(self, user_id: int, code: str | None) -> SeatCommand:
        return Show(user_id, self.hand, self.version, self.cards, code=code)


_SETTINGS = re.compile(r"^cfg\|([0-9A-Za-z_.+-]{1,24})\|([0-9A-Za-z_.+-]{1,24})$")


@dataclass(frozen=True, slots=True)
class SettingsButton:
    """A /settings screen's button (no game): ``cfg|<key>|<value>``."""

    key: str
    value: str

    def pack(self) -> str:
        data = f"cfg|{self.key}|{self.value}"
        if not _SETTINGS.match(data):
            raise ValueError(f"not settings data: {data!r}")
        return data

    @classmethod
    def unpack(cls, data: str) -> SettingsButton:
        m = _SETTINGS.match(data)
        if m is None:
            raise BadData(data)
        return cls(m.group(1), m.group(2))


SeatButton = HandButton | CardButton | ShowButton | NextHandButton
Button = LobbyButton | EndButton | SeatButton | SettingsButton

_FAMILIES: dict[Kind, Callable[[Press], Button]] = {
    **dict.fromkeys(LOBBY_KINDS, LobbyButton.unpack),
    **dict.fromkeys(END_KINDS, EndButton.unpack),
    **dict.fromkeys(_HAND_COMMANDS, HandButton.unpack),
    Kind.NEXT_HAND: NextHandButton.unpack,
    Kind.TOGGLE: CardButton.unpack,
    Kind.SHOW: ShowButton.unpack,
}


def parse(data: str | None) -> Button:
    """Callback data as one button of its family, checked completely (BadData: not a
    button this bot made)."""
    if data is None or _size(data) > MAX_BYTES:
        raise BadData(data)
    if data.startswith("cfg|"):
        return SettingsButton.unpack(data)
    p = decode(data)
    return _FAMILIES[p.kind](p)


# Deep links: /start j<game>_<seat>  (seat 0..3); /start g<game> opens the DM for a game;
# /start t<game>_<seat> takes over a seat whose player is absent.
_JOIN = re.compile(r"^j([0-9a-z]{1,12})_([0-3])$")
_TAKE = re.compile(r"^t([0-9a-z]{1,12})_([0-3])$")
_OPEN = re.compile(r"^g([0-9a-z]{1,12})$")


def deep_link(bot_username: str, payload: str) -> str:
    """The link that opens the bot's DM and sends ``/start <payload>`` (one of below)."""
    return f"https://t.me/{bot_username}?start={payload}"


@dataclass(frozen=True, slots=True)
class SitLink:
    """A lobby's seat button: sit in ``seat`` (0..3) of ``game``."""

    game: int
    seat: int

    def pack(self) -> str:
        return f"j{b36(self.game)}_{self.seat}"


@dataclass(frozen=True, slots=True)
class TakeLink:
    """/takeover's button: take ``seat`` of ``game`` from a player who is away."""

    game: int
    seat: int

    def pack(self) -> str:
        return f"t{b36(self.game)}_{self.seat}"


@dataclass(frozen=True, slots=True)
class OpenLink:
    """Open the DM (or the Mini App) of ``game``."""

    game: int

    def pack(self) -> str:
        return f"g{b36(self.game)}"


Link = SitLink | TakeLink | OpenLink


def join_payload(game: int, seat: int) -> str:
    return SitLink(game, seat).pack()


def take_payload(game: int, seat: int) -> str:
    return TakeLink(game, seat).pack()


def open_payload(game: int) -> str:
    return OpenLink(game).pack()


def parse_link(payload: str) -> Link:
    """A deep link's payload (``/start <payload>``, a Mini App's ``startapp``); else
    BadData."""
    if m := _JOIN.match(payload):
        return SitLink(int(m.group(1), 36), int(m.group(2)))
    if m := _TAKE.match(payload):
        return TakeLink(int(m.group(1), 36), int(m.group(2)))
    if m := _OPEN.match(payload):
        return OpenLink(int(m.group(1), 36))
    raise BadData(payload)


# Where the Mini App opens: the DM's button (a ``web_app`` URL) and the group's direct
# link (``t.me/<bot>/<short name>?startapp=``, a spectator's view).


def table_url(webapp_url: str, game_id: int) -> str | None:
    """The DM button's address of a game's table; None without a Mini App."""
    if not webapp_url:
        return None
    base = webapp_url if webapp_url.endswith("/") else webapp_url + "/"
    return f"{base}?game={game_id}"


def direct_link(bot_username: str, short_name: str, game_id: int) -> str | None:
    """The group's link to watch a game in the Mini App; None without a short name."""
    if not short_name:
        return None
    return f"https://t.me/{bot_username}/{short_name}?startapp={open_payload(game_id)}"
