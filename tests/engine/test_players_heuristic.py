"""The wiser heuristic, the one door to players (``engine.players.get``) and their candidates."""

from __future__ import annotations

import random
from itertools import islice

import pytest

from engine.cards import POINTS, SUITS, parse_cards
from engine.hand import Deal, HandState, Observation, PlayRecord, Trick, legal_plays
from engine.players import NAMES, get, suggest
from engine.players.candidates import follow_candidates, is_special
from engine.ranking import TRUMP, TrumpContext
from engine.rules import RuleSet
from engine.tricks import is_legal_follow, lead_summary, ruff_top, trick_winner
from tests.engine.test_players import assert_legal_play, seat_to_act


def observation(
    seat: int, hand: str, plays: list[tuple[int, str]], trump: str = "S", level: int = 3
) -> Observation:
    """Seat ``seat`` to play into a trick of ``plays`` (the hand's first trick)."""
    trick = Trick(
        leader=plays[0][0] if plays else seat,
        plays=[PlayRecord(seat=s, cards=parse_cards(c)) for s, c in plays],
    )
    cards = parse_cards(hand)
    return Observation(
        seat=seat,
        phase="playing",
        version=10,
        hand_number=2,
        rules=RuleSet.from_preset("classic"),
        level=level,
        levels=[level, level],
        dealer=0,
        trump=SUITS.index(trump),
        trump_decided=True,
        declarer=0,
        shows=[],
        hand=cards,
        card_counts=[len(cards)] * 4,
        dealt=100,
        kitty=None,
        turn=seat,
        tricks=[trick],
        attackers_points=0,
        show_options=[],
        can_pass=False,
        can_redeal=False,
        result=None,
    )


def test_the_issues_example_discards_instead_of_spending_big_jokers_on_a_pointless_trick():
    # trump ♠, level 5: the partner led 8H 8H, the next opponent followed 3H 4H
    obs = observation(2, "BJ BJ 2D 2D 9C 7S", [(0, "8H 8H"), (1, "3H 4H")])
    play = suggest(obs, random.Random(0))
    assert not set(play) & set(parse_cards("BJ 7S"))  # no trump: a discard that does not win
    assert trick_winner(obs.ctx, [parse_cards("8H 8H"), parse_cards("3H 4H"), play]) == 0


def test_contests_a_threatened_partner_trick_worth_points():
    # the partner's 10H (10 points on the trick) is beaten by the unseen AH: ruff it
    obs = observation(2, "3S 2D 9C", [(0, "10H"), (1, "4H")])
    assert suggest(obs, random.Random(0)) == parse_cards("3S")


def test_feeds_points_to_a_partner_who_is_sure_to_win():
    # the partner leads the big joker; the player is void in it and feeds a 10
    obs = observation(2, "10D 2D 9C", [(0, "BJ"), (1, "3S")])
    assert suggest(obs, random.Random(0)) == parse_cards("10D")


def self_play(hands: int, check) -> int:  # type: ignore[no-untyped-def]
    """Heuristic hands; ``check(obs, play)`` on every follow; returns how many were checked."""
    rules = RuleSet.from_preset("classic")
    player = get("heuristic")
    checked = 0
    for i in range(hands):
        state = HandState.new(rules, 7000 + i, 2, i % 4, [i % 13, (i * 5) % 13])
        rng = random.Random(i)
        state.apply(Deal(n=100))
        while state.phase != "done":
            obs = state.observation(seat_to_act(state))
            action = player(obs, rng)
            trick = obs.current_trick
            if state.phase == "playing" and trick is not None and trick.plays:
                checked += check(obs, action.cards, state)
            state.apply(action)
    return checked


def test_never_overtakes_the_partner_with_a_joker_or_level_card_on_a_pointless_trick():
    def check(obs: Observation, play: list[int], state: HandState) -> int:
        ctx, trick = obs.ctx, obs.current_trick
        plays = [p.cards for p in trick.plays]
        winner = trick.plays[trick_winner(ctx, plays)].seat if len(plays) > 1 else trick.leader
        if winner != (obs.seat + 2) % 4 or any(POINTS[c] for p in plays for c in p):
            return 0
        overtakes = trick_winner(ctx, plays + [play]) == len(plays)
        if overtakes and any(is_special(ctx, c) for c in play):
            others = islice(legal_plays(ctx, trick, obs.hand), 5000)
            assert all(trick_winner(ctx, plays + [p]) == len(plays) for p in others), play
        return 1

    assert self_play(150, check) > 500


def outcome(ctx: TrumpContext, lead: list[int], play: list[int]) -> tuple[int, int]:
    info = lead_summary(ctx, tuple(lead))
    top = (
        ruff_top(ctx, info, play) if len(info.units) > 1 or ctx.suit_class[play[0]] == TRUMP else -1
    )
    return sum(POINTS[c] for c in play), top


@pytest.mark.parametrize("lead", ["5C 5C 4C 4C", "AC KC KC", "9C 9C", "QC JC 9C 9C"])
def test_a_short_follow_has_one_candidate_per_outcome_and_every_outcome(lead: str) -> None:
    """The slow case of the issue: a hand short of the led suit fills a long lead."""
    ctx = TrumpContext(6, 0, False)  # level 8, trump ♠
    led = parse_cards(lead)
    rng = random.Random(5)
    checked = 0
    while checked < 40:
        shoe = [c for c in range(54) for _ in (0, 1) if c not in led]
        rng.shuffle(shoe)
        hand = shoe[:14]
        clubs = [c for c in hand if ctx.suit_class[c] == 2]
        if len(clubs) >= len(led):
            continue
        trick = Trick(leader=0, plays=[PlayRecord(seat=0, cards=led)])
        every = list(legal_plays(ctx, trick, hand))
        cands = follow_candidates(ctx, led, hand, rng)
        assert all(is_legal_follow(ctx, led, hand, p) for p in cands)
        assert len(cands) <= 16 < len(every) or len(every) <= 16
        winning = {outcome(ctx, led, p) for p in every if trick_winner(ctx, [led, p]) == 1}
        assert winning <= {outcome(ctx, led, p) for p in cands}
        points = {sum(POINTS[c] for c in p) for p in every}
        assert points == {sum(POINTS[c] for c in p) for p in cands}
        checked += 1


@pytest.mark.parametrize("name", NAMES)
def test_every_player_from_get_plays_whole_hands_legally(name: str) -> None:
    player = get(name, budget_ms=5) if name == "search" else get(name)
    rules = RuleSet.from_preset("classic")
    state = HandState.new(rules, 11, 2, 1, [3, 3])
    rng = random.Random(1)
    state.apply(Deal(n=100))
    while state.phase != "done":
        obs = state.observation(seat_to_act(state))
        action = player(obs, rng)
        if state.phase == "playing" and name != "random":  # random tries failing throws
            assert_legal_play(obs, action.cards, state)
        state.apply(action)  # raises if illegal
    assert state.result is not None


def test_get_refuses_an_unknown_player():
    with pytest.raises(ValueError, match="unknown player"):
        get("oracle")
