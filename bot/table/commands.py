"""What can be asked of a table: each command is one change, applied by
:func:`bot.table.apply` with the time it happens at.

Commands are the table's own words, not a chat's: every edge (a button's callback data,
the Mini App's JSON, a deep link) parses what it received completely into one of these
before the table is locked, and refuses what does not parse with a polite answer of its
own. Inside the table a command is checked against the game (seat, turn, staleness,
the engine's rules), never against how it was sent."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.data.saved import ChatSettings
from bot.table.tokens import Token
from engine.hand import Action
from engine.reasons import Reason


@dataclass(slots=True)
class Join:
    """A person came through a seat's deep link (``lang``: their language, if known)."""

    seat: int
    user_id: int
    name: str
    lang: str | None


# ---------------------------------------------------------------------- the lobby
@dataclass(frozen=True, slots=True)
class InLobby:
    """A lobby's button in the group, pressed by ``user_id``; ``admin``: they administer
    the group (with the creator, the only ones who seat computers, start or cancel)."""

    user_id: int
    admin: bool = False


@dataclass(frozen=True, slots=True)
class Leave(InLobby):
    """Leave one's seat in the lobby."""


@dataclass(frozen=True, slots=True)
class AddComputer(InLobby):
    """A computer takes the first empty seat, named ``name`` (words the edge picks:
    ``bot.edges.lobby.Lobby.press`` names it in the group's language)."""

    name: str = ""


@dataclass(frozen=True, slots=True)
class RemoveComputer(InLobby):
    """The last computer seated leaves."""


@dataclass(frozen=True, slots=True)
class Start(InLobby):
    """Four seated, one of them a person: the match starts."""


@dataclass(frozen=True, slots=True)
class Cancel(InLobby):
    """The lobby closes unplayed."""


LobbyCommand = Leave | AddComputer | RemoveComputer | Start | Cancel


@dataclass(slots=True)
class TakeOver:
    """/start t<game>_<seat>: a group member takes an absent player's seat."""

    seat: int
    user_id: int
    name: str
    lang: str | None


# ---------------------------------------------------------------------- at a seat
@dataclass(frozen=True, slots=True)
class AtSeat:
    """What a person does at their seat of a running game: a button of their DM hand, the
    same in the Mini App, or the group's "Next hand". ``hand`` and ``version``: the hand
    number and the engine's state version the person saw (an older hand is stale);
    ``code``: their Telegram language; ``old_message``: pressed on an older hand message
    of their DM."""

    user_id: int
    hand: int
    version: int
    code: str | None = field(default=None, kw_only=True)
    old_message: bool = field(default=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class Select(AtSeat):
    """Select or unselect ``copy`` (0 or 1) of ``card``; when one card is all the turn
    needs and nothing is selected, the tap plays it (only on the current version)."""

    card: int
    copy: int


@dataclass(frozen=True, slots=True)
class Play(AtSeat):
    """Put cards down at one's turn: the trick's play, or the kitty's burial when the
    dealer buries (the same button). ``cards``: None plays the selection."""

    cards: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class Show(AtSeat):
    """Declare, reinforce or overturn with ``cards`` (one of the seat's show options)."""

    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Pass(AtSeat):
    """Nothing to show in the window after the deal, or nothing to add in 炒底."""


@dataclass(frozen=True, slots=True)
class Redeal(AtSeat):
    """Ask for a redeal (a hand the rules let its holder throw in)."""


@dataclass(frozen=True, slots=True)
class Hint(AtSeat):
    """Select what the computer would play (or bury) now: ``suggestion``, decided at the
    edge before the change (``bot.edges.computer.Computers.suggest``: the heuristic at once, a
    search in the pool). The table decides nothing itself: a Hint without one is "not
    now", and one decided for a moment that has passed is dropped."""

    suggestion: Suggestion | None = field(default=None, kw_only=True)


@dataclass(frozen=True, slots=True)
class Suggestion:
    """What the computer would play (or bury) for a seat at the hand's state ``version``,
    and why (the search's odds or the heuristic's rule)."""

    version: int
    cards: tuple[int, ...]
    reason: Reason


@dataclass(frozen=True, slots=True)
class Why(AtSeat):
    """Show (or hide again) in the DM why the computers played the last trick as they did."""


@dataclass(frozen=True, slots=True)
class Tally(AtSeat):
    """Show (or hide again) in the DM the card counter (记牌器) of the seat."""


@dataclass(frozen=True, slots=True)
class Clear(AtSeat):
    """Unselect every card."""


@dataclass(frozen=True, slots=True)
class Back(AtSeat):
    """Back from 托管: the person plays their seat again."""


@dataclass(frozen=True, slots=True)
class Away(AtSeat):
    """ "I'm away" (我先托管): the computer plays for the seat (托管, RULES.md 13) as after a
    time-out, until the person presses anything again."""


@dataclass(frozen=True, slots=True)
class NextHand(AtSeat):
    """The finished hand's result is read: the next hand starts now."""


SeatCommand = (
    Select | Play | Show | Pass | Redeal | Hint | Why | Tally | Clear | Back | Away | NextHand
)


@dataclass(slots=True)
class Tick:
    """A timer went off; ``thought``: the computer's move it decided (for a turn);
    ``shows``: the computers' shows or passes it decided, by seat, for a deal batch or
    the after-deal window (None: nobody was asked). Every decision is made at the edge
    (``bot.edges.timers``), for every strength: the table calls no player."""

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
    | Leave
    | AddComputer
    | RemoveComputer
    | Start
    | Cancel
    | TakeOver
    | Select
    | Play
    | Show
    | Pass
    | Redeal
    | Hint
    | Why
    | Tally
    | Clear
    | Back
    | Away
    | NextHand
    | Tick
    | DmBack
    | DmLost
    | End
    | ApplySettings
    | MoveChat
    | LeaveGroup
    | ReturnToGroup
)
