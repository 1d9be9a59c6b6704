"""Declaring, reinforcing, overturning per preset (RULES.md sections 5, 7, 12)."""

from __future__ import annotations

import pytest

from engine import errors
from engine.cards import parse_cards, parse_rank
from engine.declaring import Declaring, classify, may_request_redeal, replay_events
from engine.errors import IllegalAction
from engine.rules import RuleSet
from tests.engine.helpers import load_cases

CLASSIC = RuleSet.from_preset("classic")
JOKER = RuleSet.from_preset("joker_declare")
TOURNAMENT = RuleSet.from_preset("tournament")
S, H, C, D = range(4)
FIVE = parse_rank("5")
TWO = parse_rank("2")


def c(text: str) -> list[int]:
    return parse_cards(text)


def later(rules: RuleSet = CLASSIC, level: int = FIVE, dealer: int = 0) -> Declaring:
    return Declaring.start(rules, level, 2, dealer)


def first(rules: RuleSet = CLASSIC, level: int = TWO) -> Declaring:
    return Declaring.start(rules, level, 1, None)


def refused(d: Declaring, seat: int, cards: str, window: str, reason: str) -> None:
    before = d.model_dump()
    with pytest.raises(IllegalAction) as e:
        d.show(seat, c(cards), window)  # type: ignore[arg-type]
    assert e.value.reason == reason
    assert d.model_dump() == before  # an invalid show changes nothing


# ---- what a show is ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "kind", "suit"),
    [
        ("5H", "single", H),
        ("5S 5S", "pair", S),
        ("LJ LJ", "jokers", None),
        ("BJ BJ", "jokers", None),
    ],
)
def test_classic_shows(cards: str, kind: str, suit: int | None) -> None:
    shown = classify(CLASSIC, FIVE, c(cards))
    assert shown is not None and (shown.kind, shown.suit) == (kind, suit)


@pytest.mark.parametrize("cards", ["6H", "LJ", "BJ", "5H 5S", "5H 5H 5H", "LJ BJ", "5H BJ", ""])
def test_classic_non_shows(cards: str) -> None:
    assert classify(CLASSIC, FIVE, c(cards)) is None


@pytest.mark.parametrize(
    ("cards", "kind", "suit"),
    [
        ("2H BJ", "single", H),
        ("2D BJ", "single", D),
        ("LJ 2S", "single", S),
        ("2C LJ", "single", C),
        ("2C 2C LJ", "pair", C),
        ("2H BJ 2H", "pair", H),
        ("LJ LJ", "jokers", None),
    ],
)
def test_joker_declare_shows_need_the_joker_of_the_suits_colour(
    cards: str, kind: str, suit: int | None
) -> None:
    shown = classify(JOKER, TWO, c(cards))
    assert shown is not None and (shown.kind, shown.suit) == (kind, suit)


@pytest.mark.parametrize("cards", ["2H", "2H LJ", "2S BJ", "2C 2C", "2C 2C BJ", "2H 2H BJ BJ"])
def test_joker_declare_non_shows(cards: str) -> None:
    assert classify(JOKER, TWO, c(cards)) is None


# ---- declaring (section 5) -------------------------------------------------------


def test_hand_1_first_declarer_becomes_dealer() -> None:
    d = first()
    d.show(2, c("2D"), "deal")
    assert (d.trump, d.dealer, d.declarer, d.trump_decided) == (D, 2, 2, True)


def test_later_hand_declaring_keeps_the_dealer() -> None:
    d = later(dealer=0)
    d.show(3, c("5H"), "deal")
    assert (d.trump, d.dealer, d.declarer) == (H, 0, 3)


def test_first_declaration_stands_single_cannot_overturn() -> None:
    d = later()
    d.show(3, c("5H"), "deal")
    refused(d, 1, "5S", "deal", errors.SHOW_TOO_WEAK)
    refused(d, 1, "5S", "chaodi", errors.SHOW_TOO_WEAK)


def test_jokers_cannot_declare() -> None:
    d = first()
    refused(d, 0, "LJ", "deal", errors.INVALID_SHOW)
    refused(d, 0, "LJ LJ", "deal", errors.INVALID_SHOW)


def test_declaring_with_the_pair_at_once_counts_as_reinforced() -> None:
    d = later()
    d.show(3, c("5H 5H"), "deal")
    assert d.reinforced
    refused(d, 1, "5C 5C", "chaodi", errors.SHOW_TOO_WEAK)
    d.show(1, c("5S 5S"), "chaodi")
    assert d.trump == S


