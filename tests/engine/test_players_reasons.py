"""Why the computers play what they play (engine.reasons): the search's odds are its own
statistics, the heuristic names the rule it followed, and the reason is kept with the play."""

from __future__ import annotations

import functools
import itertools
import random
from collections import defaultdict

from engine.cards import POINTS, parse_cards
from engine.hand import Deal, HandState, Play
from engine.players import get
from engine.players import search as search_module
from engine.players.heuristic import suggest, suggest_reasoned
from engine.players.search import SearchPlayer
from engine.ranking import TRUMP
from engine.reasons import Reason
from engine.records import Trick
from engine.rules import RuleSet
from engine.tricks import play_kind, trick_winner
from tests.engine.test_players import seat_to_act
from tests.engine.test_players_heuristic import observation
from tests.engine.test_players_search import positions


def test_search_reasons_are_the_searchs_own_statistics(monkeypatch):
    # whole hands by the search: every searched play's odds are the means of the
    # playouts the search ran for it (unweighted worlds: every weight 1)
    calls: dict[tuple[int, ...], list[int]] = defaultdict(list)
    real = search_module.playout

    def recorded(obs, hands, kitty, burier, first, *rest):  # type: ignore[no-untyped-def]
        total = real(obs, hands, kitty, burier, first, *rest)
        calls[tuple(sorted(first))].append(total)
        return total

    monkeypatch.setattr(search_module, "playout", recorded)
    player = SearchPlayer(budget_ms=20, weighting=False, declare=0, bury=0, endgame=0)
    rules = RuleSet.from_preset("classic")
    searched = 0
    for i in range(2):
        state = HandState.new(rules, 40 + i, 2, i % 4, [3, 3])
        rng = random.Random(i)
        state.apply(Deal(n=100))
        while state.phase != "done":
            seat = seat_to_act(state)
            obs = state.observation(seat)
            calls.clear()
            action = player(obs, rng)
            if isinstance(action, Play):
                reason = action.reason
                assert reason is not None  # every card play says why
                trick = obs.current_trick
                on_table = sum(POINTS[c] for p in (trick.plays if trick else []) for c in p.cards)
                if reason.kind == "search":
                    searched += 1
                    best = reason.best
                    assert best is not None and best.wins is not None
                    totals = calls[tuple(sorted(action.cards))]
                    assert best.deals == len(totals) >= 2
                    assert abs(best.total - sum(totals) / len(totals)) <= 0.051
                    assert 0 <= best.wins <= 1
                    assert best.taken is not None and best.given is not None
                    if best.wins == 0:
                        assert best.taken == 0
                    if best.wins == 1:
                        assert best.given == 0
                    # the trick holds what is on the table and the play's own points
                    floor = on_table + sum(POINTS[c] for c in action.cards)
                    assert best.taken + best.given >= floor - 0.1
                    assert reason.attacking == (obs.seat % 2 != obs.dealer % 2)
                    runner = reason.runner_up
                    assert runner is not None and runner.deals >= 2
                    assert sorted(map(len, calls.values())).count(runner.deals) >= 1
                else:
                    assert not calls  # nothing searched: the heuristic's rule
                    assert reason.best is None
                leads = trick is None or not trick.plays
                trumps = all(obs.ctx.suit_class[c] == TRUMP for c in action.cards)
                assert reason.trumps == (leads and trumps)
            state.apply(action)
            if isinstance(action, Play):
                recent = [p for t in state.tricks[-2:] for p in t.plays if p.seat == seat]
                assert recent[-1].reason == action.reason  # kept with the play
    assert searched > 30


