"""Hostile requests to the Mini App's API and the webhook (issue 28): every malformed body
or parameter is a 4xx with no traceback in the log, a play whose save fails is answered
as the chat path answers it, security headers on every answer."""

from __future__ import annotations

import asyncio
import errno
import logging
from typing import Any

import pytest

from bot.fake_telegram import FakeTelegram
from bot.i18n import t
from tests.e2e.harness import running_bot
from tests.e2e.harness import service as service_of
from tests.webapp.client import session, started_game, webapp

DEEP = 100_000


def people_at(world: FakeTelegram) -> tuple[list[Any], Any]:
    people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
    group = world.group("Table", members=people[1:], admins=people[:1])
    return people, group


def no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    bad = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not bad, [r.getMessage() for r in bad]
    assert "Traceback" not in caplog.text


ACT_BODIES: list[bytes] = [
    b'{"game": Infinity, "action": "hint"}',
    b'{"game": NaN, "action": "hint"}',
    b'{"game": -Infinity, "action": "hint"}',
    b'{"game": 1e400, "action": "hint"}',
    b'{"game": GAME, "action": "hint", "hand": 1e400}',
    b'{"game": GAME, "action": "hint", "version": 1e400}',
    b'{"game": GAME, "action": "play", "cards": [1e400]}',
    b'{"game": 99999999999999999999, "action": "hint"}',
    b'{"game": 9223372036854775808, "action": "hint"}',
    b'{"game": -1, "action": "hint"}',
    b'{"game": GAME, "action": "hint", "hand": 99999999999999999999}',
    b'{"game": GAME, "action": "hint", "version": 99999999999999999999}',
    b'{"game": "GAME", "action": "hint"}',
    b'{"game": 1.5, "action": "hint"}',
    b'{"game": true, "action": "hint"}',
    b"[" * DEEP + b"]" * DEEP,
    b'{"game": ' + b"[" * DEEP + b"]" * DEEP + b"}",
    b'{"game": GAME, "action": "hint", "x": ' + b'{"a":' * DEEP + b"1" + b"}" * DEEP + b"}",
    b"\xff\xfe",
    b"",
    b"null",
    b'{"game": GAME, "action": "play", "cards": [' + b"1," * 10_000 + b"1]}",
]
HERE_BODIES: list[bytes] = [
    b'{"game": Infinity}',
    b'{"game": NaN}',
    b'{"game": 1e400}',
    b'{"game": 99999999999999999999}',
    b'{"game": "x"}',
    b"[" * DEEP + b"]" * DEEP,
    b'{"game": ' + b"[" * DEEP + b"]" * DEEP + b"}",
    b'{"game": GAME, "x": ' + b'{"a":' * DEEP + b"1" + b"}" * DEEP + b"}",
    b"\xff",
    b"",
    b"[]",
]
GAME_PARAMS = [
    "99999999999999999999",
    "9223372036854775808",
    "-9223372036854775809",
    "1e400",
    "Infinity",
    "NaN",
    "-1",
    "0x10",
    "1" * 5000,
    "",
    " 1",
    "١٢",  # digits int() reads, not ASCII
    "1_0",
]


