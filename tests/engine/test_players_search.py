"""The search player: blind to hidden cards, reproducible, sound worlds, legal plays."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from bench.duplicate_eval import deal_pair
from engine.cards import POINTS
from engine.hand import Deal, HandState
from engine.players import get
from engine.players.bury import search_bury
from engine.players.heuristic import choose_bury
from engine.players.knowledge import ducked, inferences, withheld
from engine.players.search import PLAYS_PER_MS, SearchPlayer, candidates, likelihood
from engine.players.worlds import KITTY, knowledge, sample
from engine.rules import RuleSet
from tests.engine.test_players import seat_to_act


def positions(hands: int, every: int = 7, first: int = 0):  # type: ignore[no-untyped-def]
    """Mid-hand positions of heuristic play: (state, seat to play), every ``every`` plays,
    in hands ``first`` .. ``first + hands - 1``."""
    rules = RuleSet.from_preset("classic")
    player = get("heuristic")
    for i in range(first, first + hands):
        state = HandState.new(rules, 300 + i, 2, i % 4, [3, 3])
        rng = random.Random(i)
        state.apply(Deal(n=100))
        plays = 0
        while state.phase != "done":
            seat = seat_to_act(state)
            if state.phase == "playing":
                plays += 1
                if plays % every == 0:
                    yield state, seat
            state.apply(player(state.observation(seat), rng))


def hidden_swapped(state: HandState, seat: int, rng: random.Random) -> HandState | None:
    """The same position with other hidden cards: swap unseen cards between hidden places."""
    other = state.model_copy(deep=True)
    places = [other.hands[s] for s in range(4) if s != seat and other.hands[s]]
    if other.buried_by != seat and other.kitty:  # (while burying, the burier holds it)
        places.append(other.kitty)
    if len(places) < 2:
        return None
    swaps = 0
    for _ in range(40):
        a, b = rng.sample(places, 2)
        i, j = rng.randrange(len(a)), rng.randrange(len(b))
        if a[i] != b[j]:
            a[i], b[j] = b[j], a[i]
            swaps += 1
    assert swaps
    return other


@pytest.mark.parametrize("hand", range(4))  # four hands, in parallel parts
def test_decisions_never_depend_on_hidden_cards(hand):
    # every inference on; successive halving of the candidates (both kinds) in some hands
    player = SearchPlayer(budget_ms=200, ducked=50, withheld=50, halving=hand % 3)
    rng = random.Random(3 + hand)
    checked = 0
    for state, seat in positions(1, first=hand):
        obs = state.observation(seat)
        other = hidden_swapped(state, seat, rng)
        if other is None:
            continue
        assert (other.hands, other.kitty) != (state.hands, state.kitty)
        twin = other.observation(seat)
        assert twin == obs  # the seat cannot tell the two positions apart
        # the play and why (its odds, its runner-up's: engine.reasons) alike
        mine = player.play_reasoned(obs, random.Random(11))
        assert mine == player.play_reasoned(twin, random.Random(11))
        assert mine[0] == player.play(obs, random.Random(11))
        checked += 1
    assert checked > 5


def test_weighing_more_tricks_only_lowers_a_worlds_weight_and_older_tricks_count():
    # the weight is a product of factors <= 1 over the plays of the last ``tricks`` tricks,
    # so each older trick weighed can only lower it; and older plays do tell worlds apart
    rng = random.Random(5)
    lowered = 0
    for state, seat in positions(3, every=9):
        obs = state.observation(seat)
        world = sample(obs.ctx, knowledge(obs.ctx, obs), rng)
        weights = [likelihood(obs, world, 0.5, tricks) for tricks in (1, 2, 4, 30)]
        assert all(1.0 >= a >= b > 0 for a, b in itertools.pairwise(weights))
        lowered += weights[-1] < weights[1]
    assert lowered > 3


def test_halving_2_searches_every_choice_the_plain_search_would(monkeypatch):
    # at 50 ms early choices cannot give every candidate 2 worlds in each halving round:
    # halving=1 then plays the heuristic's choice, halving=2 searches with fewer rounds
    import engine.players.search as search

    drawn = 0
    real = search.sample

    def counted(*args):  # type: ignore[no-untyped-def]
        nonlocal drawn
        drawn += 1
        return real(*args)

    monkeypatch.setattr(search, "sample", counted)
    fell_back = 0
    for state, seat in positions(2, every=4):
        obs = state.observation(seat)
        if max(obs.card_counts) <= 4:
            continue  # endgames are solved, not halved
        worlds = []
        for halving in (0, 1, 2):
            drawn = 0
            SearchPlayer(budget_ms=50, halving=halving).play(obs, random.Random(2))
            worlds.append(drawn)
        plain, halved, fewer_rounds = worlds
        assert (fewer_rounds >= 2) == (plain >= 2)
        fell_back += halved == 0 and fewer_rounds >= 2
    assert fell_back > 3


def bury_positions(deals: int, first: int = 0):  # type: ignore[no-untyped-def]
    """Positions where a seat is to bury, after heuristic declaring: (state, seat), the
    dealer's and any 炒底 overturner's (who picked the kitty up)."""
    rules = RuleSet.from_preset("classic")
    player = get("heuristic")
    for i in range(first, first + deals):
        state = HandState.new(rules, 700 + i, 2, i % 4, [3, 3])
        rng = random.Random(i)
        state.apply(Deal(n=100))
        while state.phase != "playing":
            seat = seat_to_act(state)
            if state.phase == "burying":
                yield state.model_copy(deep=True), seat
            state.apply(player(state.observation(seat), rng))


def test_bury_never_depends_on_hidden_cards():
    rng = random.Random(2)
    checked = changed = overturners = 0
    for state, seat in bury_positions(4):
        obs = state.observation(seat)
        other = hidden_swapped(state, seat, rng)
        assert other is not None
        assert other.hands != state.hands
        twin = other.observation(seat)
        assert twin == obs  # the burier cannot tell the two deals apart
        mine = search_bury(obs, random.Random(7), 100, PLAYS_PER_MS)
        assert search_bury(twin, random.Random(7), 100, PLAYS_PER_MS) == mine
        changed += sorted(mine) != sorted(choose_bury(obs))
        overturners += seat != obs.dealer
        checked += 1
    assert checked >= 5 and overturners  # every dealer's bury and a 炒底 overturner's
    assert changed  # the search does choose other buries than the heuristic's


def test_a_fixed_seed_gives_the_same_decision():
    player = SearchPlayer(budget_ms=100)
    for state, seat in positions(1, every=11):
        obs = state.observation(seat)
        assert player.play(obs, random.Random(5)) == player.play(obs, random.Random(5))


def test_sampled_worlds_keep_sizes_and_every_inference():
    rng = random.Random(0)
    checked = 0
    for state, seat in positions(6, every=3):
        obs = state.observation(seat)
        ctx = obs.ctx
        know = knowledge(ctx, obs)
        voids, no_pairs = inferences(ctx, obs)
        truth = Counter(c for s in range(4) if s != seat for c in state.hands[s])
        if obs.kitty is None:
            truth.update(state.kitty)
        for _ in range(3):
            world = sample(ctx, know, rng)
            assert Counter(c for loc in range(5) for c in world[loc]) == truth
            assert len(world[KITTY]) == (0 if obs.kitty is not None else 8)
            for s in range(4):
                if s == seat:
                    continue
                assert len(world[s]) == len(state.hands[s])
                classes = [ctx.suit_class[c] for c in world[s]]
                assert not set(classes) & voids[s]
                for k in no_pairs[s]:
                    same = [c for c in world[s] if ctx.suit_class[c] == k]
                    assert len(same) == len(set(same))
            checked += 1
        # the inferences are true of the real hands
        for s in range(4):
            assert not {ctx.suit_class[c] for c in state.hands[s]} & voids[s]
    assert checked > 100


def soft_inference_holds(infer, weigh, hands: int, every: int) -> list[list[set[int]]]:  # type: ignore[no-untyped-def]
    """Check a soft inference against heuristic play at every ``every``-th play of
    ``hands`` hands: never about the seat's own hand, never wrong; a world that gives a
    seat a card inferred away counts 0.25 as much (``weigh(obs, world, sets)``). Returns
    the positions' observations and inferences where something was inferred."""
    fired = []
    for state, seat in positions(hands, every=every):
        obs = state.observation(seat)
        sets = infer(obs.ctx, obs)
        assert not sets[seat]  # nothing is inferred about the seat's own hand
        for s in range(4):
            assert not sets[s] & set(state.hands[s])
        if any(sets):
            fired.append((obs, sets))
            s = next(s for s in range(4) if sets[s])
            world = [list(h) for h in state.hands]
            assert weigh(obs, world, sets) == 1.0
            world[s].append(min(sets[s]))  # (only the weight is asked; sizes need not add up)
            assert weigh(obs, world, sets) == 0.25
    return fired