# ---- reinforcing -------------------------------------------------------------------


def test_reinforcement_locks_out_weaker_overturns() -> None:
    d = later()
    d.show(3, c("5H"), "deal")
    d.show(3, c("5H 5H"), "deal")
    assert d.reinforced and [s.kind for s in d.shows] == ["declare", "reinforce"]
    refused(d, 1, "5C 5C", "chaodi", errors.SHOW_TOO_WEAK)
    refused(d, 1, "5D 5D", "chaodi", errors.SHOW_TOO_WEAK)
    d.show(1, c("5S 5S"), "chaodi")
    assert (d.trump, d.overturns) == (S, 1)


def test_only_the_declarer_reinforces_and_only_the_declared_card() -> None:
    d = later()
    d.show(3, c("5H"), "deal")
    refused(d, 3, "5S 5S", "deal", errors.CANNOT_OVERTURN_SELF)
    refused(d, 1, "5H 5H", "deal", errors.DECLARING_CLOSED)  # an overturn, not in the deal


def test_reinforcement_is_not_offered_after_burying() -> None:
    d = later()
    d.show(3, c("5H"), "deal")
    refused(d, 3, "5H 5H", "chaodi", errors.DECLARING_CLOSED)


# ---- overturning (section 7) ---------------------------------------------------------

CLASSIC_ORDER = ["BJ BJ", "LJ LJ", "5S 5S", "5H 5H", "5C 5C", "5D 5D"]
TOURNAMENT_ORDER = ["BJ BJ", "LJ LJ", "5S 5S", "5H 5H", "5D 5D", "5C 5C"]


@pytest.mark.parametrize(
    ("rules", "order"), [(CLASSIC, CLASSIC_ORDER), (TOURNAMENT, TOURNAMENT_ORDER)]
)
def test_overturn_priority(rules: RuleSet, order: list[str]) -> None:
    window = "chaodi" if rules.later_overturn == "chaodi" else "after_deal"
    for i, strong in enumerate(order):
        for weak in order[i:]:
            d = later(rules)
            d.show(3, c("5H"), "deal")
            d.show(1, c(weak), window)  # any pair overturns a single declaration
            if weak == strong:
                refused(d, 2, strong, window, errors.SHOW_TOO_WEAK)
            else:
                d.show(2, c(strong), window)
                assert d.declarer == 2 and d.overturns == 2


def test_tournament_order_spades_hearts_diamonds_clubs() -> None:
    d = later(TOURNAMENT)
    d.show(3, c("5H"), "deal")
    d.show(2, c("5C 5C"), "chaodi")
    d.show(1, c("5D 5D"), "chaodi")
    assert d.trump == D
    refused(d, 0, "5C 5C", "chaodi", errors.SHOW_TOO_WEAK)


def test_joker_pair_overturn_makes_no_trump() -> None:
    d = later()
    d.show(3, c("5H"), "deal")
    d.show(0, c("LJ LJ"), "chaodi")
    assert (d.trump, d.trump_decided) == (None, True)


def test_declarer_cannot_overturn_own_declaration() -> None:
    d = later()
    d.show(3, c("5H"), "deal")
    refused(d, 3, "5S 5S", "chaodi", errors.CANNOT_OVERTURN_SELF)
    refused(d, 3, "BJ BJ", "chaodi", errors.CANNOT_OVERTURN_SELF)


def test_declarer_may_overturn_after_someone_elses_overturn() -> None:
    d = later()
    d.show(3, c("5H"), "deal")
    d.show(1, c("5C 5C"), "chaodi")
    refused(d, 1, "5S 5S", "chaodi", errors.CANNOT_OVERTURN_SELF)  # the overturner now
    d.show(3, c("5S 5S"), "chaodi")
    assert (d.trump, d.declarer, d.overturns, d.multiplier) == (S, 3, 2, 4)


def test_later_hands_overturn_only_in_chaodi_and_dealer_stays() -> None:
    d = later(dealer=0)
    d.show(3, c("5H"), "deal")
    refused(d, 1, "5S 5S", "deal", errors.DECLARING_CLOSED)
    refused(d, 1, "5S 5S", "after_deal", errors.DECLARING_CLOSED)
    d.show(1, c("5S 5S"), "chaodi")
    assert (d.trump, d.dealer) == (S, 0)


