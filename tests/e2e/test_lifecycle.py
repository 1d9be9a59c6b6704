"""A game that ended leaves the bot's memory once its last messages are delivered
(GameService._retire): one process plays 500 short matches (bench/lifecycle.py:
each in a new group with a new person, three computers, Start, then /endgame) and
every per-game and per-chat structure of the bot is as empty after 500 as after
100, the caches that expire stay bounded, and the process's memory does not grow
with the matches (a game used to keep 350-630 KiB for good). 500 passes every cache's
sweep threshold (256) and shows a leak of 16 KiB a match as 6 MiB; 1,000 took twice as
long and showed nothing more (bench/lifecycle.py runs any number)."""

from bench import lifecycle
from bot.delivery import ratelimit
from bot.edges import members

MATCHES = 500

# caches of what Telegram said, kept for a while whatever the games do
EXPIRING = {"members known": members.SWEEP_AT, "limiter groups": ratelimit.SWEEP_AT}


async def test_five_hundred_finished_matches_leave_nothing_behind():
    marks: dict[int, tuple[int, dict[str, int]]] = {}

    async def report(n: int, rss: int, structures: dict[str, int]) -> None:
        marks[n] = (rss, structures)

    await lifecycle.run(MATCHES, [100, MATCHES], report, parallel=4)
    (rss100, after100), (rss1000, after1000) = marks[100], marks[MATCHES]
    for name in after100:
        if name in EXPIRING:
            assert after1000[name] <= EXPIRING[name], (name, after1000[name])
        else:
            assert after100[name] == after1000[name] == 0, (name, after100, after1000)
    # flat: what RSS still grows by (SQLite's page cache filling, the allocator) is a
    # few KiB a match
    per_match = (rss1000 - rss100) / (MATCHES - 100)
    assert per_match < 16 * 1024, per_match
