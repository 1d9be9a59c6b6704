"""Deadlines: deal pace, overturn windows, turn time-outs (托管, RULES.md 13), computer
players' moves, the pause before the next hand, lobby expiry.

Each game has at most one pending timer: the table says which (``bot.table.due``) and
:meth:`Deadlines.arm` (called once per change by ``GameService.change``, which passes
itself as the tables a timer going off changes) arms it; a timer carries the hand
number and state version it was armed for, and the table does nothing with it if the
game moved on (``bot.table.timing``). Timers are not persisted: every open game is
re-armed at start-up. :class:`JobSchedule` runs them on PTB's JobQueue; every delay is
measured with the service's clock.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from functools import partial
from typing import Any, Protocol, cast

from apscheduler.jobstores.base import JobLookupError
from telegram.ext import CallbackContext, Job, JobQueue

from bot import table
from bot.edges.computer import Computers
from bot.infra.config import Settings
from bot.service.live import Game, StepFailed, Tables
from bot.table.commands import Tick
from bot.table.tokens import TimerKind, Token
from bot.views.messages import Clock

log = logging.getLogger(__name__)

# a computer held until the group was shown the last trick won looks again this often,
# for this many group pacing intervals at most (then it plays anyway)
HOLD_POLL_SECONDS = 0.1
HOLD_LIMIT_INTERVALS = 4.0
# timers whose computers' shows (at a search strength) are decided while the timer waits
SHOW_WINDOWS = (TimerKind.DEAL, TimerKind.ROBOTS)
# timers whose change is decided as soon as they are armed: the shows of a window, and a
# computer's move (its delay covers the thinking: at a search strength the pool has the
# whole of it, and the timer going off only applies the move)
AHEAD = (*SHOW_WINDOWS, TimerKind.ROBOT)
# what a timer does when it goes off
Fire = Callable[[], Awaitable[None]]


class Schedule(Protocol):
    """Where the timers run (:class:`JobSchedule`: PTB's JobQueue): at most one a game."""

    def arm(self, game_id: int, token: Token, delay: float, fire: Fire) -> None:
        """The game's timer is this one (the pending one, if any, is replaced)."""

    def disarm(self, game_id: int) -> None: ...


class GroupPace(Protocol):
    """How far the group's table is behind (``bot.delivery.publish.Publisher`` knows): what
    holding a computer's move needs."""

    def trick_won_at(self, game_id: int) -> float | None: ...

    def group_behind(self, game: Game) -> bool: ...


class Deadlines:
    def __init__(
        self,
        schedule: Schedule,
        group: GroupPace,
        computers: Computers,
        settings: Settings,
        clock: Clock,
    ) -> None:
        self.schedule, self.group, self.computers = schedule, group, computers
        self.settings, self.clock = settings, clock
        self._armed: dict[int, Token] = {}  # game -> the token of its pending timer
        # game -> a show window's or a computer's timer and its change, decided while it waits
        self._ahead: dict[int, tuple[Token, Game, asyncio.Task[Tick]]] = {}

    def arm(
        self, tables: Tables, game: Game, due: tuple[Token, float] | None, again: bool = False
    ) -> None:
        """Arm the single timer ``game`` needs now (``bot.table.due``), or none; going
        off, it changes the game through ``tables``. A timer already armed for the same
        moment is left alone (tapping cards does not restart a turn's clock), unless
        ``again`` (arming it may have failed half-way)."""
        game_id = game.table.rec.id
        if due is not None and self._armed.get(game_id) == due[0] and not again:
            return
        if due is None:  # (a new timer replaces the pending one: ``Schedule.arm``)
            self.schedule.disarm(game_id)
        self._armed.pop(game_id, None)
        self._drop_ahead(game_id)
        if due is not None:
            token, delay = due
            self._armed[game_id] = token
            self._schedule(tables, game_id, token, delay)
            if token.kind in AHEAD:
                task = asyncio.get_running_loop().create_task(self._ahead_of(game, token))
                task.add_done_callback(_retrieved)  # a dropped one's failure: fire logs its own
                self._ahead[game_id] = (token, game, task)

    def _schedule(self, tables: Tables, game_id: int, token: Token, delay: float) -> None:
        self.schedule.arm(game_id, token, delay, partial(self.fire, tables, game_id, token))

    def forget(self, game_id: int) -> None:
        """A game that ended leaves: its timer (none is armed for an ended game)."""
        self.schedule.disarm(game_id)
        self._armed.pop(game_id, None)
        self._drop_ahead(game_id)

    def close(self) -> None:
        """The bot stops: nothing is decided ahead any more."""
        for game_id in list(self._ahead):
            self._drop_ahead(game_id)

    def _drop_ahead(self, game_id: int) -> None:
        ahead = self._ahead.pop(game_id, None)
        if ahead is not None:
            ahead[2].cancel()

    async def _ahead_of(self, game: Game, token: Token) -> Tick:
        """A show window's or a computer's move's change, decided as soon as its timer is
        armed: the deal's pace (or the computers' delay) covers the computers' thinking. The game is read once
        the change that armed the timer is done; if it moved on by then, nobody is asked
        and the table does nothing with the tick."""
        async with game.lock:
            pass  # the change that armed this timer is done (saved and published)
        return await self._think(game, token)

    async def fire(self, tables: Tables, game_id: int, token: Token) -> None:
        """A timer went off: act if the game is still where it was when armed."""
        if self._armed.get(game_id) == token:
            del self._armed[game_id]
        ahead = self._ahead.get(game_id)
        if ahead is not None and ahead[0] == token:
            game: Game | None = ahead[1]  # the live game: a game that leaves drops its timer
        else:
            game = await tables.get(game_id)
        if game is not None and self._hold(game, token):
            self._armed[game_id] = token  # the same move, a moment later
            self._schedule(tables, game_id, token, HOLD_POLL_SECONDS)
            return
        if game is not None:
            ahead = self._ahead.pop(game_id, None)
            if ahead is not None and ahead[0] == token:
                tick = await ahead[2]
            else:
                tick = await self._think(game, token)
            await tables.change(game, tick)

    def _hold(self, game: Game, token: Token) -> bool:
        """A computer's move waits while the group's table does not show the last trick
        won yet, polling every ``HOLD_POLL_SECONDS``, for ``HOLD_LIMIT_INTERVALS`` group
        intervals at most (a group whose output fails must not stall the game). People
        are never held: four people pressing faster than the group's pacing are caught
        up by the next table, which repeats in full the tricks the group missed."""
        hand_no, version, kind = token
        match = game.table.match
        if kind != TimerKind.ROBOT or match is None or game.table.rec.paused:
            return False
        if (match.hand.hand_number, match.hand.version) != (hand_no, version):
            return False  # the game moved on: the move is dropped as usual
        won_at = self.group.trick_won_at(game.table.rec.id)
        limit = HOLD_LIMIT_INTERVALS * self.settings.group_interval_seconds
        if won_at is None or self.clock.now() >= won_at + limit:
            return False
        return self.group.group_behind(game)

    async def _think(self, game: Game, token: Token) -> Tick:
        """The timer's change, with the computers' decisions it needs made before the
        game's lock is taken, at every strength (the heuristic at once, a search in a
        worker process meanwhile: the game's presses are not held up): a turn's move, or
        the shows of a deal batch or the after-deal window. The table applies them only
        if the game is still where it was."""
        strength = game.table.rec.computer_strength
        if token.kind in SHOW_WINDOWS:
            asked = table.showing(game.table, token, self.settings)
            shows = await asyncio.gather(
                *(self.computers.act(strength, obs, rng) for obs, rng in asked)
            )
            return Tick(
                token, shows={obs.seat: a for (obs, _), a in zip(asked, shows, strict=True)}
            )
        deciding = table.deciding(game.table, token)
        if deciding is None:
            return Tick(token)
        obs, rng = deciding
        return Tick(token, await self.computers.act(strength, obs, rng))


def _retrieved(task: asyncio.Task[Tick]) -> None:
    if not task.cancelled():
        task.exception()


class _ShutdownCancellations(logging.Filter):
    """APScheduler logs a timer whose task was cancelled as an error ("Error running
    job"): when the bot stops, a job that just came due is cancelled before it runs.
    That is no error: timers are armed again at start-up. Those records are dropped;
    every other record of the scheduler passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, asyncio.CancelledError):
            log.info("a timer was cancelled as the bot stopped (armed again at start-up)")
            return False
        return True


SCHEDULER_LOGGER = "apscheduler.executors.default"
_shutdown_filter = _ShutdownCancellations()


class JobSchedule:
    """The timers on PTB's JobQueue: one pending job a game."""

    def __init__(self, job_queue: JobQueue[Any]) -> None:
        self.job_queue = job_queue
        # each game's pending job, so that disarming needs no scan of every game's jobs
        self._pending: dict[int, Job[Any]] = {}
        scheduler_log = logging.getLogger(SCHEDULER_LOGGER)
        if _shutdown_filter not in scheduler_log.filters:
            scheduler_log.addFilter(_shutdown_filter)

    def disarm(self, game_id: int) -> None:
        job = self._pending.pop(game_id, None)
        if job is None or job.removed:
            return
        try:
            job.schedule_removal()
        except JobLookupError:
            pass  # it ran meanwhile (a date job leaves the scheduler once it ran)

    def arm(self, game_id: int, token: Token, delay: float, fire: Fire) -> None:
        data = (game_id, token, fire)
        job = self._pending.get(game_id)
        if job is not None and not job.removed:
            # the pending job moves to the new time (a play re-arms the turn's clock):
            # a third of removing it and adding a new one (APScheduler inspects the
            # callback's signature for every job added)
            when = datetime.now(self.job_queue.scheduler.timezone)
            try:
                job.job.modify(next_run_time=when + timedelta(seconds=max(0.0, delay)))
            except JobLookupError:
                pass  # it ran meanwhile (a date job leaves the scheduler once it ran)
            else:
                job.data = data
                return
        # however late the loop gets to it (APScheduler drops a job more than 1 s late
        # by default: its game would wait for a timer that never fires)
        self._pending[game_id] = self.job_queue.run_once(
            _fire,
            when=max(0.0, delay),
            data=data,
            name=f"game:{game_id}",
            job_kwargs={"misfire_grace_time": None},
        )


async def _fire(context: CallbackContext[Any, Any, Any, Any]) -> None:
    assert context.job is not None
    game_id, token, fire = cast(tuple[int, Token, Fire], context.job.data)
    try:
        await fire()
    except StepFailed:
        pass  # logged with the game's id; the game is as saved and armed again
    except asyncio.CancelledError:
        # the bot is shutting down: the game's timer is armed again at start-up
        log.info("timer %s of game %s cancelled", token, game_id)
    except Exception:
        log.exception("timer %s of game %s failed", token, game_id)
