"""Who is a member or an administrator of a group, asked of Telegram at most once a
``TTL`` per person and group, and never while a game waits: a seat join or an admin
check costs a ``getChatMember`` only the first time.

An answer that someone is not in the group (left, kicked), or no answer (Telegram
does not know the person, or could not be asked), is remembered for ``NEGATIVE_TTL``
only: one who joins the group is asked again soon, and one who asks again and again
(a stranger at the Mini App's door) costs one call per ``NEGATIVE_TTL``. Across all
people, Telegram is asked at most ``CALLS_PER_SECOND`` times a second (``aiolimiter``):
a chat's check waits for its turn, a Mini App's read (``wait=False``) is told
:class:`Busy` instead of waiting behind a crowd of strangers."""

from __future__ import annotations

from aiolimiter import AsyncLimiter
from telegram import Bot
from telegram.error import TelegramError

from bot.views.messages import Clock

TTL = 300.0
NEGATIVE_TTL = 10.0
CALLS_PER_SECOND = 20
# what is known is swept of expired answers once it holds this many (then twice what is left)
SWEEP_AT = 256
ADMIN_STATUSES = ("creator", "administrator")
OUTSIDE = ("left", "kicked")


class Busy(Exception):
    """Telegram was asked ``CALLS_PER_SECOND`` times this second: no answer now."""


class Members:
    def __init__(
        self, bot: Bot, clock: Clock, ttl: float = TTL, calls_per_second: float = CALLS_PER_SECOND
    ) -> None:
        self.bot, self.clock, self.ttl = bot, clock, ttl
        self._known: dict[tuple[int, int], tuple[float, str | None]] = {}
        self._sweep_at = SWEEP_AT
        self._calls = AsyncLimiter(calls_per_second, 1)

    async def status(self, chat_id: int, user_id: int, wait: bool = True) -> str | None:
        """The member's status ("member", "administrator", "left"...), None if unknown
        (Telegram does not know them, or failed). ``wait=False``: :class:`Busy` rather
        than wait for a call when Telegram was asked too often this second."""
        now = self.clock.now()
        known = self._known.get((chat_id, user_id))
        if known is not None and known[0] > now:
            return known[1]
        if not wait and not self._calls.has_capacity():
            raise Busy
        await self._calls.acquire()
        try:
            status: str | None = (await self.bot.get_chat_member(chat_id, user_id)).status
        except TelegramError:
            status = None
        # one who may join soon (or whom Telegram could not tell about) is asked again soon
        ttl = self.ttl if status is not None and status not in OUTSIDE else NEGATIVE_TTL
        now = self.clock.now()
        self._known[(chat_id, user_id)] = (now + ttl, status)
        if len(self._known) >= self._sweep_at:
            self._known = {k: v for k, v in self._known.items() if v[0] > now}
            self._sweep_at = max(SWEEP_AT, 2 * len(self._known))
        return status

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        # the check is a courtesy: when it fails only the game's creator may act
        return await self.status(chat_id, user_id) in ADMIN_STATUSES

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        # unknown: let them in rather than lock out a real member (a seat is still
        # theirs to take only through the group's own link)
        return await self.status(chat_id, user_id) not in OUTSIDE

    async def sees_table(self, chat_id: int, user_id: int) -> bool:
        """Whether the person may watch the group's table (the Mini App): a member
        Telegram vouches for now; unknown is refused (the table names the group and
        its players). :class:`Busy`: Telegram was asked too often this second."""
        status = await self.status(chat_id, user_id, wait=False)
        return status is not None and status not in OUTSIDE
