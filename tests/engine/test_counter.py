"""The card counter (engine.counter): over random whole hands, at every step and for
every seat, it equals a recount written from the rules over that seat's observation,
it is true of the real deal, and it never depends on a card that seat cannot know."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import BJ, LJ, POINTS, RANK_2, RANK_A, make, new_shoe, rank_of, suit_of
from engine.counter import CardCount, card_counter
from engine.hand import HandState, Play
from engine.players.randomplayer import random_action
from engine.rules import PRESETS, Preset, RuleSet
from engine.view import Observation

TRUMP = 4


def klass(obs: Observation, card: int) -> int:
    """RULES 3, written out: jokers, level cards, the trump suit (and the 2s under
    permanent twos) are trumps; every other card is of its suit."""
    if card in (BJ, LJ) or rank_of(card) == obs.level:
        return TRUMP
    if obs.rules.permanent_twos and obs.level != RANK_2 and rank_of(card) == RANK_2:
        return TRUMP
    return TRUMP if suit_of(card) == obs.trump else suit_of(card)  # type: ignore[return-value]


def special(obs: Observation, rank: int) -> bool:
    twos = obs.rules.permanent_twos and obs.level != RANK_2
    return rank == obs.level or (twos and rank == RANK_2)


def expected_high(obs: Observation, k: int) -> set[int]:
    """The module docstring's high cards, from ranks: the trumps' jokers, level cards and
    permanent 2s with the trump suit's two highest plain ranks; an off-suit's three."""
    if k == TRUMP:
        high = {BJ, LJ} | {make(r, s) for s in range(4) for r in range(13) if special(obs, r)}
        if obs.trump is not None:
            plain = [r for r in range(RANK_A, -1, -1) if not special(obs, r)][:2]
            high |= {make(r, obs.trump) for r in plain}
        return high
    return {make(r, k) for r in [r for r in range(RANK_A, -1, -1) if not special(obs, r)][:3]}


def recount(obs: Observation) -> dict[str, object]:
    """The counter recomputed another way: the shoe less what the seat has seen."""
    played = [c for t in obs.tricks for p in t.plays for c in p.cards]
    unseen = Counter(new_shoe()) - Counter(played) - Counter(obs.hand) - Counter(obs.kitty or [])
    classes = {}
    for k in [TRUMP] + [s for s in range(4) if s != obs.trump]:
        classes[k] = (
            sorted(c for c in played if klass(obs, c) == k),
            sum(n for c, n in unseen.items() if klass(obs, c) == k),
            {c: unseen[c] for c in expected_high(obs, k)},
        )
    voids: list[set[int]] = [set(), set(), set(), set()]
    for t in obs.tricks:
        if not t.plays:
            continue
        led = klass(obs, t.plays[0].cards[0])
        for p in t.plays[1:]:
            if sum(1 for c in p.cards if klass(obs, c) == led) < len(t.plays[0].cards):
                voids[p.seat].add(led)
    return {
        "classes": classes,
        "unplayed": 200 - sum(POINTS[c] for c in played),
        "mine": sum(POINTS[c] for c in obs.hand),
        "points_out": {c: n for c, n in unseen.items() if POINTS[c]},
        "voids": [frozenset(v) for v in voids],
    }


def as_recount(count: CardCount) -> dict[str, object]:
    return {
        "classes": {c.klass: (sorted(c.played), c.out, dict(c.high)) for c in count.classes},
        "unplayed": count.points_unplayed,
        "mine": count.points_mine,
        "points_out": dict(count.points_out),
        "voids": [frozenset(v) for v in count.voids],
    }


def hidden_from(state: HandState, seat: int) -> Counter[int]:
    """The cards ``seat`` cannot see: the other hands, and the kitty unless it may."""
    hidden: Counter[int] = Counter()
    for other in range(4):
        if other != seat:
            hidden.update(state.hands[other])
    if not (state.phase == "done" or state.buried_by == seat):
        hidden.update(state.kitty)
    return hidden


def check_true_of_the_deal(state: HandState, seat: int, count: CardCount) -> None:
    """What is out is exactly in the places the seat cannot see; a void is real."""
    obs = state.observation(seat)
    hidden = hidden_from(state, seat)
    for c in count.classes:
        assert c.out == sum(n for card, n in hidden.items() if klass(obs, card) == c.klass)
        for card, n in c.high:
            assert n == hidden[card]
    for s, voids in enumerate(count.voids):
        assert not {klass(obs, card) for card in state.hands[s]} & set(voids)
    if count.kitty_known:
        assert count.points_buried == sum(POINTS[c] for c in state.kitty)


def another_deal(state: HandState, seat: int, rng: random.Random) -> HandState | None:
    """The same hand with the cards ``seat`` cannot see dealt again among the places it
    cannot see (each keeping its size, no seat given a class it showed void in): a deal
    just as consistent with the seat's observation. None if none differs."""
    obs = state.observation(seat)
    voids = card_counter(obs)
    assert voids is not None
    places = [s for s in range(4) if s != seat]
    kitty_hidden = not (state.phase == "done" or state.buried_by == seat)
    pool = [c for s in places for c in state.hands[s]] + (list(state.kitty) if kitty_hidden else [])
    for _ in range(20):
        rng.shuffle(pool)
        rest = list(pool)
        hands = list(state.hands)
        for s in places:
            n = len(state.hands[s])
            hands[s], rest = rest[:n], rest[n:]
        fits = all(not {klass(obs, c) for c in hands[s]} & set(voids.voids[s]) for s in places)
        if fits and hands != state.hands:
            # a shallow copy with the new places (the twin is only looked at, never changed;
            # a deep copy each try was nine tenths of this file's time)
            kitty = rest if kitty_hidden else state.kitty
            return state.model_copy(update={"hands": hands, "kitty": kitty})
    return None


