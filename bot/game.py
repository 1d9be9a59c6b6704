"""The games the bot hosts, and the one path every change takes.

Every change — a press, a command, a deadline — goes through :meth:`GameService.change`:
under the game's lock a *step* asks the engine (``MatchState.apply``) and edits the
game's record; if the step changed anything, the game is saved once, published once
(``bot.publish``: what each chat shows, within the call budget) and its one timer is
armed once (``bot.timers``). Nothing else saves, renders or arms.

Where a change starts:
- ``bot/lobby.py``       lobby and seats: a new game, joins, lobby buttons, take-overs
- ``bot/hand_input.py``  a player's buttons in their DM, and the group's "Next hand"
- ``bot/timers.py``      deadlines: deals, overturn windows, computers, time-outs, expiry
- ``bot/chats.py``       the chats themselves: settings, migrations, removals, blocked DMs
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import random
import sys
from collections.abc import Awaitable, Callable
from typing import TypeVar

from bot import history, slots
from bot.chats import ChatLifecycle
from bot.computer import Computers
from bot.config import Settings
from bot.hand_input import HandInput
from bot.live import Answer, Game, Notice, StepFailed
from bot.lobby import Lobby
from bot.models import RUNNING_STATES, GameRecord
from bot.outbox import Clock, Outboxes
from bot.publish import Publisher
from bot.render import history as render_history
from bot.store import Store, database_fault
from bot.timers import Deadlines
from engine.match import MatchState

log = logging.getLogger(__name__)

T = TypeVar("T")


SeedSource = Callable[[], int]
Step = Callable[[Game], "T | Awaitable[T]"]

__all__ = ["Answer", "Game", "GameService", "Notice", "SeedSource", "StepFailed", "system_seed"]


def system_seed() -> int:
    """A fresh match seed from the operating system's randomness."""
    return random.SystemRandom().randrange(2**31)


