"""Per-game serialisation of updates.

Updates for one game (or one chat, when no game can be read from the update) are
processed strictly in arrival order; updates for different games run in parallel, so
one slow group never stalls the others. asyncio locks are fair (FIFO), and PTB starts
one task per update in arrival order, so taking the key's lock first thing keeps order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Hashable
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

from bot import codec


def update_key(update: object) -> Hashable:
    if not isinstance(update, Update):
        return "other"
    if update.callback_query is not None:
        game = codec.game_of(update.callback_query.data)
        if game is not None:
            return ("game", game)
    msg = update.effective_message
    if msg is not None and msg.chat.type == "private" and msg.text:
        parts = msg.text.split()
        if len(parts) == 2 and parts[0].startswith("/start"):
            try:
                return ("game", codec.decode_payload(parts[1])[1])
            except codec.BadData:
                pass
    chat = update.effective_chat
    if chat is not None:
        return ("chat", chat.id)
    user = update.effective_user
    return ("user", user.id if user else 0)


class KeyedLocks:
    """Locks by key that disappear when nobody holds or waits for them."""

    def __init__(self) -> None:
        self._locks: dict[Hashable, asyncio.Lock] = {}
        self._users: dict[Hashable, int] = {}

    async def run(self, key: Hashable, coro: Awaitable[Any]) -> Any:
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._users[key] = self._users.get(key, 0) + 1
        try:
            async with lock:
                return await coro
        finally:
            self._users[key] -= 1
            if self._users[key] == 0:
                del self._users[key]
                del self._locks[key]

    def __len__(self) -> int:
        return len(self._locks)


class GameUpdateProcessor(BaseUpdateProcessor):
    def __init__(self, max_concurrent_updates: int = 256) -> None:
        super().__init__(max_concurrent_updates)
        self.locks = KeyedLocks()

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        await self.locks.run(update_key(update), coroutine)

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass
