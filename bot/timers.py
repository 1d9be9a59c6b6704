"""Deadlines: deal pace, overturn windows, turn time-outs (托管, RULES.md 13), computer
players' moves, the pause before the next hand, lobby expiry.

Each game has at most one pending timer. :meth:`Deadlines.arm` (called once per change
by ``GameService.change``) decides which; a timer carries the hand number and state
version it was armed for, and does nothing if the game moved on. Timers are not
persisted: every open game is re-armed at start-up. :func:`attach` runs them on
PTB's JobQueue; every delay is measured with the service's clock.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from apscheduler.jobstores.base import JobLookupError
from telegram.ext import CallbackContext, Job, JobQueue

from bot.computer import decision_rng
from bot.live import Game, StepFailed
from bot.models import GameRecord
from engine.errors import IllegalAction
from engine.hand import Action, Deal, Pass, Show
from engine.match import MatchState
from engine.players import choose_action

if TYPE_CHECKING:
    from bot.game import GameService

log = logging.getLogger(__name__)

Token = tuple[int, int, str]  # (hand number, state version, kind)
# a computer held until the group was shown the last trick won looks again this often,
# for this many group pacing intervals at most (then it plays anyway)
HOLD_POLL_SECONDS = 0.1
HOLD_LIMIT_INTERVALS = 4.0
# a person whose turn lasts longer than twice this is warned this long before 托管
WARN_SECONDS = 15.0
# ``arm(game_id, token, delay)``; ``disarm(game_id)``
Arm = Callable[[int, Token, float], None]
Disarm = Callable[[int], None]


class Deadlines:
    def __init__(self, svc: GameService) -> None:
        self.svc = svc
        self.arm_timer: Arm = lambda *_: None
        self.disarm_timer: Disarm = lambda *_: None
        self._armed: dict[int, Token] = {}  # game -> the token of its pending timer

    def arm(self, game: Game, again: bool = False) -> None:
        """Arm the single timer this game needs now (or none). A timer already armed
        for the same moment is left alone (tapping cards does not restart a turn's
        clock), unless ``again`` (arming it may have failed half-way)."""
        due = self._due(game)
        game_id = game.rec.id
        if due is not None and self._armed.get(game_id) == due[0] and not again:
            return
        self.disarm_timer(game_id)
        self._armed.pop(game_id, None)
        if due is not None:
            self._armed[game_id] = due[0]
            self.arm_timer(game_id, *due)

    def forget(self, game_id: int) -> None:
        """A game that ended leaves: its timer (none is armed for an ended game)."""
        self.disarm_timer(game_id)
        self._armed.pop(game_id, None)

    def _due(self, game: Game) -> tuple[Token, float] | None:
        rec, match, st = game.rec, game.match, self.svc.settings
        if rec.status == "lobby":
            due = rec.created_at + st.lobby_expiry_minutes * 60 - self.svc.wall()
            return (0, 0, "expire"), max(0.0, due)
        if rec.status != "running" or match is None or rec.paused:
            return None
        n, v = match.hand.hand_number, match.hand.version
        to = match.next_actor()  # the engine says who (or what) acts next
        if to.kind == "deal":
            pace = st.deal_pace_seconds if rec.deal_pace is None else rec.deal_pace
            return (n, v, "deal"), pace
        if to.kind == "window":
            if any(robot(rec, s) for s in to.seats):
                return (n, v, "robots"), st.computer_delay_seconds
            if game.window_deadline is None:  # after a restart: a fresh window
                game.window_deadline = self.svc.now() + st.overturn_window_seconds
            return (n, v, "window"), max(0.0, game.window_deadline - self.svc.now())
        if to.seat is not None:  # one seat's turn: bury, 炒底 or play
            if robot(rec, to.seat):
                return (n, v, "robot"), st.computer_delay_seconds
            # the turn's deadline (its DM shows it); the delays are the turn's own, so
            # a timer is armed once per moment whatever the clock did meanwhile
            self.turn_deadline(game)
            seconds = self._turn_seconds(rec)
            if seconds <= 2 * WARN_SECONDS:
                return (n, v, "timeout"), seconds
            if not game.warned:
                return (n, v, "warn"), seconds - WARN_SECONDS
            return (n, v, "timeout"), WARN_SECONDS
        if to.kind == "next_hand":
            return (n, v, "next"), st.next_hand_delay_seconds
        return None

    def _turn_seconds(self, rec: GameRecord) -> float:
        return rec.turn_seconds or self.svc.settings.turn_timeout_seconds

    def turn_deadline(self, game: Game) -> tuple[float, float] | None:
        """When the turn of the person who acts now runs out and 托管 takes over
        (monotonic, wall clock); set when the turn opens. None: nobody's turn, a
        computer's (托管 included) or the game is paused (it gets its time again)."""
        rec, match = game.rec, game.match
        seat = None if match is None else match.next_actor().seat
        if rec.status != "running" or rec.paused or seat is None or robot(rec, seat):
            game.turn_deadline = None
            return None
        assert match is not None
        key = (match.hand.hand_number, match.hand.version)
        if game.turn_deadline is None or game.turn_deadline[0] != key:
            seconds = self._turn_seconds(rec)
            now, wall = self.svc.now(), self.svc.wall()
            game.turn_deadline = (key, now + seconds, wall + seconds)
            game.warned = False
        return game.turn_deadline[1], game.turn_deadline[2]

    async def fire(self, game_id: int, token: Token) -> None:
        """A timer went off: act if the game is still where it was when armed."""
        if self._armed.get(game_id) == token:
            del self._armed[game_id]
        game = await self.svc.get(game_id)
        if game is not None and self._hold(game, token):
            self._armed[game_id] = token  # the same move, a moment later
            self.arm_timer(game_id, token, HOLD_POLL_SECONDS)
            return
        if game is not None:
            thought = await self._think(game, token)
            await self.svc.change(game, lambda g: self._fire(g, token, thought))

    def _hold(self, game: Game, token: Token) -> bool:
        """A computer waits while the group's table does not show the last trick won
        yet (its output is paced): so a computer never finishes a trick before the
        group was shown the one before, and with computers at the table the group is
        never more than one trick behind. It waits ``HOLD_LIMIT_INTERVALS`` group
        intervals at most (a group whose output fails must not stall the game). People
        are never held: four people pressing faster than the group's pacing are caught
        up by the next table, which repeats in full the tricks the group missed."""
        hand_no, version, kind = token
        match = game.match
        if kind != "robot" or match is None or game.rec.paused:
            return False
        if (match.hand.hand_number, match.hand.version) != (hand_no, version):
            return False  # the game moved on: the move is dropped as usual
        publisher = self.svc.publisher
        won_at = publisher.trick_won_at(game.rec.id)
        limit = HOLD_LIMIT_INTERVALS * self.svc.settings.group_interval_seconds
        if won_at is None or self.svc.now() >= won_at + limit:
            return False
        return publisher.group_behind(game)

    async def _think(self, game: Game, token: Token) -> Action | None:
        """The computer's move for a turn's timer, decided before the game's lock is taken
        (a search runs in a worker process meanwhile: the game's presses are not held up).
        ``_fire`` applies it only if the game is still where it was."""
        hand_no, version, kind = token
        match, rec = game.match, game.rec
        if kind not in ("robot", "timeout") or match is None or match.hand.turn is None:
            return None
        hand = match.hand
        if (hand.hand_number, hand.version) != (hand_no, version):
            return None
        rng = decision_rng(rec.seed, hand.hand_number, hand.version)
        return await self.svc.computers.act(rec.computer_strength, hand.observation(hand.turn), rng)

    def _fire(self, game: Game, token: Token, thought: Action | None = None) -> None:
        hand_no, version, kind = token
        if kind == "expire":
            self.svc.lobby.expire(game)
            return
        match, rec = game.match, game.rec
        if match is None or rec.status != "running" or rec.paused:
            return
        hand = match.hand
        if (hand.hand_number, hand.version) != (hand_no, version):
            return
        if kind == "warn":  # the turn's last seconds: its DM says so once
            game.warned = True
            game.changed(durable=False)
            return
        hands = self.svc.hands
        rng = decision_rng(rec.seed, hand.hand_number, hand.version)
        if kind == "deal":
            match.apply(Deal(n=4 * self.svc.settings.deal_batch))
            for seat in range(4):  # computers race to declare like everyone else
                if rec.seats[seat].computer and hand.phase == "dealing":
                    action = choose_action(hand.observation(seat), rng)
                    if isinstance(action, Show):
                        _try(match, action)
        elif kind == "robots":
            for seat in range(4):
                if robot(rec, seat) and hand.phase == "after_deal" and hand.can_pass(seat):
                    _try(match, choose_action(hand.observation(seat), rng))
        elif kind == "window":
            for seat in range(4):
                if hand.phase == "after_deal" and hand.can_pass(seat):
                    _try(match, Pass(seat=seat))
        elif kind in ("robot", "timeout"):
            seat = hand.turn
            assert seat is not None
            if kind == "robot" and not robot(rec, seat):
                return  # the player came back while the move was being decided
            if kind == "timeout":
                rec.seats[seat].auto = True  # 托管 until the player acts again
            rec.seats[seat].selection = []
            assert thought is not None
            if not _try(match, thought):
                rec.seats[seat].auto = False  # leave the turn to the player; re-armed
        elif kind == "next":
            hands.next_hand(game)
            return
        hands.after_engine(game)