def test_tournament_later_hands_overturn_in_chaodi_like_classic() -> None:
    # seed 002: 炒地皮 is allowed when the trump was declared (RULES 12)
    d = later(TOURNAMENT, dealer=0)
    d.show(3, c("5H"), "deal")
    refused(d, 1, "5S 5S", "after_deal", errors.DECLARING_CLOSED)
    d.show(1, c("5S 5S"), "chaodi")
    assert (d.trump, d.dealer) == (S, 0)


def test_option_later_overturn_before_kitty_overturns_in_the_after_deal_window() -> None:
    d = later(RuleSet.from_preset("classic", later_overturn="before_kitty"))
    d.show(3, c("5H"), "deal")
    refused(d, 1, "5S 5S", "chaodi", errors.DECLARING_CLOSED)
    d.show(1, c("5S 5S"), "after_deal")
    assert d.trump == S


def test_hand_1_overturner_becomes_dealer() -> None:
    d = first()
    d.show(2, c("2D"), "deal")
    refused(d, 1, "2S 2S", "deal", errors.DECLARING_CLOSED)  # overturns wait for the deal's end
    d.show(1, c("2S 2S"), "after_deal")
    assert (d.trump, d.dealer) == (S, 1)
    d.show(0, c("LJ LJ"), "after_deal")
    assert (d.trump, d.dealer) == (None, 0)
    refused(d, 3, "BJ BJ", "chaodi", errors.DECLARING_CLOSED)
    d.show(3, c("BJ BJ"), "after_deal")
    assert (d.dealer, d.overturns) == (3, 3)


# ---- joker_declare (section 12) ------------------------------------------------------


def test_joker_declare_wrong_colour_is_not_a_show() -> None:
    d = later(JOKER, TWO)
    refused(d, 0, "2H LJ", "deal", errors.INVALID_SHOW)
    refused(d, 0, "2S", "deal", errors.INVALID_SHOW)
    d.show(0, c("2S LJ"), "deal")
    assert d.trump == S


def test_joker_declare_locked_declaration_yields_only_to_a_joker_pair() -> None:
    d = later(JOKER, TWO)
    d.show(0, c("2H 2H BJ"), "deal")
    assert d.reinforced
    refused(d, 1, "2S 2S LJ", "chaodi", errors.SHOW_TOO_WEAK)
    d.show(1, c("LJ LJ"), "chaodi")
    assert d.trump is None


def test_joker_declare_level_pairs_with_joker_do_not_beat_each_other() -> None:
    d = later(JOKER, TWO)
    d.show(0, c("2H BJ"), "deal")
    d.show(1, c("2C 2C LJ"), "chaodi")
    refused(d, 2, "2S 2S LJ", "chaodi", errors.SHOW_TOO_WEAK)
    d.show(2, c("BJ BJ"), "chaodi")
    assert (d.trump, d.overturns) == (None, 2)


def test_joker_declare_no_later_reinforcement() -> None:
    d = later(JOKER, TWO)
    d.show(0, c("2H BJ"), "deal")
    refused(d, 0, "2H 2H BJ", "deal", errors.CANNOT_OVERTURN_SELF)


def test_joker_declare_only_the_dealers_team_declares_during_the_deal() -> None:
    d = later(JOKER, TWO, dealer=1)
    refused(d, 0, "2H BJ", "deal", errors.NOT_ALLOWED_TO_DECLARE)
    refused(d, 2, "2H BJ", "deal", errors.NOT_ALLOWED_TO_DECLARE)
    d.show(3, c("2H BJ"), "deal")
    assert (d.declarer, d.dealer) == (3, 1)


def test_joker_declare_attacker_declares_after_the_deal_and_becomes_dealer() -> None:
    d = later(JOKER, TWO, dealer=1)
    d.dealer_team_checked(False)
    d.show(2, c("2D BJ"), "deal")
    assert (d.trump, d.dealer) == (D, 2)
    with pytest.raises(IllegalAction):
        d.dealer_team_checked(False)


def test_classic_later_hands_anyone_declares() -> None:
    d = later(CLASSIC, dealer=1)
    d.show(0, c("5C"), "deal")
    assert (d.trump, d.dealer) == (C, 1)


# ---- nobody declared ------------------------------------------------------------------


