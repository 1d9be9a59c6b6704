"""The typed context of the handlers, jobs and endpoints (python-telegram-bot's
``ContextTypes``): what the running bot holds for the whole Application
(:class:`BotData`), and nothing per chat or per person.

The store keeps what a chat or a person needs. :class:`ChatData` and :class:`UserData`
hold no attribute at all, so no handler can leave state in PTB's per-chat and per-user
dicts, which only a persistence would ever empty (issue 18: nothing may grow with every
chat the bot has seen).
"""

from __future__ import annotations

from telegram.ext import Application, CallbackContext, ContextTypes, ExtBot, JobQueue

from bot.game import GameService
from bot.members import Members
from bot.webapp.live import Hub


class NotRunning(RuntimeError):
    """The service is read before the Application's ``initialize`` or after its
    ``shutdown`` (handlers, jobs and endpoints run only in between)."""


class BotData:
    """PTB's ``bot_data``. PTB makes it empty with the Application;
    ``ShengjiApplication.initialize`` starts it with the service, ``shutdown`` stops it."""

    __slots__ = ("_members", "_service", "webapp_hub")

    def __init__(self) -> None:
        self._service: GameService | None = None
        self._members: Members | None = None
        # the Mini App's live tables (bot.webapp.server.hub): one per service
        self.webapp_hub: Hub | None = None

    def start(self, service: GameService, members: Members) -> None:
        self._service, self._members = service, members

    def stop(self) -> GameService | None:
        """Forget the service (the caller closes it); None if it was not running."""
        service, self._service = self._service, None
        return service

    @property
    def running(self) -> bool:
        return self._service is not None

    @property
    def service(self) -> GameService:
        if self._service is None:
            raise NotRunning("the bot is not running")
        return self._service

    @property
    def members(self) -> Members:
        """Who is a member or an administrator of a group (cached; ``bot.members``)."""
        if self._members is None:
            raise NotRunning("the bot is not running")
        return self._members


class ChatData:
    """PTB's ``chat_data``: nothing (the store keeps a chat's settings and games)."""

    __slots__ = ()


class UserData:
    """PTB's ``user_data``: nothing (the store keeps a person's seats and stats)."""

    __slots__ = ()


Context = CallbackContext[ExtBot[None], UserData, ChatData, BotData]
CONTEXT_TYPES: ContextTypes[Context, UserData, ChatData, BotData] = ContextTypes(
    context=CallbackContext, user_data=UserData, chat_data=ChatData, bot_data=BotData
)
# the bot's Application (bot.app.ShengjiApplication), as handlers, jobs and endpoints see it
BotApp = Application[ExtBot[None], Context, UserData, ChatData, BotData, JobQueue[Context]]
