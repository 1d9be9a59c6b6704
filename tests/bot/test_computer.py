"""bot.computer: search decisions run in a process pool and never block the event loop."""

from __future__ import annotations

import asyncio
import random

from bot.computer import Computers
from engine.hand import Deal, HandState
from engine.players import get
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
    action = await computers.act(None, obs, random.Random(1))  # the default: easy
    assert action == get("heuristic")(obs, random.Random(1))
    assert computers._pool is None
