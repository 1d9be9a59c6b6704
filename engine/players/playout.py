"""A fast inner simulation of the rest of a hand (the search player's playouts).

The pydantic :class:`~engine.hand.HandState` validates and logs every action; a
playout needs none of that. This plays the tricks out on plain lists with the same
rules modules (leads, throws, following, the winner, the kitty bonus: sections 8-10),
asking a policy ``(observation, rng) -> cards`` for every play, and returns the
attackers' final total. The policy sees the same kind of
:class:`~engine.hand.Observation` as in a real hand, built cheaply: only the fields
the players read are filled truthfully (hand, tricks, turn, counts, the kitty for
whoever buried it).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.cards import POINTS
from engine.hand import Observation, team_of
from engine.players.candidates import winner
from engine.records import failed_throw_penalty
from engine.scoring import kitty_bonus_for_lead
from engine.tricks import failed_throw

Policy = Callable[[Observation, random.Random], list[int]]


@dataclass(slots=True)
class SimPlay:
    seat: int
    cards: list[int]
    attempted: list[int] | None = None


@dataclass(slots=True)
class SimTrick:
    leader: int
    plays: list[SimPlay] = field(default_factory=list)
    winner: int | None = None
    points: int = 0


def totals_so_far(obs: Observation) -> tuple[int, int]:
    """(attackers' trick points, throw penalties) from the public record."""
    defenders = team_of(obs.dealer) if obs.dealer is not None else 0
    points = penalty = 0
    for t in obs.tricks:
        if t.winner is not None and team_of(t.winner) != defenders:
            points += t.points
        if t.plays:
            penalty += failed_throw_penalty(obs.rules, t.plays[0], defenders)
    return points, penalty


def playout(
    obs: Observation,
    hands: list[list[int]],
    kitty: list[int],
    burier: int | None,
    first: list[int],
    policy: Policy,
    rng: random.Random,
    base: tuple[int, int],
    trick_out: list[tuple[bool, int]] | None = None,
) -> int:
    """Play ``first`` for ``obs.seat`` now, then the policy for everyone; the attackers' total.

    ``hands`` are every seat's cards in this world (they are consumed); ``base`` is
    :func:`totals_so_far` of ``obs``. ``trick_out``, if given, gets the current trick's
    outcome: (``obs.seat``'s team took it, its points).
    """
    ctx = obs.ctx
    rules = obs.rules
    defenders = team_of(obs.dealer) if obs.dealer is not None else 0
    done = [t for t in obs.tricks if t.winner is not None]
    cur = obs.current_trick
    trick = SimTrick(leader=obs.seat if cur is None else cur.leader)
    if cur is not None:
        trick.plays = [SimPlay(p.seat, list(p.cards), p.attempted) for p in cur.plays]
    # finished Tricks and SimTricks: the same fields, which is all a policy reads
    tricks: list[Any] = done + [trick]
    points, penalty = base
    seat = obs.seat
    counts = [len(h) for h in hands]
    kitty_seen = list(kitty) if burier is not None else None
    cards: list[int] | None = first
    while True:
        if cards is None:
            view = seat_view(obs, seat, hands[seat], counts, tricks, kitty_seen, burier)
            cards = policy(view, rng)
        record = SimPlay(seat, cards)
        failed = (
            failed_throw(ctx, rules, hands, seat, cards, defenders) if not trick.plays else None
        )
        if failed is not None:
            record = SimPlay(seat, failed.forced, cards)
            penalty += failed.penalty
        hand = hands[seat]
        for c in record.cards:
            hand.remove(c)
        counts[seat] = len(hand)
        trick.plays.append(record)
        cards = None
        if len(trick.plays) < 4:
            seat = (seat + 1) % 4
            continue
        plays = [p.cards for p in trick.plays]
        seat = trick.plays[winner(ctx, plays)].seat
        trick.winner = seat
        trick.points = sum(POINTS[c] for p in plays for c in p)
        if trick_out is not None:  # the trick of the decision: told once
            trick_out.append((team_of(seat) == team_of(obs.seat), trick.points))
            trick_out = None
        attackers_won = team_of(seat) != defenders
        if attackers_won:
            points += trick.points
        if not hands[seat]:
            bonus = kitty_bonus_for_lead(ctx, rules, kitty, plays[0], attackers_won)
            return max(0, points + penalty + bonus)
        trick = SimTrick(leader=seat)
        tricks.append(trick)


def seat_view(
    obs: Observation,
    seat: int,
    hand: list[int],
    counts: list[int],
    tricks: list[Any],
    kitty: list[int] | None,
    burier: int | None,
) -> Observation:
    """What ``seat`` sees at its turn in a simulated trick: ``obs``'s public facts, its own
    hand, the tricks so far and the kitty if it buried it."""
    return Observation(
        seat=seat,
        phase="playing",
        version=obs.version,
        hand_number=obs.hand_number,
        rules=obs.rules,
        level=obs.level,
        levels=obs.levels,
        dealer=obs.dealer,
        trump=obs.trump,
        trump_decided=True,
        declarer=obs.declarer,
        shows=obs.shows,
        hand=hand,
        card_counts=counts,
        dealt=obs.dealt,
        kitty=kitty if seat == burier else None,
        turn=seat,
        tricks=tricks,
        attackers_points=0,
        show_options=[],
        can_pass=False,
        can_redeal=False,
        result=None,
    )
