"""A wall-clock deadline on the search's decisions (engine.players.deadline): with a slow
clock every kind of decision stops at the deadline and still decides legally; without a
deadline (or with one never reached) a decision is exactly as before, work-counted and
reproducible."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import pytest

from engine.hand import Bury, Pass, Play, Show
from engine.players import bury, declare, heuristic, search
from engine.players.deadline import CHECK_NODES, Deadline, OutOfTime
from engine.players.endgame import Solver
from engine.players.search import SearchPlayer
from engine.seats import team_of
from tests.engine.test_players_declare import declaring_positions
from tests.engine.test_players_endgame import endgames
from tests.engine.test_players_search import bury_positions, positions


def slow_clock(step: float = 1.0) -> Callable[[], float]:
    """A clock that moves ``step`` seconds each time it is read (a very busy host)."""
    ticks = itertools.count()
    return lambda: next(ticks) * step


def stopped_clock() -> float:
    return 0.0


def counting(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    """Count the calls of ``module.name`` (a playout or a rollout) from now on."""
    calls = [0]
    real = getattr(module, name)

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def searched_positions(player: SearchPlayer, n: int) -> list:  # type: ignore[type-arg]
    """Middle-game positions where ``player`` really searches (more than one candidate)."""
    out = []
    for state, seat in positions(12, every=9):
        obs = state.observation(seat)
        if (
            max(obs.card_counts) > player.endgame
            and len(search.candidates(obs, [], random.Random(0))) > 2
        ):
            out.append((state.model_copy(deep=True), seat))
        if len(out) == n:
            break
    return out


def test_card_play_stops_at_the_deadline_and_is_unchanged_without_one(monkeypatch):
    player = SearchPlayer(budget_ms=300)
    cases = searched_positions(player, 4)
    assert len(cases) == 4
    playouts = counting(monkeypatch, search, "playout")
    worlds = counting(monkeypatch, search, "sample")
    for state, seat in cases:
        obs = state.observation(seat)
        playouts[0] = 0
        free = player(obs, random.Random(5))
        work = playouts[0]
        assert work > 40  # the budget's worth of worlds
        # the same again, and with a deadline that never comes: the same play, the same work
        playouts[0] = 0
        assert player(obs, random.Random(5)) == free and playouts[0] == work
        playouts[0] = 0
        assert player(obs, random.Random(5), Deadline(1.0, stopped_clock)) == free
        assert playouts[0] == work
        # a clock that moves a second a look (one before each world and each playout),
        # a deadline 40.5 s away: 40 playouts at most, and at least two whole worlds
        playouts[0] = worlds[0] = 0
        late = player(obs, random.Random(5), Deadline(40.5, slow_clock()))
        assert isinstance(late, Play)
        state.model_copy(deep=True).apply(late)  # legal
        assert worlds[0] >= 2 and 0 < playouts[0] <= 40 < work
        # a deadline already gone: the heuristic's play, no world sampled
        playouts[0] = 0
        gone = player(obs, random.Random(5), Deadline(0.0, stopped_clock))
        assert gone.cards == heuristic.suggest(obs, random.Random(5))  # type: ignore[union-attr]
        assert playouts[0] == 0


def test_the_endgame_solver_stops_mid_world_at_the_deadline():
    state, seat = endgames(4, 8, first=40)[0]
    obs = state.observation(seat)
    assert obs.dealer is not None
    hands = [tuple(sorted(h)) for h in state.hands]
    trick = obs.current_trick
    so_far = [(p.seat, tuple(p.cards)) for p in trick.plays] if trick else []

    def solver(deadline: Deadline | None = None) -> Solver:
        assert obs.dealer is not None
        return Solver(obs.ctx, obs.rules, state.kitty, team_of(obs.dealer), deadline)

    free = solver()
    value = free.value(hands, so_far, seat)
    assert free.nodes > CHECK_NODES  # a world big enough to be cut
    timed = solver(Deadline(0.5, slow_clock()))
    with pytest.raises(OutOfTime):
        timed.value(hands, so_far, seat)
    assert timed.nodes == 2 * CHECK_NODES  # it reads 0 s, then 1 s: past 0.5 s, it stops
    never = solver(Deadline(1.0, stopped_clock))
    assert never.value(hands, so_far, seat) == value and never.nodes == free.nodes


def test_an_endgame_decision_past_its_deadline_is_the_heuristics():
    player = SearchPlayer(budget_ms=300)
    for state, seat in endgames(4, 6, first=40):
        obs = state.observation(seat)
        own = heuristic.suggest(obs, random.Random(2))
        late = player.play(obs, random.Random(2), Deadline(0.0, stopped_clock))
        assert late == own
        assert player.play(obs, random.Random(2), Deadline(1.0, stopped_clock)) == player.play(
            obs, random.Random(2)
        )


def test_the_bury_stops_at_the_deadline_and_is_unchanged_without_one(monkeypatch):
    player = SearchPlayer(budget_ms=50, bury_ms=300)
    playouts = counting(monkeypatch, bury, "playout")
    worlds = counting(monkeypatch, bury, "sample")
    for state, seat in bury_positions(2, first=40):
        obs = state.observation(seat)
        playouts[0] = 0
        free = player(obs, random.Random(3))
        work = playouts[0]
        assert work > 100
        playouts[0] = 0
        assert player(obs, random.Random(3), Deadline(1.0, stopped_clock)) == free
        assert playouts[0] == work
        playouts[0] = worlds[0] = 0
        late = player(obs, random.Random(3), Deadline(60.5, slow_clock()))
        assert isinstance(late, Bury) and len(late.cards) == 8
        assert worlds[0] >= 2 and 0 < playouts[0] <= 60 < work
        state.model_copy(deep=True).apply(late)  # legal
        playouts[0] = 0
        gone = player(obs, random.Random(3), Deadline(0.0, stopped_clock))
        assert gone == Bury(seat=seat, cards=heuristic.choose_bury(obs)) and playouts[0] == 0


def test_declaring_stops_at_the_deadline_and_is_unchanged_without_one(monkeypatch):
    player = SearchPlayer(budget_ms=300)
    rollouts = counting(monkeypatch, declare, "rollout")
    checked = 0
    for state, seat in declaring_positions("classic", 6):
        obs = state.observation(seat)
        rollouts[0] = 0
        free = player(obs, random.Random(4))
        work = rollouts[0]
        if work == 0:
            continue
        rollouts[0] = 0
        assert player(obs, random.Random(4), Deadline(1.0, stopped_clock)) == free
        assert rollouts[0] == work
        rollouts[0] = 0
        late = player(obs, random.Random(4), Deadline(12.5, slow_clock()))
        assert isinstance(late, Show | Pass)
        assert rollouts[0] <= 12 < work
        rollouts[0] = 0
        gone = player(obs, random.Random(4), Deadline(0.0, stopped_clock))
        assert gone == heuristic.choose_action(obs, random.Random(4)) and rollouts[0] == 0
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def test_work_ms_is_each_decisions_budget():
    player = SearchPlayer(budget_ms=50, bury_ms=120)
    (state, seat), *_ = bury_positions(1, first=40)
    assert player.work_ms(state.observation(seat)) == 120 * bury.BURY_SCALE
    state, seat = searched_positions(player, 1)[0]
    assert player.work_ms(state.observation(seat)) == 50
    state, seat = next(iter(declaring_positions("classic", 2)))
    assert player.work_ms(state.observation(seat)) == 50 * declare.BUDGET_FACTOR


def test_an_endgames_solving_stays_within_its_budget_of_positions(monkeypatch):
    # a world too big for half the budget is not solved whole: the endgame is played out
    solvers: list[Solver] = []
    real = Solver.__init__

    def init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        real(self, *args, **kwargs)
        solvers.append(self)

    monkeypatch.setattr(Solver, "__init__", init)
    player = SearchPlayer(budget_ms=50)
    budget = 50 * search.PLAYS_PER_MS * search.NODES_PER_PLAY
    outcomes = {"solved": 0, "played out": 0}
    for state, seat in endgames(4, 24, first=100):
        obs = state.observation(seat)
        solvers.clear()
        own = heuristic.suggest(obs, random.Random(1))
        solved = player.solve(obs, own, random.Random(1))
        if not solvers:
            continue  # nothing to tell apart
        assert sum(s.nodes for s in solvers) <= budget + len(solvers)
        outcomes["solved" if solved is not None else "played out"] += 1
        state.model_copy(deep=True).apply(Play(seat=seat, cards=player.play(obs, random.Random(1))))
    assert outcomes["solved"] >= 3 and outcomes["played out"] >= 3


def test_a_searched_hand_leaves_no_cyclic_garbage_and_settle_freezes_the_rest() -> None:
    """The search's path makes no reference cycle (a recursive closure is one: the
    legal-play and tractor-cover helpers made tens of thousands a hand), so freezing the
    survivors after a decision (``settle``, which the bot's workers call) leaks nothing,
    and a full collection afterwards walks none of the engine's caches."""
    import gc

    from engine.hand import Deal, HandState
    from engine.players.deadline import settle
    from engine.rules import RuleSet

    player = SearchPlayer(budget_ms=10)
    state = HandState.new(RuleSet(), 42071, 2, 0, [3, 3])
    rng = random.Random(5)
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        decisions = 0
        while state.phase != "done":
            if state.phase == "dealing":
                state.apply(Deal(n=100))
                continue
            seat = (
                next(s for s in range(4) if state.can_pass(s))
                if state.phase == "after_deal"
                else state.turn
            )
            state.apply(player(state.observation(seat), rng))
            decisions += 1
        assert decisions > 60
        assert gc.collect() == 0  # nothing the hand dropped was left to the cycle collector
        frozen = gc.get_freeze_count()
        settle()
        assert gc.get_freeze_count() > frozen
        assert gc.get_count()[0] < 100  # the young generation is empty after it
    finally:
        gc.unfreeze()
        if was:
            gc.enable()
