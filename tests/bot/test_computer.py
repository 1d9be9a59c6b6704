"""bot.edges.computer: search decisions run in a process pool and never block the event loop, and\nstop at a wall-clock ceiling whatever their budget of work."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from bot.edges import computer
from bot.edges.computer import Computers
from bot.infra.config import Settings
from engine.hand import Bury, Deal, HandState, Pass, Show
from engine.players import get
from engine.players.bury import BURY_SCALE
from engine.players.deadline import Deadline
from engine.players.heuristic import choose_bury
from engine.players.search import SearchPlayer
from engine.rules import RuleSet


def a_position() -> HandState:
    """A hand in play, a few tricks in (heuristic play), with a real choice to make."""
    state = HandState.new(RuleSet.from_preset("classic"), 8, 2, 0, [3, 3])
    state.apply(Deal(n=100))
    player, rng = get("heuristic"), random.Random(0)
    while state.phase != "playing" or len(state.tricks) < 3:
        seat = (
            next(s for s in range(4) if state.can_pass(s))
            if state.phase == "after_deal"
            else state.turn
        )
        state.apply(player(state.observation(seat), rng))
    return state


async def test_the_event_loop_runs_while_a_search_decision_is_made():
    computers = Computers(workers=1)
    try:
        state = a_position()
        obs = state.observation(state.turn)  # type: ignore[arg-type]
        ticks = 0

        async def other_games() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0)
                ticks += 1

        others = asyncio.create_task(other_games())
        action = await computers.act("hard", obs, random.Random(1))
        others.cancel()
        assert computers._pool is not None
        assert ticks > 100, "other tasks ran while the computer thought"
        state.apply(action)  # a legal play
    finally:
        computers.close()


async def test_easy_decides_in_the_loop_like_the_heuristic():
    computers = Computers()
    state = a_position()
    obs = state.observation(state.turn)  # type: ignore[arg-type]
    action = await computers.act("easy", obs, random.Random(1))
    assert action == get("heuristic")(obs, random.Random(1))
    assert computers._pool is None


def test_a_game_whose_group_chose_no_strength_plays_at_the_hosts_default():
    assert Computers().strength(None) == "normal" and Computers().searches(None)
    easy_host = Computers(default_strength="easy")
    assert easy_host.strength(None) == "easy" and not easy_host.searches(None)
    assert easy_host.strength("hard") == "hard" and easy_host.searches("hard")
    assert Settings(_env_file=None).computer_strength == "normal"  # type: ignore[call-arg]


def a_moment(phase: str) -> HandState:
    """A hand (heuristic play) at its first moment in ``phase``: a show to decide while
    dealing, or the dealer's bury."""
    for seed in range(100):
        state = HandState.new(RuleSet.from_preset("classic"), seed, 2, 0, [3, 3])
        player, rng = get("heuristic"), random.Random(0)
        while state.phase != "done":
            if state.phase == "dealing":
                state.apply(Deal(n=12))
                if phase == "dealing" and state.phase == "dealing":
                    if any(state.show_options(s) for s in range(4)):
                        return state
                continue
            if state.phase == phase:
                return state
            seat = (
                next(s for s in range(4) if state.can_pass(s))
                if state.phase == "after_deal"
                else state.turn
            )
            state.apply(player(state.observation(seat), rng))
    raise AssertionError(phase)


async def test_a_search_strength_buries_and_shows_in_the_pool_at_its_budget(monkeypatch):
    monkeypatch.setitem(computer.BUDGET_MS, "normal", 5)  # the bot's budget reaches the pool
    computers = Computers(workers=1)
    try:
        state = a_moment("burying")
        obs = state.observation(state.turn)  # type: ignore[arg-type]
        bury = await computers.act("normal", obs, random.Random(1))
        assert isinstance(bury, Bury) and len(bury.cards) == 8
        state.apply(bury)  # a legal bury
        assert computers.searched == {"burying": 1}

        state = a_moment("dealing")
        seat = next(s for s in range(4) if state.show_options(s))
        action = await computers.act("normal", state.observation(seat), random.Random(1))
        assert isinstance(action, Show | Pass)
        if isinstance(action, Show):
            state.apply(action)
        assert computers.searched == {"burying": 1, "dealing": 1}
        # a seat with nothing to show passes at once, without the pool
        other = next(s for s in range(4) if not state.show_options(s))
        action = await computers.act("normal", state.observation(other), random.Random(1))
        assert action == Pass(seat=other) and computers.searched["dealing"] == 1
    finally:
        computers.close()


