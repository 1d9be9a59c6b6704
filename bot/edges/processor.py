"""Per-person serialisation of updates.

One person's updates are processed strictly in arrival order (a card tapped, then
Play); different people's run in parallel, so a slow check for one (a membership
look-up) never holds anyone else. A game's own consistency does not rely on this:
every change of a game runs under that game's lock (``GameService.change``), taken
in arrival order (asyncio locks are fair, and PTB starts one task per update in
arrival order). Updates without a person (the bot's own membership, a group's
migration) are serialised per chat.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Hashable
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor


def update_key(update: object) -> Hashable:
    if not isinstance(update, Update):
        return "other"
    if update.my_chat_member is None:
        user = update.effective_user
        if user is not None:
            return ("user", user.id)
    chat = update.effective_chat
    return ("chat", chat.id if chat is not None else 0)


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
