"""The chats themselves: a group's settings reaching its open games, a group upgraded
to a supergroup, the bot removed from or added back to a group, a DM that fails (the
game pauses) or is opened again (it resumes), and /endgame.

Every change to a game is a step of ``GameService.change``.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import codec, options, slots
from bot.i18n import t
from bot.live import Game
from bot.models import ChatSettings
from bot.outbox import Content
from bot.render import table as render_table

if TYPE_CHECKING:
    from bot.game import GameService

log = logging.getLogger(__name__)


class ChatLifecycle:
    def __init__(self, svc: GameService) -> None:
        self.svc = svc
        self._tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ settings
    async def settings(self, chat_id: int) -> ChatSettings:
        return await self.svc.store.chat_settings(chat_id)

    async def save_settings(self, chat: ChatSettings) -> None:
        """Save a group's settings; they reach its open games: the language at once
        (lobby and running match), the rules only lobbies that have not started."""
        await self.svc.store.save_chat_settings(chat)

        def step(game: Game) -> None:
            rec = game.rec
            if rec.status not in ("lobby", "running"):
                return
            if chat.lang:
                rec.lang = chat.lang
            if rec.status == "lobby":
                options.to_game(chat, rec)
            game.changed()

        for game in [g for g in self.svc.games.values() if g.rec.chat_id == chat.chat_id]:
            await self.svc.change(game, step)

    # ------------------------------------------------------------------ /endgame
    async def end_game(self, game: Game, by: str) -> bool:
        """/endgame, confirmed: the match stops for good; the record is kept (ended)."""
        return await self.svc.change(game, lambda g: self._end(g, by))

    def _end(self, game: Game, by: str) -> bool:
        rec = game.rec
        if rec.status not in ("lobby", "running"):
            return False
        rec.status = "ended" if rec.status == "running" else "cancelled"
        rec.paused = False
        if not rec.group_gone:
            text = t(rec.lang, "endgame.done", name=by)
            game.notify(rec.chat_id, slots.key(rec.id, "ended"), Content(text))
        game.changed()
        return True

    # ------------------------------------------------------------------ DMs
    async def open_dm(self, game_id: int, user_id: int) -> str:
        """/start g<game>: the player (re)opened the DM; resume if the game waited for them."""
        game = await self.svc.get(game_id)
        if game is None or game.rec.seat_of(user_id) is None:
            return "open.not_seated"
        await self.svc.change(game, lambda g: self.dm_back(g, user_id))
        return "join.back"

    async def dm_started(self, user_id: int) -> list[Game]:
        """A bare /start in the DM (what unblocking the bot sends): every running game
        the person sits in sends their hand anew, and resumes if it waited for them."""
        games = [
            g
            for g in list(self.svc.games.values())
            if g.rec.status == "running" and g.rec.seat_of(user_id) is not None
        ]
        for game in games:
            await self.svc.change(game, lambda g: self.dm_back(g, user_id))
        return games

    def dm_back(self, game: Game, user_id: int) -> None:
        """(A step.) The player's DM works again: their hand is sent anew."""
        rec = game.rec
        seat = rec.seat_of(user_id)
        if seat is None:
            return
        rec.seats[seat].dm_failed = False
        self.svc.publisher.renew_dm(rec, seat)
        if rec.paused and not rec.group_gone and not any(s.dm_failed for s in rec.seats):
            rec.paused = False
        game.changed()

    async def on_forbidden(self, chat_id: int) -> None:
        """A DM failed (blocked, never started): pause the game and say so in the group.
        A group that refuses messages (the bot was removed) pauses its games too."""
        if chat_id < 0:
            await self.bot_removed(chat_id)
            return
        seated = [g for g in self.svc.games.values() if g.rec.seat_of(chat_id) is not None]
        for game in seated:
            await self.svc.change(game, lambda g: self._dm_failed(g, chat_id))

    def _dm_failed(self, game: Game, user_id: int) -> None:
        rec = game.rec
        seat = rec.seat_of(user_id)
        if seat is None or rec.status != "running":
            return
        rec.seats[seat].dm_failed = True
        rec.paused = True
        url = codec.deep_link(self.svc.bot_username, codec.open_payload(rec.id))
        take = render_table.takeover_markup(rec, self.svc.bot_username, [seat])
        rows = [[InlineKeyboardButton(t(rec.lang, "btn.open_dm"), url=url)]]
        markup = InlineKeyboardMarkup(rows + [list(r) for r in take.inline_keyboard])  # type: ignore[union-attr]
        text = t(rec.lang, "dm_failed", name=render_table.name_of(rec, seat), n=seat + 1)
        game.notify(rec.chat_id, slots.key(rec.id, "dmfail", seat=seat), Content(text, markup))
        game.changed()

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
        games = [g for g in self.svc.games.values() if g.rec.chat_id == old]
        await self.svc.store.migrate_chat(old, new)
        self.svc.outboxes.drop(old)

        def step(game: Game) -> None:
            if game.rec.chat_id == old:
                game.rec.chat_id = new
                game.changed()

        for game in games:
            await self.svc.change(game, step)
        if games:
            log.info("chat %s became %s: %d games moved", old, new, len(games))

    async def bot_removed(self, chat_id: int) -> None:
        """The bot left or was removed: an open lobby is cancelled, a running game is
        paused (kept whole) until the bot is back."""
        self.svc.outboxes.drop(chat_id)  # nothing can reach the group now
        await self.svc.store.forget_shown(chat_id)

        def step(game: Game) -> None:
            rec = game.rec
            if rec.status == "lobby":
                rec.status = "cancelled"
            elif rec.status == "running" and not rec.group_gone:
                rec.group_gone = rec.paused = True
            else:
                return
            game.changed()
            log.info("bot removed from %s: game %s %s", chat_id, rec.id, rec.status)

        for game in await self.svc.games_in(chat_id):
            await self.svc.change(game, step)

    async def bot_added(self, chat_id: int) -> None:
        """The bot is (back) in the group: paused games resume with the table posted anew."""
        games = [g for g in await self.svc.games_in(chat_id) if g.rec.group_gone]
        if games:
            self.svc.outboxes.drop(chat_id)  # a fresh outbox: old message ids may be gone
            await self.svc.store.forget_shown(chat_id)

        def step(game: Game) -> None:
            rec = game.rec
            rec.group_gone = False
            rec.paused = any(s.dm_failed for s in rec.seats)
            game.changed()

        for game in games:
            await self.svc.change(game, step)
