"""The public view, events and queries: what the table may see, what happened, who acts.

A caller (the bot, a computer player) asks the engine these and re-derives no rule.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import islice

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from engine import errors
from engine.cards import HEARTS, SPADES, parse_cards
from engine.errors import IllegalAction
from engine.events import (
    EVENTS,
    Buried,
    DealerTeamChecked,
    Dealt,
    Declared,
    HandSettled,
    HandStarted,
    KittyTaken,
    MatchWon,
    Overturned,
    Passed,
    Played,
    PlayStarted,
    ThrowFailed,
    TrickWon,
    TrumpFromKitty,
)
from engine.hand import (
    Action,
    Bury,
    Deal,
    HandState,
    Pass,
    Play,
    PublicView,
    Redeal,
    Show,
    ToAct,
)
from engine.match import MatchState
from engine.players.randomplayer import random_action
from engine.rules import PRESETS, RuleSet
from tests.engine.test_hand import (
    bury_first,
    chaodi_hand,
    deck_index,
    drain_points,
    give,
    new_hand,
    pass_all,
    play,
    play_out,
    position,
    stack,
)

PUBLIC = TypeAdapter(PublicView)


def run_events(state: HandState, seed: int = 0) -> list:  # type: ignore[type-arg]
    rng = random.Random(seed)
    events = []
    while state.phase != "done":
        events += state.apply(random_action(state, rng))
    return events


# ---- the public view ---------------------------------------------------------------


def test_public_view_says_who_is_winning_the_trick_now():
    state = position(["AS 3S", "KS 4S", "2H 5H", "QS 6S"])
    view = state.public_observation()
    assert view.winning is None and view.current_trick is not None
    play(state, 0, "AS")
    assert state.public_observation().winning == 0
    play(state, 1, "KS")
    assert state.public_observation().winning == 0
    play(state, 2, "2H")  # trump level card ruffs
    assert state.public_observation().winning == 2


def test_public_view_keeps_the_last_completed_trick_with_winner_and_points():
    state = position(["KS 3S", "10S 4S", "5S 6S", "QS 7S"])
    assert state.public_observation().last_trick is None
    for seat, card in ((0, "KS"), (1, "10S"), (2, "5S"), (3, "QS")):
        play(state, seat, card)
    view = state.public_observation()
    last = view.last_trick
    assert last is not None and (last.winner, last.points) == (0, 25)
    play(state, 0, "3S")
    last = state.public_observation().last_trick
    assert last is not None and (last.winner, last.points) == (0, 25)


def test_public_view_attackers_points_include_a_failed_throw_and_list_it():
    # RULES 8.3: a defender's failed throw pays the attackers 10 per card taken back
    hands = ["9S 8S 8S 4S 4S", "JS 3S 5C 6C 7C", "2S 5D 6D 7D 8D", "3H 4H 6H 7H 8H"]
    state = position(hands, level="10", trump=HEARTS)
    play(state, 0, "9S 8S 8S 4S 4S")
    view = state.public_observation()
    assert view.attackers_points == 40 == view.points_after(1)
    assert (view.penalties_after(1), view.trick_points_after(1), view.tricks_done) == (40, 0, 0)
    (failed,) = view.failed_throws
    assert (failed.trick, failed.seat, failed.penalty) == (0, 0, 40)
    assert failed.attempted == tuple(parse_cards("9S 8S 8S 4S 4S"))
    assert failed.forced == tuple(parse_cards("9S"))


@pytest.mark.parametrize("preset", PRESETS)
def test_the_attackers_points_split_into_trick_points_and_penalties(preset):
    """After every trick, trick points won plus penalties make the running points
    (kept at 0 or above); at the end they are the result's two figures."""
    throws = 0
    for seed in range(6):
        state = HandState.new(RuleSet.from_preset(preset), seed)
        run_events(state, seed)
        view, r = state.public_observation(), state.result
        assert r is not None and view.tricks_done == len(view.tricks)
        for k in range(len(view.tricks) + 1):
            raw = view.trick_points_after(k) + view.penalties_after(k)
            assert max(0, raw) == view.points_after(k)
        n = len(view.tricks)
        assert (view.trick_points_after(n), view.penalties_after(n)) == (r.trick_points, r.penalty)
        throws += len(view.failed_throws)
    assert throws  # the random players' throws fail now and then: penalties were counted


