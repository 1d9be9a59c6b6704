"""The public record of a hand: plays, tricks and the result (RULES.md sections 8-11).

Everything here is seen by the whole table; the state keeps these records and the
views share finished ones (they never change once a trick is won).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from engine.cards import Card
from engine.reasons import Reason
from engine.rules import RuleSet
from engine.scoring import climb, throw_penalty
from engine.seats import Seat, Team, team_of


class PlayRecord(BaseModel):
    seat: Seat
    cards: list[Card]
    # a failed throw: what the leader tried; ``cards`` is the forced play
    attempted: list[Card] | None = None
    # a failed throw: what in another hand beat the unit that failed (it is the forced play),
    # as its holder shows it: the first seat after the thrower that can (RULES 13)
    beaten_by: list[Card] | None = None
    beaten_by_seat: Seat | None = None
    # why a computer (or 托管) made the play, decided when it played (engine.reasons)
    reason: Reason | None = None


class Trick(BaseModel):
    leader: Seat
    plays: list[PlayRecord] = []
    winner: Seat | None = None
    points: int = 0


class HandResult(BaseModel):
    trick_points: int  # attackers' points from tricks
    penalty: int  # throw penalties, in the attackers' favour (may be negative)
    kitty: list[Card]
    kitty_points: int
    kitty_bonus: int
    attackers_points: int  # the total that settles the hand
    winner: Literal["defenders", "attackers"]
    steps: int
    dealer: Seat
    defenders: Team
    levels_before: list[int]
    levels_after: list[int]
    next_dealer: Seat
    match_winner: Team | None
    multiplier: int  # 2 ** overturns
    # the trump the hand was played in (None: no trump), for the match's history;
    # ``trump_known`` is False in a result saved before it was kept (its trump unknown)
    trump: int | None = None
    trump_known: bool = False

    @property
    def winning_team(self) -> Team:
        """The team the hand went for: the defenders when they held, else the attackers
        (taking over, going up ``steps`` levels, perhaps none)."""
        return self.defenders if self.winner == "defenders" else 1 - self.defenders

    def climbed(self, rules: RuleSet) -> list[int]:
        """The levels each team climbed in the hand (RULES 11): the winning team as far
        as the stops let it (:func:`engine.scoring.climb`), so a full round under
        ``wrap`` is 13, not 0; the other team none."""
        up = self.winning_team
        out = [0, 0]
        out[up] = climb(rules, self.levels_before[up], self.steps, defended=up == self.defenders)
        return out


def failed_throw_penalty(rules: RuleSet, play: PlayRecord, defenders: Team | None) -> int:
    """The penalty a play carries, in the attackers' favour (RULES 8.3): 0 unless it is
    a failed throw; positive when a defender failed, negative when an attacker did."""
    if play.attempted is None:
        return 0
    taken_back = len(play.attempted) - len(play.cards)
    return throw_penalty(rules, taken_back, team_of(play.seat) != defenders)


def running_points(rules: RuleSet, tricks: list[Trick], defenders: Team | None) -> list[int]:
    """The attackers' points after each trick as far as it went (RULES 9): trick points
    won plus throw penalties so far, the running total kept at 0 or above."""
    raw = 0
    out: list[int] = []
    for trick in tricks:
        for play in trick.plays:
            if play.attempted is not None:
                raw += failed_throw_penalty(rules, play, defenders)
        if trick.winner is not None and team_of(trick.winner) != defenders:
            raw += trick.points
        out.append(max(0, raw))
    return out
