"""A game in memory while the bot runs: its table (``bot.table``) with the lock every
change takes and the record as last saved; and the change path's face for the parts
that start changes (lobby, DM buttons, chats, timers)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Protocol

from bot.data.saved import GameRecord
from bot.table import Outcome, Table
from bot.table.commands import Command
from engine.match import MatchState

__all__ = ["Game", "StepFailed", "Tables"]


class StepFailed(Exception):
    """A change of a game raised before it was saved: the game is as it was last
    saved (the failure is logged once, with the game's id, where it happened)."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"a change of game {game_id} failed")
        self.game_id = game_id


@dataclass
class Game:
    """A game the bot holds: its ``table`` (the rules' and the seats' state, which only
    ``bot.table.apply`` changes), the lock every change takes, and the saved state a
    failed change returns it to."""

    table: Table
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # the record as last saved (or loaded), without its match, and the match's JSON as
    # last saved: what a failed change returns the game to (``GameRecord.restore``)
    saved: str = ""
    saved_match: str | None = None
    # what ``rec.match_json`` was last serialised from (``GameService.save``): the
    # record, the match, its hand (held, so no new object can take their ids) and the
    # moves that changed them since; the same again: the JSON is reused
    dumped: tuple[object, ...] | None = field(default=None, repr=False, compare=False)
    # an ended game read from the store for a reader (``GameService.read``): not in the
    # live set, and nothing changes it
    detached: bool = False

    # read-throughs for tests and tools; the bot's own code reads ``game.table`` (a
    # property is a call: on a change's walk it would be a detour into this file)
    @property
    def rec(self) -> GameRecord:
        """The table's record (lobby, seats, settings), as the table keeps it."""
        return self.table.rec

    @property
    def match(self) -> MatchState | None:
        """The table's match, if it started."""
        return self.table.match


class Tables(Protocol):
    """The games and their one change path (``bot.service.game.GameService``)."""

    async def get(self, game_id: int) -> Game | None: ...

    async def read(self, game_id: int) -> Game | None: ...

    async def change(self, game: Game, command: Command) -> Outcome: ...

    async def games_in(self, chat_id: int) -> list[Game]: ...

    async def open_game_in(self, chat_id: int, thread_id: int | None) -> Game | None: ...

    async def create(self, rec: GameRecord) -> Game: ...
