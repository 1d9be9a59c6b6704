import asyncio

import pytest
from telegram.error import RetryAfter

from bot.outbox import LoopClock
from bot.ratelimit import ClockedRateLimiter


class VirtualClock:
    """Time moves only when someone waits: a wait of 3 s costs no real time."""

    def __init__(self):
        self.t = 0.0

    def now(self):
        return self.t

    def wall(self):
        return self.t

    async def sleep(self, seconds):
        self.t += seconds
        await asyncio.sleep(0)


async def calls(limiter, clock, chat_id, n):
    """``n`` concurrent requests to ``chat_id``; the clock's time at which each went out."""
    times = []

    async def request():
        times.append(clock.now())
        return True

    async def one():
        data = {"chat_id": chat_id}
        await limiter.process_request(request, (), {}, "sendMessage", data, None)

    await asyncio.wait_for(asyncio.gather(*(one() for _ in range(n))), 5.0)
    return times


async def test_a_group_gets_a_burst_of_twenty_then_one_call_every_three_seconds():
    clock = VirtualClock()
    limiter = ClockedRateLimiter(clock, max_retries=3)
    times = await calls(limiter, clock, -100, 25)
    assert times[:20] == [0.0] * 20
    gaps = [b - a for a, b in zip(times[19:], times[20:], strict=False)]
    assert len(gaps) == 5 and all(abs(g - 3.0) < 1e-6 for g in gaps)


async def test_private_chats_only_share_the_overall_thirty_a_second():
    clock = VirtualClock()
    limiter = ClockedRateLimiter(clock)
    times = []
    for chat in range(1, 26):  # 25 users: no group bucket, within 30 a second
        times += await calls(limiter, clock, chat, 1)
    assert times == [0.0] * 25
    more = await calls(limiter, clock, 99, 10)
    assert max(more) > 0.0  # past 30 in a second the overall bucket waits


async def test_on_the_event_loop_clock_it_waits_in_loop_time_like_ptbs_limiter():
    clock = LoopClock()
    limiter = ClockedRateLimiter(clock, group_max_rate=2, group_time_period=0.2)
    start = asyncio.get_running_loop().time()
    times = await calls(limiter, clock, -100, 4)
    assert times[1] - start < 0.05  # the burst of two
    assert times[3] - start >= 0.19  # then one every 0.1 s


async def test_after_a_429_the_call_is_retried_once_telegrams_wait_passed_on_the_clock():
    clock = VirtualClock()
    limiter = ClockedRateLimiter(clock, max_retries=2)
    tries = []

    async def request(refusals):
        tries.append(clock.now())
        if len(tries) <= refusals:
            raise RetryAfter(5)
        return True

    async def send(refusals):
        data = {"chat_id": -100}
        args = (refusals,)
        return await limiter.process_request(request, args, {}, "sendMessage", data, None)

    assert await asyncio.wait_for(send(2), 5.0) is True
    assert [round(t, 6) for t in tries] == [0.0, 5.1, 10.2]
    tries.clear()
    with pytest.raises(RetryAfter):  # a third refusal is one too many
        await asyncio.wait_for(send(3), 5.0)
    assert len(tries) == 3
