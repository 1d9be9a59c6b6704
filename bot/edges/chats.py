"""The chats themselves: a group's settings reaching its open games, a group upgraded
to a supergroup, the bot removed from or added back to a group, a DM that fails (the
game pauses) or is opened again (it resumes), and /endgame.

Each is a command for the change path (``Tables.change``); what it does to a game is
the table's (``bot.table.seating``).
"""

from __future__ import annotations

import asyncio
import logging

from bot.data.saved import ChatSettings
from bot.data.store import Store
from bot.delivery.outbox import Outboxes
from bot.service.live import Game, Tables
from bot.table import Answer
from bot.table.commands import (
    ApplySettings,
    DmBack,
    DmLost,
    End,
    LeaveGroup,
    MoveChat,
    ReturnToGroup,
)

log = logging.getLogger(__name__)


class ChatLifecycle:
    def __init__(
        self, tables: Tables, games: dict[int, Game], store: Store, outboxes: Outboxes
    ) -> None:
        self.tables, self.games, self.store, self.outboxes = tables, games, store, outboxes
        self._tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ settings
    async def settings(self, chat_id: int) -> ChatSettings:
        return await self.store.chat_settings(chat_id)

    async def save_settings(self, chat: ChatSettings) -> None:
        """Save a group's settings; they reach its open games: the language at once
        (lobby and running match), the rules only lobbies that have not started."""
        await self.store.save_chat_settings(chat)
        for game in [g for g in self.games.values() if g.table.rec.chat_id == chat.chat_id]:
            await self.tables.change(game, ApplySettings(chat))

    # ------------------------------------------------------------------ /endgame
    async def end_game(self, game: Game, by: str) -> bool:
        """/endgame, confirmed: the match stops for good; the record is kept (ended)."""
        return bool((await self.tables.change(game, End(by))).events)

    # ------------------------------------------------------------------ DMs
    async def open_dm(self, game_id: int, user_id: int) -> Answer:
        """/start g<game>: the player (re)opened the DM; resume if the game waited for
        them. What they are told."""
        game = await self.tables.get(game_id)
        if game is None or game.table.rec.seat_of(user_id) is None:
            return Answer("open.not_seated")
        return (await self.tables.change(game, DmBack(user_id))).said

    async def dm_started(self, user_id: int) -> list[Game]:
        """A bare /start in the DM (what unblocking the bot sends): every running game
        the person sits in sends their hand anew, and resumes if it waited for them."""
        games = [
            g
            for g in list(self.games.values())
            if g.table.rec.status == "running" and g.table.rec.seat_of(user_id) is not None
        ]
        for game in games:
            await self.tables.change(game, DmBack(user_id))
        return games

    async def on_forbidden(self, chat_id: int) -> None:
        """A DM failed (blocked, never started): pause the game and say so in the group.
        A group that refuses messages (the bot was removed) pauses its games too."""
        if chat_id < 0:
            await self.bot_removed(chat_id)
            return
        seated = [g for g in self.games.values() if g.table.rec.seat_of(chat_id) is not None]
        for game in seated:
            await self.tables.change(game, DmLost(chat_id))

    # ------------------------------------------------------------------ the group itself
    def on_migrated(self, old: int, new: int) -> None:
        """A request to the group failed with ChatMigrated (its service message may
        not have reached us yet): move the games there."""
        task = asyncio.get_running_loop().create_task(self.migrate_chat(old, new))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def migrate_chat(self, old: int, new: int) -> None:
        """The group was upgraded to a supergroup: its games, lobby and settings move to
        the new chat id (store and memory) and the table is posted there anew. Idempotent:
        both service messages and a ChatMigrated error may announce the same move."""
        games = [g for g in self.games.values() if g.table.rec.chat_id == old]
        await self.store.migrate_chat(old, new)
        self.outboxes.drop(old)
        for game in games:
            await self.tables.change(game, MoveChat(old, new))
        if games:
            log.info("chat %s became %s: %d games moved", old, new, len(games))

    async def bot_removed(self, chat_id: int) -> None:
        """The bot left or was removed: an open lobby is cancelled, a running game is
        paused (kept whole) until the bot is back."""
        self.outboxes.drop(chat_id)  # nothing can reach the group now
        await self.store.forget_shown(chat_id)
        for game in await self.tables.games_in(chat_id):
            out = await self.tables.change(game, LeaveGroup())
            if out.events:
                log.info(
                    "bot removed from %s: game %s %s",
                    chat_id,
                    game.table.rec.id,
                    game.table.rec.status,
                )

    async def bot_added(self, chat_id: int) -> None:
        """The bot is (back) in the group: paused games resume with the table posted anew."""
        games = [g for g in await self.tables.games_in(chat_id) if g.table.rec.group_gone]
        if games:
            self.outboxes.drop(chat_id)  # a fresh outbox: old message ids may be gone
            await self.store.forget_shown(chat_id)
        for game in games:
            await self.tables.change(game, ReturnToGroup())
