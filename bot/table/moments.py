"""What happened at a table besides the engine's moments (``engine.events``).

:func:`bot.table.apply` returns the engine's events of the change, in order, with
these: who sat down or left, a take-over, 托管, a pause, the end. Whatever shows the
game (``bot.delivery.publish``, the Mini App) renders these moments and the views of the state
after them; it never diffs two states to find out what happened.

An event that changes nothing but a player's selection or the warning of a turn's
last seconds is *light* (:data:`LIGHT`): the change need not wait for the disk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.data.saved import Seat
from engine.events import Event as EngineEvent
from engine.view import PublicView


@dataclass(slots=True)
class Opened:
    """A lobby opened in the group."""

    kind: Literal["opened"] = "opened"


@dataclass(slots=True)
class Seated:
    """A person sat down in the lobby (through the seat's deep link)."""

    seat: int
    kind: Literal["seated"] = "seated"


@dataclass(slots=True)
class Left:
    """A seat of the lobby became empty (its person left or moved; a computer went)."""

    seat: int
    kind: Literal["left"] = "left"


@dataclass(slots=True)
class ComputerSeated:
    seat: int
    kind: Literal["computer_seated"] = "computer_seated"


@dataclass(slots=True)
class Started:
    """The lobby's four seats start the match (hand 1 deals)."""

    kind: Literal["started"] = "started"


@dataclass(slots=True)
class Closed:
    """The game is over for good: ``status`` cancelled (a lobby), expired (a lobby not
    started in time) or ended (/endgame); ``by``: who ended it with /endgame."""

    status: str
    by: str | None = None
    kind: Literal["closed"] = "closed"


@dataclass(slots=True)
class TookOver:
    """Another member took the seat of a player on 托管 or unreachable."""

    seat: int
    old: Seat
    new: Seat
    kind: Literal["took_over"] = "took_over"


@dataclass(slots=True)
class HandResent:
    """The seat's hand goes out as a new message (a player back in their DM, a
    newcomer in the seat); an older one of that DM goes."""

    seat: int
    kind: Literal["hand_resent"] = "hand_resent"


@dataclass(slots=True)
class DmFailed:
    """The seat's DM cannot be reached: the game waits for them."""

    seat: int
    kind: Literal["dm_failed"] = "dm_failed"


@dataclass(slots=True)
class Paused:
    kind: Literal["paused"] = "paused"


@dataclass(slots=True)
class Resumed:
    kind: Literal["resumed"] = "resumed"


@dataclass(slots=True)
class AutoOn:
    """托管 (RULES.md 13): the seat's time ran out, or its player chose it ("I'm away");
    the computer plays for them."""

    seat: int
    kind: Literal["auto_on"] = "auto_on"


@dataclass(slots=True)
class AutoOff:
    """The player is back: 托管 ends."""

    seat: int
    kind: Literal["auto_off"] = "auto_off"


@dataclass(slots=True)
class Selected:
    """The seat's selection of cards changed (light)."""

    seat: int
    kind: Literal["selected"] = "selected"


@dataclass(slots=True)
class Warned:
    """The turn's last seconds: its DM says so once (light)."""

    seat: int
    kind: Literal["warned"] = "warned"


@dataclass(slots=True)
class HandClosed:
    """The next hand starts: the finished hand's result (``view``, its public view as
    it ended) loses its "Next hand" button."""

    view: PublicView
    kind: Literal["hand_closed"] = "hand_closed"


@dataclass(slots=True)
class SettingsApplied:
    """The group's settings reached the game (its language; a lobby's rules too)."""

    kind: Literal["settings_applied"] = "settings_applied"


@dataclass(slots=True)
class ChatMoved:
    """The group became a supergroup: the game lives in chat ``new`` now."""

    old: int
    new: int
    kind: Literal["chat_moved"] = "chat_moved"


@dataclass(slots=True)
class GroupGone:
    """The bot was removed from the group: a running game pauses, kept whole."""

    kind: Literal["group_gone"] = "group_gone"


@dataclass(slots=True)
class GroupBack:
    """The bot is back in the group: the table is posted anew."""

    kind: Literal["group_back"] = "group_back"


TableEvent = (
    Opened
    | Seated
    | Left
    | ComputerSeated
    | Started
    | Closed
    | TookOver
    | HandResent
    | DmFailed
    | Paused
    | Resumed
    | AutoOn
    | AutoOff
    | Selected
    | Warned
    | HandClosed
    | SettingsApplied
    | ChatMoved
    | GroupGone
    | GroupBack
)
Event = EngineEvent | TableEvent

LIGHT = (Selected, Warned)
# what the lobby message shows may have changed (it is not rendered otherwise)
LOBBY = (
    Opened,
    Seated,
    Left,
    ComputerSeated,
    Started,
    Closed,
    SettingsApplied,
    ChatMoved,
    GroupBack,
)