def robot(rec: GameRecord, seat: int) -> bool:
    """The computer acts for this seat: a computer player, or a player on 托管."""
    s = rec.seats[seat]
    return s.computer or s.auto


def _try(match: MatchState, action: Action) -> bool:
    try:
        match.apply(action)
        return True
    except IllegalAction as e:
        log.error("engine refused a computer action %s: %s", action, e)
        return False


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


def attach(service: GameService, job_queue: JobQueue) -> None:  # type: ignore[type-arg]
    def name(game_id: int) -> str:
        return f"game:{game_id}"

    # each game's pending job, so that disarming needs no scan of every game's jobs
    pending: dict[int, Job] = {}  # type: ignore[type-arg]

    def disarm(game_id: int) -> None:
        job = pending.pop(game_id, None)
        if job is None or job.removed:
            return
        try:
            job.schedule_removal()
        except JobLookupError:
            pass  # it ran meanwhile (a date job leaves the scheduler once it ran)

    def arm(game_id: int, token: Token, delay: float) -> None:
        when = max(0.0, delay)
        pending[game_id] = job_queue.run_once(
            _fire, when=when, data=(game_id, token), name=name(game_id)
        )

    async def _fire(context: CallbackContext) -> None:  # type: ignore[type-arg]
        game_id, token = context.job.data  # type: ignore[union-attr,misc]
        try:
            await service.deadlines.fire(game_id, token)
        except StepFailed:
            pass  # logged with the game's id; the game is as saved and armed again
        except asyncio.CancelledError:
            # the bot is shutting down: the game's timer is armed again at start-up
            log.info("timer %s of game %s cancelled", token, game_id)
        except Exception:
            log.exception("timer %s of game %s failed", token, game_id)

    scheduler_log = logging.getLogger(SCHEDULER_LOGGER)
    if _shutdown_filter not in scheduler_log.filters:
        scheduler_log.addFilter(_shutdown_filter)
    service.deadlines.arm_timer = arm
    service.deadlines.disarm_timer = disarm
