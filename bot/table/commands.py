"""What can be asked of a table: each command is one change, applied by
:func:`bot.table.apply` with the time it happens at."""

from __future__ import annotations

from dataclasses import dataclass

from bot.codec import Press
from bot.models import ChatSettings
from bot.table.tokens import Token
from engine.hand import Action


@dataclass(slots=True)
class Join:
    """A person came through a seat's deep link (``lang``: their language, if known)."""

    seat: int
    user_id: int
    name: str
    lang: str | None


@dataclass(slots=True)
class LobbyPress:
    """A lobby button (leave, add or remove a computer, start, cancel); ``admin``:
    the presser administers the group."""

    press: Press
    user_id: int
    admin: bool


@dataclass(slots=True)
class TakeOver:
    """/start t<game>_<seat>: a group member takes an absent player's seat."""

    seat: int
    user_id: int
    name: str
    lang: str | None


@dataclass(slots=True)
class HandPress:
    """A button of a DM hand, or the group's "Next hand". ``code``: the presser's
    Telegram language; ``old_message``: pressed on an older hand message of the DM."""

    press: Press
    user_id: int
    code: str | None = None
    old_message: bool = False


@dataclass(slots=True)
class Tick:
    """A timer went off; ``thought``: the computer's move it decided (for a turn);
    ``shows``: the computers' shows or passes it decided, by seat, for a deal batch or
    the after-deal window (None: the table asks the heuristic itself)."""

    token: Token
    thought: Action | None = None
    shows: dict[int, Action] | None = None


@dataclass(slots=True)
class DmBack:
    """The person's DM works again (/start, unblocked): their hand is sent anew."""

    user_id: int


@dataclass(slots=True)
class DmLost:
    """A DM failed (blocked, never started): the game waits for its person."""

    user_id: int


@dataclass(slots=True)
class End:
    """/endgame, confirmed by ``by`` (their name as shown)."""

    by: str


@dataclass(slots=True)
class ApplySettings:
    """The group's settings changed: the language reaches the game, the rules a lobby."""

    chat: ChatSettings


@dataclass(slots=True)
class MoveChat:
    old: int
    new: int


@dataclass(slots=True)
class LeaveGroup:
    """The bot was removed from the group."""


@dataclass(slots=True)
class ReturnToGroup:
    """The bot is back in the group."""


Command = (
    Join
    | LobbyPress
    | TakeOver
    | HandPress
    | Tick
    | DmBack
    | DmLost
    | End
    | ApplySettings
    | MoveChat
    | LeaveGroup
    | ReturnToGroup
)
