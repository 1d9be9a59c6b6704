"""Computer players: always legal, and the heuristic plays clearly better than random."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.cards import POINTS
from engine.hand import Deal, HandState, Observation, Show
from engine.players import choose_action, choose_bury, suggest
from engine.players.randomplayer import random_action, random_seat_action
from engine.ranking import TRUMP
from engine.rules import PRESETS, RuleSet
from engine.tricks import check_lead, check_throw, is_legal_follow
from engine.units import decompose


def seat_to_act(state: HandState) -> int:
    if state.phase == "after_deal":
        return next(s for s in range(4) if state.can_pass(s))
    assert state.turn is not None
    return state.turn


def assert_legal_play(obs: Observation, cards: list[int], state: HandState) -> None:
    ctx = obs.ctx
    trick = obs.current_trick
    assert trick is not None
    if trick.plays:
        assert is_legal_follow(ctx, trick.plays[0].cards, obs.hand, cards)
    else:
        units = check_lead(ctx, obs.hand, cards)  # raises if not held or mixed
        if len(units) > 1:  # a throw only when every part is provably the highest
            others = [state.hands[(obs.seat + i) % 4] for i in (1, 2, 3)]
            assert check_throw(ctx, cards, others) is None


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("twos", [False, True])
def test_suggest_is_always_a_legal_play(preset: str, twos: bool) -> None:
    rules = RuleSet.from_preset(preset, permanent_twos=twos)
    checked = 0
    for seed in range(6):
        rng = random.Random(seed)
        levels = [seed % 13, (seed * 7) % 13]
        state = HandState.new(rules, 100 + seed, 1 + seed % 2, seed % 4, levels)
        while state.phase != "done":
            if state.phase == "playing":
                obs = state.observation(state.turn)  # type: ignore[arg-type]
                assert_legal_play(obs, suggest(obs, random.Random(seed)), state)
                checked += 1
            state.apply(random_action(state, rng))
    assert checked > 300


def play_heuristic_hand(state: HandState, rng: random.Random) -> None:
    """Every decision by ``choose_action``, the deal by the system, as the bot does."""
    while state.phase != "done":
        if state.phase == "dealing":
            state.apply(Deal(n=4))
            for seat in range(4):
                if state.phase == "dealing" and state.observation(seat).show_options:
                    action = choose_action(state.observation(seat), rng)
                    if isinstance(action, Show):
                        state.apply(action)
            continue
        state.apply(choose_action(state.observation(seat_to_act(state)), rng))


@pytest.mark.parametrize("preset", PRESETS)
def test_choose_action_never_raises_in_full_hands(preset: str) -> None:
    rules = RuleSet.from_preset(preset)
    for seed in range(8):
        hand_number = 1 + seed % 2
        levels = [seed % 13, (seed * 5) % 13]
        state = HandState.new(rules, seed, hand_number, seed % 4, levels)
        play_heuristic_hand(state, random.Random(seed))
        assert state.result is not None


def test_choose_bury_buries_8_held_cards_keeping_trumps_and_points():
    rules = RuleSet.from_preset("classic")
    state = HandState.new(rules, 4, 2, 0, [0, 0])
    state.apply(Deal(n=100))
    while state.phase == "after_deal":
        state.apply(choose_action(state.observation(seat_to_act(state)), random.Random(0)))
    obs = state.observation(state.turn)  # type: ignore[arg-type]
    cards = choose_bury(obs)
    assert len(cards) == 8
    assert not Counter(cards) - Counter(obs.hand)
    assert not any(obs.ctx.suit_class[c] == TRUMP or POINTS[c] for c in cards)


def test_suggest_does_not_throw_a_beatable_throw():
    rules = RuleSet.from_preset("classic")
    throws = 0
    for seed in range(10):
        state = HandState.new(rules, seed, 2, seed % 4, [3, 3])
        play_heuristic_hand(state, random.Random(seed))
        for trick in state.tricks:
            assert trick.plays[0].attempted is None
        throws += sum(len(decompose(state.ctx, t.plays[0].cards) or []) > 1 for t in state.tricks)
    assert throws > 0, "masters are thrown together"


def heuristic_vs_random(hands: int) -> tuple[list[int], list[list[int]]]:
    """Team 0 heuristic, team 1 random, dealer rotating; (levels gained, attacking points)."""
    rules = RuleSet.from_preset("classic")
    gained = [0, 0]
    attacking: list[list[int]] = [[], []]
    for i in range(hands):
        rng = random.Random(i)
        state = HandState.new(rules, 50_000 + i, 2, i % 4, [0, 0])
        state.apply(Deal(n=100))
        while state.phase != "done":
            obs = state.observation(seat_to_act(state))
            if obs.seat % 2 == 0:
                state.apply(choose_action(obs, rng))
            else:
                state.apply(random_seat_action(obs, rng))
        r = state.result
        assert r is not None
        attackers = 1 - r.defenders
        attacking[attackers].append(r.attackers_points)
        gained[r.defenders if r.winner == "defenders" else attackers] += r.steps
    return gained, attacking


def test_heuristic_team_beats_random_team_clearly():
    gained, attacking = heuristic_vs_random(200)
    assert gained[0] > 3 * gained[1] + 100
    mean = [sum(p) / len(p) for p in attacking]
    assert mean[0] > mean[1] + 60  # the heuristic collects far more points attacking
