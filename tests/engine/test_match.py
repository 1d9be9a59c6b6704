"""A match (RULES.md section 11): levels carry over, the next dealer, the end."""

from __future__ import annotations

import random

import pytest

from engine import errors
from engine.cards import HEARTS, parse_cards, parse_rank
from engine.errors import IllegalAction
from engine.events import MatchWon
from engine.hand import Deal, HandState, Play, Trick, team_of
from engine.match import MatchState
from engine.players.randomplayer import random_action
from engine.rules import RuleSet

A = parse_rank("A")
NO_POINTS_KITTY = "3C 4C 6C 7C 8C 9C JC QC"
KITTY_70 = "10C 10C KC KC KD KD 5D 5D"  # x2 on a single: 140, attackers up 1


def last_trick_match(
    rules: RuleSet, levels: list[int], dealer: int, attackers_win: bool, hand_number: int = 2
) -> MatchState:
    """A match whose current hand is at its last trick: one card each, ``dealer`` leads.

    The attackers win it (with the 70-point kitty) or the defenders do (0 points)."""
    match = MatchState.new(rules, seed=5)
    match.levels = list(levels)
    hand = HandState.new(rules, 11, hand_number, dealer, levels)
    hand.declaring.trump = HEARTS
    hand.declaring.trump_decided = True
    cards = ["8S", "9S", "JS", "QS"]  # never level cards here
    cards[(dealer + 1) % 4 if attackers_win else dealer] = "AS"
    hand.hands = [parse_cards(c) for c in cards]
    hand.kitty = parse_cards(KITTY_70 if attackers_win else NO_POINTS_KITTY)
    hand.phase = "playing"
    hand.turn = dealer
    hand.tricks = [Trick(leader=dealer)]
    match.hand = hand
    return match


def finish(match: MatchState) -> None:
    hand = match.hand
    for i in range(4):
        seat = (hand.turn or 0) if i == 0 else (hand.tricks[-1].plays[-1].seat + 1) % 4
        match.apply(Play(seat=seat, cards=list(hand.hands[seat])))


def play_hand(match: MatchState, rng: random.Random) -> None:
    while match.hand.phase != "done":
        match.apply(random_action(match.hand, rng))


def test_first_hand_is_dealt_from_the_host_at_the_start_level():
    rules = RuleSet.from_preset("classic", start_level="5")
    match = MatchState.new(rules, seed=1)
    assert match.levels == [3, 3]
    assert (match.hand.hand_number, match.hand.deal_start, match.hand.level) == (1, 0, 3)
    assert match.hand.dealer is None


def test_levels_carry_over_to_the_next_hand():
    match = MatchState.new(RuleSet.from_preset("classic"), seed=2)
    play_hand(match, random.Random(2))
    result = match.hand.result
    assert result is not None and match.results == [result]
    assert match.levels == result.levels_after
    match.start_next_hand()
    hand = match.hand
    assert hand.hand_number == 2 and hand.phase == "dealing"
    assert hand.levels == result.levels_after
    assert hand.deal_start == hand.dealer == result.next_dealer
    assert hand.level == match.levels[team_of(result.next_dealer)]


def test_defenders_going_up_pass_the_deal_to_the_partner():
    match = last_trick_match(RuleSet.from_preset("classic"), [4, 2], 2, attackers_win=False)
    finish(match)
    assert match.levels == [7, 2]  # 0 points: defenders +3
    match.start_next_hand()
    assert (match.hand.dealer, match.hand.level) == (0, 7)


def test_attackers_taking_over_pass_the_deal_to_the_next_seat():
    match = last_trick_match(RuleSet.from_preset("classic"), [4, 2], 2, attackers_win=True)
    finish(match)
    assert match.results[-1].attackers_points == 140
    assert match.levels == [4, 3]
    match.start_next_hand()
    assert (match.hand.dealer, match.hand.level) == (3, 3)


def test_must_play_level_stops_a_team():
    rules = RuleSet.from_preset("classic", must_play=["7"])
    match = last_trick_match(rules, [parse_rank("5"), 0], 0, attackers_win=False)
    finish(match)
    assert match.levels == [parse_rank("7"), 0]  # +3 from 5 stops on 7


