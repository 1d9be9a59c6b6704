"""Points, kitty bonus, level tables, next dealer, match end (RULES.md sections 9-11)."""

from __future__ import annotations

import pytest

from engine.cards import RANKS, parse_cards, parse_rank
from engine.ranking import TrumpContext
from engine.rules import RuleSet
from engine.scoring import (
    advance,
    attackers_total,
    climb,
    hand_outcome,
    kitty_bonus,
    kitty_bonus_for_lead,
    next_threshold,
    settle_hand,
    throw_penalty,
    time_limit_winner,
)
from tests.engine.helpers import load_cases

CLASSIC = RuleSet.from_preset("classic")
TOURNAMENT = RuleSet.from_preset("tournament")
FINE = RuleSet.from_preset("classic", level_table="fine")
WRAP = RuleSet.from_preset("classic", match_end="wrap")
KITTY = parse_cards("5S 10H KD 3C 4C 6D 7D 8D")  # 25 points


def r(rank: str) -> int:
    return parse_rank(rank)


def rules_of(case: dict) -> RuleSet:
    ctx = case["context"]
    return RuleSet.from_preset(ctx.get("preset", "classic"), **ctx.get("options", {}))


# ---- kitty bonus (section 10) -------------------------------------------------


@pytest.mark.parametrize(
    ("pairs", "linear", "doubling"),
    [(0, 2, 2), (1, 4, 4), (2, 8, 8), (3, 12, 16), (4, 16, 32)],
)
def test_kitty_multiplier_linear_and_doubling(pairs: int, linear: int, doubling: int) -> None:
    doubling_rules = RuleSet.from_preset("classic", kitty_multiplier="doubling")
    assert kitty_bonus(CLASSIC, KITTY, pairs, True) == 25 * linear
    assert kitty_bonus(doubling_rules, KITTY, pairs, True) == 25 * doubling
    assert kitty_bonus(TOURNAMENT, KITTY, pairs, True) == 25 * doubling


def test_kitty_scores_nothing_when_defenders_win_the_last_trick() -> None:
    assert kitty_bonus(CLASSIC, KITTY, 3, False) == 0


def test_throw_counts_by_its_largest_unit_only() -> None:
    pytest.importorskip("engine.units")
    ctx = TrumpContext(r("10"), 1)
    # two pairs (not a tractor) count as one pair, never added up
    assert kitty_bonus_for_lead(ctx, CLASSIC, KITTY, parse_cards("AS AS QS QS"), True) == 100
    # tractor + pair + single: the tractor
    lead = parse_cards("AS AS KS KS 8S 8S 3S")
    assert kitty_bonus_for_lead(ctx, CLASSIC, KITTY, lead, True) == 200
    assert kitty_bonus_for_lead(ctx, TOURNAMENT, KITTY, lead, True) == 200
    # a trump tractor across the level cards: LJ LJ + trump-level pair
    lead = parse_cards("LJ LJ 10H 10H 10S 10S")
    assert kitty_bonus_for_lead(ctx, TOURNAMENT, KITTY, lead, True) == 25 * 16


def test_public_kitty_cases() -> None:
    pytest.importorskip("engine.units")
    for case in load_cases("kitty"):
        ctx = TrumpContext(r(case["context"]["level"]), "SHCD".index(case["context"]["trump"]))
        inp = case["input"]
        bonus = kitty_bonus_for_lead(
            ctx,
            rules_of(case),
            parse_cards(inp["kitty"]),
            parse_cards(inp["last_lead"]),
            inp["attackers_won_last"],
        )
        assert bonus == case["expect"]["bonus"], case["id"]


# ---- throw penalty (section 8.3) ----------------------------------------------


def test_throw_penalty_favours_the_attackers_both_ways() -> None:
    assert throw_penalty(CLASSIC, 3, thrower_is_attacker=False) == 30
    assert throw_penalty(CLASSIC, 3, thrower_is_attacker=True) == -30


def test_throw_penalty_none_option() -> None:
    rules = RuleSet.from_preset("classic", throw_penalty="none")
    assert throw_penalty(rules, 5, thrower_is_attacker=True) == 0
    assert throw_penalty(rules, 5, thrower_is_attacker=False) == 0


def test_attackers_total_never_below_zero() -> None:
    assert attackers_total(20, 0, -30) == 0
    assert attackers_total(40, 0, -30) == 10
    assert attackers_total(40, 50, 20) == 110


# ---- level tables (section 11) -------------------------------------------------

