"""Telegram's side of a webhook: the updates the core queues, POSTed to the URL that
``setWebhook`` gave, as the Bot API server delivers them (/work/shared/notes/telegram.md,
from telegram-bot-api's source): one queue per chat for messages and member updates, one
per *user* for callback queries (the four players of a table press in parallel), each
queue one update at a time and in order, the queues in parallel up to the webhook's
``max_connections`` (40 unless set), every request carrying the secret token in
``X-Telegram-Bot-Api-Secret-Token``. An update not answered 2xx is posted again after
``retry`` s (Telegram retries later too). Run it beside the HTTP transport::

    poster = WebhookPoster(world.core)
    task = asyncio.create_task(poster.run())  # posts while a webhook is set
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

import aiohttp

from .core import TelegramCore
from .objects import JSON
from .transport_inprocess import json_bytes

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def queue_of(update: JSON) -> tuple[str, Any]:
    """Which delivery queue an update waits in: its user's for a callback query, else its
    chat's."""
    query = update.get("callback_query")
    if query is not None:
        return ("user", query["from"]["id"])
    for kind, payload in update.items():
        if kind != "update_id" and isinstance(payload, dict) and "chat" in payload:
            return ("chat", payload["chat"]["id"])
    return ("other", None)


class WebhookPoster:
    def __init__(self, core: TelegramCore, *, retry: float = 1.0) -> None:
        self.core = core
        self.retry = retry
        self.posted = 0  # updates answered 2xx
        self.failed = 0  # posts answered otherwise or not at all (then posted again)
        self._queues: dict[tuple[str, Any], deque[JSON]] = {}
        self._workers: set[asyncio.Task[None]] = set()
        self._slots = asyncio.Semaphore(core.webhook_connections)  # connections in use
        self._slots_size = core.webhook_connections

    async def run(self) -> None:
        """Post every update while a webhook is set, until the core closes."""
        core = self.core
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as session:
            try:
                while not core.closing:
                    if not (core.webhook_url and core.updates):
                        core._wakeup.clear()
                        await core._wakeup.wait()
                        continue
                    if self._slots_size != core.webhook_connections:  # setWebhook's
                        self._slots_size = core.webhook_connections
                        self._slots = asyncio.Semaphore(self._slots_size)
                    batch, core.updates = core.updates, []
                    core.delivered_upto = max(core.delivered_upto, batch[-1]["update_id"])
                    for update in batch:
                        key = queue_of(update)
                        queue = self._queues.get(key)
                        if queue is None:
                            queue = self._queues[key] = deque()
                            worker = asyncio.create_task(self._deliver(session, key))
                            self._workers.add(worker)
                            worker.add_done_callback(self._workers.discard)
                        queue.append(update)
            finally:
                for worker in list(self._workers):
                    worker.cancel()
                await asyncio.gather(*self._workers, return_exceptions=True)

    async def _deliver(self, session: aiohttp.ClientSession, key: tuple[str, Any]) -> None:
        queue = self._queues[key]
        while queue:
            update = queue[0]
            headers = {"Content-Type": "application/json"}
            if self.core.webhook_secret:
                headers[SECRET_HEADER] = self.core.webhook_secret
            try:
                async with self._slots:
                    url = self.core.webhook_url
                    async with session.post(url, data=json_bytes(update), headers=headers) as r:
                        await r.read()
                        ok = 200 <= r.status < 300
            except (TimeoutError, aiohttp.ClientError, OSError):
                ok = False
            if ok:
                queue.popleft()
                self.posted += 1
            else:
                self.failed += 1
                await asyncio.sleep(self.retry)
        del self._queues[key]