async def test_easy_buries_in_the_loop_like_the_heuristic():
    computers = Computers()
    state = a_moment("burying")
    obs = state.observation(state.turn)  # type: ignore[arg-type]
    assert await computers.act("easy", obs, random.Random(1)) == get("heuristic")(
        obs, random.Random(1)
    )
    assert computers._pool is None and not computers.searched


async def test_a_dead_worker_process_costs_one_heuristic_move_not_the_game(caplog):
    computers = Computers(workers=1)
    try:
        state = a_position()
        obs = state.observation(state.turn)  # type: ignore[arg-type]
        await computers.act("normal", obs, random.Random(1))  # the pool is up
        pool = computers._pool
        assert pool is not None
        for process in list(pool._processes.values()):  # as the OOM killer would
            process.kill()
            process.join()
        action = await computers.act("normal", obs, random.Random(1))
        assert action == get("heuristic")(obs, random.Random(random.Random(1).getrandbits(32)))
        errors = [r for r in caplog.records if r.levelname == "ERROR"]
        assert len(errors) == 1 and "worker process died" in errors[0].getMessage()
        assert not errors[0].exc_info
        again = await computers.act("normal", obs, random.Random(2))  # a new pool
        assert computers._pool is not None and computers._pool is not pool
        state.apply(again)
    finally:
        computers.close()


async def test_a_decision_stops_at_its_wall_clock_ceiling_whatever_its_budget(monkeypatch):
    # a bury budget of 100 s of work (thousands of playouts); the ceiling: 0.3 s of wall time
    monkeypatch.setitem(computer.BUDGET_MS, "normal", 100_000)
    computers = Computers(workers=1, wall_factor=1.5, wall_max_seconds=0.3)
    try:
        state = a_position()
        await computers.act("normal", state.observation(state.turn), random.Random(1))  # type: ignore[arg-type]
        state = a_moment("burying")
        obs = state.observation(state.turn)  # type: ignore[arg-type]
        start = time.monotonic()
        bury = await computers.act("normal", obs, random.Random(1))
        took = time.monotonic() - start
        assert isinstance(bury, Bury)
        state.apply(bury)  # a legal bury
        assert took < 10, f"the bury took {took:.1f} s"  # a budget's worth takes minutes
    finally:
        computers.close()


def test_the_ceiling_is_the_settings_factor_of_each_decisions_budget_at_most_their_max():
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (settings.computer_wall_factor, settings.computer_wall_max_seconds) == (1.5, 2.0)
    normal, hard = computer.player_for("normal"), computer.player_for("hard")
    assert isinstance(normal, SearchPlayer) and isinstance(hard, SearchPlayer)
    state = a_position()
    play = state.observation(state.turn)  # type: ignore[arg-type]
    assert computer.ceiling(normal, play, 1.5, 2.0) == pytest.approx(1.5 * normal.budget_ms / 1000)
    assert computer.ceiling(hard, play, 1.5, 2.0) == pytest.approx(1.5 * hard.budget_ms / 1000)
    assert computer.ceiling(hard, play, 10.0, 2.0) == 2.0  # never more than the max
    state = a_moment("burying")
    bury = state.observation(state.turn)  # type: ignore[arg-type]
    assert computer.ceiling(hard, bury, 1.5, 2.0) == pytest.approx(1.5 * hard.work_ms(bury) / 1000)
    assert hard.work_ms(bury) == hard.bury_ms * BURY_SCALE


def test_a_search_decision_in_the_worker_gets_its_deadline():
    # what the worker runs: with a deadline already past, the heuristic's bury at once
    # (without the deadline the search would think for minutes)
    state = a_moment("burying")
    obs = state.observation(state.turn)  # type: ignore[arg-type]
    player = get("search", budget_ms=100_000)
    late = computer._think(player, obs, 5, Deadline(time.monotonic() - 1))
    assert late == Bury(seat=obs.seat, cards=choose_bury(obs))


def test_the_worker_settles_the_collector_after_each_decision():
    # the worker's next decision must not meet a full collection of the engine's caches
    # (engine.players.deadline.settle): after a decision everything alive is frozen
    import gc

    state = a_position()
    obs = state.observation(state.turn)  # type: ignore[arg-type]
    gc.unfreeze()
    try:
        computer._think(get("search", budget_ms=5), obs, 5, None)
        assert gc.get_freeze_count() > 0 and gc.get_count()[0] < 100
    finally:
        gc.unfreeze()