def test_public_view_points_and_counts_after_a_past_trick():
    state = position(["KS 3S", "10S 4S", "5S 6S", "QS 7S"], dealer=1, leader=0)
    for seat, card in ((0, "KS"), (1, "10S"), (2, "5S"), (3, "QS"), (0, "3S")):
        play(state, seat, card)
    view = state.public_observation()
    assert view.defenders == 1 and view.attackers == 0 and view.defends(3)
    assert view.points_after(0) == 0
    assert view.points_after(1) == 25 == view.attackers_points  # seat 0 attacks
    assert view.counts_after(0) == [2, 2, 2, 2]
    assert view.counts_after(1) == [1, 1, 1, 1]
    assert view.counts_after(2) == view.card_counts == [0, 1, 1, 1]


def test_public_view_teams_levels_dealer_and_deal_progress():
    state = new_hand("classic", hand_number=3, dealer=3, levels=[4, 7])
    state.apply(Deal(n=10))
    view = state.public_observation()
    assert view.teams == (0, 1, 0, 1)
    assert (view.dealer, view.level, view.levels) == (3, 7, [4, 7])
    # dealt one at a time from the dealer, seat 3
    assert (view.dealt, view.deal_total, view.card_counts) == (10, 100, [3, 2, 2, 3])
    assert view.to_act == ToAct("deal")


def test_trump_is_public_only_once_set():
    state = new_hand()
    give(state, 1, "2H")
    state.apply(Deal(n=4))
    assert not state.public_observation().trump_decided
    state.apply(Show(seat=1, cards=parse_cards("2H")))
    view = state.public_observation()
    assert (view.trump_decided, view.trump, view.dealer, view.declarer) == (True, HEARTS, 1, 1)
    assert [r.kind for r in view.show_records] == ["declare"]


def test_kitty_that_decided_the_trump_is_public_and_the_buried_kitty_only_at_the_end():
    state = new_hand()
    stack(state, {102: "9C"})  # the kitty's third card
    state.apply(Deal(n=100))
    pass_all(state)
    view = state.public_observation()
    assert view.kitty_decided and view.kitty_card == parse_cards("9C")[0]
    assert view.revealed_kitty == state.deck[100:]
    assert view.trump == 2 and view.kitty is None
    bury_first(state)
    assert state.public_observation().kitty is None
    play_out(state)
    view = state.public_observation()
    assert view.kitty == state.kitty and view.result is not None


def test_multiplier_counts_overturns():
    state = chaodi_hand()
    pass_all(state)
    bury_first(state)
    state.apply(Pass(seat=2))
    state.apply(Show(seat=3, cards=parse_cards("2S 2S")))
    view = state.public_observation()
    assert (view.overturns, view.multiplier, view.trump) == (1, 2, SPADES)


def test_seat_observation_builds_on_the_public_view():
    state = chaodi_hand()
    pass_all(state)
    bury_first(state)
    public = PUBLIC.dump_python(state.public_observation())
    for seat in range(4):
        obs = state.observation(seat)
        own = PUBLIC.dump_python(obs)
        if seat == state.buried_by:
            assert own.pop("kitty") == state.kitty
            public_without_kitty = {k: v for k, v in public.items() if k != "kitty"}
            assert own == public_without_kitty
        else:
            assert own == public


def test_match_view_names_the_winner():
    rules = RuleSet.from_preset("classic", start_level="A")
    match = MatchState.new(rules, 3)
    assert match.public_observation().match_winner is None
    events: list = []  # type: ignore[type-arg]
    rng = random.Random(1)
    while not match.finished:
        if match.hand.phase == "done":
            events += match.start_next_hand()
        events += match.apply(random_action(match.hand, rng))
    view = match.public_observation()
    assert view.match_winner == match.winner is not None
    assert events[-1] == MatchWon(match.winner)
    assert match.next_actor() == ToAct("match_over") == view.to_act


# ---- events ------------------------------------------------------------------------


