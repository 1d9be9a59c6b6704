"""Leads, following and the trick winner (RULES.md sections 8, 8.1, 8.2)."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import BJ, LJ, format_cards, new_shoe, parse_cards
from engine.errors import (
    EMPTY_PLAY,
    MIXED_SUITS,
    MUST_FOLLOW_SUIT,
    MUST_PLAY_PAIR,
    MUST_PLAY_TRACTOR,
    NOT_IN_HAND,
    WRONG_COUNT,
    IllegalAction,
)
from engine.ranking import TrumpContext
from engine.tricks import (
    check_follow,
    check_lead,
    followable,
    is_legal_follow,
    lead_summary,
    play_kind,
    random_follow,
    random_lead,
    ruff_top,
    throw_beater,
    trick_winner,
    unfollowable_reason,
    unfollowable_reasons,
)
from engine.units import pair_ids, shape_names
from tests.engine.helpers import case_ctx, ctx_of, load_cases

L2S = ctx_of("2", "S")
L10H = ctx_of("10", "H")


def follow_error(ctx: TrumpContext, lead: str, hand: str, play: str) -> IllegalAction | None:
    try:
        check_follow(ctx, parse_cards(lead), parse_cards(hand), parse_cards(play))
    except IllegalAction as e:
        return e
    return None


def reason(ctx: TrumpContext, lead: str, hand: str, play: str) -> str | None:
    e = follow_error(ctx, lead, hand, play)
    return None if e is None else e.reason


def winner(ctx: TrumpContext, *plays: str) -> int:
    return trick_winner(ctx, [parse_cards(p) for p in plays])


# ---- leading (section 8) -----------------------------------------------------------


def test_lead_returns_its_units():
    units = check_lead(L2S, parse_cards("AH AH KH 3C"), parse_cards("AH AH KH"))
    assert shape_names(units) == ["pair", "single"]


def test_lead_of_nothing_is_refused():
    with pytest.raises(IllegalAction) as e:
        check_lead(L2S, parse_cards("AH"), [])
    assert e.value.reason == EMPTY_PLAY


def test_lead_must_come_from_the_hand_counting_copies():
    with pytest.raises(IllegalAction) as e:
        check_lead(L2S, parse_cards("AH KH"), parse_cards("AH AH"))
    assert e.value.reason == NOT_IN_HAND
    assert e.value.details["cards"] == parse_cards("AH")


def test_lead_of_two_suit_classes_is_refused():
    with pytest.raises(IllegalAction) as e:
        check_lead(L2S, parse_cards("AH AC"), parse_cards("AH AC"))
    assert e.value.reason == MIXED_SUITS


def test_trump_lead_mixes_printed_suits():
    units = check_lead(L10H, parse_cards("10S BJ 3H"), parse_cards("10S BJ 3H"))
    assert len(units) == 3


def test_random_lead_is_one_unit_from_the_hand():
    rng = random.Random(7)
    hand = parse_cards("BJ BJ LJ LJ 2S 2S AS AS KS KS 5H 5H 4H 4H 9C")
    kinds = set()
    for _ in range(200):
        lead = random_lead(L2S, hand, rng)
        units = check_lead(L2S, hand, lead)
        assert len(units) == 1
        kinds.add(units[0].kind)
    assert kinds == {"single", "pair", "tractor"}


# ---- following: rules 1 and 2 -----------------------------------------------------


def test_follow_must_play_as_many_cards_as_led():
    e = follow_error(L2S, "AH AH", "KH QH JH", "KH")
    assert (e.reason, e.details["required"]) == (WRONG_COUNT, 2)


def test_follow_must_come_from_the_hand_counting_copies():
    e = follow_error(L2S, "AH AH", "KH QH", "KH KH")
    assert (e.reason, e.details["cards"]) == (NOT_IN_HAND, parse_cards("KH"))


def test_follow_must_use_the_led_suit_while_it_lasts():
    e = follow_error(L2S, "AH AH", "KH QH 3C", "KH 3C")
    assert (e.reason, e.details["required"], e.details["played"]) == (MUST_FOLLOW_SUIT, 2, 1)


def test_follow_short_in_suit_plays_all_of_it_then_anything():
    assert reason(L2S, "AH AH AH", "KH 3C 4D 5D", "KH 4D 5D") is None
    assert reason(L2S, "AH", "3C 4S", "4S") is None
    assert reason(L2S, "8H 8H", "QH 4C 5C", "4C 5C") == MUST_FOLLOW_SUIT


def test_trump_lead_is_followed_by_trumps_level_cards_included():
    # level 2, trump S: 2H is a trump
    assert reason(L2S, "AS AS", "2H 3S 4D 5D", "2H 3S") is None
    assert reason(L2S, "AS AS", "2H 3S 4D 5D", "2H 4D") == MUST_FOLLOW_SUIT


def test_void_follower_may_play_anything():
    assert reason(L2S, "AH AH", "3C 3C 4D", "4D 3C") is None


# ---- following: rule 3 (shape) -------------------------------------------------------


def test_pair_lead_requires_a_pair_if_held():
    assert reason(L2S, "8H 8H", "QH QH 3H 4C 5C", "QH QH") is None
    e = follow_error(L2S, "8H 8H", "QH QH 3H 4C 5C", "QH 3H")
    assert (e.reason, e.details["required"]) == (MUST_PLAY_PAIR, 1)


def test_pair_lead_pair_inside_a_tractor_counts():
    assert reason(L2S, "3H 3H", "QH QH JH JH 5H", "5H JH") == MUST_PLAY_PAIR
    assert reason(L2S, "3H 3H", "QH QH JH JH 5H", "JH JH") is None


def test_pair_lead_without_pairs_any_cards_of_the_suit():
    assert reason(L2S, "8H 8H", "QH 3H 4C", "QH 3H") is None


def test_tractor_lead_requires_a_tractor_if_held():
    assert reason(L2S, "5C 5C 4C 4C", "9C 9C 8C 8C 6C 6C", "9C 9C 8C 8C") is None
    e = follow_error(L2S, "5C 5C 4C 4C", "9C 9C 8C 8C 6C 6C", "9C 9C 6C 6C")
    assert (e.reason, e.details["required"], e.details["played"]) == (MUST_PLAY_TRACTOR, 2, 0)


def test_tractor_lead_without_tractor_requires_pairs():
    assert reason(L2S, "5C 5C 4C 4C", "9C 9C 7C 7C 3C KD", "9C 9C 7C 7C") is None
    assert reason(L2S, "5C 5C 4C 4C", "9C 9C 7C 7C 3C KD", "9C 9C 7C 3C") == MUST_PLAY_PAIR
    assert reason(L2S, "5C 5C 4C 4C", "9C 9C 7C 6C 3C", "9C 9C 7C 6C") is None
    assert reason(L2S, "5C 5C 4C 4C", "9C 9C 7C 6C 3C", "9C 7C 6C 3C") == MUST_PLAY_PAIR


def test_tractor_lead_longer_tractor_may_be_cut():
    assert reason(L2S, "5C 5C 4C 4C", "QC QC JC JC 10C 10C", "QC QC JC JC") is None
    assert reason(L2S, "5C 5C 4C 4C", "QC QC JC JC 10C 10C", "JC JC 10C 10C") is None
    assert reason(L2S, "5C 5C 4C 4C", "QC QC JC JC 10C 10C", "QC QC 10C 10C") == (MUST_PLAY_TRACTOR)


def test_three_pair_tractor_lead_takes_shorter_tractor_plus_pair():
    lead = "6C 6C 5C 5C 4C 4C"
    hand = "KC KC QC QC 9C 9C 7C 7C"
    assert reason(L2S, lead, hand, "KC KC QC QC 9C 9C") is None
    assert reason(L2S, lead, hand, "KC KC 9C 9C 7C 7C") == MUST_PLAY_TRACTOR


def test_tractor_across_the_level_gap_must_be_followed_as_tractor():
    ctx = ctx_of("6", "S")
    assert reason(ctx, "QC QC JC JC", "5C 5C 7C 7C 9C 9C", "5C 5C 9C 9C") == MUST_PLAY_TRACTOR
    assert reason(ctx, "QC QC JC JC", "5C 5C 7C 7C 9C 9C", "5C 5C 7C 7C") is None


def test_trump_tractor_lead_off_level_pair_with_trump_ace_pair_is_a_tractor():
    lead = "BJ BJ LJ LJ"
    hand = "10S 10S AH AH 3H 3H 4D"
    assert reason(L10H, lead, hand, "10S 10S AH AH") is None
    assert reason(L10H, lead, hand, "10S 10S 3H 3H") == MUST_PLAY_TRACTOR


def test_trump_tractor_lead_two_off_level_pairs_are_only_pairs():
    lead = "BJ BJ LJ LJ"
    assert reason(L10H, lead, "10S 10S 10C 10C 3H 4H", "10S 10S 10C 10C") is None
    assert reason(L10H, lead, "10S 10S 10C 10C 3H 4H", "10S 10S 3H 4H") == MUST_PLAY_PAIR


def test_single_lead_never_requires_a_pair():
    assert reason(L2S, "AH", "KH KH 3C", "KH") is None
    assert reason(L2S, "AH", "KH KH 3C", "3C") == MUST_FOLLOW_SUIT


def test_throw_lead_pair_slot_requires_a_pair():
    lead = "AH AH KH"
    assert reason(L2S, lead, "QH QH 5H 3D", "QH QH 5H") is None
    assert reason(L2S, lead, "QH QH 5H 3D", "QH 5H 3D") == MUST_FOLLOW_SUIT
    assert reason(L2S, lead, "QH JH 5H 5H", "QH JH 5H") == MUST_PLAY_PAIR
    assert reason(L2S, lead, "QH JH 5H 5H", "5H 5H QH") is None


def test_throw_lead_two_pairs_require_two_pairs_not_more():
    lead = "AH AH KH KH 9H 9H 3H"  # tractor2 + pair + single
    hand = "QH QH 8H 8H 6H 6H 4H 2C"
    assert reason(L2S, lead, hand, "QH QH 8H 8H 6H 6H 4H") is None
    assert reason(L2S, lead, hand, "QH QH 8H 8H 6H 4H 2C") == MUST_FOLLOW_SUIT
    hand = "QH QH 8H 8H 6H 6H 4H 5H"
    assert reason(L2S, lead, hand, "QH QH 8H 8H 6H 4H 5H") == MUST_PLAY_PAIR
    # two led pairs: a third pair is never required for the single slot
    assert reason(L2S, "AH AH 9H 9H 3H", hand, "QH QH 8H 8H 4H") is None
    assert reason(L2S, "AH AH 9H 9H 3H", hand, "QH QH 8H 4H 5H") == MUST_PLAY_PAIR


def test_throw_lead_with_two_tractors_takes_a_cut_long_tractor_for_both():
    lead = "AH AH KH KH 8H 8H 7H 7H"
    hand = "JH JH 10H 10H 9H 9H 6H 6H 3H"  # a 3-run gives only one 2-tractor
    assert reason(L2S, lead, hand, "JH JH 10H 10H 9H 9H 6H 6H") is None
    assert reason(L2S, lead, hand, "10H 10H 9H 9H 6H 6H 3H JH") == MUST_PLAY_PAIR
    hand = "JH JH 10H 10H 9H 9H 8H 8H 3H 3C"
    assert reason(L2S, lead, hand, "JH JH 10H 10H 9H 9H 8H 8H") is None
    assert reason(L2S, lead, hand, "JH JH 10H 10H 9H 9H 8H 3H") == MUST_PLAY_TRACTOR


def test_is_legal_follow_matches_check_follow():
    assert is_legal_follow(L2S, parse_cards("8H 8H"), parse_cards("QH QH 3H"), parse_cards("QH QH"))
    assert not is_legal_follow(
        L2S, parse_cards("8H 8H"), parse_cards("QH QH 3H"), parse_cards("QH 3H")
    )


# ---- the winner (section 8.2) ----------------------------------------------------------


def test_highest_single_of_the_led_suit_wins_ties_to_the_earlier():
    assert winner(L10H, "KS", "AS", "AS", "3C") == 1


def test_any_trump_ruffs_a_single():
    assert winner(L10H, "KS", "AS", "AS", "3H") == 3


def test_equal_off_suit_level_cards_tie_to_the_earlier():
    assert winner(L10H, "10C", "10D", "AH", "5H") == 0
    assert winner(L10H, "3H", "10C", "10D", "5H") == 1


def test_jokers_beat_level_cards():
    assert winner(L10H, "2H", "10C", "10H", "BJ") == 3


def test_two_singles_never_beat_a_pair():
    assert winner(L10H, "5S 5S", "3H 4H", "6S 6S", "2S 3S") == 2


def test_pair_ruff_and_over_ruff():
    assert winner(L10H, "5S 5S", "3H 3H", "6S 6S", "4H 4H") == 3


def test_tractor_lead_only_a_tractor_competes():
    assert winner(L10H, "5S 5S 4S 4S", "9S 9S 7S 7S", "8S 8S 7S 7S", "2S 3S 6S 6S") == 2


def test_two_off_level_pairs_do_not_ruff_a_tractor():
    assert winner(L10H, "KS KS QS QS", "10C 10C 10D 10D", "AS AS 3S 2S", "AH AH KH KH") == 3


def test_trump_tractor_across_level_cards_beats_a_lower_one():
    assert winner(L10H, "10S 10S AH AH", "KH KH QH QH", "10H 10H 10C 10C", "BJ LJ 3H 4H") == 2


def test_equal_ruffs_tie_to_the_earlier():
    assert winner(L10H, "KS", "10C", "10D", "3S") == 1
    assert winner(L10H, "KS KS", "10C 10C", "10D 10D", "3S 4S") == 1


def test_ruff_of_a_throw_must_match_its_shape():
    lead_ak = "AS KS 5S 5S 4S 4S"
    others = ("9H 9H 8H 8H 7H 2H", "3S 6S 7S 8S 9S 2S", "JS QS 2S 3S 6S 7S")
    assert winner(L10H, lead_ak, *others) == 1
    assert winner(L10H, "AS AS 5S 5S 4S 4S", *others) == 0


def test_ruff_tractor_may_supply_a_pair():
    assert winner(L10H, "AS AS KS", "9H 9H 8H", "2S 3S 4S", "5S 6S 7S") == 1


def test_over_ruff_of_a_throw_compares_the_largest_unit():
    assert winner(L10H, "5S 4S 4S", "9H 7H 7H", "8H 8H 4H", "3S 6S 7S") == 2
    assert winner(L10H, "5S 6S 7S", "9H 7H 7H", "8H 8H 4H", "3S 2S 8S") == 1


def test_over_ruff_of_a_throw_compares_the_largest_tractor():
    lead = "AS AS KS KS 7S 7S"
    assert winner(L10H, lead, "5H 5H 4H 4H AH AH", "7H 7H 6H 6H 3H 3H", "2S 3S 4S 5S 6S 8S") == 2
    # equal tractors: the earlier ruff stands
    assert winner(L10H, lead, "7H 7H 6H 6H 3H 3H", "7H 7H 6H 6H 4H 4H", "2S 3S 4S 5S 6S 8S") == 1


def test_over_ruff_uses_the_highest_tractor_a_valid_assignment_can_use():
    # lead tractor2 + tractor2: ruff run of 4 low pairs vs a higher 2-run + a low 2-run
    lead = "AS AS KS KS 8S 8S 7S 7S"
    low_run = "6H 6H 5H 5H 4H 4H 3H 3H"
    split = "KH KH QH QH 3H 3H 2H 2H"
    assert winner(L10H, lead, low_run, split, "2S 3S 4S 5S 6S 9S JS QS") == 2


def test_successful_throw_beats_higher_same_suit_cards():
    assert winner(L10H, "AS KS", "AS QS", "QS JS", "2S 3S") == 0


def test_trump_throw_cannot_be_beaten():
    assert winner(L10H, "BJ LJ", "BJ 10H", "3H 4H", "5S 6S") == 0


def test_ruff_must_be_all_trumps():
    assert winner(L10H, "AS AS", "3H 3D", "4S 5S", "6S 7S") == 0


# ---- public cases ----------------------------------------------------------------------


@pytest.mark.parametrize("case", load_cases("follow"), ids=lambda c: c["id"])
def test_public_follow_case(case):
    i = case["input"]
    legal = is_legal_follow(
        case_ctx(case), parse_cards(i["lead"]), parse_cards(i["hand"]), parse_cards(i["play"])
    )
    assert legal == case["expect"]["legal"]


@pytest.mark.parametrize("case", load_cases("trick"), ids=lambda c: c["id"])
def test_public_trick_case(case):
    plays = [parse_cards(p) for p in case["input"]["plays"]]
    assert trick_winner(case_ctx(case), plays) == case["expect"]["winner"]


# ---- properties ------------------------------------------------------------------------

contexts = st.builds(
    TrumpContext,
    st.integers(0, 12),
    st.one_of(st.none(), st.integers(0, 3)),
    st.booleans(),
)


@st.composite
def deals(draw):
    """A trump context and four 25-card hands."""
    ctx = draw(contexts)
    shoe = new_shoe()
    random.Random(draw(st.integers(0, 2**32))).shuffle(shoe)
    return ctx, [shoe[i * 25 : (i + 1) * 25] for i in range(4)]


def some_lead(ctx: TrumpContext, hand: list[int], rng: random.Random) -> list[int]:
    """A one-unit lead, or a random throw of one class (possibly several units)."""
    if rng.random() < 0.5:
        return random_lead(ctx, hand, rng)
    klass = ctx.suit_class[rng.choice(hand)]
    same = [c for c in hand if ctx.suit_class[c] == klass]
    pairs = pair_ids(ctx, same, klass)
    lead = [c for p in rng.sample(pairs, rng.randint(0, len(pairs))) for c in (p, p)]
    rest = [c for c in same if c not in lead]
    return lead + rng.sample(rest, rng.randint(0 if lead else 1, min(3, len(rest))))


@settings(max_examples=300, deadline=None)
@given(deals(), st.integers(0, 2**32))
def test_random_follow_is_always_legal(deal, seed):
    ctx, hands = deal
    rng = random.Random(seed)
    lead = some_lead(ctx, hands[0], rng)
    for hand in hands[1:]:
        play = random_follow(ctx, lead, hand, rng)
        assert len(play) == len(lead)
        check_follow(ctx, lead, hand, play)


@settings(max_examples=300, deadline=None)
@given(deals(), st.integers(0, 2**32))
def test_legal_follows_have_the_led_count_and_agree(deal, seed):
    ctx, hands = deal
    rng = random.Random(seed)
    lead = some_lead(ctx, hands[0], rng)
    for hand in hands[1:]:
        for _ in range(5):
            play = rng.sample(hand, len(lead))
            try:
                check_follow(ctx, lead, hand, play)
                raised = False
            except IllegalAction:
                raised = True
            assert is_legal_follow(ctx, lead, hand, play) is not raised
            if not raised:
                assert len(play) == len(lead)


@settings(max_examples=300, deadline=None)
@given(deals(), st.integers(0, 2**32))
def test_trick_winner_in_range_and_lead_wins_uncontested(deal, seed):
    ctx, hands = deal
    rng = random.Random(seed)
    lead = some_lead(ctx, hands[0], rng)
    plays = [lead] + [random_follow(ctx, lead, h, rng) for h in hands[1:]]
    w = trick_winner(ctx, plays)
    assert 0 <= w < 4
    klass = ctx.suit_class[lead[0]]
    contested = any(ctx.suit_class[c] in (klass, 4) for p in plays[1:] for c in p)
    if not contested:
        assert w == 0


@settings(max_examples=200, deadline=None)
@given(deals(), st.integers(0, 2**32))
def test_winning_play_is_the_lead_same_class_or_all_trumps(deal, seed):
    ctx, hands = deal
    rng = random.Random(seed)
    lead = some_lead(ctx, hands[0], rng)
    plays = [lead] + [random_follow(ctx, lead, h, rng) for h in hands[1:]]
    w = trick_winner(ctx, plays)
    if w:
        classes = {ctx.suit_class[c] for c in plays[w]}
        assert classes in ({ctx.suit_class[lead[0]]}, {4})


# A brute-force reference of the formal rule 3 on small hands.


def reference_score(ctx: TrumpContext, lead: list[int], play: list[int]) -> tuple[int, int]:
    """(led pairs covered by tractors, led pairs covered at all), by exhaustive assignment."""
    info = lead_summary(ctx, tuple(lead))
    pairs = pair_ids(ctx, play, info.klass)
    order = ctx.order
    chains = [
        chain
        for n in range(2, len(pairs) + 1)
        for chain in itertools.permutations(pairs, n)
        if all(order[b] == order[a] + 1 for a, b in itertools.pairwise(chain))
    ]

    def best(i: int, used: frozenset[int]) -> tuple[int, int]:
        if i == len(info.caps):
            free = len(pairs) - len(used)
            t = len(used)
            return t, t + min(free, info.pairs - t)
        options = [best(i + 1, used)]
        for chain in chains:
            if len(chain) <= info.caps[i] and used.isdisjoint(chain):
                options.append(best(i + 1, used | frozenset(chain)))
        return max(options)

    return best(0, frozenset())


def reference_legal(ctx: TrumpContext, lead: list[int], hand: list[int], play: list[int]) -> bool:
    klass = ctx.suit_class[lead[0]]
    n = len(lead)

    def obeys_1_2(p: list[int]) -> bool:
        return sum(ctx.suit_class[c] == klass for c in p) >= min(n, len(same))

    same = [c for c in hand if ctx.suit_class[c] == klass]
    if not obeys_1_2(play):
        return False
    top = max(
        reference_score(ctx, lead, list(p))
        for p in itertools.combinations(hand, n)
        if obeys_1_2(list(p))
    )
    return reference_score(ctx, lead, play) >= top


SMALL_POOL = parse_cards("AH KH QH JH 10H 9H 2H 2S 2C 3S AS KS 3H") + [LJ, BJ]


def with_copies(draw, cards: list[int], max_cards: int) -> list[int]:
    """Distinct cards, each once or (more often) twice, at most ``max_cards`` in all."""
    out: list[int] = []
    for c in cards:
        out += [c] * draw(st.sampled_from([1, 2, 2]))
    return out[:max_cards]


@st.composite
def small_follows(draw):
    """Small hands rich in pairs and tractors (level 3, so 2s and 3s can chain)."""
    ctx = TrumpContext(1, draw(st.sampled_from([0, 1, None])), draw(st.booleans()))
    hand = with_copies(draw, draw(st.lists(st.sampled_from(SMALL_POOL), unique=True)), 10)
    klass = ctx.suit_class[draw(st.sampled_from(hand or SMALL_POOL))]
    same = [c for c in SMALL_POOL if ctx.suit_class[c] == klass]
    lead = with_copies(draw, draw(st.lists(st.sampled_from(same), min_size=1, unique=True)), 6)
    if draw(st.booleans()):  # a tractor (plus maybe a single): the interesting leads
        by_order = {ctx.order[c]: c for c in same}
        top = draw(st.sampled_from(sorted(by_order)))
        chain = [by_order[o] for o in range(top, top - 3, -1) if o in by_order][:2]
        lead = [c for c in chain for _ in (0, 1)] + lead[:1]
    if draw(st.booleans()):  # give the hand a chain of the led class too
        by_order = {ctx.order[c]: c for c in same}
        top = draw(st.sampled_from(sorted(by_order)))
        chain = [by_order[o] for o in range(top, top - 3, -1) if o in by_order]
        hand = [c for c in hand if c not in chain][: 10 - 2 * len(chain)]
        hand += [c for c in chain for _ in (0, 1)]
    lead = lead[: max(1, len(hand))]
    hand = hand or draw(st.lists(st.sampled_from(SMALL_POOL), min_size=len(lead), unique=True))
    in_class = [c for c in hand if ctx.suit_class[c] == klass]
    pool = in_class if len(in_class) >= len(lead) and draw(st.booleans()) else hand
    play = draw(st.permutations(pool))[: len(lead)]
    return ctx, lead, hand, play


@settings(max_examples=400, deadline=None)
@given(small_follows())
def test_check_follow_agrees_with_brute_force_formal_rule(case):
    ctx, lead, hand, play = case
    assert is_legal_follow(ctx, lead, hand, play) == reference_legal(ctx, lead, hand, play)


# A brute-force reference of ruff shape matching and over-ruff ranks (section 8.2).

RUFF_POOL = parse_cards("3S 3C 3H 2S 2C 2H AH KH QH JH 9H 8H") + [LJ, BJ]
SPADES = parse_cards("AS KS QS JS 10S 9S 8S 7S 6S 5S 4S")


def reference_ruff_top(ctx: TrumpContext, lead: list[int], play: list[int]) -> int:
    """The ruff's rank by exhaustive assignment of its units to the led units, or -1."""
    if any(not ctx.is_trump(c) for c in play):
        return -1
    info = lead_summary(ctx, tuple(lead))
    order = ctx.order
    pairs = pair_ids(ctx, play, 4)
    chains = [
        chain
        for n in range(2, len(pairs) + 1)
        for chain in itertools.permutations(pairs, n)
        if all(order[b] == order[a] + 1 for a, b in itertools.pairwise(chain))
    ]
    tops: list[int] = []  # top of the unit given to the first (largest) led tractor

    def assign(i: int, used: frozenset[int], first_top: int) -> None:
        if i == len(info.caps):
            if len(pairs) - len(used) >= info.loose_pairs:
                tops.append(first_top)
            return
        for chain in chains:
            if len(chain) == info.caps[i] and used.isdisjoint(chain):
                assign(i + 1, used | frozenset(chain), order[chain[-1]] if i == 0 else first_top)

    assign(0, frozenset(), -1)
    if not tops:
        return -1
    if info.caps:
        return max(tops)
    if info.pairs:
        return max(order[c] for c in pairs)
    return max(order[c] for c in play)


