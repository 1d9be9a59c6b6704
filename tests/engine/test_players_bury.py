"""The search bury: distinct legal candidates, the heuristic's first, a reproducible choice
that leaves the seat's random stream alone, and exactly zero against itself."""

from __future__ import annotations

import random
from collections import Counter

from bench.duplicate_eval import deal_pair
from engine.hand import Bury
from engine.players.bury import candidates, search_bury
from engine.players.heuristic import choose_bury
from engine.players.search import PLAYS_PER_MS, SearchPlayer
from engine.ranking import TRUMP
from tests.engine.test_players_search import bury_positions


def test_candidates_are_distinct_buries_from_the_hand_the_heuristics_first():
    voids = 0
    for state, seat in bury_positions(12, first=20):
        obs = state.observation(seat)
        own = choose_bury(obs)
        cands = candidates(obs, own)
        assert cands[0] == own
        assert len({tuple(sorted(c)) for c in cands}) == len(cands)
        held = Counter(obs.hand)
        for bury in cands:
            assert len(bury) == 8
            assert not Counter(bury) - held
            # some candidate buries a whole off-suit the heuristic keeps a card of
            kept = Counter(obs.hand) - Counter(bury)
            before = {obs.ctx.suit_class[c] for c in obs.hand}
            after = {obs.ctx.suit_class[c] for c in kept.elements()}
            voids += bool(before - after - {TRUMP})
    assert voids > 12


def test_the_search_bury_is_reproducible_and_leaves_the_stream_alone():
    for state, seat in bury_positions(1, first=40):
        obs = state.observation(seat)
        rng = random.Random(3)
        first = search_bury(obs, rng, 100, PLAYS_PER_MS)
        assert rng.getstate() == random.Random(3).getstate()
        assert search_bury(obs, random.Random(3), 100, PLAYS_PER_MS) == first
        action = SearchPlayer(budget_ms=20, bury=1, bury_ms=100)(obs, random.Random(3))
        assert action == Bury(seat=seat, cards=first)
        state.apply(action)  # a legal bury
        assert state.phase in ("chaodi", "playing")


def test_a_small_budget_buries_as_the_heuristic():
    for state, seat in bury_positions(3, first=60):
        obs = state.observation(seat)
        assert search_bury(obs, random.Random(1), 10, PLAYS_PER_MS) == choose_bury(obs)
        heuristic_bury = SearchPlayer(budget_ms=300, bury=0)(obs, random.Random(1))
        assert heuristic_bury == Bury(seat=seat, cards=choose_bury(obs))
        # the bury's own budget: too small here, though the card play's is not
        small = SearchPlayer(budget_ms=300, bury=1, bury_ms=10)(obs, random.Random(1))
        assert small == Bury(seat=seat, cards=choose_bury(obs))


def test_search_bury_against_itself_scores_exactly_zero():
    spec = "search,cardplay=0,bury=1,budget_ms=100"
    row = deal_pair((spec, spec, None, "classic", 3))
    assert row[1] + row[2] == 0 and row[3] + row[4] == 0
    assert row[5] + row[6] == 1