def test_a_whole_hand_reports_every_moment_in_order():
    state = new_hand("classic", hand_number=2, dealer=1)
    give(state, 2, "2H")
    events = state.apply(Deal(n=4)) + state.apply(Show(seat=2, cards=parse_cards("2H")))
    assert events == [Dealt(4, 100), Declared(2, (parse_cards("2H")[0],), HEARTS, 1, False)]
    events = state.apply(Deal(n=96))
    assert events == [Dealt(100, 100)]
    events = []
    for seat in range(4):
        events += state.apply(Pass(seat=seat))
    assert events == [Passed(0), Passed(1), Passed(2), Passed(3), KittyTaken(1)]
    assert state.apply(Bury(seat=1, cards=state.hands[1][:8])) == [Buried(1)]
    events = []
    for seat in (2, 3, 0, 1):
        events += state.apply(Pass(seat=seat))
    assert events[-1] == PlayStarted(1, HEARTS)
    events = run_events(state)
    kinds = Counter(e.kind for e in events)
    # one per play (a failed throw's forced play too), one per trick
    assert kinds["played"] == 4 * len(state.tricks) and kinds["trick_won"] == len(state.tricks)
    assert kinds["hand_settled"] == 1
    assert isinstance(events[-1], HandSettled) and events[-1].result == state.result
    won = [e for e in events if isinstance(e, TrickWon)]
    assert [(e.winner, e.points) for e in won] == [(t.winner, t.points) for t in state.tricks]
    assert won[-1].attackers_points == state.public_observation().points_after(len(state.tricks))
    assert EVENTS.validate_python(EVENTS.dump_python(events, mode="json")) == events


def test_trump_from_the_kitty_is_an_event():
    state = new_hand()
    stack(state, {102: "BJ"})
    state.apply(Deal(n=100))
    events = []
    for seat in range(4):
        events += state.apply(Pass(seat=seat))
    kitty = tuple(state.deck[100:])
    assert events[-2:] == [TrumpFromKitty(kitty, parse_cards("BJ")[0], None, 0), KittyTaken(0)]


def test_chaodi_overturn_reports_the_overturn_and_the_kitty_taken():
    state = chaodi_hand()
    pass_all(state)
    bury_first(state)
    state.apply(Pass(seat=2))
    events = state.apply(Show(seat=3, cards=parse_cards("2S 2S")))
    assert events == [Overturned(3, tuple(parse_cards("2S 2S")), SPADES, 1, 2), KittyTaken(3)]


def test_failed_throw_event_carries_the_forced_play_and_penalty():
    hands = ["9S 8S 8S 4S 4S", "JS 3S 5C 6C 7C", "2S 5D 6D 7D 8D", "3H 4H 6H 7H 8H"]
    state = position(hands, level="10", trump=HEARTS)
    events = state.apply(Play(seat=0, cards=parse_cards("9S 8S 8S 4S 4S")))
    tried, forced = tuple(parse_cards("9S 8S 8S 4S 4S")), tuple(parse_cards("9S"))
    beaten_by = tuple(parse_cards("JS"))  # the jack in seat 1 beats the 9
    assert events == [ThrowFailed(0, tried, forced, 40, beaten_by, 1), Played(0, forced, 0)]


def test_next_hand_reports_its_start():
    match = MatchState.new(RuleSet.from_preset("classic"), 5)
    rng = random.Random(0)
    while match.hand.phase != "done":
        match.apply(random_action(match.hand, rng))
    assert match.next_actor() == ToAct("next_hand")
    dealer = match.hand.result.next_dealer  # type: ignore[union-attr]
    assert match.start_next_hand() == [HandStarted(2, dealer, match.hand.level)]


# ---- queries -----------------------------------------------------------------------


def test_next_actor_through_a_hand():
    state = chaodi_hand()
    assert state.next_actor() == ToAct("window", (0, 1, 2, 3))
    state.apply(Pass(seat=2))
    assert state.next_actor().seats == (0, 1, 3)
    state.apply(Pass(seat=0))
    state.apply(Pass(seat=1))
    state.apply(Pass(seat=3))
    assert state.next_actor() == ToAct("bury", (1,)) and state.next_actor().seat == 1
    bury_first(state)
    assert state.next_actor() == ToAct("chaodi", (2,))
    pass_all(state, (2, 3, 0, 1))
    assert state.next_actor() == ToAct("play", (1,))
    play_out(state)
    assert state.next_actor() == ToAct("hand_over") and state.next_actor().seat is None


def test_cards_to_play_one_card_follow_is_one_tap():
    state = position(["AS 3S", "KS 4S", "2H 5S", "QS 6S"])
    assert state.cards_to_play(0) is None  # a lead: any number
    assert state.cards_to_play(1) is None  # not its turn
    play(state, 0, "AS")
    assert state.cards_to_play(1) == 1
    state = position(["AS AS 3S", "KS KS 4S", "2H 5S 5S", "QS 6S 6S"])
    play(state, 0, "AS AS")
    assert state.cards_to_play(1) == 2
    state = chaodi_hand()
    pass_all(state)
    assert state.cards_to_play(1) == 8


