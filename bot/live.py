"""A game in memory while the bot runs, and what a press is answered with."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from bot.models import GameRecord
from bot.outbox import Content
from engine.match import MatchState


@dataclass
class Answer:
    """What a press is answered with (``answerCallbackQuery``)."""

    text: str = ""
    alert: bool = False


@dataclass
class Notice:
    """A message a step wants shown besides the game's own (published with it)."""

    chat_id: int
    key: str
    content: Content
    oneshot: bool = True
    thread_id: int | None = None


class StepFailed(Exception):
    """A change of a game raised before it was saved: the game is as it was last
    saved (the failure is logged once, with the game's id, where it happened)."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"a change of game {game_id} failed")
        self.game_id = game_id


@dataclass
class Game:
    rec: GameRecord
    match: MatchState | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # monotonic deadline of the after-deal window (not persisted: re-armed on restart)
    window_deadline: float | None = None
    # the deadline of a person's turn: ((hand, version), monotonic, wall) (not persisted:
    # a restart gives the turn its time again), and whether its warning was shown
    turn_deadline: tuple[tuple[int, int], float, float] | None = None
    warned: bool = False
    # set by a step that changed something: the change path saves, publishes and arms
    dirty: bool = False
    # ... and something that must be on disk before the press is answered (not only a
    # player's selection of cards)
    durable: bool = False
    notices: list[Notice] = field(default_factory=list)
    # the record as last saved (or loaded): what a failed change returns the game to
    saved: str = ""

    def changed(self, durable: bool = True) -> None:
        """Something changed; ``durable=False``: only what the next commit may carry
        (a player's selection of cards: a power cut losing it loses nothing)."""
        self.dirty = True
        self.durable = self.durable or durable

    def notify(self, chat_id: int, key: str, content: Content, oneshot: bool = True) -> None:
        """Show ``content`` in a chat when this change is published."""
        thread = self.rec.thread_id if chat_id == self.rec.chat_id else None
        self.notices.append(Notice(chat_id, key, content, oneshot, thread))
        self.changed()
