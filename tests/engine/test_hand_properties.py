"""Property tests: whole hands and matches played by random legal players."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import POINTS, new_shoe
from engine.errors import IllegalAction
from engine.hand import Bury, HandState, Play, Show
from engine.match import MatchState
from engine.players.randomplayer import random_action
from engine.rules import PRESETS, RuleSet
from engine.tricks import is_legal_follow


def all_cards(state: HandState) -> Counter[int]:
    seen: Counter[int] = Counter()
    for h in state.hands:
        seen.update(h)
    seen.update(state.kitty)
    seen.update(state.deck[state.dealt :] if state.phase == "dealing" else [])
    for t in state.tricks:
        for p in t.plays:
            seen.update(p.cards)
    return seen


def random_bad_action(state: HandState, rng: random.Random):  # type: ignore[no-untyped-def]
    """Something plausible-looking that is usually illegal."""
    seat = rng.randrange(4)
    cards = rng.sample(range(54), rng.randint(1, 8))
    return rng.choice(
        [Play(seat=seat, cards=cards), Bury(seat=seat, cards=cards), Show(seat=seat, cards=cards)]
    )


def probe_follow(state: HandState, rng: random.Random) -> None:
    """A random follow of the right size is accepted exactly when the rules call it legal."""
    trick = state.current_trick
    if state.phase != "playing" or trick is None or not trick.plays or state.turn is None:
        return
    hand = state.hands[state.turn]
    lead = trick.plays[0].cards
    play = rng.sample(hand, len(lead))
    legal = is_legal_follow(state.ctx, lead, hand, play)
    # a copy through the saved form: a tenth of a deep copy's time (the round trip itself
    # is checked at every step)
    trial = HandState.model_validate_json(state.model_dump_json())
    try:
        trial.apply(Play(seat=state.turn, cards=play))
        accepted = True
    except IllegalAction:
        accepted = False
        assert trial == state
    assert accepted == legal


def classic_table(points: int) -> tuple[str, int]:
    """RULES.md section 11's classic table, written out independently of engine.scoring."""
    if points < 80:
        return "defenders", 3 if points == 0 else 2 if points < 40 else 1
    return "attackers", min(6, (points - 80) // 40)


def check_result_against_the_classic_table(state: HandState) -> None:
    r = state.result
    assert r is not None
    if state.rules.level_table != "classic" or state.rules.must_play:
        return
    side, steps = classic_table(r.attackers_points)
    assert (r.winner, r.steps) == (side, steps)
    team = r.defenders if side == "defenders" else 1 - r.defenders
    expected = list(r.levels_before)
    expected[team] = min(12, expected[team] + steps)  # A (12) stops everyone under pass_a
    assert r.levels_after == expected
    assert r.next_dealer == (r.dealer + (2 if side == "defenders" else 1)) % 4


def play_random_hand(state: HandState, rng: random.Random, check_every_step: bool) -> HandState:
    initial = state.model_copy(deep=True)
    full = Counter(new_shoe())
    while state.phase != "done":
        if check_every_step:
            bad = random_bad_action(state, rng)
            before = state.model_dump_json()
            try:
                state.apply(bad)
            except IllegalAction:
                assert state.model_dump_json() == before, "a rejected action changed the state"
            if state.phase == "done":  # the random "bad" action was legal and ended the hand
                break
            probe_follow(state, rng)
            assert all_cards(state) == full
            assert HandState.model_validate_json(state.model_dump_json()) == state
        state.apply(random_action(state, rng))
    assert all_cards(state) == full
    # every trick point plus the kitty's points make 200
    trick_total = sum(t.points for t in state.tricks)
    assert trick_total + sum(POINTS[c] for c in state.kitty) == 200
    for t in state.tricks:
        assert sorted(p.seat for p in t.plays) == [0, 1, 2, 3]
    check_result_against_the_classic_table(state)
    # replay from seed + log reproduces the state
    replayed = HandState.replay(initial, state.log)
    assert replayed == state
    return state


@pytest.mark.parametrize("preset", PRESETS)
def test_random_hands_keep_every_invariant(preset: str) -> None:
    rules = RuleSet.from_preset(preset)
    for seed in range(15):
        rng = random.Random(seed)
        hand_number = 1 + seed % 3
        dealer = None if hand_number == 1 else seed % 4
        state = HandState.new(rules, seed, hand_number, dealer, [seed % 13, (seed * 5) % 13])
        state = play_random_hand(state, rng, check_every_step=seed < 3)
        r = state.result
        assert r is not None
        assert r.attackers_points == max(0, r.trick_points + r.penalty + r.kitty_bonus)


@pytest.mark.parametrize("preset", PRESETS)  # 150 hands in all, in three parallel parts
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**40), twos=st.booleans())
def test_random_hands_checked_at_every_step(preset: str, seed: int, twos: bool) -> None:
    rules = RuleSet.from_preset(preset, permanent_twos=twos)
    rng = random.Random(seed)
    hand_number = 1 + seed % 2
    state = HandState.new(rules, seed, hand_number, None if hand_number == 1 else seed % 4)
    play_random_hand(state, rng, check_every_step=True)


@pytest.mark.parametrize("first", range(0, 2400, 400))
def test_thousands_of_random_hands(first: int) -> None:
    """2,400 hands over every preset, with and without permanent twos, all levels (in six
    slices of 400, which parallel workers share)."""
    for i in range(first, first + 400):
        preset = PRESETS[i % 3]
        rules = RuleSet.from_preset(preset, permanent_twos=bool(i // 3 % 2))
        hand_number = 1 + i % 2
        dealer = None if hand_number == 1 else i % 4
        levels = [i % 13, (i // 13) % 13]
        if preset == "tournament":  # levels never pass the target 10 there
            levels = [min(x, 8) for x in levels]
        state = HandState.new(rules, 7_000 + i, hand_number, dealer, levels)
        play_random_hand(state, random.Random(i), check_every_step=False)


@pytest.mark.parametrize("preset", PRESETS)
def test_random_matches_reach_a_winner(preset: str) -> None:
    start = "8" if preset == "tournament" else "Q"  # two levels below the target
    rules = RuleSet.from_preset(preset, start_level=start, time_limit_min=None)
    for seed in range(3):
        rng = random.Random(seed)
        match = MatchState.new(rules, seed)
        while not match.finished and match.hand_number < 300:
            while match.hand.phase != "done":
                match.apply(random_action(match.hand, rng))
            assert MatchState.model_validate_json(match.model_dump_json()) == match
            if not match.finished:
                match.start_next_hand()
        assert match.finished, (
            "a match from Q should end well within 300 hands from two levels below its target"
        )
        last = match.results[-1]
        assert match.winner == last.defenders
        assert last.attackers_points < 80
