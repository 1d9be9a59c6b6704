import asyncio

from bot.edges.processor import KeyedLocks


async def test_updates_of_one_game_run_in_order_and_games_in_parallel():
    locks = KeyedLocks()
    log: list[str] = []
    slow_started = asyncio.Event()

    async def work(name: str, delay: float, started: asyncio.Event | None = None):
        if started:
            started.set()
        log.append(f"start {name}")
        await asyncio.sleep(delay)
        log.append(f"end {name}")

    a1 = asyncio.create_task(locks.run("A", work("a1", 0.05, slow_started)))
    a2 = asyncio.create_task(locks.run("A", work("a2", 0)))
    await slow_started.wait()
    b1 = asyncio.create_task(locks.run("B", work("b1", 0)))
    await asyncio.gather(a1, a2, b1)
    # game A is serialised: a2 starts only after a1 ended
    assert log.index("end a1") < log.index("start a2")
    # game B did not wait for slow game A
    assert log.index("end b1") < log.index("end a1")
    assert len(locks) == 0