@st.composite
def ruffs(draw):
    ctx = TrumpContext(1, 1, draw(st.booleans()))  # level 3, trump H
    lead = with_copies(draw, draw(st.lists(st.sampled_from(SPADES), min_size=2, unique=True)), 8)
    trumps = [c for c in RUFF_POOL if ctx.is_trump(c)]
    play = with_copies(draw, draw(st.lists(st.sampled_from(trumps), unique=True)), len(lead))
    play += draw(st.lists(st.sampled_from(trumps), min_size=len(lead) - len(play)))
    return ctx, lead, play[: len(lead)]


@settings(max_examples=400, deadline=None)
@given(ruffs())
def test_ruff_rank_agrees_with_brute_force_assignment(case):
    ctx, lead, play = case
    info = lead_summary(ctx, tuple(lead))
    assert ruff_top(ctx, info, play) == reference_ruff_top(ctx, lead, play)


# ---- how a play reads: what beat a failed throw, ruffs and throws -------------------


def beater(ctx: TrumpContext, unit: str, *others: str) -> tuple[int, str] | None:
    shown = throw_beater(ctx, parse_cards(unit), [parse_cards(h) for h in others])
    return None if shown is None else (shown.holder, format_cards(ctx.sorted(shown.cards)))


def test_a_failed_throw_shows_the_first_later_seat_that_beats_it_not_the_strongest():
    # RULES 13: the first seat after the thrower that can beat the unit shows it,
    # even when a later seat holds more
    assert beater(L10H, "9S", "3S 5C", "JS 4S", "AS KS") == (1, "JS")
    assert beater(L10H, "8S 8S", "JS JS 3S", "AS AS 5C") == (0, "JS JS")
    assert beater(L10H, "AS", "JS", "QS") is None


