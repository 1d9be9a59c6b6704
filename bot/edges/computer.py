"""Computer players in the bot: each group's strength, and thinking off the event loop.

A group chooses how strong its computers (and 托管) play in /settings (a game takes the
group's choice with its other bot options, ``GameRecord.computer_strength``):

- 简单 ``easy`` (the default): the heuristic (well under a millisecond, in the event loop);
- 普通 ``normal``: the search player with a short budget (50 ms of work a card play;
  declaring and the bury think 4 such budgets: :data:`PARTS`);
- 困难 ``hard``: the search player with its full default budget.

The default stays the heuristic: the bot is meant for small shared hosts (two cores),
where a few groups thinking at the full budget would queue; groups opt in.

Search decisions run in a process pool (``loop.run_in_executor``), so while one game's
computer thinks, every other game's presses are answered at once; the turn's timer
(``bot.edges.timers``) asks before it takes the game's lock, so the game's own presses are
not held up either, and applies the move only if the game is still where it was. A
decision is a function of the position and the game's seed (the budget is counted in
work, not time), so a game replays the same, unless the wall-clock ceiling (below) cut
a decision short.

At a search strength every decision of a computer or 托管 seat is searched in the pool
(:data:`SEARCH_OPTIONS`): declaring, overturning and 炒底 (``engine.players.declare``:
+7.4 ± 2.7 points per deal pair alone at the bot's dealing pace), the bury
(``engine.players.bury``: +4.0 ± 1.9 points, +0.10 ± 0.05 levels per deal pair alone,
600 pairs; figures in ``bench/duplicate_eval.py``) and card play. The shows of a deal
batch and of the after-deal window are decided as soon as their timer is armed, so the
deal's pace covers the search (``bot.edges.timers``), and applied by the timer's change only
if the table is still where it was; a seat with nothing to show passes at once, without
the pool. What a batch waits for: ``bench/bench_deal_latency.py``.

The budget is work, so on a loaded host a decision takes longer in wall time. Every
search decision therefore also gets a wall-clock ceiling (``COMPUTER_WALL_FACTOR`` times
its budget, at most ``COMPUTER_WALL_MAX_SECONDS``), counted from when the bot asks (time
waiting for a free worker counts): it stops at its budget of work or at the ceiling,
whichever comes first (``engine.players.deadline``). A decision cut short by the ceiling
is no longer a function of the seed alone. On an idle host it binds on ~2% of 普通's
searched decisions (by the thread's CPU clock; a decision made once, its sub-questions not
yet cached, takes median 1.0 and p90 1.5 times its budget) and changes ~0.1 choices a
hand; what that costs, by ``bench/ceiling_cost.py`` (the hand played on from both
choices where they differ): +0.11 ± 0.67 points per deal pair [-0.56, +0.77] over 391
hands alone on the machine (``bench/results/issue29-ceiling-cost-*``): below 1 point.
At a load of 3-4 on 2 cores, 普通's and 困难's decisions took p95 0.29
and 0.46 s, at most 0.46 and 0.68 s of wall time, and the deal's batches waited nothing
past the pace (``bench/results/issue29-players-load4.txt``).

Each worker ``settle``s the garbage collector after a decision (collects what it left,
freezes the rest): otherwise the full collections that walk the engine's warm caches
(~250,000 objects, 150-270 ms each) fell inside decisions.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from bot.data.options import STRENGTHS
from engine.hand import Action, Observation, Pass, Play
from engine.players import Player, get
from engine.players.deadline import Deadline, settle
from engine.players.declare import PHASES as SHOW_PHASES
from engine.players.heuristic import choose_bury_reasoned, suggest_reasoned
from engine.players.search import DEFAULT_BUDGET_MS, SearchPlayer
from engine.reasons import Reason

# the wall-clock ceiling of a decision: this many times its budget, at most this long
WALL_FACTOR = 1.5
WALL_MAX_SECONDS = 2.0

# a group that chose nothing plays at the host's COMPUTER_STRENGTH (bot.infra.config), this by default
DEFAULT_STRENGTH = "normal"
BUDGET_MS = {"normal": 50, "hard": DEFAULT_BUDGET_MS}
# declaring and the bury think this many card-play budgets: at 普通 they are few decisions a
# hand (most declaring moments have nothing to show and pass at once), so four budgets
# there cost about half as much CPU again as card play and buy most of what they gained
# at 困难's budget (at 50 ms the bury could not search at all); figures in
# ``bench/duplicate_eval.py``
PARTS = {"normal": 4, "hard": 1}
# the search's parts the bot's computers use besides card play: each measured alone
# against the heuristic's (module docstring); 0 turns one back to the heuristic
SEARCH_OPTIONS = {"declare": 1, "bury": 1}

log = logging.getLogger(__name__)


def searches(strength: str | None) -> bool:
    """Whether computers of this strength search (else: the heuristic, in the loop)."""
    strength = strength if strength in STRENGTHS else DEFAULT_STRENGTH
    return strength in BUDGET_MS


def player_for(strength: str) -> Player:
    """The engine player of a strength (an unknown strength plays as the default)."""
    budget = BUDGET_MS.get(strength if strength in STRENGTHS else DEFAULT_STRENGTH)
    if budget is None:
        return get("heuristic")
    parts = budget * PARTS.get(strength, 1)
    return get("search", budget_ms=budget, declare_ms=parts, bury_ms=parts, **SEARCH_OPTIONS)


def ceiling(player: SearchPlayer, obs: Observation, factor: float, max_seconds: float) -> float:
    """The wall-clock ceiling of the decision ``obs`` asks of ``player``, in seconds:
    ``factor`` times its budget (of work, in ms), at most ``max_seconds``."""
    return min(max_seconds, factor * player.work_ms(obs) / 1000)


def _think(player: Player, obs: Observation, seed: int, deadline: Deadline | None) -> Action:
    """In a worker process: the player's decision (the player is resolved in the bot's
    process, so the budget is the one the bot has now), stopped at ``deadline``."""
    if isinstance(player, SearchPlayer):
        action = player(obs, random.Random(seed), deadline)
    else:
        action = player(obs, random.Random(seed))
    settle()  # the next decision meets no full collection of the engine's caches
    return action


class Computers:
    """Decides computer moves; owns the process pool (started on the first search)."""

    def __init__(
        self,
        workers: int | None = None,
        wall_factor: float = WALL_FACTOR,
        wall_max_seconds: float = WALL_MAX_SECONDS,
        default_strength: str = DEFAULT_STRENGTH,
    ) -> None:
        # the strength of a game whose group chose none (the host's COMPUTER_STRENGTH)
        self.default_strength = default_strength
        self.workers = workers or min(2, os.cpu_count() or 1)
        self.wall_factor, self.wall_max_seconds = wall_factor, wall_max_seconds
        self._pool: ProcessPoolExecutor | None = None
        self.thinking = 0  # decisions in flight in the pool
        self.searched: Counter[str] = Counter()  # decisions made in the pool, by phase

    async def act(self, strength: str | None, obs: Observation, rng: random.Random) -> Action:
        """The move of a computer (or 托管) seat of a game whose computers play at ``strength``
        (None: the host's default)."""
        strength = self.strength(strength)
        if not searches(strength):
            return get("heuristic")(obs, rng)
        if obs.phase in SHOW_PHASES and not obs.show_options:
            return Pass(seat=obs.seat)  # nothing to show: what the search says at once
        if self._pool is None:
            # spawned workers: forking the bot's process (threads, an event loop) is unsafe
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(self.workers, mp_context=context)
        loop = asyncio.get_running_loop()
        seed = rng.getrandbits(32)
        self.thinking += 1
        self.searched[obs.phase] += 1
        try:
            player = player_for(strength)
            deadline = None
            if isinstance(player, SearchPlayer):
                limit = ceiling(player, obs, self.wall_factor, self.wall_max_seconds)
                deadline = Deadline(time.monotonic() + limit)
            return await loop.run_in_executor(self._pool, _think, player, obs, seed, deadline)
        except BrokenProcessPool:
            # a worker died (killed, out of memory): the game must not stall on it
            log.error("a computer players' worker process died: this move by the heuristic")
            self.close()  # the next search starts a new pool
            return get("heuristic")(obs, random.Random(seed))
        except Exception:
            log.exception("the search failed (%s): this move by the heuristic", obs.phase)
            return get("heuristic")(obs, random.Random(seed))
        finally:
            self.thinking -= 1

    def strength(self, strength: str | None) -> str:
        """A game's strength: the group's choice, else the host's default."""
        return strength if strength in STRENGTHS else self.default_strength

    def searches(self, strength: str | None) -> bool:
        """Whether a game's computers of this strength (None: the host's default) search."""
        return searches(self.strength(strength))

    async def suggest(
        self, strength: str | None, obs: Observation, rng: random.Random
    ) -> tuple[list[int], Reason]:
        """A Hint's cards for the seat to act and why: the bury by the heuristic at every
        strength; a card play by the heuristic at 简单, by the search (in the pool, with its
        odds) at 普通/困难, the heuristic's when the search gives no reason."""
        if obs.phase == "burying":
            return choose_bury_reasoned(obs)
        if self.searches(strength):
            action = await self.act(strength, obs, rng)
            if isinstance(action, Play) and action.reason is not None:
                return list(action.cards), action.reason
        return suggest_reasoned(obs)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
