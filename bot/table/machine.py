"""The one door of a table: :func:`apply` takes a command and the moment it happens
at, changes the table, and says what happened (the engine's events and the table's
own) and what the person is told, and sets the clocks the change starts or stops.
Nothing else changes a table (but :func:`restarted`, for a table read again)."""

from __future__ import annotations

import itertools
from typing import assert_never

from bot.table import seating as seats
from bot.table import timing as clock
from bot.table import turns as hand
from bot.table.commands import (
    AddComputer,
    ApplySettings,
    Away,
    Back,
    Cancel,
    Clear,
    Command,
    DmBack,
    DmLost,
    End,
    Hint,
    Join,
    Leave,
    LeaveGroup,
    MoveChat,
    NextHand,
    Pass,
    Play,
    Redeal,
    RemoveComputer,
    ReturnToGroup,
    Select,
    Show,
    Start,
    TakeOver,
    Tally,
    Tick,
    Why,
)
from bot.table.moments import LIGHT, Opened, Selected
from bot.table.state import Answer, Moment, Outcome, Pace, Step, Table

# each change of a table gets a new stamp (what a projection was built from: ``bot.views``)
_STAMPS = itertools.count(1)


def apply(table: Table, command: Command, pace: Pace, at: Moment) -> Outcome:
    step = Step(pace, at)
    out = Outcome(step.events)
    match command:
        case (
            Select()
            | Play()
            | Show()
            | Pass()
            | Redeal()
            | Hint()
            | Why()
            | Tally()
            | Clear()
            | Back()
            | Away()
            | NextHand()
        ):
            out.answer = hand.press(table, command, step)
        case Tick():
            clock.tick(table, command, step)
        case Leave() | AddComputer() | RemoveComputer() | Start() | Cancel():
            out.answer = seats.lobby(table, command, step)
        case Join():
            out.said = seats.join(table, command, step)
        case TakeOver():
            out.said = seats.take_over(table, command, step)
        case DmBack():
            seats.dm_back(table, command.user_id, step)
            out.said = Answer("join.back")
        case DmLost():
            seats.dm_lost(table, command, step)
        case End():
            seats.end(table, command, step)
        case ApplySettings():
            seats.apply_settings(table, command, step)
        case MoveChat():
            seats.move_chat(table, command, step)
        case LeaveGroup():
            seats.leave_group(table, step)
        case ReturnToGroup():
            seats.return_to_group(table, step)
        case _:  # a command this table does not know is a bug, not a no-op
            assert_never(command)
    if isinstance(command, Tick):
        pass  # a timer's change settles the clocks itself (``timing.tick``)
    elif not step.events or not all(isinstance(e, Selected) for e in step.events):
        clock.settle(table, pace, at)  # a selection alone starts or stops no clock
    table.stamp = next(_STAMPS)
    out.durable = any(not isinstance(e, LIGHT) for e in step.events)
    return out


def restarted(table: Table, pace: Pace, at: Moment) -> None:
    """A table read from the store, or returned to its saved record after a failed
    change: its clocks, which no record keeps, run again (a turn and a window get
    their whole time)."""
    clock.settle(table, pace, at)
    table.stamp = next(_STAMPS)


def opened() -> Outcome:
    """A lobby that was just created: shown for the first time."""
    return Outcome([Opened()])