CLASSIC_TABLE = [
    (0, "defenders", 3),
    (5, "defenders", 2),
    (35, "defenders", 2),
    (40, "defenders", 1),
    (75, "defenders", 1),
    (80, "attackers", 0),
    (115, "attackers", 0),
    (120, "attackers", 1),
    (155, "attackers", 1),
    (160, "attackers", 2),
    (195, "attackers", 2),
    (200, "attackers", 3),
    (235, "attackers", 3),
    (240, "attackers", 4),
    (275, "attackers", 4),
    (280, "attackers", 5),
    (315, "attackers", 5),
    (320, "attackers", 6),
    (600, "attackers", 6),
]
FINE_TABLE = [
    (0, "defenders", 6),
    (5, "defenders", 5),
    (10, "defenders", 5),
    (15, "defenders", 4),
    (20, "defenders", 4),
    (25, "defenders", 3),
    (30, "defenders", 3),
    (35, "defenders", 2),
    (40, "defenders", 1),
    (75, "defenders", 1),
    (80, "attackers", 0),
    (115, "attackers", 0),
    (120, "attackers", 1),
    (125, "attackers", 2),
    (160, "attackers", 2),
    (165, "attackers", 3),
    (200, "attackers", 3),
    (205, "attackers", 4),
    (240, "attackers", 4),
    (245, "attackers", 5),
    (280, "attackers", 5),
    (285, "attackers", 6),
    (600, "attackers", 6),
]
TOURNAMENT_TABLE = [
    (0, "defenders", 4),
    (5, "defenders", 3),
    (25, "defenders", 3),
    (30, "defenders", 2),
    (50, "defenders", 2),
    (55, "defenders", 1),
    (75, "defenders", 1),
    (80, "attackers", 0),
    (95, "attackers", 0),
    (100, "attackers", 1),
    (115, "attackers", 1),
    (120, "attackers", 2),
    (135, "attackers", 2),
    (140, "attackers", 3),
    (155, "attackers", 3),
    (160, "attackers", 4),
    (200, "attackers", 6),
]


@pytest.mark.parametrize(("points", "side", "steps"), CLASSIC_TABLE)
def test_classic_level_table(points: int, side: str, steps: int) -> None:
    assert hand_outcome(CLASSIC, points) == (side, steps)


@pytest.mark.parametrize(("points", "side", "steps"), FINE_TABLE)
def test_fine_level_table(points: int, side: str, steps: int) -> None:
    assert hand_outcome(FINE, points) == (side, steps)


@pytest.mark.parametrize(("points", "side", "steps"), TOURNAMENT_TABLE)
def test_tournament_level_table(points: int, side: str, steps: int) -> None:
    assert hand_outcome(TOURNAMENT, points) == (side, steps)


@pytest.mark.parametrize("table", ["classic", "fine", "tournament"])
def test_next_threshold_is_the_next_total_the_table_settles_otherwise(table: str) -> None:
    rules = RuleSet(level_table=table)
    for points in range(-10, 400):
        now = hand_outcome(rules, points)
        changes = (q for q in range(points + 1, 1000) if hand_outcome(rules, q) != now)
        first = next(changes, None)
        want = None if first is None else (first, *hand_outcome(rules, first))
        assert next_threshold(rules, points) == want, points
    assert next_threshold(CLASSIC, 320) is None  # the capped table's last row


def test_negative_total_counts_as_zero() -> None:
    assert hand_outcome(CLASSIC, -20) == ("defenders", 3)


# ---- going up: stops, the target, wrap -----------------------------------------


def test_going_up_adds_steps() -> None:
    assert advance(CLASSIC, r("5"), 3) == r("8")
    assert advance(CLASSIC, r("5"), 0) == r("5")


def test_must_play_level_cannot_be_jumped() -> None:
    rules = RuleSet.from_preset("classic", must_play=["10", "K"])
    assert advance(rules, r("8"), 3) == r("10")
    assert advance(rules, r("10"), 6) == r("K")
    assert advance(rules, r("9"), 1) == r("10")


def test_must_play_level_is_left_only_by_defending_it() -> None:
    rules = RuleSet.from_preset("classic", must_play=["10"])
    assert advance(rules, r("10"), 2, defended=True) == r("Q")
    assert advance(rules, r("10"), 2, defended=False) == r("10")


def test_pass_a_nobody_skips_a() -> None:
    assert advance(CLASSIC, r("Q"), 3) == r("A")
    assert advance(CLASSIC, r("K"), 6) == r("A")
    assert advance(CLASSIC, r("A"), 2) == r("A")


def test_pass_a_defending_at_a_wins_the_match() -> None:
    s = settle_hand(CLASSIC, 75, 1, r("A"), r("3"))
    assert s.match_winner == "defenders"
    s = settle_hand(CLASSIC, 80, 1, r("A"), r("3"))
    assert s.match_winner is None
    assert (s.next_dealer, s.defender_level, s.attacker_level) == (2, r("A"), r("3"))