def test_is_legal_answers_without_changing_the_state():
    state = position(["AS 3S", "KS 4H", "2H 5S", "QS 6S"])
    before = state.model_dump_json()
    assert state.is_legal(Play(seat=0, cards=parse_cards("AS")))
    assert not state.is_legal(Play(seat=1, cards=parse_cards("KS")))
    with pytest.raises(IllegalAction) as e:
        state.check(Play(seat=0, cards=parse_cards("AS 3S 3S")))
    assert e.value.reason == errors.NOT_IN_HAND
    assert state.model_dump_json() == before


@pytest.mark.parametrize("preset", PRESETS)
def test_is_legal_agrees_with_apply(preset: str):
    rules = RuleSet.from_preset(preset)
    for seed in range(4):
        rng = random.Random(seed)
        state = HandState.new(rules, seed, 1 + seed % 2, seed % 4)
        while state.phase != "done":
            seat = rng.randrange(4)
            cards = rng.sample(state.hands[seat], min(len(state.hands[seat]), rng.randint(1, 8)))
            for action in (
                Play(seat=seat, cards=cards),
                Bury(seat=seat, cards=cards),
                Show(seat=seat, cards=cards[:2]),
                Pass(seat=seat),
                *islice(state.legal_actions(seat), 6),
            ):
                if isinstance(action, Bury | Play) and len(action.cards) > 8:
                    continue
                before = state.model_dump_json()
                legal = state.is_legal(action)
                assert state.model_dump_json() == before
                trial = state.model_copy(deep=True)
                try:
                    trial.apply(action)
                    applied = True
                except IllegalAction:
                    applied = False
                assert legal == applied, action
                if rng.random() < 0.02:
                    break
            state.apply(random_action(state, rng))


# ---- nothing hidden leaks ------------------------------------------------------------


def hidden_places(state: HandState) -> list[tuple[int, list[int], int]]:
    """Where cards lie that no public view may depend on, as (holder, list, index): the
    four hands, the kitty until the hand is over, the cards not dealt yet."""
    places = [(seat, hand, k) for seat, hand in enumerate(state.hands) for k in range(len(hand))]
    if state.phase != "done":
        places += [(4, state.kitty, k) for k in range(len(state.kitty))]
    if state.phase == "dealing":
        places += [(5, state.deck, k) for k in range(state.dealt, len(state.deck))]
    return places


def public_cards(view: PublicView) -> set[int]:
    """Every card the public view names."""
    seen: set[int] = set()
    for _, cards in view.shows:
        seen.update(cards)
    for trick in view.tricks:
        for p in trick.plays:
            seen.update(p.cards)
            seen.update(p.attempted or ())
    seen.update(view.revealed_kitty or ())
    seen.update(view.kitty or ())
    if view.result is not None:
        seen.update(view.result.kitty)
    return seen


def shown_or_played(state: HandState) -> set[int]:
    """Cards the table has seen: shows, plays and tried throws, the kitty when public."""
    seen: set[int] = set()
    for s in state.declaring.shows:
        seen.update(s.cards)
    for trick in state.tricks:
        for p in trick.plays:
            seen.update(p.cards)
            seen.update(p.attempted or ())
    seen.update(state.revealed_kitty or ())
    if state.phase == "done":
        seen.update(state.kitty)
    return seen


def swap_hidden(state: HandState, rng: random.Random) -> HandState | None:
    """A copy that differs only in where two different hidden cards lie (None if the
    hidden cards all lie in one place)."""
    other = state.model_copy(deep=True)
    places = hidden_places(other)
    if len(places) < 2:
        return None
    for _ in range(50):
        (ha, la, ia), (hb, lb, ib) = rng.sample(places, 2)
        if ha != hb and la[ia] != lb[ib]:
            la[ia], lb[ib] = lb[ib], la[ia]
            return other
    return None


def assert_same_public_view(a: HandState, b: HandState) -> None:
    va, vb = a.public_observation(), b.public_observation()
    assert PUBLIC.dump_python(va) == PUBLIC.dump_python(vb)
    assert va.winning == vb.winning
    assert va.failed_throws == vb.failed_throws
    assert va.last_trick == vb.last_trick
    assert a.next_actor() == b.next_actor()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), preset=st.sampled_from(PRESETS), twos=st.booleans())
