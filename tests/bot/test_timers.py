"""The scheduler's log when the bot stops: a timer cancelled before it ran is no error."""

import asyncio
import logging
import time

from telegram.ext import ApplicationBuilder, JobQueue

from bot.edges import timers
from bot.table.tokens import TimerKind, Token


async def test_a_timer_cancelled_as_the_bot_stops_logs_no_error_but_a_failing_one_does(caplog):
    jq = JobQueue()
    timers.JobSchedule(jq)
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

    async def fire() -> None:
        fired.append(7)

    ptb = ApplicationBuilder().token("1:TEST").build()
    assert ptb.job_queue is not None
    schedule = timers.JobSchedule(ptb.job_queue)
    await ptb.job_queue.start()
    try:
        schedule.arm(7, Token(1, 0, TimerKind.DEAL), 0.05, fire)
        time.sleep(1.5)  # the loop does not run meanwhile
        for _ in range(100):
            if fired:
                break
            await asyncio.sleep(0.02)
    finally:
        await ptb.job_queue.stop(wait=False)
    assert fired == [7]


def _ann_and_three_computers(strength: str):
    """A game started by Ann with three computers playing at ``strength``, and the host's
    settings."""
    from bot import table
    from bot.data.saved import GameRecord
    from bot.infra.config import Settings
    from bot.service.live import Game
    from bot.table import Moment
    from bot.table.commands import AddComputer, Join, Start

    settings = Settings(_env_file=None, bot_token="0:x")  # type: ignore[call-arg]
    rec = GameRecord(id=1, chat_id=-1, creator_id=1, seed=5, created_at=0.0)
    rec.computer_strength = strength
    game = Game(table.Table(rec))
    table.apply(game.table, Join(0, 1, "Ann", "en"), settings, Moment(0, 0))
    for command in (AddComputer(1), AddComputer(1), AddComputer(1), Start(1)):
        table.apply(game.table, command, settings, Moment(0, 0))
    return game, settings


async def test_a_deal_batchs_shows_are_decided_while_its_timer_waits():
    """At a search strength the computers' shows of the next batch are asked for when
    the deal's timer is armed, so the deal's pace covers the search; the timer going
    off applies that change without asking again. Re-armed (someone showed meanwhile),
    the earlier thinking is dropped."""
    from bot import table
    from bot.table import Moment
    from bot.table.commands import Tick
    from engine.hand import Pass

    game, settings = _ann_and_three_computers("normal")
    asked: list[int] = []
    changes: list[Tick] = []

    class Computers:
        async def act(self, strength, obs, rng):
            asked.append(obs.seat)
            await asyncio.sleep(0.01)  # thinking in the pool
            return Pass(seat=obs.seat)

    class Tables:
        async def get(self, game_id):
            return game

        async def change(self, game, command):
            changes.append(command)

    class Schedule:
        def arm(self, game_id, token, delay, fire):
            pass  # the test makes the timer go off itself

        def disarm(self, game_id):
            pass

    deadlines = timers.Deadlines(Schedule(), None, Computers(), settings, None)  # type: ignore[arg-type]
    tables = Tables()
    found = table.due(game.table, settings, Moment(0, 0))
    assert found is not None and found[0].kind == TimerKind.DEAL
    deadlines.arm(tables, game, found)
    await asyncio.sleep(0.05)  # the timer has not gone off yet
    assert asked == [1, 2, 3], "the computers thought while the timer waited"
    await deadlines.fire(tables, 1, found[0])
    assert asked == [1, 2, 3], "and were not asked again when it went off"
    assert len(changes) == 1 and changes[0].token == found[0]
    assert changes[0].shows == {s: Pass(seat=s) for s in (1, 2, 3)}

    deadlines.arm(tables, game, found)
    ahead = deadlines._ahead[1][2]
    moved_on = found[0]._replace(version=found[0].version + 1)
    deadlines.arm(tables, game, (moved_on, 1.0))  # the table moved on
    await asyncio.sleep(0)
    assert ahead.cancelled()
    deadlines.close()


async def test_a_timer_armed_again_fires_once_at_its_new_time_with_its_new_token():
    """Re-arming a game's pending timer (a play re-arms the turn's clock) moves it: the
    old token never fires, the new one fires once at its own time; once it went off,
    arming again schedules anew."""
    fired: list[Token] = []

    def firing(token: Token):
        async def fire() -> None:
            fired.append(token)

        return fire

    ptb = ApplicationBuilder().token("1:TEST").build()
    assert ptb.job_queue is not None
    schedule = timers.JobSchedule(ptb.job_queue)
    await ptb.job_queue.start()
    first, second, third = (Token(1, v, TimerKind.TIMEOUT) for v in (1, 2, 3))
    try:
        schedule.arm(7, first, 0.05, firing(first))
        schedule.arm(7, second, 0.3, firing(second))  # before the first came due
        assert len(ptb.job_queue.get_jobs_by_name("game:7")) == 1
        await asyncio.sleep(0.15)
        assert fired == [], "the replaced timer did not go off"
        for _ in range(50):
            if fired:
                break
            await asyncio.sleep(0.02)
        assert fired == [second]
        schedule.arm(7, third, 0.05, firing(third))  # the job ran: a new one
        for _ in range(50):
            if len(fired) == 2:
                break
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)
        assert fired == [second, third]
    finally:
        await ptb.job_queue.stop(wait=False)


async def test_a_computers_move_is_decided_while_its_timer_waits():
    """A computer's turn: its move is asked for when the timer is armed (at a search
    strength the pool gets the whole delay); the timer going off applies that move
    without asking again, to the game the timer was armed for."""
    from bot import table
    from bot.edges.computer import Computers as RealComputers
    from bot.table import Moment
    from bot.table.commands import Tick

    game, settings = _ann_and_three_computers("easy")
    heuristic = RealComputers(default_strength="easy")
    asked: list[tuple[int, int]] = []

    class Computers:
        async def act(self, strength, obs, rng):
            asked.append((obs.seat, obs.version))
            return await heuristic.act(strength, obs, rng)

    class Schedule:
        def arm(self, game_id, token, delay, fire):
            pass

        def disarm(self, game_id):
            pass

    changes: list[Tick] = []

    class Tables:
        async def get(self, game_id):
            raise AssertionError("the armed game is used, not looked up again")

        async def change(self, game, command):
            changes.append(command)
            table.apply(game.table, command, settings, Moment(0, 0))

    deadlines = timers.Deadlines(Schedule(), None, Computers(), settings, None)  # type: ignore[arg-type]
    deadlines._hold = lambda game, token: False  # type: ignore[method-assign]
    tables = Tables()
    # play until a computer's turn comes: every timer's change as the bot makes it
    for _ in range(400):
        due = table.due(game.table, settings, Moment(0, 0))
        assert due is not None
        if due[0].kind == TimerKind.ROBOT:
            break
        table.apply(game.table, await deadlines._think(game, due[0]), settings, Moment(0, 0))
    else:
        raise AssertionError("no computer's turn came")
    token = due[0]
    asked.clear()
    deadlines.arm(tables, game, due)  # type: ignore[arg-type]
    await asyncio.sleep(0.01)  # the timer has not gone off yet
    assert asked == [(game.match.hand.turn, token.version)], "the computer thought at once"
    await deadlines.fire(tables, 1, token)  # type: ignore[arg-type]
    assert len(asked) == 1, "and was not asked again when the timer went off"
    assert len(changes) == 1 and changes[0].token == token and changes[0].thought is not None
    assert game.match.hand.version > token.version, "the move was applied"
    deadlines.close()
