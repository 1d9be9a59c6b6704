"""The typed context of the handlers, jobs and endpoints (python-telegram-bot's
``ContextTypes``): what the running bot holds for the whole Application
(:class:`BotData`), and nothing per chat or per person.

The store keeps what a chat or a person needs. :class:`ChatData` and :class:`UserData`
hold no attribute at all, so no handler can leave state in PTB's per-chat and per-user
dicts, which only a persistence would ever empty (issue 18: nothing may grow with every
chat the bot has seen).
"""

from __future__ import annotations

from dataclasses import dataclass

from telegram.ext import Application, CallbackContext, ContextTypes, ExtBot, JobQueue

from bot.delivery.outbox import Outboxes
from bot.edges.chats import ChatLifecycle
from bot.edges.computer import Computers
from bot.edges.lobby import Lobby
from bot.edges.members import Members
from bot.edges.miniapp.streams import Hub
from bot.edges.seat import HandInput
from bot.service.game import GameService


class NotRunning(RuntimeError):
    """The service is read before the Application's ``initialize`` or after its
    ``shutdown`` (handlers, jobs and endpoints run only in between)."""


@dataclass(frozen=True, slots=True)
class Parts:
    """What the running bot is made of (built by ``bot.app``): the games and their
    change path, and the parts above it that handlers, jobs and endpoints call."""

    service: GameService
    members: Members  # who is a member or an administrator of a group (cached)
    lobby: Lobby
    hands: HandInput
    chats: ChatLifecycle
    computers: Computers
    hub: Hub  # the Mini App's live tables
    outboxes: Outboxes  # each chat's paced delivery (replies and edits of handlers too)


class BotData:
    """PTB's ``bot_data``. PTB makes it empty with the Application;
    ``ShengjiApplication.initialize`` starts it with the bot's parts, ``shutdown`` stops it."""

    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts: Parts | None = None

    def start(self, parts: Parts) -> None:
        self._parts = parts

    def stop(self) -> Parts | None:
        """Forget the parts (the caller closes them); None if the bot was not running."""
        parts, self._parts = self._parts, None
        return parts

    @property
    def running(self) -> bool:
        return self._parts is not None

    @property
    def parts_or_none(self) -> Parts | None:
        """The parts while the bot runs, else None (one look, where ``running`` and
        ``parts`` would be two)."""
        return self._parts

    @property
    def parts(self) -> Parts:
        if self._parts is None:
            raise NotRunning("the bot is not running")
        return self._parts

    @property
    def service(self) -> GameService:
        return self.parts.service

    @property
    def members(self) -> Members:
        return self.parts.members

    @property
    def lobby(self) -> Lobby:
        return self.parts.lobby

    @property
    def hands(self) -> HandInput:
        return self.parts.hands

    @property
    def chats(self) -> ChatLifecycle:
        return self.parts.chats

    @property
    def hub(self) -> Hub:
        return self.parts.hub

    @property
    def outboxes(self) -> Outboxes:
        return self.parts.outboxes


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
