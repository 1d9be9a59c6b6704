"""A player's buttons in their DM (and the group's "Next hand"), from Telegram or the
Mini App: each press becomes one command for the change path; what it does to the game
is the table's (``bot.table.hand``)."""

from __future__ import annotations

from dataclasses import replace

from bot.live import Answer, Game, Tables
from bot.publish import Publisher
from bot.table.commands import SeatCommand
from bot.table.hand import reason_text

__all__ = ["HandInput", "reason_text"]


class HandInput:
    def __init__(self, tables: Tables, publisher: Publisher) -> None:
        self.tables, self.publisher = tables, publisher

    async def press(
        self,
        game: Game,
        command: SeatCommand,
        dm_message: int | None = None,
    ) -> Answer:
        """A button of a DM hand (``dm_message``: the pressed message's id), the same
        in the Mini App, or the group's next-hand button."""
        user_id = command.user_id
        self.publisher.pressed(user_id)
        live = self.publisher.live_dm(game.rec, user_id) if dm_message is not None else None
        if live is not None and live != dm_message:
            command = replace(command, old_message=True)
        outcome = await self.tables.change(game, command)
        return outcome.answer
