"""Deadlines on PTB's JobQueue: deal pace, overturn windows, turn time-outs (托管,
RULES.md 13), computer players' moves, the pause before the next hand, lobby expiry.

Each game has at most one pending job, named after the game. A job carries the
hand number and state version it was armed for; if the game moved on, it does
nothing. Jobs are not persisted: GameService re-arms every open game at start-up.
"""

from __future__ import annotations

import logging

from telegram.ext import CallbackContext, JobQueue

from bot.game import GameService

log = logging.getLogger(__name__)


def attach(service: GameService, job_queue: JobQueue) -> None:
    def name(game_id: int) -> str:
        return f"game:{game_id}"

    def disarm(game_id: int) -> None:
        for job in job_queue.get_jobs_by_name(name(game_id)):
            job.schedule_removal()

    def arm(game_id: int, token: tuple[int, int, str], delay: float) -> None:
        job_queue.run_once(_fire, when=max(0.0, delay), data=(game_id, token), name=name(game_id))

    async def _fire(context: CallbackContext) -> None:  # type: ignore[type-arg]
        game_id, token = context.job.data  # type: ignore[union-attr,misc]
        try:
            await service.fire(game_id, token)
        except Exception:
            log.exception("timer %s of game %s failed", token, game_id)

    service.arm = arm
    service.disarm = disarm