async def test_every_malformed_body_or_parameter_is_a_4xx_with_no_traceback(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    async with FakeTelegram() as world:
        people, group = people_at(world)
        async with (
            running_bot(world, tmp_path / "db", webapp_rate_per_minute=100_000) as app,
            webapp(app) as client,
        ):
            game_id = await started_game(world, group, people)
            ann = session(client, app, people[0])
            caplog.clear()
            statuses: dict[str, int] = {}
            for raw in ACT_BODIES:
                body = raw.replace(b"GAME", str(game_id).encode())
                r = await client.post(
                    "/api/act",
                    data=body,
                    headers={**ann.headers, "Content-Type": "application/json"},
                )
                statuses[f"act {body[:50]!r}"] = r.status
                await r.read()
            for raw in HERE_BODIES:
                body = raw.replace(b"GAME", str(game_id).encode())
                r = await client.post(
                    "/api/here",
                    data=body,
                    headers={**ann.headers, "Content-Type": "application/json"},
                )
                statuses[f"here {body[:50]!r}"] = r.status
                await r.read()
            for param in GAME_PARAMS:
                for path in ("/api/view", "/api/tricks", "/api/history", "/api/events"):
                    query = {"game": param}
                    headers = ann.headers
                    if path == "/api/events":
                        query["auth"], headers = ann.init_data, {}
                    r = await client.get(path, params=query, headers=headers)
                    statuses[f"{path} {param[:30]}"] = r.status
                    r.close()
            wrong = {k: v for k, v in statuses.items() if not 400 <= v < 500}
            assert not wrong, "\n".join(f"{k}: {v}" for k, v in wrong.items())
            # the real thing still works after all that
            assert (await ann.view(game_id))["game"] == game_id
            no_traceback(caplog)


async def test_a_body_over_the_bound_is_413_and_the_next_request_is_served(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    async with FakeTelegram() as world:
        people, group = people_at(world)
        async with running_bot(world, tmp_path / "db") as app, webapp(app) as client:
            game_id = await started_game(world, group, people)
            ann = session(client, app, people[0])
            caplog.clear()
            big = b'{"game": 1, "action": "hint", "x": "' + b"a" * 200_000 + b'"}'
            for path in ("/api/act", "/api/here"):
                r = await client.post(path, data=big, headers=ann.headers)
                assert r.status == 413
            assert (await ann.view(game_id))["game"] == game_id
            no_traceback(caplog)


async def test_a_play_whose_save_fails_is_answered_as_the_chat_answers_it(
    tmp_path, caplog, monkeypatch
):
    """A full disk: the press did not happen, the person is told so in their words (the
    chat's ``error.undone``), the game is as it was saved, one log line, no traceback."""
    async with FakeTelegram() as world:
        people, group = people_at(world)
        async with running_bot(world, tmp_path / "db") as app, webapp(app) as client:
            game_id = await started_game(world, group, people)
            svc = service_of(app)
            game = svc.games[game_id]
            for _ in range(1000):  # the deal: then a pass is a change, saved
                await world.settle()
                if game.match.hand.phase == "after_deal":
                    break
                await asyncio.sleep(0.01)
            assert game.match.hand.can_pass(0)
            ann = session(client, app, people[0])
            view = await ann.view(game_id)
            saved = game.saved

            async def full(*args: Any, **kwargs: Any) -> str:
                raise OSError(errno.ENOSPC, "No space left on device")

            monkeypatch.setattr(svc.store, "save_game", full)
            caplog.clear()
            body = {"game": game_id, "action": "pass", "hand": view["hand_no"]}
            body["version"] = view["version"]
            r = await client.post("/api/act", json=body, headers=ann.headers)
            assert r.status == 503
            answer = await r.json()
            assert answer["text"] == t("en", "error.undone") and answer["alert"] is True
            assert answer["view"]["game"] == game_id
            assert game.saved == saved and game.match.hand.can_pass(0)
            errors = [rec for rec in caplog.records if rec.levelno >= logging.ERROR]
            assert len(errors) == 1 and not errors[0].exc_info, errors
            assert "No space left" in errors[0].getMessage()
            assert "Traceback" not in caplog.text


async def status_of(http: Any, url: str, data: Any, headers: dict[str, str]) -> int | None:
    """The status of a POST sent as Telegram does (``Expect: 100-continue``: the body
    follows only if the server wants it); None if the server closed while it was sent."""
    import aiohttp

    try:
        async with http.post(url, data=data, headers=headers, expect100=True) as r:
            return r.status
    except aiohttp.ClientConnectionError:
        return None


async def test_the_webhook_refuses_json_nested_too_deep_or_too_large_in_one_line(caplog):
    import tornado.httpserver
    from aiohttp import ClientSession
    from telegram import Bot

    from bot.hosting import MAX_UPDATE_BYTES, WebhookApp
    from tests.hosting.test_webhook import free_port

    queue: asyncio.Queue[object] = asyncio.Queue()
    secret = "s3cret"
    app = WebhookApp("/hook", Bot("123:abc"), queue, secret)
    port = free_port()
    server = tornado.httpserver.HTTPServer(app)
    server.listen(port, "127.0.0.1")
    headers = {"Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": secret}
    caplog.set_level(logging.INFO)
    try:
        async with ClientSession() as http:
            url = f"http://127.0.0.1:{port}/hook"
            for body in (
                b"[" * DEEP + b"]" * DEEP,
                b'{"update_id": 1, "message": ' + b'{"a":' * DEEP + b"1" + b"}" * DEEP + b"}",
            ):
                async with http.post(url, data=body, headers=headers) as r:
                    assert r.status == 400
            update = b'{"update_id": 5}'
            async with http.post(url, data=update, headers=headers) as r:
                assert r.status == 200
            # a body over the bound: 413 on its announced length (nothing of it read), or
            # at its end when sent in chunks without a length (what is over is not kept)
            huge = b'{"update_id": 6, "x": "' + b"a" * (MAX_UPDATE_BYTES + 10) + b'"}'
            assert await status_of(http, url, huge, headers) == 413

            async def chunks():
                for i in range(0, len(huge), 65536):
                    yield huge[i : i + 65536]

            assert await status_of(http, url, chunks(), headers) == 413
            # without the secret nothing of the body is read: 403
            stranger = {"Content-Type": "application/json"}
            assert await status_of(http, url, huge, stranger) == 403
            async with http.post(url, data=update, headers=headers) as r:
                assert r.status == 200  # and the hook still takes updates
    finally:
        server.stop()
    assert queue.qsize() == 2
    refused = [r.getMessage() for r in caplog.records if "webhook: refused" in r.getMessage()]
    assert len(refused) == 4, refused
    assert all("too deep" in line for line in refused[:2]), refused
    assert all(": 413" in line for line in refused[2:]), refused
    no_traceback(caplog)
