"""The OpenSpiel-style door: ``legal_actions(seat)`` lists exactly what ``apply`` accepts."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from math import comb

import pytest

from engine.errors import IllegalAction
from engine.hand import HandState, Pass, Play, Show, sub_multisets
from engine.players.randomplayer import random_action
from engine.rules import RuleSet
from engine.tricks import is_legal_follow


def accepted(state: HandState, action) -> bool:  # type: ignore[no-untyped-def]
    trial = state.model_copy(deep=True)
    try:
        trial.apply(action)
    except IllegalAction:
        return False
    return True


def advance_to(state: HandState, rng: random.Random, phase: str, plays: int = 0) -> HandState:
    while state.phase != phase or (
        phase == "playing" and sum(len(t.plays) for t in state.tricks) < plays
    ):
        state.apply(random_action(state, rng))
        if state.phase == "done":
            raise AssertionError("the hand ended first")
    return state


def test_sub_multisets_are_distinct_and_complete() -> None:
    cards = [1, 1, 2, 3, 3, 3]
    got = [tuple(m) for m in sub_multisets(cards, 3)]
    assert len(got) == len(set(got))
    brute = {tuple(sorted(c)) for c in itertools.combinations(cards, 3)}
    assert set(got) == brute


def test_sub_multiset_count_for_a_burial_without_pairs() -> None:
    assert sum(1 for _ in sub_multisets(list(range(12)), 8)) == comb(12, 8)


@pytest.mark.parametrize("seed", range(12))
def test_follow_actions_are_exactly_the_legal_follows(seed: int) -> None:
    rng = random.Random(seed)
    state = HandState.new(RuleSet(), seed, 2, seed % 4, [seed % 13, 3])
    advance_to(state, rng, "playing", plays=1 + seed % 3 + 4 * (seed % 5))
    seat = state.turn
    assert seat is not None
    trick = state.tricks[-1]
    if not trick.plays:
        state.apply(random_action(state, rng))
        seat, trick = state.turn, state.tricks[-1]
    hand = state.hands[seat]
    lead = trick.plays[0].cards
    listed = [tuple(sorted(a.cards)) for a in state.legal_actions(seat)]
    assert len(listed) == len(set(listed)), "each play once"
    brute = {
        tuple(sorted(c))
        for c in itertools.combinations(hand, len(lead))
        if is_legal_follow(state.ctx, lead, hand, list(c))
    }
    assert set(listed) == brute
    for cards in listed[:20]:
        assert accepted(state, Play(seat=seat, cards=list(cards)))
    # nobody else may act
    assert all(not list(state.legal_actions(s)) for s in range(4) if s != seat)


@pytest.mark.parametrize("seed", range(6))
def test_every_listed_lead_is_accepted(seed: int) -> None:
    rng = random.Random(100 + seed)
    state = advance_to(HandState.new(RuleSet(), 100 + seed, 2, seed % 4), rng, "playing")
    seat = state.turn
    leads = list(itertools.islice(state.legal_actions(seat), 300))
    assert leads
    for action in rng.sample(leads, min(40, len(leads))):
        assert accepted(state, action)
    ctx = state.ctx
    assert all(len({ctx.suit_class[c] for c in a.cards}) == 1 for a in leads)


def test_window_actions_are_the_show_options_and_pass() -> None:
    rng = random.Random(7)
    state = advance_to(HandState.new(RuleSet(), 7), rng, "after_deal")
    for seat in range(4):
        actions = list(state.legal_actions(seat))
        shows = [a for a in actions if isinstance(a, Show)]
        assert [a.cards for a in shows] == state.show_options(seat)
        assert (Pass(seat=seat) in actions) == state.can_pass(seat)
        for a in actions:
            assert accepted(state, a)


def test_burying_lists_only_the_buryer_and_valid_burials() -> None:
    rng = random.Random(11)
    state = advance_to(HandState.new(RuleSet(), 11, 2, 2), rng, "burying")
    buryer = state.turn
    assert [list(state.legal_actions(s)) for s in range(4) if s != buryer] == [[], [], []]
    first = list(itertools.islice(state.legal_actions(buryer), 50))
    assert all(len(a.cards) == 8 for a in first)
    assert all(not (Counter(a.cards) - Counter(state.hands[buryer])) for a in first)
    assert all(accepted(state, a) for a in first[:10])
