"""The scheduler's log when the bot stops: a timer cancelled before it ran is no error."""

import asyncio
import logging

from telegram.ext import JobQueue

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
