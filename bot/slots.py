"""Slot keys: which bot message a content is for (the outboxes' slots, bot/outbox.py).

A key names a game and what its message is: ``g<game>:<kind>`` (the lobby, a seat's
DM hand, the match's end, the level chart), ``g<game>:<kind>:<seat>`` (a DM that
failed, a seat taken over) or ``g<game>:h<hand>:<kind>`` (a hand's group table and
its result). Keys are stored (the store's ``shown`` table: a restart finds its
messages by them), so a key's text never changes. Code holds a :class:`SlotKey` (or builds the key with :func:`key`) and
never takes a key apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["lobby", "hand", "ended", "chart", "dmfail", "take", "table", "result"]
_SEAT_KINDS = ("dmfail", "take")
_HAND_KINDS = ("table", "result")


@dataclass(frozen=True, slots=True)
class SlotKey:
    """One message of a game: ``hand`` for a hand's (table, result), ``seat`` for a
    seat's (dmfail, take), neither for the rest."""

    game: int
    kind: Kind
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
        sent yet (bot/outbox.py); every other message stands alone."""
        return f"g{self.game}:table" if self.kind == "table" else None


def key(game: int, kind: Kind, *, hand: int | None = None, seat: int | None = None) -> str:
    """The key of one message of a game (see :class:`SlotKey`)."""
    return SlotKey(game, kind, hand, seat).key
