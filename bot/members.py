"""Who is a member or an administrator of a group, asked of Telegram at most once a
``TTL`` per person and group, and never while a game waits: a seat join or an admin
check costs a ``getChatMember`` only the first time."""

from __future__ import annotations

from telegram import Bot
from telegram.error import TelegramError

from bot.messages import Clock

TTL = 300.0
# what is known is swept of expired answers once it holds this many (then twice what is left)
SWEEP_AT = 256
ADMIN_STATUSES = ("creator", "administrator")


class Members:
    def __init__(self, bot: Bot, clock: Clock, ttl: float = TTL) -> None:
        self.bot, self.clock, self.ttl = bot, clock, ttl
        self._known: dict[tuple[int, int], tuple[float, str | None]] = {}
        self._sweep_at = SWEEP_AT

    async def status(self, chat_id: int, user_id: int) -> str | None:
        """The member's status ("member", "administrator", "left"...), None if unknown."""
        now = self.clock.now()
        known = self._known.get((chat_id, user_id))
        if known is not None and known[0] > now:
            return known[1]
        try:
            status: str | None = (await self.bot.get_chat_member(chat_id, user_id)).status
        except TelegramError:
            status = None  # not remembered: asked again next time
        else:
            if status not in ("left", "kicked"):  # one who may join soon is asked again
                self._known[(chat_id, user_id)] = (now + self.ttl, status)
                if len(self._known) >= self._sweep_at:
                    self._known = {k: v for k, v in self._known.items() if v[0] > now}
                    self._sweep_at = max(SWEEP_AT, 2 * len(self._known))
        return status

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        # the check is a courtesy: when it fails only the game's creator may act
        return await self.status(chat_id, user_id) in ADMIN_STATUSES

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        # unknown: let them in rather than lock out a real member
        return await self.status(chat_id, user_id) not in ("left", "kicked")
