"""The declaring search: blind to hidden cards, reproducible, faithful worlds, zero against itself."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest

from bench.duplicate_eval import deal_pair
from engine.hand import Deal, HandState, Pass, Show
from engine.players import choose_action
from engine.players.declare import choose, deal_world, world_state
from engine.rules import RuleSet
from tests.engine.test_players import seat_to_act

PLAYS = 1500  # a small budget: a few worlds per option


def declaring_positions(preset: str, hands: int, first: int = 0) -> Iterator[tuple[HandState, int]]:
    """Every moment of heuristic hands (dealt 12 cards at a time, as the bot does) at which
    a seat may show: while dealing, in the after-deal window and in 炒底. Hands 1 and later
    hands alternate."""
    rules = RuleSet.from_preset(preset)
    for i in range(first, first + hands):
        state = HandState.new(rules, 500 + i, 1 + i % 2, i % 4, [3, 5])
        rng = random.Random(i)
        while state.phase not in ("playing", "done"):
            if state.phase == "dealing":
                state.apply(Deal(n=12))
                for seat in range(4):
                    if state.phase == "dealing" and state.observation(seat).show_options:
                        yield state, seat
                        action = choose_action(state.observation(seat), rng)
                        if isinstance(action, Show):
                            state.apply(action)
                continue
            seat = seat_to_act(state)
            if state.observation(seat).show_options:
                yield state, seat
            state.apply(choose_action(state.observation(seat), rng))


def hidden_swapped(state: HandState, seat: int, rng: random.Random) -> HandState:
    """The same moment with other hidden cards: unseen cards swapped between the other
    hands, the kitty (unless this seat buried it) and the cards still to be dealt."""
    other = state.model_copy(deep=True)
    places = [other.hands[s] for s in range(4) if s != seat and other.hands[s]]
    if other.buried_by != seat and other.kitty:
        places.append(other.kitty)
    rest = other.deck[other.dealt :]
    if rest:
        places.append(rest)
    for _ in range(60):
        a, b = rng.sample(places, 2)
        i, j = rng.randrange(len(a)), rng.randrange(len(b))
        a[i], b[j] = b[j], a[i]
    other.deck[other.dealt :] = rest
    return other


@pytest.mark.parametrize("preset", ["classic", "joker_declare", "tournament"])
def test_declaring_decisions_never_depend_on_hidden_cards(preset: str) -> None:
    rng = random.Random(7)
    phases: Counter[str] = Counter()
    for state, seat in declaring_positions(preset, 10):
        obs = state.observation(seat)
        if phases[obs.phase] >= 6:
            continue
        other = hidden_swapped(state, seat, rng)
        assert (other.hands, other.kitty, other.deck) != (state.hands, state.kitty, state.deck)
        twin = other.observation(seat)
        assert twin == obs  # the seat cannot tell the two moments apart
        mine = choose(obs, random.Random(11), PLAYS)
        assert choose(twin, random.Random(11), PLAYS) == mine
        phases[obs.phase] += 1
    assert phases["dealing"] >= 5 and phases["after_deal"] + phases["chaodi"] >= 1, phases


@pytest.mark.parametrize("preset", ["classic", "joker_declare"])
def test_a_world_with_the_true_cards_is_the_hand_itself(preset: str) -> None:
    """Rebuilt from what the seat sees plus the true hidden cards, the hand looks the same
    to every seat and, played on the same way, ends the same."""
    checked = 0
    for state, seat in declaring_positions(preset, 12, first=20):
        obs = state.observation(seat)
        start = state.deal_start
        future: list[list[int]] = [[], [], [], []]
        for i in range(state.dealt, 100):
            future[(start + i) % 4].append(state.deck[i])
        kitty = state.kitty if state.phase != "dealing" else state.deck[100:]
        world = world_state(obs, state.hands, future, kitty)
        for s in range(4):
            mine, real = world.observation(s), state.observation(s)
            real.can_redeal = False  # nobody redeals in a rollout
            assert mine == real
        real_end, world_end = state.model_copy(deep=True), world
        for s in (real_end, world_end):
            finish(s, random.Random(checked))
        assert real_end.result == world_end.result
        checked += 1
    assert checked > 10


def finish(state: HandState, rng: random.Random) -> None:
    while state.phase != "done":
        if state.phase == "dealing":
            state.apply(Deal(n=12))
            continue
        state.apply(choose_action(state.observation(seat_to_act(state)), rng))


def test_worlds_while_dealing_keep_sizes_and_shown_cards() -> None:
    rng = random.Random(1)
    checked = 0
    for state, seat in declaring_positions("classic", 4):
        if state.phase != "dealing":
            continue
        obs = state.observation(seat)
        hands, future, kitty = deal_world(obs, rng)
        assert hands[seat] == obs.hand
        assert [len(h) for h in hands] == obs.card_counts
        assert [len(h) + len(f) for h, f in zip(hands, future, strict=True)] == [25] * 4
        everything = Counter(c for h in hands + future for c in h) + Counter(kitty)
        assert everything == Counter({c: 2 for c in range(54)})
        for s, cards in obs.shows:
            assert not Counter(cards) - Counter(hands[s])
        checked += 1
    assert checked > 5


def test_a_seat_without_a_show_passes_at_once_and_choices_are_reproducible() -> None:
    for state, seat in declaring_positions("classic", 2):
        obs = state.observation(seat)
        assert choose(obs, random.Random(3), PLAYS) == choose(obs, random.Random(3), PLAYS)
        others = [s for s in range(4) if not state.observation(s).show_options]
        for s in others:
            assert choose(state.observation(s), random.Random(3), 10**9) == Pass(seat=s)


@pytest.mark.parametrize("seed", range(2))
def test_declaring_search_against_itself_scores_exactly_zero(seed: int) -> None:
    spec = "search,declare=1,cardplay=0,budget_ms=20"
    row = deal_pair((spec, spec, None, "classic", seed, 3))
    assert row[1] + row[2] == 0 and row[3] + row[4] == 0
    assert row[5] + row[6] == 1