def test_a_failed_throw_shows_the_holders_lowest_beating_unit():
    assert beater(L10H, "9S", "AS QS JS 3S") == (0, "JS")
    assert beater(L10H, "4S 4S", "QS QS 5S 5S 3S 3S") == (0, "5S 5S")
    # a tractor: the lowest of the holder's tractors of that length above it
    assert beater(L10H, "7S 7S 8S 8S", "KS KS QS QS JS JS 3S") == (0, "QS QS JS JS")
    # a longer tractor may be cut to the lowest window that still beats
    assert beater(L10H, "9S 9S 8S 8S", "KS KS QS QS JS JS 3S 3S") == (0, "QS QS JS JS")


def test_equal_beating_units_show_the_last_in_display_order():
    # level 10, trump S: the off-suit 10s rank alike; 10C is shown after 10H
    l10s = ctx_of("10", "S")
    assert beater(l10s, "AS", "10H 10C 3D") == (0, "10C")
    assert beater(l10s, "AS AS", "10H 10H 10C 10C") == (0, "10C 10C")


def test_a_ruff_and_a_throw_that_stood_are_told_apart_from_plain_plays():
    assert play_kind(L10H, parse_cards("AS KS"), parse_cards("AS KS"), leads=True) == "throw"
    assert play_kind(L10H, parse_cards("AS AS"), parse_cards("AS AS"), leads=True) is None
    assert play_kind(L10H, parse_cards("AS"), parse_cards("3H"), leads=False) == "ruff"
    assert play_kind(L10H, parse_cards("AS"), parse_cards("3S"), leads=False) is None
    # trumps that do not match the lead's shape are a discard, not a ruff
    assert play_kind(L10H, parse_cards("AS AS"), parse_cards("3H 4H"), leads=False) is None
    assert play_kind(L10H, parse_cards("3H"), parse_cards("4H"), leads=False) is None