def test_a_seat_that_ducked_a_point_trick_holds_no_card_that_would_have_won_it():
    """Against heuristic play the ducking inference is a fact, and the search's worlds
    that contradict it count ``ducked`` as much per card."""
    player = SearchPlayer(ducked=25, weighting=False)  # the ducking weight alone
    assert len(soft_inference_holds(ducked, player.weight, 6, 3)) > 20


def test_a_seat_that_gave_its_partner_no_points_held_none_it_could_give():
    """Against heuristic play the point-signal inference is a fact, and the search's
    worlds that contradict it count ``withheld`` as much per point card."""
    player = SearchPlayer(withheld=25, weighting=False)  # the point-signal weight alone

    def weigh(obs, world, holds):  # type: ignore[no-untyped-def]
        return player.weight(obs, world, [set()] * 4, holds)

    fired = soft_inference_holds(withheld, weigh, 30, 4)
    assert len(fired) > 20
    for obs, holds in fired:  # point cards only, never a trump
        assert all(POINTS[c] and not obs.ctx.is_trump(c) for h in holds for c in h)
    # a discard (out of the led suit) tells of every other side suit
    assert any(len({o.ctx.suit_class[c] for c in h}) > 1 for o, holds in fired for h in holds)


def test_candidates_are_distinct_and_start_with_the_heuristics_play():
    for state, seat in positions(2, every=5):
        obs = state.observation(seat)
        own = get("heuristic")(obs, random.Random(1)).cards
        cands = candidates(obs, own, random.Random(1))
        assert cands[0] == own
        assert len({tuple(sorted(c)) for c in cands}) == len(cands)


@pytest.mark.parametrize("seed", range(2))
def test_search_against_itself_scores_exactly_zero(seed):
    row = deal_pair(("search,budget_ms=40", "search,budget_ms=40", None, "classic", seed))
    assert row[1] + row[2] == 0 and row[3] + row[4] == 0
    assert row[5] + row[6] == 1  # the same result, once from each side
