"""A Mini App as Telegram opens it, for the tests: signed launch data and the API."""

from __future__ import annotations

import asyncio
import json
from contextlib import asynccontextmanager
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.edges.miniapp.auth import sign
from bot.edges.miniapp.server import make_app
from bot.edges.miniapp.streams import PING_SECONDS
from tests.e2e.harness import find, seat_players, service


def launch_data(user: Any, token: str, auth_date: float, **extra: str) -> str:
    """What Telegram hands the Mini App of ``user`` (a SimUser), signed for ``token``."""
    person = {"id": user.id, "first_name": user.name, "language_code": user.user.language_code}
    fields = {
        "query_id": "AAH-test",
        "user": json.dumps(person, separators=(",", ":")),
        "auth_date": str(int(auth_date)),
        **extra,
    }
    return sign(fields, token)


class Session:
    """One person's open Mini App."""

    def __init__(self, client: TestClient, init_data: str) -> None:
        self.client, self.init_data = client, init_data

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"tma {self.init_data}"}

    async def get(self, game_id: int | None) -> tuple[int, Any]:
        query = {} if game_id is None else {"game": str(game_id)}
        r = await self.client.get("/api/view", params=query, headers=self.headers)
        return r.status, (await r.json() if r.status == 200 else await r.text())

    async def view(self, game_id: int) -> dict[str, Any]:
        status, body = await self.get(game_id)
        assert status == 200, body
        return body

    async def act(self, game_id: int, action: str, view: dict | None = None, **body: Any):
        if view is not None:
            body = {"hand": view["hand_no"], "version": view["version"], **body}
        r = await self.client.post(
            "/api/act", json={"game": game_id, "action": action, **body}, headers=self.headers
        )
        assert r.status == 200, await r.text()
        return await r.json()

    async def here(self, game_id: int) -> int:
        """The page says it is shown (as it does every few seconds); the status."""
        r = await self.client.post("/api/here", json={"game": game_id}, headers=self.headers)
        return r.status

    async def keep_shown(self, game_id: int, clock: Any) -> None:
        """Say ``here`` every PING_SECONDS of ``clock`` (the bot's), as a shown page does."""
        said = clock.now()
        while True:
            await asyncio.sleep(0.005)
            if clock.now() - said >= PING_SECONDS:
                said = clock.now()
                await self.here(game_id)


class _Server(TestServer):
    """The server as the bot runs it: a handler is not cancelled when its client goes
    (aiohttp's default, which the test server turns off)."""

    async def _make_runner(self, **kwargs: Any) -> web.BaseRunner:
        kwargs["handler_cancellation"] = False
        return await super()._make_runner(**kwargs)


@asynccontextmanager
async def webapp(app: Any):
    """The bot's Mini App server on a local port, with a client."""
    async with TestClient(_Server(make_app(lambda: app))) as client:
        yield client


def session(client: TestClient, app: Any, user: Any, **extra: str) -> Session:
    svc = service(app)
    return Session(client, launch_data(user, app.bot.token, svc.wall(), **extra))


async def started_game(world: Any, group: Any, people: list[Any]) -> int:
    game_id, _ = await seat_players(world, group, people)
    lobby = world.last_message(group, from_bot=True)
    await people[0].press(lobby, data=find(lobby, "S").data)
    await world.settle()
    return game_id
