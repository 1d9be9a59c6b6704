"""Computer players: a heuristic (hints, 托管 auto-play), a search player, random and simple.

:func:`get` is the one way to get a player: a callable ``(observation, rng) -> action``
for the seat that observes (during the deal, a ``Pass`` means "not now").
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.hand import Action, Observation
from engine.players.heuristic import choose_action, choose_bury, choose_show, suggest

Player = Callable[[Observation, random.Random], Action]

NAMES = ("random", "simple", "heuristic", "search")


def get(name: str, **options: Any) -> Player:
    """The player called ``name`` (one of :data:`NAMES`); ``search`` takes ``budget_ms``."""
    if name == "heuristic":
        return choose_action
    if name == "random":
        from engine.players.randomplayer import random_seat_action

        return random_seat_action
    if name == "simple":
        from engine.players.simple import simple_action

        return simple_action
    if name == "search":
        from engine.players.search import SearchPlayer

        return SearchPlayer(**options)
    raise ValueError(f"unknown player: {name!r} (one of {', '.join(NAMES)})")


__all__ = ["NAMES", "Player", "choose_action", "choose_bury", "choose_show", "get", "suggest"]
