"""A seat's input: a player's buttons in their DM (and the group's "Next hand"), from
Telegram or the Mini App, each press made one command for the change path.

What a press does to the game is the table's (``bot.table``); this edge only marks a
press on a DM message that is no longer the live one as old (the publisher knows which
is live), and has a Hint's suggestion decided before the change by the computers' one
decider (``Computers.suggest``: the heuristic at once; at a search strength the press is
answered "thinking" and the search runs in the pool meanwhile), entering the table as
data (``Hint.suggestion`` with the hand's version)."""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import replace

from bot.delivery.publish import Publisher
from bot.edges.computer import Computers
from bot.service.live import Game, StepFailed, Tables
from bot.table import Answer
from bot.table.commands import Hint, SeatCommand, Suggestion

log = logging.getLogger(__name__)


class HandInput:
    """A player's buttons in their DM (and the group's "Next hand"), from Telegram or
    the Mini App: each press becomes one command for the change path (what it does to
    the game is the table's, ``bot.table.turns``); a press on a DM message that is no
    longer the live one is marked old, which only the publisher knows."""

    def __init__(self, tables: Tables, publisher: Publisher, computers: Computers) -> None:
        self.tables, self.publisher, self.computers = tables, publisher, computers
        # searched Hints in flight, one a (game, seat, hand, version): a press is answered
        # at once and the search's selection arrives as the DM's (and the app's) next change
        self.hinting: dict[tuple[int, int, int, int], asyncio.Task[None]] = {}

    async def press(
        self,
        game: Game,
        command: SeatCommand,
        dm_message: int | None = None,
    ) -> Answer:
        """A button of a DM hand (``dm_message``: the pressed message's id), the same
        in the Mini App, or the group's next-hand button."""
        user_id = command.user_id
        if self.publisher.pressed(user_id, game.table.rec, dm_message):
            command = replace(command, old_message=True)
        if isinstance(command, Hint) and (seat := self._to_suggest(game, command)) is not None:
            match = game.table.match
            assert match is not None
            if (
                self.computers.searches(game.table.rec.computer_strength)
                and match.hand.phase == "playing"
            ):
                return self._hint_later(game, command, seat)
            command = await self._suggested(game, command, seat)  # the heuristic: at once
        outcome = await self.tables.change(game, command)
        return outcome.answer

    def _to_suggest(self, game: Game, hint: Hint) -> int | None:
        """The seat whose Hint is decided here, before the change, by the computers'
        decider (as a computer's move is: the table decides nothing), or None: the table
        refuses the Hint at once, with its own words."""
        rec, match = game.table.rec, game.table.match
        seat = rec.seat_of(hint.user_id)
        if rec.status != "running" or match is None or seat is None or rec.paused:
            return None
        hand = match.hand
        if hand.phase not in ("burying", "playing") or hand.turn != seat:
            return None
        if hint.old_message or hint.hand != hand.hand_number:
            return None
        return seat

    async def _suggested(self, game: Game, hint: Hint, seat: int) -> Hint:
        """The Hint with the decider's suggestion for the hand as it is now."""
        rec, match = game.table.rec, game.table.match
        assert match is not None
        hand = match.hand
        version = hand.version
        rng = random.Random(f"hint {rec.seed} {hand.hand_number} {version}")
        cards, reason = await self.computers.suggest(
            rec.computer_strength, match.observation(seat), rng
        )
        return replace(hint, suggestion=Suggestion(version, tuple(cards), reason))

    def _hint_later(self, game: Game, hint: Hint, seat: int) -> Answer:
        """Answer the press now ("thinking"); the search runs meanwhile and its play is
        selected by a change of its own, taken only if the hand is still where it was
        (else it is dropped: the moment it was for has passed). A second Hint at the same
        moment while one is thinking starts nothing more."""
        hand = game.table.match.hand if game.table.match is not None else None
        key = (
            game.table.rec.id,
            seat,
            hand.hand_number if hand else 0,
            hand.version if hand else 0,
        )
        if key not in self.hinting:
            task = asyncio.create_task(self._search_hint(game, hint, seat))
            self.hinting[key] = task
            task.add_done_callback(lambda _: self.hinting.pop(key, None))
        return Answer("hint.thinking")

    async def _search_hint(self, game: Game, hint: Hint, seat: int) -> None:
        try:
            await self.tables.change(game, await self._suggested(game, hint, seat))
        except StepFailed:
            pass  # logged once with the game's id; the game is as it was saved
        except Exception:  # the press was answered; the DM simply shows no suggestion
            log.exception("game %s: a searched hint failed", game.table.rec.id)

    async def close(self) -> None:
        """At shutdown: hints still thinking are dropped (a suggestion is no game state)."""
        tasks = list(self.hinting.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
