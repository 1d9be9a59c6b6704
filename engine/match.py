"""A match: levels across hands, dealer rotation, the end (RULES.md section 11).

The match owns the current :class:`~engine.hand.HandState`; actions go through
:meth:`MatchState.apply`. When a hand ends the levels, the next dealer and the
winner are taken from its result; :meth:`MatchState.start_next_hand` deals on.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from engine import errors
from engine.errors import IllegalAction
from engine.events import Event, HandStarted, MatchWon
from engine.hand import Action, HandResult, HandState, Observation, team_of
from engine.rules import RuleSet
from engine.scoring import time_limit_winner
from engine.seats import Seat
from engine.view import PublicView, ToAct, match_actor

V = TypeVar("V", bound=PublicView)


def hand_seed(seed: int, hand_number: int) -> int:
    """Each hand's shuffle is derived from the match seed, so a match replays."""
    return (seed * 1_000_003 + hand_number * 7_919) % (2**62)


class MatchState(BaseModel):
    rules: RuleSet
    seed: int
    levels: list[int]  # per team: team 0 = seats 0+2, team 1 = seats 1+3
    hand: HandState
    results: list[HandResult] = []
    winner: int | None = None  # team
    ended_by_time: bool = False

    @classmethod
    def new(cls, rules: RuleSet, seed: int) -> MatchState:
        levels = [rules.start_level, rules.start_level]
        hand = HandState.new(rules, hand_seed(seed, 1), 1, None, levels)
        return cls(rules=rules, seed=seed, levels=levels, hand=hand)

    @property
    def hand_number(self) -> int:
        return self.hand.hand_number

    @property
    def finished(self) -> bool:
        return self.winner is not None

    def apply(self, action: Action) -> list[Event]:
        """Apply an action to the current hand; settle the match when the hand ends.
        Returns what happened (the hand's events, then ``MatchWon`` if it ended)."""
        if self.finished:
            raise IllegalAction(errors.WRONG_PHASE, phase="finished")
        events = self.hand.apply(action)
        result = self.hand.result
        if result is not None:
            self.results.append(result)
            self.levels = list(result.levels_after)
            self.winner = result.match_winner
            if self.winner is not None:
                events.append(MatchWon(self.winner))
        return events

    def check(self, action: Action) -> None:
        """Raise IllegalAction (with the reason) unless ``action`` is legal now."""
        if self.finished:
            raise IllegalAction(errors.WRONG_PHASE, phase="finished")
        self.hand.check(action)

    def is_legal(self, action: Action) -> bool:
        return not self.finished and self.hand.is_legal(action)

    def next_actor(self) -> ToAct:
        """As :meth:`HandState.next_actor`; between hands ``next_hand`` or ``match_over``."""
        return match_actor(self.hand.next_actor(), self.finished)

    def start_next_hand(self) -> list[Event]:
        if self.finished or self.hand.phase != "done" or self.hand.result is None:
            raise IllegalAction(errors.WRONG_PHASE, phase=self.hand.phase)
        n = self.hand.hand_number + 1
        dealer = self.hand.result.next_dealer
        self.hand = HandState.new(self.rules, hand_seed(self.seed, n), n, dealer, self.levels)
        return [HandStarted(n, dealer, self.hand.level)]

    def check_time_limit(self, elapsed_minutes: float) -> list[Event]:
        """End the match if the time limit passed: higher level wins, equal → defenders.
        Returns what happened: ``MatchWon(by_time=True)``, or nothing (an empty list).

        **[decided]** "The defenders" are the current hand's; between hands (the hand
        is done) they are the next hand's: the next dealer's team. Before anyone deals
        in hand 1 nobody defends yet; the host's team (seat 0) counts.
        """
        limit = self.rules.time_limit_min
        if self.finished or limit is None or elapsed_minutes < limit:
            return []
        result = self.hand.result
        if result is not None:
            defenders: int | None = team_of(result.next_dealer)
        else:
            defenders = self.hand.defenders
        winner = time_limit_winner(self.levels, defenders or 0)
        self.winner = winner
        self.ended_by_time = True
        return [MatchWon(winner, by_time=True)]

    def public_observation(self) -> PublicView:
        """The hand's public view, with the match's end (winner, by time) and turn."""
        return self._with_match(self.hand.public_observation())

    def observation(self, seat: Seat) -> Observation:
        return self._with_match(self.hand.observation(seat))

    def _with_match(self, view: V) -> V:
        view.match_winner = self.winner
        view.ended_by_time = self.ended_by_time
        view.in_match = True
        return view
