"""The scheduler's log when the bot stops: a timer cancelled before it ran is no error."""

import asyncio
import logging
import time
from typing import Any

from telegram.ext import ApplicationBuilder, JobQueue

from bot import timers


async def test_a_timer_cancelled_as_the_bot_stops_logs_no_error_but_a_failing_one_does(caplog):
    class Deadlines:
        arm_timer = disarm_timer = None

    jq = JobQueue()
    timers.attach(Deadlines(), jq)  # type: ignore[arg-type]
    jq.scheduler.start(paused=True)  # the executor names its logger when it starts
    try:
        assert jq._executor._logger.name == timers.SCHEDULER_LOGGER
    finally:
        jq.scheduler.shutdown(wait=False)
    scheduler_log = logging.getLogger(timers.SCHEDULER_LOGGER)
    caplog.set_level(logging.INFO)

    # the scheduler's own report of a job whose task was cancelled, and of one that failed
    def report(exc: BaseException) -> None:
        try:
            raise exc
        except BaseException as e:
            scheduler_log.error("Error running job %s", "game:1", exc_info=(type(e), e, None))

    report(asyncio.CancelledError())
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert any("cancelled as the bot stopped" in r.getMessage() for r in caplog.records)
    report(ValueError("a real failure"))
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "Error running job" in errors[0].getMessage()


async def test_a_timer_that_comes_due_while_the_loop_is_held_still_fires():
    """A busy process (the loop held past a timer's time, e.g. hundreds of tables
    dealing at once) delays a timer, never drops it: a dropped one froze its game."""
    fired: list[int] = []

    class Deadlines:
        arm_timer: Any = None
        disarm_timer: Any = None

        async def fire(self, game_id: int, token: Any) -> None:
            fired.append(game_id)

    ptb = ApplicationBuilder().token("1:TEST").build()
    assert ptb.job_queue is not None
    deadlines = Deadlines()
    timers.attach(deadlines, ptb.job_queue)  # type: ignore[arg-type]
    await ptb.job_queue.start()
    try:
        deadlines.arm_timer(7, (1, 0, "deal"), 0.05)
        time.sleep(1.5)  # the loop does not run meanwhile
        for _ in range(100):
            if fired:
                break
            await asyncio.sleep(0.02)
    finally:
        await ptb.job_queue.stop(wait=False)
    assert fired == [7]
