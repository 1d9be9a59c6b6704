"""PTB's ``AIORateLimiter`` on the bot's clock.

The rate limiter is a backstop behind the outboxes' own pacing: every request carrying
a chat id takes a token of the overall bucket (30 a second), one carrying a group's id
also a token of that group's bucket (20 a minute). Its buckets are aiolimiter's, which
read the time from the event loop and wait on its timers; here they read the bot's
:class:`~bot.outbox.Clock` and wait on it instead. In production the clock is the
event loop's (nothing changes); the tests inject their virtual clock, so they run the
very limiter production runs, and a bucket's wait of 3 s costs them no real time.

Only writes are limited (sends, edits, deletes: what Telegram's flood limits count).
A question the bot asks (``getChatMember`` for a seat join or an admin check) or the
answer to a press goes straight out: PTB's limiter would queue a ``getChatMember`` of
a group behind that group's 20-a-minute bucket, seconds behind its table updates.

After a 429 a call is retried up to ``max_retries`` times, each time once Telegram's
``retry_after`` (+0.1 s) has passed on the same clock. (PTB's own retry sleeps on the
event loop; so this class does the retrying itself, around the call, and the retried
call keeps the place it took in the buckets.)
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable, Coroutine
from datetime import timedelta
from typing import Any

from aiolimiter import AsyncLimiter
from telegram.error import RetryAfter
from telegram.ext import AIORateLimiter

from bot.outbox import Clock

log = logging.getLogger(__name__)

# methods that spend a chat's message budget
WRITES = frozenset(
    {
        "sendMessage",
        "sendPhoto",
        "sendDocument",
        "sendMediaGroup",
        "editMessageText",
        "editMessageReplyMarkup",
        "editMessageCaption",
        "editMessageMedia",
        "deleteMessage",
        "pinChatMessage",
        "unpinChatMessage",
        "copyMessage",
        "forwardMessage",
    }
)


class ClockedRateLimiter(AIORateLimiter):
    """``AIORateLimiter`` (same arguments, same buckets) whose buckets and retries run
    on ``clock``."""

    def __init__(self, clock: Clock, *, max_retries: int = 0, **kwargs: Any) -> None:
        super().__init__(max_retries=0, **kwargs)  # the retries are ours (on the clock)
        self._clock = clock
        self._retries = max_retries
        if self._base_limiter is not None:
            self._base_limiter = _on_clock(self._base_limiter, clock)
        self._apb_limiter = _on_clock(self._apb_limiter, clock)

    @property
    def clock(self) -> Clock:
        return self._clock

    @property
    def max_retries(self) -> int:
        return self._retries

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Any]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Any:
        if endpoint not in WRITES:  # not counted by Telegram's flood limits
            return await callback(*args, **kwargs)
        retries = rate_limit_args or self._retries

        async def call(*a: Any, **kw: Any) -> Any:
            for attempt in itertools.count(1):
                try:
                    return await callback(*a, **kw)
                except RetryAfter as e:
                    if attempt > retries:
                        raise
                    wait = e.retry_after
                    seconds = wait.total_seconds() if isinstance(wait, timedelta) else wait
                    log.info("429 on %s: retry %d in %.1f s", endpoint, attempt, seconds)
                    await self._clock.sleep(seconds + 0.1)

        return await super().process_request(call, args, kwargs, endpoint, data, None)

    def _get_group_limiter(self, group_id: str | int | bool) -> AsyncLimiter:
        limiter = super()._get_group_limiter(group_id)
        if not isinstance(limiter, ClockedLimiter):
            limiter = self._group_limiters[group_id] = _on_clock(limiter, self._clock)
        return limiter


class ClockedLimiter(AsyncLimiter):
    """aiolimiter's leaky bucket, its loop's time and timers replaced by ``clock``."""

    def __init__(self, clock: Clock, max_rate: float, time_period: float = 60) -> None:
        super().__init__(max_rate, time_period)
        self._clock_loop = _ClockLoop(clock)

    @property
    def _loop(self) -> Any:  # what AsyncLimiter asks of its event loop
        return self._clock_loop


def _on_clock(limiter: AsyncLimiter, clock: Clock) -> ClockedLimiter:
    return ClockedLimiter(clock, limiter.max_rate, limiter.time_period)


class _ClockLoop:
    """The running event loop, but ``time`` is the clock's and a timer sleeps on it."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock

    def time(self) -> float:
        return self.clock.now()

    def is_closed(self) -> bool:
        return False

    def create_future(self) -> asyncio.Future[None]:
        return asyncio.get_running_loop().create_future()

    def call_soon(self, callback: Callable[..., object], *args: object) -> asyncio.Handle:
        return asyncio.get_running_loop().call_soon(callback, *args)

    def call_at(self, when: float, callback: Callable[..., object], *args: object) -> _Timer:
        return _Timer(self.clock, when, callback, args)


class _Timer:
    """A ``TimerHandle`` look-alike: runs ``callback`` once ``clock`` reached ``when``."""

    def __init__(
        self, clock: Clock, when: float, callback: Callable[..., object], args: tuple[object, ...]
    ) -> None:
        self._when = when
        self._task = asyncio.get_running_loop().create_task(self._run(clock, callback, args))

    async def _run(
        self, clock: Clock, callback: Callable[..., object], args: tuple[object, ...]
    ) -> None:
        while (wait := self._when - clock.now()) > 0:
            await clock.sleep(wait)
        callback(*args)

    def when(self) -> float:
        return self._when

    def cancel(self) -> None:
        self._task.cancel()

    def cancelled(self) -> bool:
        return self._task.cancelled()
