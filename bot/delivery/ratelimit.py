"""The bot's rate limiter: Telegram's per-chat limits, on the bot's clock.

The outboxes (``bot.delivery.outbox``) pace every chat themselves; this limiter is what stands
behind them for every write (sends, edits, deletes: what Telegram's flood limits count):

* a group's writes take a token of that group's bucket (20 a minute, aiolimiter's leaky
  bucket as in python-telegram-bot's ``AIORateLimiter``): a backstop behind the group's
  outbox, which spaces its calls itself;
* a 429 delays only the chat it names: its writes wait until Telegram's
  ``retry_after`` has passed; every other chat's writes go on. (PTB's ``AIORateLimiter``
  holds every request of the bot after any 429, so one noisy group stalls every table.)
  The call itself is not retried here: the chat's outbox waits and delivers its
  *newest* state then, not the refused one;
* an overall cap of writes a second across all chats, only if ``overall_rate`` is set
  (``Settings.overall_writes_per_second``; 0, the default: none). Telegram's "about 30
  messages a second" is its figure for bulk notifications, messages a bot starts to
  many users; replies and edits in chats where people play are not documented as held
  to it, while the per-chat limits always apply (docs/scaling.md has the figures: with
  a cap of 30, some 26 busy tables fill it and every game waits).

Questions (``getChatMember`` for a seat join or an admin check) and answers to presses
go straight out: Telegram does not count them, and PTB's limiter would queue a group's
``getChatMember`` behind that group's 20-a-minute bucket, seconds behind its table.

Buckets and waits read the bot's :class:`~bot.views.messages.Clock`: in production the event
loop's; the tests inject their virtual clock, so a bucket's wait of 3 s costs them no
real time.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from datetime import timedelta
from typing import Any

from aiolimiter import AsyncLimiter
from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

from bot.views.messages import Clock

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
# Telegram's limit in a group: about 20 messages a minute, edits included
GROUP_RATE, GROUP_PERIOD = 20, 60.0
# bookkeeping of idle groups and of passed 429s is swept once it holds this many
SWEEP_AT = 256


class ChatRateLimiter(BaseRateLimiter[int]):
    """Per-chat limits (a group's bucket; a 429's wait for its chat only) and an
    optional overall cap (``overall_rate`` writes a second; 0: none)."""

    def __init__(
        self,
        clock: Clock,
        *,
        overall_rate: float = 0.0,
        group_rate: float = GROUP_RATE,
        group_period: float = GROUP_PERIOD,
    ) -> None:
        self.clock = clock
        self.overall_rate = overall_rate
        self.group_rate, self.group_period = group_rate, group_period
        self._overall = ClockedLimiter(clock, overall_rate, 1.0) if overall_rate > 0 else None
        self._groups: dict[int | str, ClockedLimiter] = {}
        self._held: dict[int | str, float] = {}  # chat -> until when Telegram said to wait
        self._sweep_groups = self._sweep_held = SWEEP_AT

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Any]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Any:
        chat = _chat_of(data)
        if endpoint not in WRITES or chat is None:  # not counted by Telegram's flood limits
            return await callback(*args, **kwargs)
        if isinstance(chat, str) or chat < 0:  # a group (a string id: a channel or group)
            await self._group(chat).acquire()
        if self._overall is not None:
            await self._overall.acquire()
        await self._wait_for(chat)
        try:
            return await callback(*args, **kwargs)
        except RetryAfter as e:
            self._hold(chat, _seconds(e.retry_after))
            raise

    def held(self, chat: int | str) -> float:
        """Seconds this chat's writes still wait after a 429 (0: none)."""
        until = self._held.get(chat)
        return 0.0 if until is None else max(0.0, until - self.clock.now())

    async def _wait_for(self, chat: int | str) -> None:
        while (wait := self.held(chat)) > 0:
            await self.clock.sleep(wait)
        self._held.pop(chat, None)

    def _hold(self, chat: int | str, seconds: float) -> None:
        log.info("429 in chat %s: its writes wait %.1f s", chat, seconds)
        until = self.clock.now() + seconds
        self._held[chat] = max(until, self._held.get(chat, until))
        if len(self._held) >= self._sweep_held:
            now = self.clock.now()
            self._held = {c: t for c, t in self._held.items() if t > now}
            self._sweep_held = max(SWEEP_AT, 2 * len(self._held))

    def _group(self, chat: int | str) -> ClockedLimiter:
        limiter = self._groups.get(chat)
        if limiter is None:
            if len(self._groups) >= self._sweep_groups:
                # a full bucket is what a new one would be: forget those
                self._groups = {
                    c: g for c, g in self._groups.items() if not g.has_capacity(g.max_rate)
                }
                self._sweep_groups = max(SWEEP_AT, 2 * len(self._groups))
            limiter = self._groups[chat] = ClockedLimiter(
                self.clock, self.group_rate, self.group_period
            )
        return limiter


def _chat_of(data: dict[str, Any]) -> int | str | None:
    chat = data.get("chat_id")
    if chat is None:
        return None
    try:
        return int(chat)
    except (TypeError, ValueError):
        return str(chat)


def _seconds(wait: float | timedelta) -> float:
    return wait.total_seconds() if isinstance(wait, timedelta) else float(wait)


class ClockedLimiter(AsyncLimiter):
    """aiolimiter's leaky bucket, its loop's time and timers replaced by ``clock``."""

    def __init__(self, clock: Clock, max_rate: float, time_period: float = 60) -> None:
        super().__init__(max_rate, time_period)
        self._clock_loop = _ClockLoop(clock)

    @property
    def _loop(self) -> Any:  # what AsyncLimiter asks of its event loop
        return self._clock_loop


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