def test_the_heuristic_names_the_rule_it_followed():
    # the same play as suggest(), with the rule that chose it
    cases = [
        (observation(2, "10D 2D 9C", [(0, "BJ"), (1, "3S")]), "feed_partner"),
        (observation(2, "3S 2D 9C", [(0, "10H"), (1, "4H")]), "cover_partner"),
        (observation(1, "3S 2D 9C", [(0, "10H")]), "ruff"),
        (observation(2, "BJ BJ 2D 2D 9C 7S", [(0, "8H 8H"), (1, "3H 4H")]), "follow_low_partner"),
        (observation(1, "4H 9H KD", [(0, "10H")]), "duck"),
        (observation(1, "4H AH KD", [(0, "10H")]), "win_cheap"),
        (observation(0, "AH AH 4D 9C", []), "lead_master"),
        (observation(0, "6C 6C 7C 7C 9D 2H", []), "lead_tractor"),
        (observation(0, "3S 5S 7S", []), "lead_trumps"),
    ]
    for obs, kind in cases:
        play, reason = suggest_reasoned(obs, random.Random(0))
        assert play == suggest(obs, random.Random(0))
        assert reason.kind == kind, (obs.hand, play, reason)
        assert reason.attacking == (obs.seat % 2 == 1)  # seat 0 deals
    lead = observation(0, "3S 5S 7S", [])
    assert suggest_reasoned(lead, random.Random(0))[1].trumps


def test_heuristic_kinds_hold_over_whole_hands():
    player = get("heuristic")
    rules = RuleSet.from_preset("classic")
    kinds: set[str] = set()
    for i in range(20):
        state = HandState.new(rules, 900 + i, 2, i % 4, [3, 3])
        rng = random.Random(i)
        state.apply(Deal(n=100))
        while state.phase != "done":
            obs = state.observation(seat_to_act(state))
            action = player(obs, rng)
            if isinstance(action, Play):
                assert action.reason is not None
                kind = action.reason.kind
                kinds.add(kind)
                trick = obs.current_trick
                plays = [p.cards for p in trick.plays] if trick else []
                if kind.startswith("lead_"):
                    assert not plays
                else:
                    assert plays
                    wins = trick_winner(obs.ctx, [*plays, action.cards]) == len(plays)
                    if kind == "ruff":
                        assert wins and play_kind(obs.ctx, plays[0], action.cards, False) == "ruff"
                    if kind in ("duck", "follow_low_partner", "feed_partner"):
                        assert not wins
                    if kind in ("win_cheap", "win_lead", "cover_partner", "overtake"):
                        assert wins
                    if kind == "feed_partner":
                        assert any(POINTS[c] for c in action.cards)
            state.apply(action)
    assert {"lead_master", "lead_short", "duck", "ruff", "win_cheap"} <= kinds


def test_a_reason_is_kept_with_the_play_and_old_saves_load():
    rules = RuleSet.from_preset("classic")
    state = HandState.new(rules, 5, 2, 0, [3, 3])
    state.apply(Deal(n=100))
    player = get("heuristic")
    rng = random.Random(1)
    while state.phase != "playing":
        state.apply(player(state.observation(seat_to_act(state)), rng))
    action = player(state.observation(state.turn), rng)
    assert isinstance(action, Play) and action.reason is not None
    state.apply(action)
    assert state.tricks[-1].plays[0].reason == action.reason
    again = HandState.model_validate_json(state.model_dump_json())
    assert again.tricks[-1].plays[0].reason == action.reason
    # a trick saved before reasons existed loads, without one
    old = Trick.model_validate({"leader": 0, "plays": [{"seat": 0, "cards": parse_cards("3H")}]})
    assert old.plays[0].reason is None
    assert Play.model_validate({"kind": "play", "seat": 0, "cards": [1]}).reason is None
    assert Reason(kind="duck").best is None


def test_a_deadline_cutting_a_world_half_way_leaves_the_reason_its_whole_worlds():
    # the clock passes after n looks: a world cut between two candidates' playouts is
    # dropped, and so is what it told of the trick (the reason counts whole worlds only)
    from engine.players.deadline import Deadline

    player = SearchPlayer(budget_ms=60, endgame=0)
    checked = 0
    for state, seat in positions(1, every=6, first=2):
        obs = state.observation(seat)
        for n in (7, 13, 30):
            looks = itertools.count()
            clock = functools.partial(next, looks)
            cards, reason = player.play_reasoned(obs, random.Random(4), Deadline(n, clock))
            if reason.kind == "search":
                assert reason.best is not None and reason.best.deals >= 2
                assert reason.best.wins is not None and 0 <= reason.best.wins <= 1
                checked += 1
    assert checked > 5
