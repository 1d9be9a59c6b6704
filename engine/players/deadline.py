"""A wall-clock ceiling on a decision, for a host whose cores are shared.

The search's budget is work (simulated plays), so a decision is a function of the
observation and the random stream alone: reproducible, which duplicate benches and tests
need. On a loaded machine the same work takes longer in wall time, and a person waits for
it; so the bot may also give a decision a :class:`Deadline`. The searches (card play,
the exact endgame, the bury, declaring) look at it between sampled worlds (the endgame
solver also every ``CHECK_NODES`` positions) and, once it has passed, decide from the
worlds they have met, or as the heuristic does with fewer than two. Without a deadline
nothing reads a clock.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

CHECK_NODES = 256  # solver positions between two looks at the clock (about 0.1 ms of work)


class Deadline:
    """A moment on ``clock`` (seconds; by default the machine's monotonic clock, which
    every process of the machine shares, so the bot can set it and a worker obey it)."""

    __slots__ = ("at", "clock")

    def __init__(self, at: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.at = at
        self.clock = clock

    @classmethod
    def after(cls, seconds: float, clock: Callable[[], float] = time.monotonic) -> Deadline:
        return cls(clock() + seconds, clock)

    def passed(self) -> bool:
        return self.clock() >= self.at

    def __repr__(self) -> str:
        return f"Deadline(at={self.at!r})"


def passed(deadline: Deadline | None) -> bool:
    """Whether ``deadline`` (None: no ceiling) has passed."""
    return deadline is not None and deadline.passed()


class OutOfTime(Exception):
    """A search step stopped half-way at its deadline (its partial result is dropped)."""


def settle() -> None:
    """After a decision, in a process that makes many: collect what the decision left and
    freeze the rest out of the cycle collector's sight.

    The engine's bounded caches (units, follows, tricks) hold ~250,000 objects once warm.
    As their entries churn, Python's full collection keeps being triggered and walks them
    all: ~150-250 ms a time, 17 times in 4 hands, inside whatever decision was running
    (a 50 ms card play took up to 330 ms of CPU, and the wall-clock ceiling cut decisions
    on an idle machine). A collection now walks only the objects since the last decision
    (median 0.6 ms, p99 15 ms), and the frozen ones are still freed by reference
    counting when a cache drops them. What would leak is a reference cycle still alive
    at a freeze and dropped later: the engine makes none on the search's path (a test
    checks a searched hand leaves no cyclic garbage)."""
    gc.collect()
    gc.freeze()
