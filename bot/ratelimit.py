"""The rate limiter: Telegram's flood limits count messages a chat receives (sends,
edits, deletes), not questions the bot asks. PTB's ``AIORateLimiter`` queues every
request that names a group behind that group's ~20-a-minute limiter, including
``getChatMember``: a seat join or an admin check would wait seconds behind the
group's table updates. Here only writes are limited; reads and answers go straight out.
"""

from __future__ import annotations

from typing import Any

from telegram.ext import AIORateLimiter

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


class WriteRateLimiter(AIORateLimiter):
    async def process_request(  # type: ignore[override]
        self,
        callback: Any,
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Any:
        if endpoint not in WRITES:
            return await callback(*args, **kwargs)
        return await super().process_request(
            callback, args, kwargs, endpoint, data, rate_limit_args
        )