def test_public_view_of_a_seat_free_observer_leaks_no_hidden_card(
    seed: int, preset: str, twos: bool
):
    rules = RuleSet.from_preset(preset, permanent_twos=twos)
    rng = random.Random(seed)
    hand_number = 1 + seed % 2
    state = HandState.new(rules, seed, hand_number, None if hand_number == 1 else seed % 4)
    while True:
        view = state.public_observation()
        # every card the view names was shown, played or publicly revealed
        assert not public_cards(view) - shown_or_played(state)
        assert view.kitty is None or state.phase == "done"
        if rng.random() < 0.2 or state.phase == "done":
            other = swap_hidden(state, rng)
            if other is not None:
                assert other != state
                assert_same_public_view(state, other)
        if state.phase == "done":
            break
        events = state.apply(random_action(state, rng))
        # events are public too: they name only cards the table has seen
        named: set[int] = set()
        for e in events:
            for field in ("cards", "attempted", "forced", "kitty"):
                named.update(getattr(e, field, ()) or ())
        assert not named - shown_or_played(state)


# ---- a seat's observation: a function of the public view and its own cards ----------


def holder(state: HandState, index: int) -> int:
    """Who is dealt the deck's ``index``-th card: a seat, or 4 for the kitty."""
    return 4 if index >= 100 else (state.deal_start + index) % 4


def seat_sees(state: HandState, seat: int) -> tuple[object, ...]:
    """Everything ``seat`` learns from the engine now: its observation, who acts, and what
    it may do (the first legal actions; their reasons follow from the same checks)."""
    return (
        state.observation(seat),
        state.next_actor(),
        list(islice(state.legal_actions(seat), 40)),
    )


def own_cards(state: HandState, seat: int) -> tuple[list[int], list[int] | None]:
    obs = state.observation(seat)
    return obs.hand, obs.kitty


def replay_until_revealed(
    a: HandState, b: HandState, seat: int, log: list[Action]
) -> tuple[int, PublicView, PublicView]:
    """Replay ``log`` on two hands whose decks differ only where hidden cards lie: while
    their public views and ``seat``'s own cards are the same, ``seat`` sees the same and
    is told the same events. Returns how many actions were replayed before the two
    worlds parted (a swapped card revealed) and both public views at that moment."""
    for n in range(len(log) + 1):
        va, vb = a.public_observation(), b.public_observation()
        if va != vb or own_cards(a, seat) != own_cards(b, seat):
            return n, va, vb
        assert seat_sees(a, seat) == seat_sees(b, seat), n
        if n == len(log):
            return n, va, vb
        try:
            events_b = b.apply(log[n])
        except IllegalAction:
            return n, va, vb  # the action moves a swapped card: the worlds part
        events_a = a.apply(log[n])
        if a.public_observation() == b.public_observation():
            assert events_a == events_b, n
    raise AssertionError("unreachable")


def random_hand_log(state: HandState, rng: random.Random, quiet_deal: bool) -> list[Action]:
    """The actions of one random hand (``quiet_deal``: nobody shows while dealing, so
    the after-deal window decides more often; an attacker may ask for a redeal)."""
    state = state.model_copy(deep=True)
    log: list[Action] = []
    while state.phase != "done":
        action = random_action(state, rng)
        if quiet_deal and isinstance(action, Show) and state.phase == "dealing":
            action = Deal(n=4)
        redeal = [s for s in range(4) if state.can_redeal(s)]
        if redeal and rng.random() < 0.5:
            action = Redeal(seat=rng.choice(redeal))
        state.apply(action)
        log.append(action)
    return log


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    preset=st.sampled_from(PRESETS),
    seat=st.integers(0, 3),
    later=st.booleans(),
    quiet_deal=st.booleans(),
    data=st.data(),
)
def test_a_seats_observation_is_a_function_of_the_public_view_and_its_own_cards(
    seed: int, preset: str, seat: int, later: bool, quiet_deal: bool, data: st.DataObject
):
    """Swap two hidden cards between other seats (or another seat and the kitty) and
    replay the same actions: the seat sees the same until the rules reveal one of them."""
    rules = RuleSet.from_preset(preset)
    hand_number, dealer = (2, seed % 4) if later else (1, None)
    a = HandState.new(rules, seed, hand_number, dealer)
    log = random_hand_log(a, random.Random(seed), quiet_deal)
    places = [i for i in range(len(a.deck)) if holder(a, i) != seat]
    i = data.draw(st.sampled_from(places))
    j = data.draw(
        st.sampled_from(
            [j for j in places if holder(a, j) != holder(a, i) and a.deck[j] != a.deck[i]]
        )
    )
    b = a.model_copy(deep=True)
    b.deck[i], b.deck[j] = b.deck[j], b.deck[i]
    replay_until_revealed(a, b, seat, log)