def test_followable_cards_of_a_pair_lead_are_the_pairs_when_a_pair_is_held():
    # ♥ led pair; holding a ♥ pair, only that pair can follow; ♠ cards never
    assert followable(L2S, parse_cards("5H 5H"), parse_cards("9H 9H 3H 4S")) == set(
        parse_cards("9H")
    )
    # no pair: any ♥ (and with one ♥ only, any card fills the second place)
    assert followable(L2S, parse_cards("5H 5H"), parse_cards("9H 3H 4S")) == set(
        parse_cards("9H 3H")
    )
    assert followable(L2S, parse_cards("5H 5H"), parse_cards("9H 4S 6C")) == set(
        parse_cards("9H 4S 6C")
    )


def test_followable_cards_of_a_tractor_lead_are_the_tractors_pairs():
    lead = parse_cards("5H 5H 6H 6H")
    hand = parse_cards("9H 9H 10H 10H KH KH 3H 4S")
    assert followable(L2S, lead, hand) == set(parse_cards("9H 10H"))


@settings(max_examples=300, deadline=None)
@given(deals(), st.integers(0, 2**32))
def test_followable_is_exactly_the_cards_of_some_legal_follow(deal, seed):
    """Against every follow a small hand can make: a card is followable iff some legal
    follow holds it."""
    ctx, hands = deal
    rng = random.Random(seed)
    lead = some_lead(ctx, hands[0], rng)
    klass = ctx.suit_class[lead[0]]
    rest = [c for h in hands[1:] for c in h]
    same = sorted({c for c in rest if ctx.suit_class[c] == klass})
    hand: list[int] = []
    for c in rng.sample(same, min(len(same), rng.randint(0, 6))):
        hand += [c] * min(rest.count(c), rng.choice((1, 2, 2)))
    others = [c for c in rest if ctx.suit_class[c] != klass]
    hand += rng.sample(others, max(0, len(lead) - len(hand)) + rng.randint(0, 2))
    hand = hand[:12]
    if len(hand) < len(lead):
        return
    legal: set[int] = set()
    for chosen in itertools.combinations(range(len(hand)), len(lead)):
        play = [hand[i] for i in chosen]
        if is_legal_follow(ctx, lead, hand, play):
            legal.update(play)
    assert followable(ctx, lead, hand) == legal


