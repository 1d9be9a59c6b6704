"""Lobby and seats: a new game, joining through a seat's deep link, the lobby's buttons
(leave, add or remove a computer, start, cancel) and taking over an absent player's seat.

What each does to the game is the table's (``bot.table.seating``); here they become
commands for the change path (``Tables.change``), with what the person is told.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from bot.data import options
from bot.data.saved import ChatSettings, GameRecord
from bot.data.store import Store
from bot.delivery.publish import Publisher
from bot.edges.processor import KeyedLocks
from bot.i18n import t
from bot.service.live import Game, Tables
from bot.table import Answer, takeable
from bot.table.commands import AddComputer, Join, LobbyCommand, TakeOver
from bot.views import codec
from bot.views.messages import Clock, slot_key


class Lobby:
    def __init__(
        self,
        tables: Tables,
        store: Store,
        publisher: Publisher,
        clock: Clock,
        seed_source: Callable[[], int],
    ) -> None:
        self.tables, self.store, self.publisher = tables, store, publisher
        self.clock, self.seed_source = clock, seed_source
        self._chat_locks = KeyedLocks()  # two /newgame at once: one lobby

    async def new_game(
        self,
        chat: ChatSettings,
        thread_id: int | None,
        title: str,
        creator: int,
        lang: str,
    ) -> tuple[Game, bool]:
        """Open a lobby with the group's settings ``chat`` (read once by the caller),
        or return the chat's open game (``created`` False). A new lobby is saved once."""

        async def open_lobby() -> tuple[Game, bool]:
            existing = await self.tables.open_game_in(chat.chat_id, thread_id)
            if existing is not None:
                return existing, False
            if chat.lang is None:  # the group's first game: its creator's language
                chat.lang = lang
                await self.store.save_chat_settings(chat)
            rec = GameRecord(
                chat_id=chat.chat_id,
                thread_id=thread_id,
                chat_title=title,
                creator_id=creator,
                lang=chat.lang,
                seed=self.seed_source(),
                created_at=self.clock.wall(),
            )
            options.to_game(chat, rec)
            return await self.tables.create(rec), True

        opened: tuple[Game, bool] = await self._chat_locks.run(chat.chat_id, open_lobby())
        return opened

    def lobby_message_id(self, game: Game) -> int | None:
        box = self.publisher.outboxes.get(game.table.rec.chat_id)
        return box.message_id(slot_key(game.table.rec.id, "lobby"))

    async def join(
        self, game_id: int, seat: int, user_id: int, name: str, lang: str | None
    ) -> Answer:
        """Seat a player who came through the deep link: what they are told."""
        game = await self.tables.get(game_id)
        if game is None:
            return Answer("join.no_game")
        return (await self.tables.change(game, Join(seat, user_id, name, lang))).said

    async def press(self, game: Game, command: LobbyCommand) -> Answer:
        """A lobby button. A computer seated is named here, in the group's words (the
        table picks none)."""
        if isinstance(command, AddComputer):
            command = replace(command, name=t(game.table.rec.lang, "computer_name"))
        return (await self.tables.change(game, command)).answer

    async def take_over(
        self, game_id: int, seat: int, user_id: int, name: str, lang: str | None
    ) -> Answer:
        """/start t<game>_<seat>: a group member takes the seat of a player who is on
        托管 or unreachable; they get the current hand at once. What they are told."""
        game = await self.tables.get(game_id)
        if game is None:
            return Answer("join.no_game")
        return (await self.tables.change(game, TakeOver(seat, user_id, name, lang))).said

    def takeover_link(self, game: Game, seat: int) -> str | None:
        """The deep link that takes over ``seat`` now, or None if it is not free."""
        if seat not in takeable(game.table.rec):
            return None
        payload = codec.take_payload(game.table.rec.id, seat)
        return codec.deep_link(self.publisher.bot_username, payload)
