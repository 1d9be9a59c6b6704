"""A table: the game's record (lobby, seats, settings) and its match, with the moments
no record keeps (the after-deal window's deadline, a turn's deadline); and the
engine's one door for the bot (:meth:`Table.act`), for people and timers alike."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from bot.data.saved import GameRecord
from bot.table.moments import Event, HandClosed
from engine.hand import Action, HandState
from engine.match import MatchState


class Moment(NamedTuple):
    """When a change happens: ``now`` on the monotonic clock (deadlines), ``wall`` on
    the wall clock (what people read, the lobby's age, a tournament's time)."""

    now: float
    wall: float


class Pace(Protocol):
    """The host's pace (``bot.infra.config.Settings`` has these)."""

    @property
    def deal_batch(self) -> int: ...
    @property
    def deal_pace_seconds(self) -> float: ...
    @property
    def overturn_window_seconds(self) -> float: ...
    @property
    def turn_timeout_seconds(self) -> float: ...
    @property
    def lobby_expiry_minutes(self) -> float: ...
    @property
    def next_hand_delay_seconds(self) -> float: ...
    @property
    def computer_delay_seconds(self) -> float: ...


# a fact an answer carries: plain data (numbers, card ids, seat numbers, codes), never
# a word; a code that needs words (an engine's reason, a phase) is turned into them by
# the edge that translates
Fact = int | float | str | bool | None | tuple["Fact", ...]


@dataclass(frozen=True, slots=True)
class Answer:
    """What the person is told, in facts: a catalog ``key`` ("": nothing to say) and the
    ``facts`` its text may quote, ``alert`` to show it as an alert. The table picks no
    words: the edge says it in the reader's language (``bot.views.answers.words``)."""

    key: str = ""
    facts: Mapping[str, Fact] = field(default_factory=dict)
    alert: bool = False


@dataclass(slots=True)
class Outcome:
    """What a command did: its ``events`` (none: nothing changed), whether they must be
    on disk before the person is answered (``durable``), and what the person is told:
    ``answer`` for a button, ``said`` for a deep link."""

    events: list[Event] = field(default_factory=list)
    answer: Answer = field(default_factory=Answer)
    said: Answer = field(default_factory=Answer)
    # the change must be on disk before the person is answered: anything but a selection
    # or a warning (a power cut losing those loses nothing)
    durable: bool = False


@dataclass(slots=True)
class Step:
    """One command being applied: the host's pace, the moment, the events so far."""

    pace: Pace
    at: Moment
    events: list[Event] = field(default_factory=list)


@dataclass
class Table:
    rec: GameRecord
    match: MatchState | None = None
    # the clocks, set by each change (``bot.table.timing.settle``), not persisted: a
    # restart gives a window and a turn their whole time again.
    # the deadline of the after-deal window: (monotonic, wall)
    window_deadline: tuple[float, float] | None = None
    # the deadline of a person's turn: ((hand, version), monotonic, wall), and whether
    # its warning was shown
    turn_deadline: tuple[tuple[int, int], float, float] | None = None
    warned: bool = False
    # which change the table is at: a number no other change of any table had (what
    # was built of the table stands until it changes; not persisted)
    stamp: int = 0

    def act(self, action: Action, step: Step) -> None:
        """Apply one action (IllegalAction if the engine refuses it) and what follows."""
        assert self.match is not None
        step.events += self.match.apply(action)
        self.after_engine(step)

    def after_engine(self, step: Step) -> None:
        """What follows an engine step: a finished hand checks the time limit, a won
        match finishes the game."""
        match, rec = self.match, self.rec
        assert match is not None
        if match.hand.phase == "done":
            # a time limit (tournament) is checked when a hand ends: higher level wins
            started = rec.started_at or rec.created_at
            step.events += match.check_time_limit((step.at.wall - started) / 60)
        if match.finished:
            rec.status = "finished"

    def next_hand(self, step: Step) -> None:
        match, rec = self.match, self.rec
        assert match is not None
        step.events.append(HandClosed(match.public_observation()))
        step.events += match.start_next_hand()
        rec.hand_no = match.hand_number
        for s in rec.seats:
            s.ui.selection = []
        self.after_engine(step)


def takeable(rec: GameRecord) -> list[int]:
    """Seats another group member may take over: the player is on 托管 or unreachable."""
    if rec.status != "running":
        return []
    return [i for i, s in enumerate(rec.seats) if s.human and (s.auto or s.dm_failed)]


def one_tap(hand: HandState, seat: int, selection: Sequence[int]) -> bool:
    """The one-tap rule of a DM's card buttons: a tap on a card plays it when it is
    ``seat``'s turn to follow a one-card lead (the engine's count) and nothing is
    selected (a selection is being built). The prompt that announces it (through the
    projection) and the press that applies it (``bot.table.turns``) both ask here."""
    return hand.phase == "playing" and hand.cards_to_play(seat) == 1 and not selection
