"""One hand as the rules play out (RULES.md sections 5-11), driven through ``apply``.

Deals are stacked by swapping cards inside the shuffled shoe (the shoe stays a
shoe); play positions are built by setting hands directly.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine import errors
from engine.cards import (
    BJ,
    DIAMONDS,
    HEARTS,
    LJ,
    POINTS,
    SPADES,
    format_cards,
    make,
    parse_card,
    parse_cards,
    parse_rank,
    suit_of,
)
from engine.errors import IllegalAction
from engine.hand import (
    Action,
    Bury,
    Deal,
    HandState,
    Observation,
    Pass,
    Play,
    Redeal,
    Show,
    Trick,
    team_of,
)
from engine.players.randomplayer import random_action
from engine.rules import PRESETS, RuleSet

CLASSIC = RuleSet.from_preset("classic")
NO_POINTS_KITTY = "3C 4C 6C 7C 8C 9C JC QC"


# ---- helpers -------------------------------------------------------------------


def new_hand(
    preset: str = "classic",
    hand_number: int = 1,
    dealer: int | None = None,
    levels: list[int] | None = None,
    seed: int = 7,
) -> HandState:
    return HandState.new(RuleSet.from_preset(preset), seed, hand_number, dealer, levels)


def deck_index(state: HandState, seat: int, k: int) -> int:
    """Where in the deck the ``k``-th card dealt to ``seat`` sits."""
    return (seat - state.deal_start) % 4 + 4 * k


def stack(state: HandState, wanted: dict[int, str]) -> None:
    """Put cards at deck positions by swapping them in from elsewhere in the shoe."""
    fixed: set[int] = set()
    for index, token in wanted.items():
        card = parse_card(token)
        j = next(i for i, c in enumerate(state.deck) if c == card and i not in fixed | {index})
        state.deck[index], state.deck[j] = state.deck[j], state.deck[index]
        fixed.add(index)


def give(state: HandState, seat: int, cards: str) -> None:
    """Stack the deck so that ``seat`` is dealt ``cards`` first."""
    stack(state, {deck_index(state, seat, k): t for k, t in enumerate(cards.split())})


def refuse(state: HandState, action: Action, reason: str) -> None:
    """The action is refused with ``reason`` and the state is exactly as before."""
    before = state.model_dump_json()
    with pytest.raises(IllegalAction) as e:
        state.apply(action)
    assert e.value.reason == reason
    assert state.model_dump_json() == before


def pass_all(state: HandState, order: tuple[int, ...] = (0, 1, 2, 3)) -> None:
    for seat in order:
        state.apply(Pass(seat=seat))


def bury_first(state: HandState) -> list[int]:
    seat = state.turn
    assert seat is not None
    cards = state.hands[seat][:8]
    state.apply(Bury(seat=seat, cards=cards))
    return cards


def position(
    hands: list[str],
    *,
    dealer: int = 0,
    leader: int | None = None,
    trump: int | None = HEARTS,
    level: str = "2",
    kitty: str = NO_POINTS_KITTY,
    rules: RuleSet = CLASSIC,
    levels: list[int] | None = None,
) -> HandState:
    """A hand in play: these cards in hand, the trump set, ``leader`` to lead."""
    lv = parse_rank(level)
    state = HandState.new(rules, 0, 2, dealer, levels or [lv, lv])
    state.declaring.trump = trump
    state.declaring.trump_decided = True
    state.declaring.declarer = dealer
    state.hands = [parse_cards(h) for h in hands]
    state.kitty = parse_cards(kitty)
    state.dealt = 100
    state.buried_by = dealer
    state.phase = "playing"
    state.turn = dealer if leader is None else leader
    state.tricks = [Trick(leader=state.turn)]
    return state


def play(state: HandState, seat: int, cards: str) -> None:
    state.apply(Play(seat=seat, cards=parse_cards(cards)))


def play_out(state: HandState, seed: int = 0) -> None:
    rng = random.Random(seed)
    while state.phase != "done":
        state.apply(random_action(state, rng))


# ---- 5. dealing ----------------------------------------------------------------------


def test_first_hand_is_dealt_one_card_at_a_time_from_seat_0():
    state = new_hand()
    state.apply(Deal(n=6))
    d = state.deck
    assert state.hands == [[d[0], d[4]], [d[1], d[5]], [d[2]], [d[3]]]
    assert state.dealt == 6


def test_later_hands_are_dealt_from_the_dealer():
    state = new_hand(hand_number=3, dealer=2)
    state.apply(Deal(n=5))
    d = state.deck
    assert state.hands == [[d[2]], [d[3]], [d[0], d[4]], [d[1]]]


def test_deal_gives_25_each_and_leaves_8_in_the_kitty():
    state = new_hand()
    while state.phase == "dealing":
        state.apply(Deal(n=7))  # the last batch is cut at the 100th card
    assert [len(h) for h in state.hands] == [25, 25, 25, 25]
    assert state.kitty == state.deck[100:]
    assert state.phase == "after_deal"


def test_deal_needs_a_positive_count_and_stops_after_the_deal():
    state = new_hand()
    refuse(state, Deal(n=0), errors.WRONG_COUNT)
    state.apply(Deal(n=100))
    refuse(state, Deal(n=4), errors.WRONG_PHASE)


def test_observation_during_the_deal_shows_only_cards_already_dealt():
    state = new_hand()
    state.apply(Deal(n=10))
    obs = state.observation(1)
    assert sorted(obs.hand) == sorted(state.deck[1:10:4])
    assert obs.dealt == 10
    assert obs.card_counts == [3, 3, 2, 2]
    assert obs.kitty is None


# ---- 5 and 7. hand 1: the race to declare, overturning before the kitty ------------------


def test_first_hand_first_declarer_becomes_dealer_and_sets_the_trump():
    state = new_hand()
    give(state, 1, "2H")
    state.apply(Deal(n=2))
    state.apply(Show(seat=1, cards=parse_cards("2H")))
    assert (state.dealer, state.trump) == (1, HEARTS)
    state.apply(Deal(n=98))
    pass_all(state)
    assert state.phase == "burying" and state.turn == 1
    assert len(state.hands[1]) == 33


def test_first_hand_overturner_becomes_dealer():
    state = new_hand()
    give(state, 1, "2H")
    give(state, 2, "2S 2S")
    state.apply(Deal(n=100))
    state.apply(Show(seat=1, cards=parse_cards("2H")))
    state.apply(Show(seat=2, cards=parse_cards("2S 2S")))
    assert (state.dealer, state.trump, state.declaring.overturns) == (2, SPADES, 1)
    assert state.defenders == 0


def test_jokers_cannot_declare():
    state = new_hand()
    give(state, 3, "BJ BJ")
    state.apply(Deal(n=100))
    refuse(state, Show(seat=3, cards=[BJ, BJ]), errors.INVALID_SHOW)


def test_after_deal_window_closes_when_all_four_passed_since_the_last_show():
    state = new_hand()
    give(state, 1, "2H")
    give(state, 2, "2S 2S")
    state.apply(Deal(n=100))
    state.apply(Show(seat=1, cards=parse_cards("2H")))
    pass_all(state, (0, 2, 3))
    state.apply(Show(seat=2, cards=parse_cards("2S 2S")))  # the passes start again
    assert [s for s in range(4) if state.can_pass(s)] == [0, 1, 2, 3]
    pass_all(state, (0, 1, 3))
    assert state.phase == "after_deal" and state.can_pass(2)
    state.apply(Pass(seat=2))
    assert state.phase == "burying" and state.turn == 2


def test_a_seat_passes_once_per_window():
    state = new_hand()
    state.apply(Deal(n=100))
    state.apply(Pass(seat=0))
    assert not state.can_pass(0)
    refuse(state, Pass(seat=0), errors.WRONG_PHASE)


def test_nobody_may_pass_during_the_deal():
    state = new_hand()
    state.apply(Deal(n=4))
    assert not any(state.can_pass(s) for s in range(4))
    refuse(state, Pass(seat=0), errors.WRONG_PHASE)


# ---- 5. nobody declared -------------------------------------------------------------


def test_nobody_declared_kitty_third_card_sets_trump_and_host_deals_in_hand_1():
    state = new_hand()
    stack(state, {102: "7D"})
    state.apply(Deal(n=100))
    original_kitty = list(state.kitty)
    pass_all(state)
    assert (state.trump, state.dealer, state.declaring.from_kitty) == (3, 0, True)
    for seat in range(4):
        obs = state.observation(seat)
        assert obs.revealed_kitty == original_kitty
        assert obs.show_options == []
    bury_first(state)
    # the kitty shown to all is not the kitty the dealer buried
    assert [state.observation(s).kitty is None for s in range(4)] == [False, True, True, True]
    assert state.phase == "playing"


def test_nobody_declared_joker_third_card_means_no_trump():
    state = new_hand()
    stack(state, {102: "BJ"})
    state.apply(Deal(n=100))
    pass_all(state)
    assert state.trump is None and state.declaring.trump_decided


def test_nobody_declared_in_a_later_hand_dealer_unchanged_and_no_chaodi():
    state = new_hand(hand_number=2, dealer=3, levels=[4, 6])
    give(state, 1, "8S 8S")
    stack(state, {102: "9H"})
    state.apply(Deal(n=100))
    pass_all(state)
    assert (state.dealer, state.trump, state.level) == (3, HEARTS, 6)
    bury_first(state)
    assert state.phase == "playing"  # nobody may overturn the kitty's trump


# ---- 5. later hands: declaring keeps the dealer ------------------------------------------


def test_later_hand_declarer_does_not_become_dealer():
    state = new_hand(hand_number=2, dealer=3, levels=[4, 6])
    give(state, 0, "8H")  # level 8 is team 1's (the dealer's) level
    state.apply(Deal(n=4))
    state.apply(Show(seat=0, cards=parse_cards("8H")))
    state.apply(Deal(n=96))
    pass_all(state)
    assert (state.dealer, state.trump, state.level, state.turn) == (3, HEARTS, 6, 3)


def test_later_hand_overturns_wait_for_chaodi():
    state = chaodi_hand()
    refuse(state, Show(seat=3, cards=parse_cards("2S 2S")), errors.DECLARING_CLOSED)


# ---- 7. 炒底 ------------------------------------------------------------------------


def chaodi_hand(preset: str = "classic") -> HandState:
    """Hand 2, dealer 1; seat 2 declared 2H, seat 3 holds 2S 2S; the deal is over."""
    state = new_hand(preset, hand_number=2, dealer=1)
    give(state, 2, "2H")
    give(state, 3, "2S 2S")
    state.apply(Deal(n=4))
    state.apply(Show(seat=2, cards=parse_cards("2H")))
    state.apply(Deal(n=96))
    return state


def test_chaodi_asks_from_the_dealers_next_seat_and_closes_when_all_passed():
    state = chaodi_hand()
    pass_all(state)
    bury_first(state)
    asked = []
    while state.phase == "chaodi":
        asked.append(state.turn)
        state.apply(Pass(seat=state.turn))
    assert asked == [2, 3, 0, 1]
    assert (state.phase, state.turn, state.tricks[0].leader) == ("playing", 1, 1)


def test_chaodi_overturner_picks_up_the_kitty_and_buries_again():
    state = chaodi_hand()
    pass_all(state)
    dealers_kitty = bury_first(state)
    state.apply(Pass(seat=2))
    refuse(state, Pass(seat=0), errors.NOT_YOUR_TURN)
    state.apply(Show(seat=3, cards=parse_cards("2S 2S")))
    assert (state.phase, state.turn, state.dealer, state.trump) == ("burying", 3, 1, SPADES)
    assert len(state.hands[3]) == 33 and state.kitty == []
    assert sorted(dealers_kitty) == sorted(state.hands[3][25:])
    refuse(state, Bury(seat=1, cards=state.hands[1][:8]), errors.NOT_YOUR_TURN)
    bury_first(state)
    asked = []
    while state.phase == "chaodi":
        asked.append(state.turn)
        state.apply(Pass(seat=state.turn))
    assert asked == [0, 1, 2]
    assert state.phase == "playing" and state.turn == 1
    assert state.declaring.multiplier == 2


def test_chaodi_kitty_seen_only_by_whoever_buried_it():
    state = chaodi_hand()
    pass_all(state)
    bury_first(state)
    seen = [state.observation(s).kitty for s in range(4)]
    assert seen == [None, state.kitty, None, None]  # the dealer still sees it while asked
    state.apply(Pass(seat=2))
    state.apply(Show(seat=3, cards=parse_cards("2S 2S")))
    bury_first(state)
    seen = [state.observation(s).kitty for s in range(4)]
    assert seen == [None, None, None, state.kitty]
    pass_all(state, (0, 1, 2))
    play_out(state)
    assert all(state.observation(s).kitty == state.kitty for s in range(4))


def test_tournament_later_hands_overturn_by_chaodi_like_classic():
    # RULES 12 / seed 002: 炒地皮 when the trump was declared: after the dealer buries,
    # from the dealer's next seat; the overturner picks up the kitty and buries again
    state = chaodi_hand("tournament")
    refuse(state, Show(seat=3, cards=parse_cards("2S 2S")), errors.DECLARING_CLOSED)
    pass_all(state)
    dealers_kitty = bury_first(state)
    assert (state.phase, state.turn) == ("chaodi", 2)
    state.apply(Pass(seat=2))
    state.apply(Show(seat=3, cards=parse_cards("2S 2S")))
    assert (state.phase, state.turn, state.dealer, state.trump) == ("burying", 3, 1, SPADES)
    assert sorted(dealers_kitty) == sorted(state.hands[3][25:])
    bury_first(state)
    pass_all(state, (0, 1, 2))
    assert (state.phase, state.turn, state.declaring.multiplier) == ("playing", 1, 2)


def test_tournament_overturn_priority_in_chaodi_diamonds_beat_clubs():
    state = new_hand("tournament", hand_number=2, dealer=1)
    give(state, 2, "2H")
    give(state, 3, "2C 2C")
    give(state, 0, "2D 2D")
    state.apply(Deal(n=100))
    state.apply(Show(seat=2, cards=parse_cards("2H")))
    pass_all(state)
    bury_first(state)
    state.apply(Pass(seat=2))
    state.apply(Show(seat=3, cards=parse_cards("2C 2C")))
    bury_first(state)
    state.apply(Show(seat=0, cards=parse_cards("2D 2D")))  # ♦ pair beats ♣ pair here
    assert (state.trump, state.turn, state.phase) == (DIAMONDS, 0, "burying")


def test_tournament_nobody_overturns_when_the_kitty_set_the_trump():
    state = new_hand("tournament", hand_number=2, dealer=1)
    give(state, 3, "2S 2S")
    state.apply(Deal(n=100))
    pass_all(state)
    assert state.declaring.from_kitty
    assert state.show_options(3) == []
    bury_first(state)
    assert state.phase == "playing"


def test_option_later_overturn_before_kitty_overturns_before_the_kitty_without_chaodi():
    rules = RuleSet.from_preset("classic", later_overturn="before_kitty")
    state = HandState.new(rules, 7, 2, 1)
    give(state, 2, "2H")
    give(state, 3, "2S 2S")
    state.apply(Deal(n=4))
    state.apply(Show(seat=2, cards=parse_cards("2H")))
    state.apply(Deal(n=96))
    state.apply(Show(seat=3, cards=parse_cards("2S 2S")))
    assert (state.dealer, state.trump) == (1, SPADES)
    pass_all(state)
    bury_first(state)
    assert state.phase == "playing"


# ---- 12. joker_declare: the dealer's team declares; 暴动 ------------------------------------


def test_joker_declare_attackers_may_not_declare_during_the_deal():
    state = new_hand("joker_declare", hand_number=2, dealer=0)
    give(state, 1, "2H BJ")
    state.apply(Deal(n=8))
    refuse(state, Show(seat=1, cards=parse_cards("2H BJ")), errors.NOT_ALLOWED_TO_DECLARE)


def no_jokers(state: HandState, seats: tuple[int, ...], into: int) -> None:
    """Swap every joker dealt to ``seats`` with a plain non-level card dealt to ``into``:
    under joker_declare they then cannot declare (RULES 12)."""
    d = state.deck
    spare = [
        deck_index(state, into, k)
        for k in range(25)
        if d[deck_index(state, into, k)] < LJ and d[deck_index(state, into, k)] % 13 != state.level
    ]
    for seat in seats:
        for k in range(25):
            i = deck_index(state, seat, k)
            if d[i] >= LJ:
                j = spare.pop()
                d[i], d[j] = d[j], d[i]


def test_joker_declare_attacker_may_declare_only_if_neither_of_the_dealers_team_can():
    # the reproduction: seats 0 and 2 hold 2S LJ and 2H BJ at the end of the deal
    rules = RuleSet.from_preset("joker_declare")
    state = HandState.new(rules, 1, hand_number=2, dealer=0, levels=[0, 0])
    state.apply(Deal(n=100))
    assert state.show_options(0) and state.show_options(2)
    assert state.show_options(3) == [] and state.show_options(1) == []
    refuse(state, Show(seat=3, cards=parse_cards("2S LJ")), errors.NOT_ALLOWED_TO_DECLARE)
    assert state.observation(3).show_options == []
    state.apply(Show(seat=2, cards=parse_cards("2H BJ")))
    assert (state.dealer, state.trump) == (0, HEARTS)


def test_joker_declare_dealers_team_that_can_but_does_not_declare_lets_the_kitty_decide():
    rules = RuleSet.from_preset("joker_declare")
    state = HandState.new(rules, 1, hand_number=2, dealer=0, levels=[0, 0])
    state.apply(Deal(n=100))
    pass_all(state)
    assert state.declaring.from_kitty and state.revealed_kitty == state.deck[100:]
    assert (state.dealer, state.trump, state.turn) == (0, suit_of(state.deck[102]), 0)


def test_joker_declare_attacker_declaring_after_the_deal_deals_at_own_level():
    state = new_hand("joker_declare", hand_number=2, dealer=0, levels=[0, 5])
    give(state, 1, "2H BJ")
    no_jokers(state, (0, 2), into=3)  # neither of the dealer's team can declare
    state.apply(Deal(n=100))
    state.apply(Show(seat=1, cards=parse_cards("2H BJ")))
    assert state.dealer == 1
    pass_all(state)
    assert (state.turn, state.level, state.ctx.level, state.declaring.level) == (1, 5, 5, 5)
    bury_first(state)
    # 炒底 overturns are with the new level's cards
    assert state.phase == "chaodi"
    play_out(state)
    assert state.result is not None
    assert state.result.defenders == 1
    assert state.result.levels_before == [0, 5]


def drain_points(state: HandState, seat: int, into: int) -> None:
    """Swap every point card dealt to ``seat`` with a pointless one dealt to ``into``."""
    mine = [deck_index(state, seat, k) for k in range(25)]
    theirs = [deck_index(state, into, k) for k in range(25)]
    d = state.deck
    spare = [j for j in theirs if POINTS[d[j]] == 0]
    for i in mine:
        if POINTS[d[i]]:
            j = spare.pop()
            d[i], d[j] = d[j], d[i]


def test_redeal_for_an_attacker_under_15_points_keeps_the_dealer():
    state = new_hand("joker_declare", hand_number=2, dealer=0)
    drain_points(state, 1, into=0)
    state.apply(Deal(n=100))
    assert state.can_redeal(1)
    assert not state.can_redeal(0)  # the dealer's team never
    refuse(state, Redeal(seat=0), errors.REDEAL_NOT_ALLOWED)
    old = list(state.deck)
    state.apply(Redeal(seat=1))
    assert (state.phase, state.dealt, state.dealer, state.redeals) == ("dealing", 0, 0, 1)
    assert state.deck != old and state.hands == [[], [], [], []]


def test_redeal_restores_the_dealer_after_an_attacker_declared():
    state = new_hand("joker_declare", hand_number=2, dealer=0)
    give(state, 3, "2H BJ")
    drain_points(state, 1, into=0)
    no_jokers(state, (0, 2), into=3)
    state.apply(Deal(n=100))
    state.apply(Show(seat=3, cards=parse_cards("2H BJ")))
    assert state.dealer == 3
    state.apply(Redeal(seat=1))
    assert state.dealer == 0 and state.deal_start == 0


def test_redeal_only_once_and_only_where_the_preset_allows():
    state = new_hand("joker_declare", hand_number=2, dealer=0)
    drain_points(state, 1, into=0)
    state.apply(Deal(n=100))
    state.apply(Redeal(seat=1))
    drain_points(state, 1, into=0)
    state.apply(Deal(n=100))
    refuse(state, Redeal(seat=1), errors.REDEAL_NOT_ALLOWED)
    classic = new_hand("classic", hand_number=2, dealer=0)
    drain_points(classic, 1, into=0)
    classic.apply(Deal(n=100))
    refuse(classic, Redeal(seat=1), errors.REDEAL_NOT_ALLOWED)


# ---- 6. burying --------------------------------------------------------------------


def test_dealer_buries_exactly_8_of_33_held_cards():
    state = new_hand()
    state.apply(Deal(n=100))
    pass_all(state)
    hand = state.hands[0]
    refuse(state, Bury(seat=0, cards=hand[:7]), errors.WRONG_BURY_COUNT)
    refuse(state, Bury(seat=0, cards=hand[:9]), errors.WRONG_BURY_COUNT)
    missing = next(c for c in range(54) if c not in hand)
    refuse(state, Bury(seat=0, cards=[*hand[:7], missing]), errors.NOT_IN_HAND)
    once = next(c for c in hand if hand.count(c) == 1)
    refuse(state, Bury(seat=0, cards=[once] * 8), errors.NOT_IN_HAND)
    refuse(state, Bury(seat=1, cards=state.hands[1][:8]), errors.NOT_YOUR_TURN)
    cards = bury_first(state)
    assert len(state.hands[0]) == 25
    assert state.kitty == cards and state.buried_by == 0


# ---- 8. playing tricks --------------------------------------------------------------


def test_illegal_follow_is_refused_with_its_reason_and_changes_nothing():
    state = position(["8S 8S 3C", "QS QS 3S", "4S 5S 6S", "7C 8C 9C"])
    play(state, 0, "8S 8S")
    refuse(state, Play(seat=1, cards=parse_cards("QS 3S")), errors.MUST_PLAY_PAIR)
    refuse(state, Play(seat=1, cards=parse_cards("QS")), errors.WRONG_COUNT)
    refuse(state, Play(seat=1, cards=parse_cards("AS AS")), errors.NOT_IN_HAND)
    refuse(state, Play(seat=2, cards=parse_cards("4S 5S")), errors.NOT_YOUR_TURN)
    play(state, 1, "QS QS")
    refuse(state, Play(seat=2, cards=parse_cards("4S 3C")), errors.NOT_IN_HAND)
    state.hands[2] = parse_cards("4S 3C 6S")
    refuse(state, Play(seat=2, cards=parse_cards("4S 3C")), errors.MUST_FOLLOW_SUIT)


def test_lead_of_mixed_suits_is_refused():
    state = position(["8S 3C", "QS 3S", "4S 5S", "7C 8C"])
    refuse(state, Play(seat=0, cards=parse_cards("8S 3C")), errors.MIXED_SUITS)


def test_trick_winner_takes_the_points_and_leads_next():
    state = position(["8S 3C", "KS 3S", "5S 4S", "10S 8C"], dealer=0)
    play(state, 0, "8S")
    play(state, 1, "KS")
    play(state, 2, "5S")
    play(state, 3, "10S")
    done = state.tricks[0]
    assert (done.winner, done.points) == (1, 25)
    assert state.trick_points == 25  # seat 1 attacks
    assert (state.turn, state.tricks[-1].leader) == (1, 1)
    refuse(state, Play(seat=2, cards=parse_cards("4S")), errors.NOT_YOUR_TURN)


def test_a_successful_throw_stands_and_wins():
    state = position(["AS AS KS 3C", "QS 3S 4S 5C", "9S 8S 7S 6C", "JS 6S 2S 7C"])
    play(state, 0, "AS AS KS")
    assert state.tricks[0].plays[0].attempted is None
    play(state, 1, "QS 3S 4S")
    play(state, 2, "9S 8S 7S")
    play(state, 3, "JS 6S 2S")
    assert state.tricks[0].winner == 0
    assert state.penalty == 0


def test_failed_throw_by_a_defender_forces_the_lowest_beatable_unit_and_pays_the_attackers():
    # the seeds' example at level 10: another player holds the J, the 9 must be played
    hands = ["9S 8S 8S 4S 4S", "JS 3S 5C 6C 7C", "2S 5D 6D 7D 8D", "3H 4H 6H 7H 8H"]
    state = position(hands, level="10", trump=HEARTS)
    play(state, 0, "9S 8S 8S 4S 4S")
    record = state.tricks[0].plays[0]
    assert record.cards == parse_cards("9S")
    assert record.attempted == parse_cards("9S 8S 8S 4S 4S")
    assert sorted(state.hands[0]) == sorted(parse_cards("8S 8S 4S 4S"))
    assert state.penalty == 40 and state.attackers_points == 40
    assert state.turn == 1


def test_failed_throw_by_an_attacker_costs_points_and_the_total_never_goes_below_0():
    hands = ["2S 3D 6D 7D 8D", "9S 8S 8S 4S 4S", "JS 3S 6C 7C 9C", "3H 4H 6H 7H 8H"]
    state = position(hands, level="10", trump=HEARTS, dealer=0, leader=1)
    play(state, 1, "9S 8S 8S 4S 4S")
    assert state.penalty == -40 and state.attackers_points == 0
    play_out(state)
    r = state.result
    assert r is not None
    assert r.penalty == -40
    assert r.attackers_points == max(0, r.trick_points + r.penalty + r.kitty_bonus)
    assert r.attackers_points == 0  # no point card is in play: penalties cannot go negative


def test_throw_penalties_are_summed_over_the_hand_and_only_the_total_is_kept_at_0_or_above():
    # RULES 8.3 and 9: an attacker's failed throw is a debt that later points pay off;
    # only the hand's total is clamped, never a step (clamping each step would give 45)
    hands = [
        "2S KS KC KD 5C 5D",
        "9S 8S 8S 4S 4S QD",
        "JS 3S 6C 7C 9C QC",
        "3H 4H 6H 7H 8H 5H",
    ]
    state = position(hands, level="10", trump=HEARTS, dealer=0, leader=1)
    play(state, 1, "9S 8S 8S 4S 4S")  # seat 2's JS beats the 9S: -40 for the attackers
    for seat, card in ((2, "3S"), (3, "3H"), (0, "2S")):
        play(state, seat, card)
    shown = []
    for lead, discard in (("8H", "KS"), ("7H", "KC"), ("6H", "KD"), ("5H", "5C"), ("4H", "5D")):
        play(state, 3, lead)
        play(state, 0, discard)
        play(state, 1, format_cards(state.hands[1][:1]))  # no point cards left
        play(state, 2, format_cards(state.hands[2][:1]))
        shown.append(state.public_observation().attackers_points)
    assert shown == [0, 0, 0, 0, 5]  # 45 points won against a debt of 40
    r = state.result
    assert r is not None
    assert (r.trick_points, r.penalty, r.kitty_bonus, r.attackers_points) == (45, -40, 0, 5)


def test_throw_penalty_none_option():
    rules = RuleSet.from_preset("classic", throw_penalty="none")
    hands = ["9S 8S 8S 4S 4S", "JS 3S 5C 6C 7C", "2S 5D 6D 7D 8D", "3H 4H 6H 7H 8H"]
    state = position(hands, level="10", rules=rules)
    play(state, 0, "9S 8S 8S 4S 4S")
    assert state.penalty == 0


# ---- 10. the kitty bonus on the last trick ---------------------------------------------


KITTY_25 = "5C 10C KC 3D 4D 6D 7D 8D"  # 25 points


def last_trick(lead: str, hands: list[str], rules: RuleSet = CLASSIC, leader: int = 1) -> HandState:
    state = position(hands, kitty=KITTY_25, rules=rules, dealer=0, leader=leader)
    for i in range(4):
        seat = (leader + i) % 4
        play(state, seat, lead if i == 0 else hands[seat])
    return state


def test_attackers_winning_the_last_trick_with_a_single_add_the_kitty_times_2():
    state = last_trick("AS", ["3S", "AS", "4S", "6S"])
    r = state.result
    assert r is not None
    assert (r.kitty_points, r.kitty_bonus, r.attackers_points) == (25, 50, 50)


def test_last_trick_pair_counts_x4_and_tractor_x4k():
    state = last_trick("AS AS", ["3S 4S", "AS AS", "6S 7S", "8S 9S"])
    assert state.result is not None and state.result.kitty_bonus == 100
    hands = ["3S 4S 6S 7S", "AS AS QS QS", "3C 4C 6C 7C", "8S 9S 9S JS"]
    state = last_trick("AS AS QS QS", hands)  # two pairs (K between): counts as one pair
    assert state.result is not None and state.result.kitty_bonus == 25 * 4  # two pairs, no tractor
    hands = ["3S 4S 6S 7S", "AS AS KS KS", "3C 4C 6C 7C", "8S 9S 9S JS"]
    state = last_trick("AS AS KS KS", hands)
    assert state.result is not None
    assert state.result.kitty_bonus == 25 * 8
    assert state.result.trick_points == 20


def test_last_trick_tractor_doubling_multiplier_under_tournament():
    rules = RuleSet.from_preset("tournament", time_limit_min=None)
    hands = ["3S 4S 6S 7S 8S 9S", "AS AS KS KS QS QS", "3C 4C 6C 7C 8C 9C", "8S 9S 9S JS 3D 4D"]
    state = last_trick("AS AS KS KS QS QS", hands, rules)
    assert state.result is not None and state.result.kitty_bonus == 25 * 16


def test_defenders_winning_the_last_trick_score_nothing_for_the_kitty():
    state = last_trick("KS", ["3S", "KS", "AS", "6S"])
    assert state.result is not None
    assert (state.result.kitty_bonus, state.result.trick_points) == (0, 0)


# ---- 11. the result ----------------------------------------------------------------


def test_result_defenders_hold_partner_deals_next_and_stake_doubles_per_overturn():
    state = position(["AS", "3S", "4S", "6S"], dealer=2, leader=0, levels=[3, 3])
    state.declaring.overturns = 2
    play_out(state)
    r = state.result
    assert r is not None
    assert (r.winner, r.steps, r.attackers_points) == ("defenders", 3, 0)
    assert r.levels_after == [6, 3]
    assert (r.dealer, r.next_dealer, r.multiplier) == (2, 0, 4)
    assert state.phase == "done" and state.turn is None


def test_result_attackers_take_over_next_seat_deals():
    kitty = "10C 10C KC KC KD KD 5D 5D"  # 70 points, x2 on a single
    state = position(["3S", "AS", "4S", "6S"], dealer=0, leader=1, kitty=kitty, levels=[4, 7])
    play_out(state)
    r = state.result
    assert r is not None
    assert (r.attackers_points, r.winner, r.steps) == (140, "attackers", 1)
    assert r.levels_after == [4, 8]
    assert r.next_dealer == 1


# ---- privacy, serialisation, replay, errors ---------------------------------------------


def test_observation_never_shows_another_seats_cards():
    assert not {"deck", "hands"} & {f.name for f in dataclasses.fields(Observation)}
    for preset in PRESETS:
        rng = random.Random(preset)
        state = new_hand(preset, hand_number=2, dealer=1)
        while state.phase != "done":
            for seat in range(4):
                obs = state.observation(seat)
                assert obs.hand == state.ctx.sorted(state.hands[seat])
                assert all(c in obs.hand for opt in obs.show_options for c in opt)
                may_see = state.buried_by == seat or state.phase == "done"
                assert obs.kitty is None or may_see
                if state.phase != "done":
                    assert obs.result is None
            state.apply(random_action(state, rng))


def test_json_round_trip_and_replay_rebuild_the_hand():
    state = chaodi_hand()
    initial = new_hand(hand_number=2, dealer=1)
    initial.deck = list(state.deck)
    pass_all(state)
    bury_first(state)
    for seat in (2, 3, 0, 1):
        state.apply(Pass(seat=seat))
    mid = HandState.model_validate_json(state.model_dump_json())
    assert mid == state
    play_out(state, seed=3)
    assert HandState.model_validate_json(state.model_dump_json()) == state
    assert HandState.replay(initial, state.log) == state


def test_wrong_phase_and_not_your_turn():
    state = new_hand()
    refuse(state, Play(seat=0, cards=[0]), errors.WRONG_PHASE)
    refuse(state, Bury(seat=0, cards=list(range(8))), errors.WRONG_PHASE)
    refuse(state, Redeal(seat=1), errors.REDEAL_NOT_ALLOWED)
    refuse(state, Show(seat=4, cards=[0]), errors.NOT_YOUR_TURN)
    state = position(["3S", "AS", "4S", "6S"])
    refuse(state, Show(seat=0, cards=[make(0, HEARTS)]), errors.WRONG_PHASE)
    refuse(state, Deal(n=4), errors.WRONG_PHASE)
    refuse(state, Pass(seat=0), errors.WRONG_PHASE)
    refuse(state, Play(seat=1, cards=parse_cards("AS")), errors.NOT_YOUR_TURN)
    refuse(state, Play(seat=0, cards=[]), errors.EMPTY_PLAY)
    play_out(state)
    refuse(state, Play(seat=0, cards=parse_cards("3S")), errors.WRONG_PHASE)


def test_a_later_hand_needs_a_dealer():
    with pytest.raises(ValueError):
        HandState.new(CLASSIC, 1, 2, None)


def test_team_of_pairs_opposite_seats():
    assert [team_of(s) for s in range(4)] == [0, 1, 0, 1]


def test_the_hand_says_each_seats_dealt_cards_after_a_redeal_and_to_the_end():
    """``dealt_hands``: each seat's 25 cards of the last deal, as the deal handed them
    out, from a dealer other than seat 1, through the kitty, the bury and every trick."""
    state = new_hand("joker_declare", hand_number=2, dealer=3)
    state.apply(Deal(n=10))
    assert state.dealt_hands() == state.hands  # while dealing: the cards dealt so far
    state = new_hand("joker_declare", hand_number=2, dealer=3)
    drain_points(state, 0, into=3)
    state.apply(Deal(n=100))
    state.apply(Redeal(seat=0))
    state.apply(Deal(n=100))
    after_deal = [list(h) for h in state.hands]
    play_out(state)
    assert state.result is not None and state.redeals == 1
    assert state.dealt_hands() == after_deal
    assert all(len(h) == 25 for h in after_deal)
