"""Seats and teams (RULES.md section 1).

A seat is a small int ``0..3``; partners sit opposite, so seats 0+2 are team 0
(team A) and seats 1+3 team 1 (team B). The next seat plays after you.
"""

from __future__ import annotations

from typing import TypeAlias

Seat: TypeAlias = int
Team: TypeAlias = int

SEATS: tuple[Seat, ...] = (0, 1, 2, 3)
TEAMS: tuple[Team, ...] = (0, 1, 0, 1)  # the team of each seat


def team_of(seat: Seat) -> Team:
    """Seats 0+2 are team 0, seats 1+3 team 1."""
    return seat % 2


def same_team(a: Seat, b: Seat) -> bool:
    return (a - b) % 2 == 0


def next_seat(seat: Seat) -> Seat:
    return (seat + 1) % 4


def partner(seat: Seat) -> Seat:
    return (seat + 2) % 4
