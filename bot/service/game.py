"""The games the bot hosts, and the one path every change takes.

Every change — a press, a command, a deadline — goes through :meth:`GameService.change`:
under the game's lock the table (``bot.table``, a pure state machine) applies the
command; if it changed anything (it returns the events), the game is saved once,
published once (``bot.delivery.publish``: what each chat shows of those events, within the call
budget), and its one timer is armed once (``bot.edges.timers``). Nothing else saves, renders
or arms.

The service is given what it publishes and arms through (``Publishing``, ``Timers``);
the parts that start changes sit above it and are given the service (all built in
``bot/app.py``). Where a change starts (each only calls ``change``, through
:class:`bot.service.live.Tables`):
- ``bot/edges/lobby.py``       a new game, joins, lobby buttons, take-overs
- ``bot/delivery/publish.py``     ``HandInput``: a player's buttons in their DM, and the group's "Next hand"
- ``bot/edges/timers.py``      deadlines: deals, overturn windows, computers, time-outs, expiry
- ``bot/edges/chats.py``       the chats themselves: settings, migrations, removals, blocked DMs
"""

from __future__ import annotations

import asyncio
import logging
import random
import sys
from collections.abc import Callable, Sequence
from typing import Protocol

from bot import table
from bot.data import history
from bot.data.saved import RUNNING_STATES, GameRecord
from bot.data.store import Store, database_fault
from bot.infra.config import Settings
from bot.service.live import Game, StepFailed, Tables
from bot.table.commands import Command
from bot.table.moments import Event
from bot.table.tokens import Token
from bot.views.messages import Clock
from engine.events import HandSettled
from engine.match import MatchState

log = logging.getLogger(__name__)

SeedSource = Callable[[], int]

__all__ = [
    "GameService",
    "Publishing",
    "SeedSource",
    "Timers",
    "system_seed",
]


class Publishing(Protocol):
    """What every chat shows of a game (``bot.delivery.publish.Publisher``)."""

    def publish(
        self, game: Game, events: Sequence[Event | history.Charted] = (), full: bool = False
    ) -> None: ...

    def forget(self, game_id: int) -> None: ...

    async def delivered(self, chats: Sequence[int]) -> None:
        """Wait until everything published to these chats so far is delivered."""

    def retire(self, chats: Sequence[int], prefix: str) -> None:
        """An ended game's messages (their keys start with ``prefix``) are edited no more."""

    def adopt(self, chat_id: int, key: str, message_id: int, digest: str | None) -> None:
        """After a start-up: a message as it was left (its id and what it shows)."""


class Timers(Protocol):
    """Each game's one pending timer (``bot.edges.timers.Deadlines``)."""

    def arm(
        self, tables: Tables, game: Game, due: tuple[Token, float] | None, again: bool = False
    ) -> None: ...

    def forget(self, game_id: int) -> None: ...

    def close(self) -> None: ...


def system_seed() -> int:
    """A fresh match seed from the operating system's randomness."""
    return random.SystemRandom().randrange(2**31)


