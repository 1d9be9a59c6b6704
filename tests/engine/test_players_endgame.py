"""Exact endgames (the solver's value is the brute-force minimax of the real engine) and
the plays the search need not tell apart."""

from __future__ import annotations

import random

import pytest

from engine.cards import parse_card, parse_cards
from engine.hand import HandState
from engine.players.candidates import distinct_in_effect, interchangeable
from engine.players.endgame import Solver
from engine.players.playout import totals_so_far
from engine.players.search import SearchPlayer
from engine.ranking import TrumpContext
from engine.seats import team_of
from tests.engine.test_players_search import hidden_swapped, positions


def endgames(cards_left: int, hands: int, first: int = 0) -> list[tuple[HandState, int]]:
    """The first position with at most ``cards_left`` cards in every hand of each of
    ``hands`` heuristic hands (mid-trick or at a lead, as it falls): (state, seat to play)."""
    out: dict[int, tuple[HandState, int]] = {}
    for state, seat in positions(hands, every=1, first=first):
        if state.seed not in out and max(len(h) for h in state.hands) <= cards_left:
            out[state.seed] = (state.model_copy(deep=True), seat)
    return list(out.values())


def brute_force(state: HandState) -> int:
    """The attackers' final total with best play, by applying every legal play to copies
    of the engine's own hand (no pruning, nothing remembered)."""
    if state.phase == "done":
        assert state.result is not None
        return state.result.attackers_points
    seat = state.turn
    assert seat is not None and state.dealer is not None
    values = []
    for action in state.legal_actions(seat):
        child = state.model_copy(deep=True)
        child.apply(action)
        values.append(brute_force(child))
    return max(values) if team_of(seat) != team_of(state.dealer) else min(values)


def solved(state: HandState, seat: int, play: list[int] | None = None) -> int:
    """The solver's attackers' final total from this position (after ``play``, if given)."""
    obs = state.observation(seat)
    assert obs.dealer is not None
    points, penalty = totals_so_far(obs)
    trick = obs.current_trick
    so_far = [(p.seat, tuple(p.cards)) for p in trick.plays] if trick else []
    solver = Solver(obs.ctx, obs.rules, state.kitty, team_of(obs.dealer))
    rest = solver.value(state.hands, so_far, seat, None if play is None else tuple(play))
    return max(0, points + penalty + rest)


@pytest.mark.parametrize("cards_left", [1, 2])  # the brute force of 3 each takes a minute
def test_the_solver_finds_the_brute_force_value_of_real_endgames(cards_left):
    cases = endgames(cards_left, 8, first=20)
    assert len(cases) >= 6
    for state, seat in cases:
        assert solved(state, seat) == brute_force(state)


def test_endgame_decisions_never_depend_on_hidden_cards():
    player = SearchPlayer(budget_ms=100)
    rng = random.Random(7)
    checked = 0
    for state, seat in endgames(4, 8, first=40):
        obs = state.observation(seat)
        assert max(obs.card_counts) <= player.endgame  # the exact solver decides
        other = hidden_swapped(state, seat, rng)
        if other is None:
            continue
        assert (other.hands, other.kitty) != (state.hands, state.kitty)
        assert other.observation(seat) == obs
        twin = other.observation(seat)
        assert player.play(obs, random.Random(11)) == player.play(twin, random.Random(11))
        checked += 1
    assert checked >= 6


def test_the_solver_values_every_legal_play_as_the_brute_force_does():
    """The search compares candidates by these values, so each must be exact, not only
    the best one."""
    checked = 0
    for state, seat in endgames(2, 10, first=60):
        for action in state.legal_actions(seat):
            child = state.model_copy(deep=True)
            child.apply(action)
            assert solved(state, seat, action.cards) == brute_force(child)
            checked += 1
    assert checked >= 10


def gone_of(text: str) -> list[int]:
    out = [0] * 54
    for c in parse_cards(text):
        out[c] += 1
    return out


def test_singles_are_interchangeable_only_when_nothing_in_play_lies_between_them():
    ctx = TrumpContext(3, 0)  # level 5, spades trump: hearts are a plain suit
    hand = parse_cards("7H 9H AH")
    # the other 7H and 9H are out, and both 8H: nothing can tell 7H from 9H any more
    gone = gone_of("7H 9H 8H 8H")
    assert interchangeable(ctx, hand, gone, parse_card("7H"), parse_card("9H"))
    assert distinct_in_effect(ctx, hand, gone, [[parse_card("9H")], [parse_card("7H")]]) == [
        [parse_card("9H")]
    ]
    # one 8H still out there: it beats 7H but not 9H
    assert not interchangeable(ctx, hand, gone_of("7H 9H 8H"), parse_card("7H"), parse_card("9H"))
    # the other 7H still out there: it could tie the 7H, or pair with it
    assert not interchangeable(ctx, hand, gone_of("9H 8H 8H"), parse_card("7H"), parse_card("9H"))
    # points differ (10H vs 9H), or the classes do (7S is a trump)
    assert not interchangeable(
        ctx, parse_cards("9H 10H"), gone_of("9H 10H"), parse_card("9H"), parse_card("10H")
    )
    assert not interchangeable(
        ctx, parse_cards("7S 7H"), gone_of("7S 7H"), parse_card("7S"), parse_card("7H")
    )
