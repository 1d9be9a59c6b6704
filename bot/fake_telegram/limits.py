"""Flood limits and the always-on per-chat accounting behind them."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

# Requests that spend a chat's message budget (edits count too, per Telegram).
COUNTED_METHODS = frozenset(
    {
        "sendMessage",
        "sendPhoto",
        "editMessageText",
        "editMessageReplyMarkup",
        "editMessageCaption",
        "deleteMessage",
        "pinChatMessage",
        "unpinChatMessage",
    }
)


@dataclass(frozen=True)
class RateLimits:
    """Strict limits; pass to the world to get 429s. Defaults follow Telegram's FAQ."""

    group_per_minute: int = 20
    private_per_second: float = 1.0  # sustained rate in one private chat...
    private_burst: int = 3  # ...after a tolerated burst of this many (a token bucket)
    # Telegram's "about 30 a second" is for bulk notifications (messages a bot starts to
    # many users); replies and edits in chats where people play are not held to it.
    # None: no overall limit (the sandbox: a bot playing with people, as in Telegram).
    global_per_second: int | None = 30


class Accounting:
    """Timestamps of counted calls, per chat and overall."""

    def __init__(self) -> None:
        self.by_chat: dict[int, list[float]] = defaultdict(list)
        self.overall: list[float] = []

    def record(self, chat_id: int, when: float) -> None:
        self.by_chat[chat_id].append(when)
        self.overall.append(when)

    def retry_after(
        self, limits: RateLimits, chat_id: int, is_group: bool, now: float
    ) -> int | None:
        """Seconds to wait if one more call now would break a limit, else None."""
        waits = [0]
        if limits.global_per_second is not None:
            waits.append(_wait(self.overall, limits.global_per_second, 1.0, now))
        if is_group:
            waits.append(_wait(self.by_chat[chat_id], limits.group_per_minute, 60.0, now))
        else:
            rate, burst = limits.private_per_second, limits.private_burst
            waits.append(_bucket_wait(self.by_chat[chat_id], rate, burst, now))
        worst = max(waits)
        return worst if worst > 0 else None

    def max_in_window(self, chat_id: int, window: float) -> int:
        times = sorted(self.by_chat.get(chat_id, []))
        best = 0
        first = 0
        for last, when in enumerate(times):
            while when - times[first] >= window:
                first += 1
            best = max(best, last - first + 1)
        return best


def _wait(times: list[float], limit: int, window: float, now: float) -> int:
    recent = [t for t in times if now - t < window]
    if len(recent) < limit:
        return 0
    # The call may go through once enough old calls have left the window.
    oldest_needed = sorted(recent)[len(recent) - limit]
    return max(1, math.ceil(oldest_needed + window - now))


def _bucket_wait(times: list[float], rate: float, burst: int, now: float) -> int:
    """Token bucket: `burst` tokens, refilled at `rate` per second, one per call."""
    tokens = float(burst)
    last = times[0] if times else now
    for when in times:
        tokens = min(float(burst), tokens + (when - last) * rate) - 1
        last = when
    tokens = min(float(burst), tokens + (now - last) * rate)
    if tokens >= 1:
        return 0
    return max(1, math.ceil((1 - tokens) / rate))
