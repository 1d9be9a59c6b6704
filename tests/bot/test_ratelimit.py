import asyncio

import pytest
from telegram.error import RetryAfter

from bot.delivery.ratelimit import ChatRateLimiter
from bot.views.messages import LoopClock


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
    limiter = ChatRateLimiter(clock)
    times = await calls(limiter, clock, -100, 25)
    assert times[:20] == [0.0] * 20
    gaps = [b - a for a, b in zip(times[19:], times[20:], strict=False)]
    assert len(gaps) == 5 and all(abs(g - 3.0) < 1e-6 for g in gaps)


async def test_by_default_no_overall_cap_holds_private_chats():
    """Telegram's 30 a second is for bulk notifications: the bot's chats are held to
    their own limits only (their outboxes pace them)."""
    clock = VirtualClock()
    limiter = ChatRateLimiter(clock)
    times = []
    for chat in range(1, 201):  # 200 private chats in the same instant
        times += await calls(limiter, clock, chat, 1)
    assert times == [0.0] * 200


async def test_an_overall_cap_when_set_holds_writes_past_it():
    clock = VirtualClock()
    limiter = ChatRateLimiter(clock, overall_rate=30)
    times = []
    for chat in range(1, 26):  # 25 users: within 30 a second
        times += await calls(limiter, clock, chat, 1)
    assert times == [0.0] * 25
    more = await calls(limiter, clock, 99, 10)
    assert max(more) > 0.0  # past 30 in a second the overall bucket waits


async def test_on_the_event_loop_clock_it_waits_in_loop_time():
    clock = LoopClock()
    limiter = ChatRateLimiter(clock, group_rate=2, group_period=0.2)
    start = asyncio.get_running_loop().time()
    times = await calls(limiter, clock, -100, 4)
    assert times[1] - start < 0.05  # the burst of two
    assert times[3] - start >= 0.19  # then one every 0.1 s


async def test_a_429_holds_the_chat_it_names_and_no_other():
    """The refused call is not retried (the outbox delivers its newest state later);
    the chat's next writes wait out Telegram's retry_after; other chats do not wait."""
    clock = VirtualClock()
    limiter = ChatRateLimiter(clock)
    sent = []

    async def request(chat, refuse):
        if refuse:
            raise RetryAfter(5)
        sent.append((chat, clock.now()))
        return True

    async def write(chat, refuse=False):
        data = {"chat_id": chat}
        return await limiter.process_request(
            request, (chat, refuse), {}, "editMessageText", data, None
        )

    with pytest.raises(RetryAfter):
        await write(-100, refuse=True)
    assert limiter.held(-100) == 5.0
    # other chats, groups and DMs, write at once; a question to the held group too
    await asyncio.wait_for(asyncio.gather(write(-200), write(7)), 5.0)
    asked = await limiter.process_request(
        lambda: asyncio.sleep(0, "ok"), (), {}, "getChatMember", {"chat_id": -100}, None
    )
    assert asked == "ok" and sent == [(-200, 0.0), (7, 0.0)] and clock.now() == 0.0
    # the held chat writes once its wait is over (the clock moved on to let it)
    await asyncio.wait_for(write(-100), 5.0)
    assert sent[-1] == (-100, 5.0)
    assert limiter.held(-100) == 0.0