def test_joker_declare_whether_the_dealers_team_can_declare_is_public():
    """RULES 12: whether the dealer's team can declare decides whether an attacker may;
    an attacker's own show options would tell it, so the whole table learns it at the
    end of the deal (叫不起), and another seat's cards tell an observer nothing more."""
    a = joker_declare_deal(dealer_team_can=False)  # every joker with the attackers
    b = a.model_copy(deep=True)
    # ... unless one LJ lies with seat 2 (beside its 2S) instead of with seat 3
    s2, s3 = deck_index(a, 2, 1), deck_index(a, 3, 2)
    b.deck[s2], b.deck[s3] = b.deck[s3], b.deck[s2]
    log: list[Action] = [Deal(n=12) for _ in range(9)]
    n, va, vb = replay_until_revealed(a, b, 1, log)
    assert n == len(log)  # the deal ended; the table learns the fact in both worlds
    assert (va.dealer_team_can_declare, vb.dealer_team_can_declare) == (False, True)
    assert a.observation(1).show_options and not b.observation(1).show_options
    for state, can in ((a, False), (b, True)):
        assert state.apply(Pass(seat=0)) == [Passed(0)]
        assert all(state.observation(s).dealer_team_can_declare is can for s in range(4))


def joker_declare_deal(dealer_team_can: bool) -> HandState:
    """A joker_declare hand 2 (dealer 0) dealt out with nothing declared; the dealer's
    team holds a declaration (2S LJ with seat 2) or every joker is with the attackers."""
    state = new_hand("joker_declare", hand_number=2, dealer=0)
    at = {(1, 0): "2H", (1, 1): "BJ", (3, 0): "BJ", (3, 1): "LJ", (2, 0): "2S"}
    at[(2, 1) if dealer_team_can else (3, 2)] = "LJ"
    stack(state, {deck_index(state, seat, k): card for (seat, k), card in at.items()})
    drain_points(state, 3, into=0)  # seat 3 may ask for a redeal (暴动)
    return state


@pytest.mark.parametrize("can", [False, True])
def test_joker_declare_the_end_of_the_deal_tells_whether_the_dealers_team_can_declare(can):
    state = joker_declare_deal(can)
    assert state.apply(Deal(n=96)) == [Dealt(96, 100)]
    assert state.public_observation().dealer_team_can_declare is None
    events = state.apply(Deal(n=4))
    assert events == [Dealt(100, 100), DealerTeamChecked(can)]
    assert EVENTS.validate_python(EVENTS.dump_python(events, mode="json")) == events
    assert state.public_observation().dealer_team_can_declare is can
    # an attacker's options say the same: seat 1 holds 2H BJ
    assert bool(state.observation(1).show_options) is not can
    if not can:  # an attacker declares and deals; the fact stays on record
        state.apply(Show(seat=1, cards=parse_cards("2H BJ")))
        view = state.public_observation()
        assert (view.dealer, view.dealer_team_can_declare) == (1, False)
    # 暴动 deals again: the new deal is asked anew
    state.apply(Redeal(seat=3))
    assert state.public_observation().dealer_team_can_declare is None


def test_no_dealer_team_check_when_the_dealers_team_declared_or_other_presets():
    state = joker_declare_deal(True)
    state.apply(Deal(n=8))
    state.apply(Show(seat=2, cards=parse_cards("2S LJ")))
    assert all(e.kind != "dealer_team_checked" for e in state.apply(Deal(n=92)))
    assert state.public_observation().dealer_team_can_declare is None
    for preset, hand_number in (("classic", 2), ("tournament", 2), ("joker_declare", 1)):
        state = new_hand(preset, hand_number=hand_number, dealer=0)
        assert state.apply(Deal(n=100)) == [Dealt(100, 100)]


@pytest.mark.parametrize("can", [False, True])
def test_joker_declare_a_window_saved_before_the_fact_was_kept_derives_it(can):
    state = joker_declare_deal(can)
    state.apply(Deal(n=100))
    saved = state.model_dump(mode="json")
    del saved["declaring"]["dealer_team_can_declare"]
    loaded = HandState.model_validate(saved)
    assert loaded.public_observation().dealer_team_can_declare is can