class GameService:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        clock: Clock,
        publisher: Publishing,
        deadlines: Timers,
    ):
        self.settings = settings
        self.store = store
        self.clock = clock
        self.publisher = publisher
        self.deadlines = deadlines
        # the games in play (lobby or running) and those whose last messages are on
        # their way; an ended game leaves once they are delivered (``_retire``)
        self.games: dict[int, Game] = {}
        self._retiring: dict[int, asyncio.Task[None]] = {}
        self._loading = asyncio.Lock()

    def now(self) -> float:
        return self.clock.now()

    def wall(self) -> float:
        return self.clock.wall()

    def moment(self) -> table.Moment:
        return table.Moment(self.clock.now(), self.clock.wall())

    # ------------------------------------------------------------------ the change path
    async def change(self, game: Game, command: Command) -> table.Outcome:
        """Apply ``command`` to the game's table under its lock; if it changed anything:
        save once, publish its events once, arm the game's timer once.

        Whatever raises, the game is left as it was last saved, the failure logged
        once with the game's id. Up to the save (the table, the engine, the history,
        the save itself) nothing happened: the game returns to its saved record and
        :class:`StepFailed` tells the caller, who answers the person. After the save
        the change stands: a failing publish or timer is repaired (the game shown and
        armed again, as saved) and the outcome returned."""
        async with game.lock:
            window = game.table.window_deadline
            try:
                out = table.apply(game.table, command, self.settings, self.moment())
                shown: list[Event | history.Charted] = list(out.events)
                if out.events:
                    shown += await self._hand_over(game, out.events)
                    await self.save(game, wait=out.durable)
            except Exception as e:
                self._failed(game, "changing it", window)
                raise StepFailed(game.table.rec.id) from e
            try:
                if shown:
                    self.publisher.publish(game, shown)
                self._arm(game)
            except Exception:
                self._failed(game, "showing it or arming its timer", game.table.window_deadline)
            if (
                game.table.rec.status not in RUNNING_STATES
                and game.table.rec.id not in self._retiring
            ):
                task = asyncio.get_running_loop().create_task(self._retire(game))
                self._retiring[game.table.rec.id] = task
            return out

    def _arm(self, game: Game, again: bool = False) -> None:
        due = table.due(game.table, self.settings, self.moment())
        self.deadlines.arm(self, game, due, again=again)

    async def _retire(self, game: Game) -> None:
        """An ended game leaves memory once its last messages are delivered: the game,
        what was published of it, its messages' slots (and their saved ids: nothing
        edits them again) and the outboxes its chats no longer need."""
        rec = game.table.rec
        chats = [rec.chat_id, *(s.user_id for s in rec.seats if s.user_id is not None)]
        try:  # (a migrated group's old id has no outbox any more: nothing to wait for)
            await self.publisher.delivered(chats)
            async with game.lock:
                if self.games.get(rec.id) is game:
                    del self.games[rec.id]
                self.publisher.forget(rec.id)
                self.deadlines.forget(rec.id)
                self.publisher.retire(chats, f"g{rec.id}:")
        finally:
            del self._retiring[rec.id]

    def close(self) -> None:
        """The bot stops: ended games waiting for their last messages stop waiting, and
        no computer thinks ahead of a timer any more."""
        for task in list(self._retiring.values()):
            task.cancel()
        self.deadlines.close()

    def _failed(self, game: Game, doing: str, window: tuple[float, float] | None) -> None:
        """(Under the game's lock, in an ``except``.) Log the failure once; the game
        becomes its saved record again, and its chats and timer follow that record."""
        fault = database_fault(sys.exc_info()[1])  # a full disk: one line, no traceback
        log.error(
            "game %s: %s failed%s; the game is as it was last saved",
            game.table.rec.id,
            doing,
            f" ({fault})" if fault else "",
            exc_info=fault is None,
        )
        game.table.rec = GameRecord.restore(game.saved, game.saved_match)
        rec = game.table.rec
        game.table.match = (
            MatchState.model_validate_json(rec.match_json) if rec.match_json else None
        )
        game.table.window_deadline = window
        table.restarted(game.table, self.settings, self.moment())
        try:
            self.publisher.publish(game, full=True)
            self._arm(game, again=True)
        except Exception:
            log.exception("game %s: showing it as saved failed too", rec.id)

    async def _hand_over(self, game: Game, events: list[Event]) -> list[history.Charted]:
        """A finished hand (and match) is kept in the history, committed with the
        game's save; a match that just ended shows its level chart."""
        rec, match = game.table.rec, game.table.match
        if match is None or not any(isinstance(e, HandSettled) for e in events):
            return []
        ended = await history.hand_over(self.store, rec, match, self.wall())
        return [] if ended is None else [history.Charted(ended)]

    async def save(self, game: Game, wait: bool = True) -> None:
        """Write the game; ``wait`` for the disk unless only a selection changed (it
        is committed with the next commit, in order)."""
        match = game.table.match
        changed = False
        if match is not None:
            # a selection or a setting changes only the record: the match's JSON (most of
            # a save's work) is written again as it was
            hand = match.hand
            dumped = game.dumped
            moved = (hand.hand_number, hand.version, len(match.results), match.winner)
            if (
                dumped is None
                or dumped[0] is not game.table.rec
                or dumped[1] is not match
                or dumped[2] is not hand
                or dumped[3:] != (*moved, match.ended_by_time)
            ):
                game.table.rec.match_json = match.model_dump_json()
                game.dumped = (game.table.rec, match, hand, *moved, match.ended_by_time)
                changed = True
        game.saved = await self.store.save_game(game.table.rec, wait=wait, match=changed)
        if changed:
            game.saved_match = game.table.rec.match_json

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

    async def read(self, game_id: int) -> Game | None:
        """The game for someone who only reads it (a Mini App's view, a press that can
        change nothing): the one in memory; else an ended game is read from the store
        and left out of memory (``detached``: nobody keeps it once read), and a game in
        play is loaded as :meth:`get` loads it."""
        game = self.games.get(game_id)
        if game is not None:
            return game
        rec = await self.store.load_game(game_id)
        if rec is None:
            return None
        if rec.status in RUNNING_STATES:
            return await self.get(game_id)
        match = MatchState.model_validate_json(rec.match_json) if rec.match_json else None
        return Game(
            table.Table(rec, match),
            saved=rec.record_json(),
            saved_match=rec.match_json,
            detached=True,
        )

    def _adopt(self, rec: GameRecord) -> Game:
        """The game of a record read from the store, kept in memory (an ended one, read
        again for a press on an old message, leaves again after that change)."""
        match = MatchState.model_validate_json(rec.match_json) if rec.match_json else None
        game = Game(table.Table(rec, match), saved=rec.record_json(), saved_match=rec.match_json)
        self.games[rec.id] = game
        table.restarted(game.table, self.settings, self.moment())
        return game

    async def create(self, rec: GameRecord) -> Game:
        """A new lobby: saved (once), shown and armed."""
        rec = await self.store.create_game(rec)
        game = self.games[rec.id] = Game(table.Table(rec), saved=rec.record_json())
        async with game.lock:
            self.publisher.publish(game, table.opened().events)
            self._arm(game)
        return game

    async def resume_all(self) -> int:
        """After a start-up: the messages as they were left, then every open game shown
        as it is now (only what changed meanwhile is edited) with its timer re-armed."""
        await self.store.forget_shown_of_ended_games()  # kept by versions before 0.3
        for chat_id, key, message_id, digest in await self.store.all_shown():
            self.publisher.adopt(chat_id, key, message_id, digest)
        recs = await self.store.open_games()
        for rec in recs:
            game = self._adopt(rec)
            async with game.lock:
                self.publisher.publish(game, full=True)
                self._arm(game)
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