def test_nobody_declared_kittys_third_card_sets_trump() -> None:
    d = later(dealer=3)
    d.resolve_nobody(c("3S 4S 7H 8D 9D 10D JD QD"))
    assert (d.trump, d.dealer, d.from_kitty) == (H, 3, True)


def test_nobody_declared_joker_means_no_trump_and_host_deals_hand_1() -> None:
    d = first()
    d.resolve_nobody(c("3S 4S LJ 8D 9D 10D JD QD"))
    assert (d.trump, d.trump_decided, d.dealer) == (None, True, 0)


def test_nobody_may_overturn_once_the_kitty_decided() -> None:
    d = later()
    d.resolve_nobody(c("3S 4S 5S 8D 9D 10D JD QD"))
    assert d.trump == S
    for window in ("deal", "after_deal", "chaodi"):
        refused(d, 1, "BJ BJ", window, errors.DECLARING_CLOSED)
    assert d.options(1, c("BJ BJ 5H 5H"), "chaodi") == []


def test_resolve_nobody_after_a_declaration_is_refused() -> None:
    d = later()
    d.show(0, c("5H"), "deal")
    with pytest.raises(IllegalAction):
        d.resolve_nobody(c("3S 4S 5S 8D 9D 10D JD QD"))


# ---- options for buttons -------------------------------------------------------------


def test_options_before_a_declaration() -> None:
    d = first()
    hand = c("2H 2H 2S LJ LJ 3C")
    assert d.options(0, hand, "deal") == [c("2S"), c("2H"), c("2H 2H")]


def test_options_after_a_declaration() -> None:
    d = first()
    d.show(1, c("2D"), "deal")
    hand = c("2H 2H 2S LJ LJ 3C")
    assert d.options(0, hand, "deal") == []  # overturns wait for the end of the deal
    assert d.options(0, hand, "after_deal") == [c("2H 2H"), c("LJ LJ")]
    assert d.options(1, c("2D 2D 2S 2S"), "deal") == [c("2D 2D")]  # reinforce only


def test_options_joker_declare() -> None:
    d = later(JOKER, TWO, dealer=0)
    hand = c("2H 2H BJ 2S 2C LJ")
    assert d.options(1, hand, "deal") == []  # an attacker during the deal
    assert d.options(2, hand, "deal") == [c("2S LJ"), c("2H BJ"), c("2H 2H BJ"), c("2C LJ")]


# ---- redeal (暴动) ---------------------------------------------------------------------


def test_redeal_for_an_attacker_under_15_points_once() -> None:
    poor = c("5S 2H 3H 4H 6H 7H 8H 9H JH QH AH 2C 3C 4C 6C 7C 8C 9C JC QC AC 2D 3D 4D 6D")
    rich = c("5S KS 2H 3H 4H 6H 7H 8H 9H JH QH AH 2C 3C 4C 6C 7C 8C 9C JC QC AC 2D 3D 4D")
    assert may_request_redeal(JOKER, 1, poor, dealer=0)
    assert not may_request_redeal(JOKER, 1, poor, dealer=0, redeals=1)
    assert not may_request_redeal(JOKER, 2, poor, dealer=0)  # a defender
    assert not may_request_redeal(JOKER, 1, rich, dealer=0)  # 15 points
    assert not may_request_redeal(CLASSIC, 1, poor, dealer=0)  # option off


# ---- state ---------------------------------------------------------------------------------


def test_declaring_round_trips_through_json() -> None:
    d = later()
    d.show(3, c("5H"), "deal")
    d.show(1, c("5S 5S"), "chaodi")
    again = Declaring.model_validate_json(d.model_dump_json())
    assert again == d
    again.show(0, c("LJ LJ"), "chaodi")
    assert again.trump is None


def test_public_declare_cases() -> None:
    cases = load_cases("declare")
    assert len(cases) == 28
    for case in cases:
        ctx, inp, exp = case["context"], case["input"], case["expect"]
        rules = RuleSet.from_preset(ctx.get("preset", "classic"), **ctx.get("options", {}))
        valid, trump, dealer = replay_events(
            rules,
            parse_rank(ctx["level"]),
            inp["hand_number"],
            inp["dealer"],
            [(e["seat"], c(e["show"])) for e in inp["events"]],
            c(inp["kitty"]),
        )
        got = {
            "valid": valid,
            "trump": "none" if trump is None else "SHCD"[trump],
            "dealer": dealer,
        }
        assert got == exp, case["id"]
