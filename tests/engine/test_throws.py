"""Throws (甩牌, RULES.md section 8.3): allowed throws and the forced play of a failed one."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import format_cards, new_shoe, parse_cards
from engine.events import ThrowFailed
from engine.hand import HandState, Observation, Play
from engine.players.playout import playout, totals_so_far
from engine.players.randomplayer import random_action
from engine.ranking import TrumpContext
from engine.rules import RuleSet
from engine.tricks import check_throw, failed_throw
from engine.units import decompose
from tests.engine.helpers import ctx_of, load_cases

L10H = ctx_of("10", "H")
L2H = ctx_of("2", "H")


def forced(ctx: TrumpContext, throw: str, *others: str) -> str | None:
    """The forced play as notation, or None when the throw is allowed."""
    f = check_throw(ctx, parse_cards(throw), [parse_cards(o) for o in others])
    return None if f is None else format_cards(f)


def test_one_unit_lead_is_never_a_throw():
    assert forced(L10H, "5S", "AS", "KS", "QS") is None
    assert forced(L10H, "5S 5S 4S 4S", "AS AS KS KS", "QS", "JS") is None


def test_throw_of_unbeatable_units_is_allowed():
    assert forced(L10H, "9S 8S 8S 4S 4S", "7S 3S", "6S", "2S") is None


def test_failed_throw_single_beaten_forces_the_single():
    # the seeds' 98844 (level 10): another player holds the J
    assert forced(L10H, "9S 8S 8S 4S 4S", "JS 3S", "2S", "7S") == "9S"


def test_failed_throw_forces_the_lowest_beatable_unit():
    # Q Q beats the 9, the 8 8 and the 4 4: the lowest, 4 4, must be played
    assert forced(L10H, "9S 8S 8S 4S 4S", "QS QS", "2S", "3S") == "4S 4S"
    assert forced(L10H, "9S 8S 8S 4S 4S", "5S 5S", "2S", "3S") == "4S 4S"


def test_partner_holdings_count_too():
    assert forced(L10H, "AS KS", "2S", "3S", "QS JS") is None
    assert forced(L10H, "AS QS", "2S", "KS", "3S") == "QS"


def test_pair_inside_a_tractor_beats_a_thrown_pair():
    assert forced(L2H, "AC JC JC", "KC KC QC QC", "3C", "4C") == "JC JC"


def test_thrown_pair_is_beaten_only_by_a_higher_pair_not_singles():
    assert forced(L2H, "KC JC JC", "QC", "KC", "3C 3C") is None
    assert forced(L2H, "KC JC JC", "QC QC", "", "3C") == "JC JC"


def test_thrown_tractor_is_beaten_by_a_higher_tractor_of_the_same_length():
    assert forced(L2H, "5S 5S 4S 4S AS", "7S 7S 6S 6S", "3S", "2C") == "5S 5S 4S 4S"


def test_longer_tractor_contains_a_higher_same_length_one():
    assert forced(L2H, "JS JS 10S 10S 3S 3S", "AS AS KS KS QS QS", "4S", "5C") == "3S 3S"
    assert forced(L2H, "JS JS 10S 10S AS", "KS KS QS QS 9S 9S", "4S", "5C") == "JS JS 10S 10S"


def test_lower_tractor_or_higher_pairs_do_not_beat_a_thrown_tractor():
    assert forced(L2H, "AS AS KS KS 8S 8S", "QS QS JS JS 10S 10S", "3S", "4S") == "8S 8S"
    assert forced(L2H, "QS QS JS JS AS", "KS KS 9S 9S", "AS", "3C") is None


def test_tractor_across_the_level_gap_in_a_throw():
    # level 10: J J 9 9 is a tractor; K K Q Q beats it, Q Q 8 8 does not
    assert forced(L10H, "JS JS 9S 9S AS", "QS QS 8S 8S", "3S", "4S") is None
    assert forced(L10H, "JS JS 9S 9S AS", "KS KS QS QS", "3S", "4S") == "JS JS 9S 9S"


def test_trump_throw_level_cards_and_jokers_count():
    assert forced(L10H, "AH AH KH", "10S", "3H", "4H") == "KH"
    assert forced(L10H, "BJ BJ LJ", "10H 10H", "3H", "4H") is None
    assert forced(L10H, "10H 10H BJ", "LJ LJ", "3H", "4H") == "10H 10H"


def test_equal_strength_does_not_beat_a_thrown_card():
    assert forced(L10H, "BJ 10C", "10D", "3H", "10S") is None
    assert forced(L10H, "BJ 10C", "10H", "3H", "4H") == "10C"


def test_forced_unit_on_equal_rank_is_the_smaller():
    assert forced(L10H, "10C 10D 10D", "10H 10H", "3H", "4H") == "10C"


def test_forced_unit_on_equal_rank_and_size_is_the_last_in_display_order():
    # RULES 8.3: 10♣ is shown before 10♦, so 10♦ is forced, whichever way it is written
    assert forced(L10H, "10D 10C BJ", "10H", "3H", "4H") == "10D"
    assert forced(L10H, "10C 10D BJ", "10H", "3H", "4H") == "10D"


def test_rules_8_3_example_off_suit_level_singles():
    # level 7, trump ♠: BJ 7♥ 7♣ against a 7♠ forces 7♣ (shown after 7♥), not 7♥
    l7s = ctx_of("7", "S")
    assert forced(l7s, "BJ 7H 7C", "7S", "3D", "4D") == "7C"
    assert forced(l7s, "7C 7H BJ", "3D", "4D", "7S") == "7C"


def test_rules_8_3_example_no_trump_level_pairs():
    # no-trump, level 9: 9♠9♠ 9♦9♦ beaten by a joker pair forces 9♦9♦
    l9 = ctx_of("9", "none")
    assert forced(l9, "9S 9S 9D 9D", "SJ SJ", "3C", "4C") == "9D 9D"
    assert forced(l9, "9D 9D 9S 9S", "3C", "4C", "BJ BJ") == "9D 9D"


def test_other_suits_never_beat_a_throw():
    assert forced(L2H, "AS KS", "AC AC", "BJ BJ", "AD") is None


@pytest.mark.parametrize("case", load_cases("throw"), ids=lambda c: c["id"])
def test_public_throw_case(case):
    c = case["context"]
    f = check_throw(
        ctx_of(c["level"], c["trump"]),
        parse_cards(case["input"]["throw"]),
        [parse_cards(o) for o in case["input"]["others"]],
    )
    got = {"ok": f is None, "forced": "" if f is None else format_cards(f)}
    assert got == case["expect"]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 12), st.one_of(st.none(), st.integers(0, 3)), st.integers(0, 2**32))
def test_forced_play_is_one_unit_of_the_throw(level, trump, seed):
    ctx = TrumpContext(level, trump)
    rng = random.Random(seed)
    shoe = new_shoe()
    rng.shuffle(shoe)
    hands = [shoe[i * 25 : (i + 1) * 25] for i in range(4)]
    klass = ctx.suit_class[hands[0][0]]
    same = [c for c in hands[0] if ctx.suit_class[c] == klass]
    throw = rng.sample(same, rng.randint(1, len(same)))
    result = check_throw(ctx, throw, hands[1:])
    if result is None:
        return
    units = decompose(ctx, result)
    assert units is not None and len(units) == 1
    assert all(result.count(c) <= throw.count(c) for c in result)
    assert len(decompose(ctx, throw)) > 1


class _Stop(Exception):
    """Raised by the probe policy once it has seen the lead the playout made."""


def _probe(seen: list[Observation]):  # type: ignore[no-untyped-def]
    """A policy that notes the first view it is asked at (the seat after the lead) and stops."""

    def policy(view: Observation, _rng: random.Random) -> list[int]:
        seen.append(view)
        raise _Stop

    return policy


def _random_throw(state: HandState, rng: random.Random) -> list[int] | None:
    """A lead of several units from one suit class of the leader's hand (level cards and
    jokers often among them), or None when the hand has no such lead."""
    ctx, hand = state.ctx, state.hands[state.turn]
    classes = {ctx.suit_class[c] for c in hand}
    for klass in rng.sample(sorted(classes), len(classes)):
        same = [c for c in hand if ctx.suit_class[c] == klass]
        if len(same) < 2:
            continue
        throw = rng.sample(same, rng.randint(2, min(len(same), 7)))
        units = decompose(ctx, throw)
        if units is not None and len(units) > 1:
            return throw
    return None


def test_a_playouts_failed_throw_equals_the_hands():
    """RULES 8.3 is decided once: over random positions of random whole hands, a throw led
    in a search player's playout is forced and fined exactly as the hand forces and fines
    it (the same unit, the same penalty), and both agree with :func:`failed_throw`."""
    fines: set[int] = set()
    for seed in range(40):
        fines |= _compare_throws_over_a_hand(seed)
    # failed throws by both teams were met (a fine each way), and stood throws (0)
    assert any(f > 0 for f in fines) and any(f < 0 for f in fines) and 0 in fines


def _compare_throws_over_a_hand(seed: int) -> set[int]:
    rng = random.Random(seed)
    rules = RuleSet.from_preset("classic")
    state = HandState.new(rules, seed, 2, seed % 4, [seed % 13, (seed * 7) % 13])
    fines: set[int] = set()
    while state.phase != "done":
        trick = state.current_trick
        leading = state.phase == "playing" and trick is not None and not trick.plays
        throw = _random_throw(state, rng) if leading else None
        if throw is not None:
            seat = state.turn
            obs = state.observation(seat)
            trial = HandState.model_validate_json(state.model_dump_json())
            events = trial.apply(Play(seat=seat, cards=throw))
            failed = [e for e in events if isinstance(e, ThrowFailed)]
            direct = failed_throw(state.ctx, rules, state.hands, seat, throw, state.defenders)
            seen: list[Observation] = []
            hands = [list(h) for h in state.hands]
            with pytest.raises(_Stop):
                playout(
                    obs, hands, list(state.kitty), state.buried_by, throw, _probe(seen), rng, (0, 0)
                )
            lead = seen[0].tricks[-1].plays[0]
            if direct is None:
                assert not failed and lead.cards == throw and lead.attempted is None
                fines.add(0)
            else:
                fines.add(direct.penalty)
                assert failed[0].forced == tuple(direct.forced) == tuple(lead.cards)
                assert lead.attempted == throw
                # the penalty the playout carries on equals the hand's
                assert totals_so_far(seen[0])[1] - totals_so_far(obs)[1] == failed[0].penalty
                assert failed[0].penalty == direct.penalty
        state.apply(random_action(state, rng))
    return fines


def _beatable_by(ctx: TrumpContext, unit, klass: int, hand: list[int]) -> bool:
    """RULES 8.3 read literally: does ``hand`` hold a unit of ``unit``'s kind and size in
    ``klass`` above it? Pairs by counting copies, tractors as runs of pair ranks."""
    mine = [c for c in hand if ctx.suit_class[c] == klass]
    if unit.pairs == 0:
        return any(ctx.order[c] > unit.top for c in mine)
    pair_ranks = {ctx.order[c] for c in set(mine) if mine.count(c) >= 2}
    return any(
        top > unit.top and all(top - j in pair_ranks for j in range(unit.pairs))
        for top in pair_ranks
    )


def _forced_by_the_book(ctx: TrumpContext, throw: list[int], others: list[list[int]]):
    """The forced unit as RULES 8.3 words it: of the units some other hand beats, the
    lowest top, then the smaller unit, then the last in display order."""
    units = decompose(ctx, throw)
    klass = ctx.suit_class[throw[0]]
    beaten = [u for u in units if any(_beatable_by(ctx, u, klass, h) for h in others)]
    if len(units) == 1 or not beaten:
        return None
    lowest = min((u.top, u.pairs) for u in beaten)
    ties = [u for u in beaten if (u.top, u.pairs) == lowest]
    last = max(ties, key=lambda u: ctx.sort_key[u.cards[0]])
    return sorted(last.cards)


@settings(max_examples=400, deadline=None)
@given(
    st.integers(0, 12),
    st.one_of(st.none(), st.integers(0, 3)),
    st.booleans(),
    st.integers(0, 2**32),
)
def test_forced_unit_equals_rules_8_3_read_literally(level, trump, twos, seed):
    """Random deals and random multi-unit throws (level cards and permanent 2s included):
    the engine forces exactly the unit the rule book's words name."""
    ctx = TrumpContext(level, trump, twos and level != 0)
    rng = random.Random(seed)
    shoe = new_shoe()
    rng.shuffle(shoe)
    hands = [shoe[i * 25 : (i + 1) * 25] for i in range(4)]
    for _ in range(8):
        klass = ctx.suit_class[rng.choice(hands[0])]
        same = [c for c in hands[0] if ctx.suit_class[c] == klass]
        if len(same) < 2:
            continue
        throw = rng.sample(same, rng.randint(2, min(len(same), 8)))
        got = check_throw(ctx, throw, hands[1:])
        assert (None if got is None else sorted(got)) == _forced_by_the_book(
            ctx, throw, hands[1:]
        ), format_cards(ctx.sorted(throw))