def play_and_count(rules: RuleSet, seed: int, levels: list[int]) -> int:
    """Play one random hand; at every step of the play check every seat's counter."""
    rng = random.Random(seed)
    hand_number = 1 + seed % 2
    dealer = None if hand_number == 1 else seed % 4
    state = HandState.new(rules, seed, hand_number, dealer, levels)
    checks = 0
    while True:
        if state.phase in ("playing", "done"):
            for seat in range(4):
                obs = state.observation(seat)
                count = card_counter(obs)
                assert count is not None
                assert as_recount(count) == recount(obs)
                check_true_of_the_deal(state, seat, count)
                twin = another_deal(state, seat, rng)
                if twin is not None:
                    assert card_counter(twin.observation(seat)) == count
                checks += 1
        if state.phase == "done":
            plays = sum(len(t.plays) for t in state.tricks)
            assert checks == 4 * (plays + 1)  # every seat before each play, and at the end
            return checks
        state.apply(random_action(state, rng))


@pytest.mark.parametrize("preset", PRESETS)
def test_the_counter_is_a_recount_of_the_seats_observation_at_every_step(preset: Preset) -> None:
    checks = 0
    for i in range(4):
        rules = RuleSet.from_preset(preset, permanent_twos=bool(i % 2))
        levels = [(i * 5 + 3) % 13, (i * 7) % 13]
        if preset == "tournament":
            levels = [min(x, 8) for x in levels]
        checks += play_and_count(rules, 900 + 17 * i, levels)
    assert checks > 4 * 4 * 25  # every seat at every play of four hands


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(PRESETS),
    seed=st.integers(0, 2**40),
    twos=st.booleans(),
    levels=st.tuples(st.integers(0, 8), st.integers(0, 8)),
)
def test_the_counter_is_a_recount_over_any_random_hand(
    preset: Preset, seed: int, twos: bool, levels: tuple[int, int]
) -> None:
    rules = RuleSet.from_preset(preset, permanent_twos=twos)
    play_and_count(rules, seed, list(levels))


def test_the_kitty_counts_only_for_the_one_who_buried_it() -> None:
    rules = RuleSet.from_preset("classic")
    rng = random.Random(5)
    state = HandState.new(rules, 5, 2, 1, [3, 3])
    while state.phase != "playing":
        state.apply(random_action(state, rng))
    buryer = state.buried_by
    assert buryer is not None
    kitty = Counter(state.kitty)
    for seat in range(4):
        count = card_counter(state.observation(seat))
        assert count is not None
        assert count.kitty_known == (seat == buryer)
        hidden = sum(len(state.hands[s]) for s in range(4) if s != seat)
        # before any play: out is every card the seat does not hold, less the kitty it buried
        assert sum(c.out for c in count.classes) == hidden + (0 if seat == buryer else 8)
        kitty_trumps = sum(n for c, n in kitty.items() if state.ctx.is_trump(c))
        others = sum(
            1 for s in range(4) if s != seat for c in state.hands[s] if state.ctx.is_trump(c)
        )
        assert count.trumps_out == others + (0 if seat == buryer else kitty_trumps)


def test_a_count_after_trick_k_ignores_later_plays() -> None:
    rules = RuleSet.from_preset("classic")
    rng = random.Random(11)
    state = HandState.new(rules, 11, 2, 0, [4, 4])
    while state.phase != "playing" or len(state.tricks) < 4:
        state.apply(random_action(state, rng))
    # the count after trick 2 is what it was when trick 2 had just been won
    snapshot: CardCount | None = None
    replay = HandState.new(rules, 11, 2, 0, [4, 4])
    for action in state.log:
        replay.apply(action)
        won = sum(1 for t in replay.tricks if t.winner is not None)
        if won == 2 and isinstance(action, Play):  # the play that won trick 2
            snapshot = card_counter(replay.observation(1), tricks=2)
            break
    assert snapshot is not None and snapshot.tricks == 2
    first_two = sorted(c for t in state.tricks[:2] for p in t.plays for c in p.cards)
    assert sorted(c for k in snapshot.classes for c in k.played) == first_two
    assert card_counter(state.observation(1), tricks=2) == snapshot