def test_attackers_reaching_a_do_not_win_yet() -> None:
    s = settle_hand(CLASSIC, 320, 0, r("5"), r("Q"))
    assert (s.attacker_level, s.match_winner) == (r("A"), None)


def test_wrap_continues_from_two_and_never_ends() -> None:
    assert advance(WRAP, r("A"), 1) == r("2")
    assert advance(WRAP, r("K"), 3) == r("3")
    s = settle_hand(WRAP, 0, 0, r("A"), r("3"))
    assert (s.defender_level, s.match_winner) == (r("4"), None)


def test_wrap_with_must_play_stops_on_every_lap() -> None:
    rules = RuleSet.from_preset("classic", match_end="wrap", must_play=["3"])
    assert advance(rules, r("K"), 5) == r("3")
    rules = RuleSet.from_preset("classic", match_end="wrap", must_play=["A"])
    assert advance(rules, r("Q"), 3) == r("A")


def test_a_team_climbs_the_steps_its_stops_let_it_a_full_round_under_wrap_is_13() -> None:
    rules = RuleSet.from_preset("tournament", match_end="wrap", must_play=[])
    assert climb(rules, r("5"), 13) == 13 and advance(rules, r("5"), 13) == r("5")
    assert climb(rules, r("5"), 15) == 15
    stops = RuleSet.from_preset("classic", match_end="wrap", must_play=["3"])
    assert climb(stops, r("K"), 5) == 3  # K → A → 2 → 3, stop
    assert climb(stops, r("3"), 13, defended=True) == 13  # round to the stop again
    assert climb(stops, r("3"), 2, defended=False) == 0  # taking over on a stop
    target = RuleSet.from_preset("classic", match_end="target_10")
    assert climb(target, r("8"), 4) == 2 and climb(target, r("10"), 3) == 0


def test_target_10_is_the_ceiling_and_wins_when_defended() -> None:
    rules = RuleSet.from_preset("classic", match_end="target_10")
    assert advance(rules, r("8"), 4) == r("10")
    assert advance(rules, r("10"), 3) == r("10")
    assert settle_hand(rules, 40, 3, r("10"), r("2")).match_winner == "defenders"
    assert settle_hand(rules, 40, 3, r("9"), r("2")).match_winner is None


def test_tournament_must_play_10_and_target_10() -> None:
    s = settle_hand(TOURNAMENT, 0, 0, r("8"), r("2"))
    assert (s.defender_level, s.match_winner) == (r("10"), None)
    s = settle_hand(TOURNAMENT, 160, 0, r("8"), r("9"))
    assert (s.attacker_level, s.next_dealer) == (r("10"), 1)
    assert settle_hand(TOURNAMENT, 75, 0, r("10"), r("9")).match_winner == "defenders"


# ---- the next dealer --------------------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_dealer_rotation(dealer: int) -> None:
    assert settle_hand(CLASSIC, 75, dealer, 0, 0).next_dealer == (dealer + 2) % 4
    assert settle_hand(CLASSIC, 80, dealer, 0, 0).next_dealer == (dealer + 1) % 4
    assert settle_hand(CLASSIC, 200, dealer, 0, 0).next_dealer == (dealer + 1) % 4


def test_attackers_taking_over_without_steps_keep_both_levels() -> None:
    s = settle_hand(CLASSIC, 100, 0, r("7"), r("4"))
    assert (s.winner, s.steps, s.defender_level, s.attacker_level) == (
        "attackers",
        0,
        r("7"),
        r("4"),
    )


def test_time_limit_higher_level_wins_equal_goes_to_defenders() -> None:
    assert time_limit_winner([r("9"), r("5")], 1) == 0
    assert time_limit_winner([r("5"), r("9")], 0) == 1
    assert time_limit_winner([r("7"), r("7")], 1) == 1
    assert time_limit_winner([r("7"), r("7")], 0) == 0


def test_public_level_cases() -> None:
    cases = load_cases("level")
    assert len(cases) == 39
    for case in cases:
        inp, exp = case["input"], case["expect"]
        s = settle_hand(
            rules_of(case),
            inp["points"],
            inp["dealer"],
            r(inp["levels"]["defenders"]),
            r(inp["levels"]["attackers"]),
        )
        got = {
            "next_dealer": s.next_dealer,
            "levels": {"defenders": RANKS[s.defender_level], "attackers": RANKS[s.attacker_level]},
            "match_winner": s.match_winner,
        }
        assert got == exp, case["id"]
