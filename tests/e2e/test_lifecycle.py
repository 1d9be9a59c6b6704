"""A game that ended leaves the bot's memory once its last messages are delivered
(GameService._retire): one process plays 1,000 short matches (bench/lifecycle.py:
each in a new group with a new person, three computers, Start, then /endgame) and
every per-game and per-chat structure of the bot is as empty after 1,000 as after
100, the caches that expire stay bounded, and the process's memory does not grow
with the matches (a game used to keep 350-630 KiB for good)."""

from bench import lifecycle
from bot import members, ratelimit

# caches of what Telegram said, kept for a while whatever the games do
EXPIRING = {"members known": members.SWEEP_AT, "limiter groups": ratelimit.SWEEP_AT}


async def test_a_thousand_finished_matches_leave_nothing_behind():
    marks: dict[int, tuple[int, dict[str, int]]] = {}

    async def report(n: int, rss: int, structures: dict[str, int]) -> None:
        marks[n] = (rss, structures)

    await lifecycle.run(1000, [100, 1000], report, parallel=4)
    (rss100, after100), (rss1000, after1000) = marks[100], marks[1000]
    for name in after100:
        if name in EXPIRING:
            assert after1000[name] <= EXPIRING[name], (name, after1000[name])
        else:
            assert after100[name] == after1000[name] == 0, (name, after100, after1000)
    # flat: what RSS still grows by (SQLite's page cache filling, the allocator) is a
    # few KiB a match
    assert (rss1000 - rss100) / 900 < 16 * 1024, (rss1000 - rss100) / 900
