"""A timer's token (``bot.table.timing``): which moment of which hand a timer was armed
for, and what it does when it goes off."""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple


class TimerKind(StrEnum):
    """What a timer does when it goes off (``bot.table.timing.tick``)."""

    EXPIRE = "expire"  # a lobby nobody started ends
    DEAL = "deal"  # deal the next batch
    ROBOTS = "robots"  # the computers' shows or passes in the after-deal window
    WINDOW = "window"  # the after-deal window ends: whoever has not shown passes
    ROBOT = "robot"  # a computer's move
    WARN = "warn"  # a person's turn is about to run out: their DM says so
    TIMEOUT = "timeout"  # a person's turn ran out: the computer plays (托管)
    NEXT = "next"  # the next hand is dealt


class Token(NamedTuple):
    """A timer as it was armed: the hand number and state version, and its kind."""

    hand: int
    version: int
    kind: TimerKind
