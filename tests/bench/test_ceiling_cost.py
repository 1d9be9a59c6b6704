"""bench/ceiling_cost.py decides each searched decision once, with a deadline that only
notes where the clock passed it, and again only where it did, with a deadline that passes
at that same look: that must be exactly the decision a search cut there by the clock
makes, and a deadline that never passes must change nothing."""

from __future__ import annotations

import functools
import itertools
import random

from bench.ceiling_cost import AtLook, Shadow, seat_to_act, step
from bot.edges.computer import player_for
from engine.hand import Action, HandState
from engine.players.deadline import Deadline
from engine.players.search import SearchPlayer
from engine.rules import RuleSet


def test_a_shadow_changes_nothing_and_a_cut_at_a_look_is_the_clocks_cut() -> None:
    player = player_for("normal")  # the bot's 普通, as the bench runs it
    assert isinstance(player, SearchPlayer)
    state = HandState.new(RuleSet.from_preset("classic"), 7, 2, 0, [3, 3])
    rng = random.Random(7)
    checked: list[str] = []

    def decide(seat: int) -> Action:
        obs = state.observation(seat)
        bits = rng.getrandbits(32)
        plain = player(obs, random.Random(bits))
        if not player.work_ms(obs) or len(checked) >= 12:
            return plain
        shadow = Shadow(float("inf"), lambda: 0.0)
        assert player(obs, random.Random(bits), shadow) == plain
        assert shadow.crossed is None
        if not shadow.looks:  # decided before its first look (one world, one choice)
            return plain
        for n in {1, shadow.looks // 2 + 1}:
            looks = functools.partial(next, itertools.count(1))  # a clock: the looks so far
            by_clock = player(obs, random.Random(bits), Deadline(n, looks))
            assert player(obs, random.Random(bits), AtLook(n)) == by_clock
        crossed = Shadow(0.0, lambda: 1.0)  # past from the first look on
        player(obs, random.Random(bits), crossed)
        assert crossed.crossed == 1
        checked.append(obs.phase)
        return plain

    while state.phase != "done" and len(checked) < 12:
        if state.phase == "dealing":
            step(state, decide, 3)
        else:
            state.apply(decide(seat_to_act(state)))
    assert set(checked) >= {"burying", "playing"} and len(checked) == 12, checked