class GameService:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        outboxes: Outboxes,
        clock: Clock,
        seed_source: SeedSource | None = None,
    ):
        self.settings = settings
        # where a new game's seed (its deals) comes from: tests inject fixed seeds
        self.seed_source: SeedSource = seed_source or system_seed
        self.store = store
        self.outboxes = outboxes
        self.clock = clock
        # the games in play (lobby or running) and those whose last messages are on
        # their way; an ended game leaves once they are delivered (``_retire``)
        self.games: dict[int, Game] = {}
        self._retiring: dict[int, asyncio.Task[None]] = {}
        self.bot_username = "bot"
        self._loading = asyncio.Lock()
        self.lobby = Lobby(self)
        self.hands = HandInput(self)
        self.deadlines = Deadlines(self)
        self.computers = Computers()
        self.chats = ChatLifecycle(self)
        self.publisher = Publisher(self)
        outboxes.on_shown = store.save_shown
        outboxes.on_forbidden = self.chats.on_forbidden
        outboxes.on_migrated = self.chats.on_migrated

    def now(self) -> float:
        return self.clock.now()

    def wall(self) -> float:
        return self.clock.wall()

    # ------------------------------------------------------------------ the change path
    async def change(self, game: Game, step: Step[T]) -> T:
        """Run ``step`` on the game under its lock; if it changed anything: save once,
        publish once, arm the game's timer once.

        Whatever raises, the game is left as it was last saved, the failure logged
        once with the game's id. Up to the save (the step, the engine, the history, the
        save itself) nothing happened: the game returns to its saved record and
        :class:`StepFailed` tells the caller, who answers the person. After the save
        the change stands: a failing publish or timer is repaired (the game shown and
        armed again, as saved) and the step's result returned."""
        async with game.lock:
            window = game.window_deadline
            game.dirty = game.durable = False
            try:
                out = step(game)
                if inspect.isawaitable(out):
                    out = await out
                if game.dirty:
                    await self._hand_over(game)
                    await self.save(game)
            except Exception as e:
                self._failed(game, "changing it", window)
                raise StepFailed(game.rec.id) from e
            try:
                if game.dirty:
                    self.publisher.publish(game)
                    self.deadlines.arm(game)
            except Exception:
                self._failed(game, "showing it or arming its timer", game.window_deadline)
            finally:
                game.dirty = game.durable = False
            if game.rec.status not in RUNNING_STATES and game.rec.id not in self._retiring:
                task = asyncio.get_running_loop().create_task(self._retire(game))
                self._retiring[game.rec.id] = task
            return out  # type: ignore[return-value]

    async def _retire(self, game: Game) -> None:
        """An ended game leaves memory once its last messages are delivered: the game,
        what was published of it, its messages' slots (and their saved ids: nothing
        edits them again) and the outboxes its chats no longer need."""
        rec = game.rec
        chats = [rec.chat_id, *(s.user_id for s in rec.seats if s.user_id is not None)]
        try:  # (a migrated group's old id has no outbox any more: nothing to wait for)
            await self.outboxes.delivered(chats)
            async with game.lock:
                if self.games.get(rec.id) is game:
                    del self.games[rec.id]
                self.publisher.forget(rec.id)
                self.deadlines.forget(rec.id)
                self.outboxes.retire(chats, f"g{rec.id}:")
        finally:
            del self._retiring[rec.id]

    def close(self) -> None:
        """The bot stops: ended games waiting for their last messages stop waiting."""
        for task in list(self._retiring.values()):
            task.cancel()

    def _failed(self, game: Game, doing: str, window: float | None) -> None:
        """(Under the game's lock, in an ``except``.) Log the failure once; the game
        becomes its saved record again, and its chats and timer follow that record."""
        fault = database_fault(sys.exc_info()[1])  # a full disk: one line, no traceback
        log.error(
            "game %s: %s failed%s; the game is as it was last saved",
            game.rec.id,
            doing,
            f" ({fault})" if fault else "",
            exc_info=fault is None,
        )
        game.rec = GameRecord.model_validate_json(game.saved)
        rec = game.rec
        game.match = MatchState.model_validate_json(rec.match_json) if rec.match_json else None
        game.window_deadline = window
        game.notices.clear()
        game.dirty = game.durable = False
        try:
            self.publisher.publish(game)
            self.deadlines.arm(game, again=True)
        except Exception:
            log.exception("game %s: showing it as saved failed too", rec.id)

    async def _hand_over(self, game: Game) -> None:
        """A finished hand (and match) is kept in the history, committed with the
        game's save; a match that just ended shows its level chart."""
        rec, match = game.rec, game.match
        if match is None or match.hand.phase != "done":
            return
        ended = await history.hand_over(self.store, rec, match, self.wall())
        if ended is not None and not rec.group_gone:
            game.notify(
                rec.chat_id,
                slots.key(rec.id, "chart"),
                render_history.chart_message(rec.lang, ended),
            )

    async def save(self, game: Game) -> None:
        """Write the game; wait for the disk unless only a selection changed (it is
        committed with the next commit, in order)."""
        if game.match is not None:
            game.rec.match_json = game.match.model_dump_json()
        game.saved = await self.store.save_game(game.rec, wait=game.durable or not game.dirty)

    # ------------------------------------------------------------------ loading
    async def get(self, game_id: int) -> Game | None:
        game = self.games.get(game_id)
        if game is not None:
            return game
        async with self._loading:  # two presses of a game not loaded yet: one Game
            game = self.games.get(game_id)
            if game is None:
                rec = await self.store.load_game(game_id)
                if rec is None:
                    return None
                game = self._adopt(rec)
        return game

    def _adopt(self, rec: GameRecord) -> Game:
        """The game of a record read from the store, kept in memory (an ended one, read
        again for a press on an old message, leaves again after that change)."""
        match = MatchState.model_validate_json(rec.match_json) if rec.match_json else None
        game = self.games[rec.id] = Game(rec, match, saved=rec.model_dump_json())
        return game

    async def create(self, rec: GameRecord) -> Game:
        rec = await self.store.create_game(rec)
        game = self.games[rec.id] = Game(rec, saved=rec.model_dump_json())
        return game

    async def resume_all(self) -> int:
        """After a start-up: the messages as they were left, then every open game shown
        as it is now (only what changed meanwhile is edited) with its timer re-armed."""
        await self.store.forget_shown_of_ended_games()  # kept by versions before 0.3
        for chat_id, key, message_id, digest in await self.store.all_shown():
            self.outboxes.get(chat_id).adopt(key, message_id, shown=digest)
        recs = await self.store.open_games()
        for rec in recs:
            game = self._adopt(rec)
            async with game.lock:
                self.publisher.publish(game)
                self.deadlines.arm(game)
        return len(recs)

    async def open_game_in(self, chat_id: int, thread_id: int | None) -> Game | None:
        rec = await self.store.open_game_in(chat_id, thread_id)
        return None if rec is None else await self.get(rec.id)

    async def games_in(self, chat_id: int) -> list[Game]:
        """The chat's open games (lobby or running)."""
        out = []
        for rec in await self.store.games_in(chat_id):
            if rec.status in ("lobby", "running"):
                game = await self.get(rec.id)
                if game is not None:
                    out.append(game)
        return out