def test_pass_a_defending_at_a_wins_the_match_and_then_everything_is_refused():
    match = last_trick_match(RuleSet.from_preset("classic"), [5, A], 1, attackers_win=False)
    finish(match)
    assert match.finished and match.winner == 1
    assert match.results[-1].match_winner == 1
    with pytest.raises(IllegalAction) as e:
        match.start_next_hand()
    assert e.value.reason == errors.WRONG_PHASE
    with pytest.raises(IllegalAction) as e:
        match.apply(Deal(n=4))
    assert e.value.reason == errors.WRONG_PHASE


def test_pass_a_attackers_reaching_a_must_still_defend_it():
    match = last_trick_match(RuleSet.from_preset("classic"), [5, parse_rank("K")], 0, True)
    finish(match)
    assert not match.finished
    assert match.levels == [5, A]


def test_wrap_continues_after_a():
    rules = RuleSet.from_preset("classic", match_end="wrap")
    match = last_trick_match(rules, [parse_rank("K"), 0], 0, attackers_win=False)
    finish(match)
    assert match.levels == [parse_rank("3"), 0]  # K → A → 2 → 3
    match2 = last_trick_match(rules, [A, 0], 0, attackers_win=False)
    finish(match2)
    assert not match2.finished


def test_time_limit_higher_level_wins_and_equal_levels_go_to_the_defenders():
    rules = RuleSet.from_preset("tournament")
    match = last_trick_match(rules, [3, 5], 0, attackers_win=False)
    assert match.check_time_limit(59.9) == []
    assert match.check_time_limit(60) == [MatchWon(1, by_time=True)]
    assert match.finished and match.ended_by_time and match.winner == 1
    assert match.check_time_limit(90) == []  # already over
    with pytest.raises(IllegalAction):
        match.apply(Play(seat=0, cards=list(match.hand.hands[0])))
    tie = last_trick_match(rules, [4, 4], 1, attackers_win=False)
    assert tie.check_time_limit(61) == [MatchWon(1, by_time=True)] and tie.winner == 1


def test_no_time_limit_without_the_option():
    match = MatchState.new(RuleSet.from_preset("classic"), seed=1)
    assert match.check_time_limit(10_000) == [] and not match.finished


def test_next_hand_is_refused_mid_hand():
    match = MatchState.new(RuleSet.from_preset("classic"), seed=3)
    match.apply(Deal(n=8))
    before = match.model_dump_json()
    with pytest.raises(IllegalAction) as e:
        match.start_next_hand()
    assert e.value.reason == errors.WRONG_PHASE
    assert match.model_dump_json() == before


def test_a_match_replays_from_its_seed_and_round_trips_as_json():
    rules = RuleSet.from_preset("joker_declare")
    a, b = MatchState.new(rules, seed=9), MatchState.new(rules, seed=9)
    assert a.hand.deck == b.hand.deck
    play_hand(a, random.Random(1))
    a.start_next_hand()
    assert MatchState.model_validate_json(a.model_dump_json()) == a
    assert a.hand.deck != b.hand.deck


def test_time_limit_between_hands_a_tie_goes_to_the_next_hands_defenders():
    rules = RuleSet.from_preset("tournament")
    match = last_trick_match(rules, [4, 4], 1, attackers_win=True)
    finish(match)
    result = match.results[-1]
    assert result.winner == "attackers" and result.next_dealer == 2
    match.levels = [6, 6]  # equal levels when the clock runs out between hands
    # seat 2 deals next: team 0
    assert match.check_time_limit(60) == [MatchWon(0, by_time=True)] and match.winner == 0


@pytest.mark.parametrize(
    "overrides",
    [{}, {"match_end": "wrap", "level_table": "tournament"}, {"must_play": [3, 8]}],
)
def test_a_result_says_which_team_won_and_how_far_each_team_climbed(overrides):
    """``winning_team`` and ``climbed`` agree with the levels the hand settled: the
    winning team's level moved by what it climbed (a lap under wrap), the other's not."""
    rules = RuleSet.from_preset("classic", **overrides)
    match, rng = MatchState.new(rules, seed=3), random.Random(3)
    for _ in range(8):
        play_hand(match, rng)
        r = match.hand.result
        assert r is not None
        assert (r.winning_team == r.defenders) == (r.winner == "defenders")
        up = r.climbed(rules)
        assert up[1 - r.winning_team] == 0 and 0 <= up[r.winning_team] <= max(r.steps, 0)
        for team in (0, 1):
            assert r.levels_after[team] == (r.levels_before[team] + up[team]) % 13
        if match.finished:
            break
        match.start_next_hand()
