"""Units and decomposition (RULES.md section 4), plus the public shape/order cases."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import parse_cards
from engine.ranking import TrumpContext
from engine.units import Unit, decompose, shape_names, tractor_cover
from tests.engine.helpers import case_ctx, ctx_of, load_cases


def shape(level: str, trump: str, cards: str, permanent_twos: bool = False) -> list[str] | None:
    units = decompose(ctx_of(level, trump, permanent_twos), parse_cards(cards))
    return None if units is None else shape_names(units)


# ---- units -------------------------------------------------------------------------


def test_unit_names_kinds_and_sizes():
    assert (Unit(0, 5, (7,)).name, Unit(0, 5, (7,)).kind, Unit(0, 5, (7,)).size) == (
        "single",
        "single",
        1,
    )
    assert (Unit(1, 5, (7, 7)).name, Unit(1, 5, (7, 7)).size) == ("pair", 2)
    tractor = Unit(3, 5, (7, 7, 6, 6, 5, 5))
    assert (tractor.name, tractor.kind, tractor.size) == ("tractor3", "tractor", 6)


def test_mixed_suit_classes_or_nothing_do_not_decompose():
    assert shape("10", "S", "AH AS") is None
    assert shape("10", "S", "JH JH 10H 10H") is None  # 10H is a trump
    assert decompose(ctx_of("2", "S"), []) is None


def test_two_identical_cards_are_a_pair_different_suits_are_not():
    assert shape("2", "S", "KH KH") == ["pair"]
    assert shape("2", "S", "KH QH") == ["single", "single"]


def test_tractor_skips_the_level_rank_gap():
    assert shape("6", "S", "5C 5C 7C 7C") == ["tractor2"]
    assert shape("10", "S", "JS JS 9S 9S") == ["tractor2"]
    assert shape("4", "S", "7H 7H 6H 6H 5H 5H 3H 3H") == ["tractor4"]


def test_pairs_with_a_real_gap_or_a_single_are_not_tractors():
    assert shape("10", "S", "5H 5H 3H 3H") == ["pair", "pair"]
    assert shape("10", "S", "5H 5H 4H") == ["pair", "single"]


def test_ace_two_never_wraps():
    assert shape("10", "S", "AH AH 2H 2H") == ["pair", "pair"]


def test_joker_chain_and_joker_to_trump_level_chain():
    assert shape("10", "S", "BJ BJ LJ LJ") == ["tractor2"]
    assert shape("10", "S", "LJ LJ 10S 10S") == ["tractor2"]


def test_trump_level_pair_chains_with_an_off_suit_level_pair():
    assert shape("10", "S", "10S 10S 10H 10H") == ["tractor2"]


def test_off_suit_level_pair_chains_with_trump_ace_pair():
    assert shape("10", "S", "10H 10H AS AS") == ["tractor2"]


def test_two_off_suit_level_pairs_are_not_a_tractor():
    assert shape("10", "S", "10H 10H 10C 10C") == ["pair", "pair"]


def test_longest_trump_chain_runs_jokers_to_trump_ace():
    assert shape("10", "S", "BJ BJ LJ LJ 10S 10S 10D 10D AS AS") == ["tractor5"]


def test_second_off_level_pair_stays_a_pair_beside_the_chain():
    assert shape("10", "S", "10H 10H 10D 10D AS AS") == ["tractor2", "pair"]


def test_most_cards_in_tractors_beats_one_longer_tractor():
    # AS-10H and 10D-10S (8 cards in tractors) beat AS-10H-10S + pair 10D (6 cards).
    assert shape("10", "S", "10S 10S 10H 10H 10D 10D AS AS") == ["tractor2", "tractor2"]


def test_no_trump_chains():
    assert shape("10", "none", "LJ LJ 10H 10H") == ["tractor2"]
    assert shape("10", "none", "10H 10H 10S 10S") == ["pair", "pair"]
    assert shape("10", "none", "BJ BJ LJ LJ 10C 10C") == ["tractor3"]


def test_permanent_twos_chains():
    assert shape("10", "S", "10D 10D 2S 2S", True) == ["tractor2"]
    assert shape("10", "S", "2S 2S 2H 2H", True) == ["tractor2"]
    assert shape("10", "S", "2H 2H AS AS", True) == ["tractor2"]
    assert shape("10", "S", "2H 2H 2C 2C", True) == ["pair", "pair"]
    assert shape("10", "S", "AH AH KH KH", True) == ["tractor2"]


def test_units_are_sorted_largest_first_and_cards_strongest_first():
    ctx = ctx_of("2", "S")
    units = decompose(ctx, parse_cards("3H AH AH 7H 7H 6H 6H QH QH"))
    assert shape_names(units) == ["tractor2", "pair", "pair", "single"]
    assert units[0].cards == tuple(parse_cards("7H 7H 6H 6H"))
    assert [u.cards[0] for u in units[1:]] == parse_cards("AH QH 3H")


def test_tractor_cover_cuts_long_tractors_and_shares_between_led_tractors():
    # profile: one run of four pairs
    assert tractor_cover((1, 1, 1, 1), (3,)) == 3
    assert tractor_cover((1, 1, 1, 1), (3, 2)) == 4
    assert tractor_cover((1, 1, 0, 1), (2, 2)) == 2
    assert tractor_cover((1, 0, 1, 0), (2,)) == 0


# ---- public cases ------------------------------------------------------------------


@pytest.mark.parametrize("case", load_cases("order"), ids=lambda c: c["id"])
def test_public_order_case(case):
    ctx = case_ctx(case)
    a, b = parse_cards(case["input"]["a"])[0], parse_cards(case["input"]["b"])[0]
    assert ctx.compare(a, b) == case["expect"]["result"]


@pytest.mark.parametrize("case", load_cases("shape"), ids=lambda c: c["id"])
def test_public_shape_case(case):
    units = decompose(case_ctx(case), parse_cards(case["input"]["cards"]))
    got = {"valid": units is not None, "shape": shape_names(units) if units else []}
    assert got == case["expect"]


# ---- decomposition against brute force -------------------------------------------------

# Trump-heavy pool at level 3, trump H: off-suit 3s (and 2s with permanent_twos) stack up
# at one order, so chains can branch.
TRUMP_POOL = parse_cards("3S 3C 3D 3H 2S 2C 2H AH KH QH") + parse_cards("LJ BJ")


def best_chain_score(ctx: TrumpContext, pairs: list[int]) -> tuple[int, int]:
    """(pairs in tractors, -tractors) of the best split of pairs into chains, exhaustively."""
    order = ctx.order
    pairs = sorted(pairs, key=order.__getitem__)

    def split(i: int, chains: tuple[tuple[int, ...], ...]) -> tuple[int, int]:
        if i == len(pairs):
            long = [c for c in chains if len(c) >= 2]
            return sum(map(len, long)), -len(long)
        p = pairs[i]
        options = [split(i + 1, (*chains, (p,)))]
        for j, chain in enumerate(chains):
            if order[chain[-1]] + 1 == order[p]:
                grown = (*chains[:j], (*chain, p), *chains[j + 1 :])
                options.append(split(i + 1, grown))
        return max(options)

    return split(0, ())


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(TRUMP_POOL), unique=True, min_size=1),
    st.lists(st.sampled_from(TRUMP_POOL), max_size=3),
    st.booleans(),
)
def test_decomposition_puts_most_cards_in_fewest_tractors(paired, singles, permanent_twos):
    ctx = TrumpContext(1, 1, permanent_twos)
    paired = [c for c in paired if ctx.is_trump(c)]  # 2S, 2C are trumps only as permanent 2s
    singles = [c for c in singles if c not in paired and ctx.is_trump(c)]
    if not paired:
        return
    cards = [c for c in paired for _ in (0, 1)] + list(dict.fromkeys(singles))
    units = decompose(ctx, cards)
    assert sorted(c for u in units for c in u.cards) == sorted(cards)
    tractors = [u for u in units if u.pairs >= 2]
    score = (sum(u.pairs for u in tractors), -len(tractors))
    assert score == best_chain_score(ctx, paired)
    for u in tractors:  # each tractor really is a chain of pairs, strongest first
        orders = [ctx.order[c] for c in u.cards[::2]]
        assert orders == list(range(u.top, u.top - u.pairs, -1))
        assert u.cards[::2] == u.cards[1::2]
