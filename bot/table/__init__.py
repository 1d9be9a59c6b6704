"""The bot's own game as a pure state machine: lobby → seats → running → paused / 托管
→ ended. A command and the moment it happens at go in (:func:`apply`); the engine's
events and the table's own come out, with what the person is told. No service,
outbox, store or clock inside: ``bot.service.game.GameService.change`` locks, applies, saves,
publishes the events and arms the table's timer (:func:`due`).

May import: the engine (never its players: every computer decision is made at the edge
and enters as data), ``bot.data`` and this folder."""

from bot.table.machine import apply, opened, restarted
from bot.table.state import Answer, Moment, Outcome, Pace, Table, takeable
from bot.table.timing import deciding, due, robot, showing, turn_clock

__all__ = [
    "Answer",
    "Moment",
    "Outcome",
    "Pace",
    "Table",
    "apply",
    "deciding",
    "due",
    "opened",
    "restarted",
    "robot",
    "showing",
    "takeable",
    "turn_clock",
]
