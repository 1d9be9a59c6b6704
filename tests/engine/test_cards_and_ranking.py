"""Cards, notation (RULES.md section 2) and ranking (section 3)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cards import (
    BJ,
    LJ,
    NUM_DISTINCT,
    NotationError,
    format_card,
    format_cards,
    new_shoe,
    parse_card,
    parse_cards,
    points,
    shuffled_shoe,
    total_points,
)
from engine.ranking import TRUMP, TrumpContext
from engine.rules import PRESETS, RuleSet

H, S, C, D = 1, 0, 2, 3


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("10H", "10H"),
        ("A♠", "AS"),
        ("♠A", "AS"),
        ("BJ", "BJ"),
        ("大王", "BJ"),
        ("小王", "LJ"),
        ("LJ", "LJ"),
        ("jc", "JC"),
        ("10♦", "10D"),
        ("2d", "2D"),
    ],
)
def test_notation_parses_letters_symbols_and_chinese_jokers(token: str, expected: str) -> None:
    assert format_card(parse_card(token)) == expected


@pytest.mark.parametrize("token", ["ZZ", "1H", "11S", "AX", "", "J", "BJJ", "10"])
def test_bad_notation_names_the_token(token: str) -> None:
    with pytest.raises(NotationError) as err:
        parse_cards(f"AS {token} KS") if token else parse_card(token)
    assert err.value.token == (token or "")
    assert repr(token) in str(err.value)


@given(st.lists(st.integers(0, 53), max_size=30))
def test_notation_round_trips(cards: list[int]) -> None:
    assert parse_cards(format_cards(cards)) == cards
    assert parse_cards(format_cards(cards, symbols=True)) == cards


def test_the_shoe_holds_every_card_twice_and_200_points() -> None:
    shoe = new_shoe()
    assert len(shoe) == 108
    assert set(Counter(shoe).values()) == {2}
    assert total_points(shoe) == 200
    assert points(parse_card("5S")) == 5 and points(parse_card("10D")) == 10
    assert points(parse_card("KH")) == 10 and points(BJ) == 0


def test_seeded_shuffles_are_reproducible_and_differ_by_seed() -> None:
    assert shuffled_shoe(7) == shuffled_shoe(7)
    assert shuffled_shoe(7) != shuffled_shoe(8)
    assert sorted(shuffled_shoe(7)) == sorted(new_shoe())


def order(ctx: TrumpContext, text: str) -> list[int]:
    return [ctx.order[c] for c in parse_cards(text)]


def test_trump_order_level_10_spades() -> None:
    ctx = TrumpContext(8, S)
    strongest_first = parse_cards("BJ LJ 10S 10H AS KS QS JS 9S 2S")
    values = [ctx.order[c] for c in strongest_first]
    assert values == sorted(values, reverse=True)
    assert ctx.order[parse_card("10H")] == ctx.order[parse_card("10D")]  # off-suit levels equal
    assert all(ctx.suit_class[c] == TRUMP for c in strongest_first)
    assert ctx.suit_class[parse_card("AH")] == H


def test_adjacency_skips_the_level_rank() -> None:
    ctx = TrumpContext(4, S)  # level 6
    five, seven = order(ctx, "5C 7C")
    assert seven - five == 1


def test_trump_chain_joker_level_offlevel_ace() -> None:
    ctx = TrumpContext(8, S)
    bj, lj, tl, ol, ace = order(ctx, "BJ LJ 10S 10H AS")
    assert (bj - lj, lj - tl, tl - ol, ol - ace) == (1, 1, 1, 1)


def test_permanent_twos_sit_between_level_cards_and_the_trump_ace() -> None:
    ctx = TrumpContext(8, S, permanent_twos=True)
    ol, t2, o2, ace, king = order(ctx, "10H 2S 2H AS KS")
    assert (ol - t2, t2 - o2, o2 - ace, ace - king) == (1, 1, 1, 1)
    assert ctx.suit_class[parse_card("2D")] == TRUMP
    # the 2s leave the off-suits: 3 of hearts is that suit's lowest
    assert ctx.order[parse_card("3H")] == 0


def test_permanent_twos_mean_nothing_at_level_two() -> None:
    assert TrumpContext(0, S, True) is TrumpContext(0, S, False)


def test_no_trump_has_jokers_and_level_cards_only() -> None:
    ctx = TrumpContext(3, None)
    assert ctx.compare(parse_card("5S"), parse_card("5H")) == "equal"
    assert ctx.compare(LJ, parse_card("5D")) == "a"
    assert ctx.compare(parse_card("AS"), parse_card("2S")) == "a"
    assert ctx.suit_class[parse_card("AS")] == S
    trumps = [c for c in range(54) if ctx.suit_class[c] == TRUMP]
    assert format_cards(ctx.sorted(trumps)) == "BJ LJ 5S 5H 5C 5D"


@pytest.mark.parametrize("preset", PRESETS)
def test_top_trumps_are_the_trumps_of_every_trump_suit_and_outrank_the_rest(preset) -> None:
    """The top trumps (jokers, level cards, 2s under ``permanent_twos``) are exactly the
    cards that stay trump whatever the trump suit, and each outranks every other trump:
    checked for every level and trump suit of the preset."""
    twos = RuleSet.from_preset(preset).permanent_twos
    for level in range(13):
        for trump in (None, S, H, C, D):
            ctx = TrumpContext(level, trump, twos)
            trumps = [c for c in range(NUM_DISTINCT) if ctx.is_trump(c)]
            top = {c for c in trumps if ctx.is_top_trump(c)}
            always = {c for c in range(NUM_DISTINCT) if TrumpContext(level, None, twos).is_trump(c)}
            assert top == always, ctx
            assert all(ctx.compare(t, p) == "a" for t in top for p in trumps if p not in top)
            assert not any(ctx.is_top_trump(c) for c in range(NUM_DISTINCT) if c not in trumps)


def test_top_trumps_under_permanent_twos_in_spades_at_level_10() -> None:
    ctx = TrumpContext(8, S, permanent_twos=True)
    top = [c for c in ctx.sorted(list(range(NUM_DISTINCT))) if ctx.is_top_trump(c)]
    assert format_cards(top) == "BJ LJ 10S 10H 10C 10D 2S 2H 2C 2D"
    assert not ctx.is_top_trump(parse_card("AS"))


def test_compare_off_suits_are_unrelated_and_trumps_beat_them() -> None:
    ctx = TrumpContext(0, H)
    assert ctx.compare(parse_card("AS"), parse_card("AC")) == "unrelated"
    assert ctx.compare(parse_card("AS"), parse_card("3H")) == "b"
    assert ctx.compare(parse_card("2S"), parse_card("AH")) == "a"


def test_display_order_trumps_then_spades_hearts_clubs_diamonds() -> None:
    ctx = TrumpContext(0, D)
    hand = parse_cards("3S AD 2C BJ KH 4C 2D AS")
    assert format_cards(ctx.sorted(hand)) == "BJ 2D 2C AD AS 3S KH 4C"