def test_an_unfollowable_card_says_why_as_a_play_holding_it_is_refused():
    """Issue 36: the Mini App answers a tap on a card it dims with the rule that leaves the
    card out: the led suit while the hand has it; the pair (tractor) the lead asks for."""
    lead = parse_cards("5H 5H")
    hand = parse_cards("9H 9H 3H 4S")
    assert unfollowable_reason(L2S, lead, hand, parse_cards("4S")[0]) == MUST_FOLLOW_SUIT
    assert unfollowable_reason(L2S, lead, hand, parse_cards("3H")[0]) == MUST_PLAY_PAIR
    tractor = parse_cards("5H 5H 6H 6H")
    hand = parse_cards("9H 9H 10H 10H KH KH 3H 4S")
    assert unfollowable_reason(L2S, tractor, hand, parse_cards("KH")[0]) == MUST_PLAY_TRACTOR


@settings(max_examples=200, deadline=None)
@given(deals(), st.integers(0, 2**32))
def test_the_reason_of_an_unfollowable_card_is_one_a_play_holding_it_is_refused_with(deal, seed):
    """Every follow holding a card :func:`followable` leaves out is refused, and the reason
    :func:`unfollowable_reason` gives is the one at least one such follow is refused with."""
    ctx, hands = deal
    rng = random.Random(seed)
    lead = some_lead(ctx, hands[0], rng)
    rest = [c for h in hands[1:] for c in h]
    hand = rng.sample(rest, min(len(rest), len(lead) + rng.randint(0, 5)))
    if len(hand) < len(lead):
        return
    out = set(hand) - followable(ctx, lead, hand)
    # the reasons of them all at once (as the projection asks) are each card's own
    assert unfollowable_reasons(ctx, lead, hand, out) == {
        c: unfollowable_reason(ctx, lead, hand, c) for c in out
    }
    for card in out:
        reasons = set()
        for chosen in itertools.combinations(range(len(hand)), len(lead)):
            play = [hand[i] for i in chosen]
            if card not in play:
                continue
            with pytest.raises(IllegalAction) as refused:
                check_follow(ctx, lead, hand, play)
            reasons.add(refused.value.reason)
        assert unfollowable_reason(ctx, lead, hand, card) in reasons, (card, reasons)
