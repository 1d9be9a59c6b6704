"""The sandbox's web page and its small JSON API (aiohttp), on 127.0.0.1 only by default.

``GET /`` the page (plain HTML/CSS/JS from ``static/``, no build step, nothing from the
internet); ``GET /api/events?user=N`` server-sent events for person N: a snapshot, then
every new, edited or deleted message of their chats; ``POST /api/<action>`` what a person
does: send a text, tap a button, open a deep link, press START, quick start, app language,
open a ``web_app`` button (``/api/webapp``: the Mini App's address with signed launch data).
``/webapp/`` is the Mini App itself (``bot.edges.miniapp``), as the bot serves it in production.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from aiohttp import web

from bot.edges.miniapp import server as webapp
from bot.fake_telegram import SimUser
from bot.sandbox.world import QuickStartError, Sandbox

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
SANDBOX = web.AppKey("sandbox", Sandbox)
KEEPALIVE = 15.0


def make_app(sandbox: Sandbox) -> web.Application:
    app = web.Application()
    app[SANDBOX] = sandbox
    app.router.add_get("/", index)
    app.router.add_static("/static/", STATIC)
    app.router.add_get("/api/events", events)
    app.router.add_get("/file/{file_id}", file)
    for name, handler in ACTIONS.items():
        app.router.add_post(f"/api/{name}", handler)
    # the Mini App as the bot serves it, with a stand-in for Telegram's script
    stand_in = STATIC / "telegram-web-app.js"
    app.add_subapp("/webapp/", webapp.make_app(lambda: sandbox.app, stand_in=stand_in))
    return app


async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})


def _person(request: web.Request, number: Any) -> SimUser:
    try:
        return request.app[SANDBOX].person(int(number))
    except (KeyError, TypeError, ValueError):
        raise web.HTTPBadRequest(text="unknown user") from None


async def events(request: web.Request) -> web.StreamResponse:
    sandbox = request.app[SANDBOX]
    person = _person(request, request.query.get("user", "1"))
    response = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"}
    )
    await response.prepare(request)
    sub = sandbox.subscribe(person)
    try:
        while True:
            try:
                event = await asyncio.wait_for(sub.queue.get(), KEEPALIVE)
            except TimeoutError:
                await response.write(b": keep-alive\n\n")
                continue
            data = json.dumps(event, ensure_ascii=False)
            await response.write(f"data: {data}\n\n".encode())
            if event["type"] == "bye":
                break
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    finally:
        sandbox.unsubscribe(sub)
    return response


async def file(request: web.Request) -> web.Response:
    content = request.app[SANDBOX].world.core.files.get(request.match_info["file_id"])
    if content is None:
        raise web.HTTPNotFound()
    return web.Response(body=content, content_type=_image_type(content))


def _image_type(content: bytes) -> str:
    if content.startswith(b"\x89PNG"):
        return "image/png"
    if content.startswith(b"\xff\xd8"):
        return "image/jpeg"
    return "application/octet-stream"


async def _body(request: web.Request) -> tuple[Sandbox, SimUser, dict[str, Any]]:
    try:
        body = await request.json()
    except json.JSONDecodeError:
        raise web.HTTPBadRequest(text="JSON body expected") from None
    return request.app[SANDBOX], _person(request, body.get("user")), body


async def send(request: web.Request) -> web.Response:
    sandbox, person, body = await _body(request)
    text = str(body.get("text", "")).strip()
    if not text:
        raise web.HTTPBadRequest(text="empty text")
    try:
        await sandbox.send(person, int(body["chat"]), text[:4096])
    except (KeyError, ValueError):
        raise web.HTTPBadRequest(text="unknown chat") from None
    return web.json_response({"ok": True})


async def press(request: web.Request) -> web.Response:
    sandbox, person, body = await _body(request)
    try:
        answer = await sandbox.press(
            person, int(body["chat"]), int(body["message"]), str(body["data"])
        )
    except (KeyError, ValueError):
        raise web.HTTPBadRequest(text="unknown chat or message") from None
    except AssertionError as e:  # the button is gone from the message's keyboard
        return web.json_response({"answered": False, "gone": True, "detail": str(e)})
    return web.json_response(answer)


async def link(request: web.Request) -> web.Response:
    sandbox, person, body = await _body(request)
    try:
        await sandbox.open_link(person, str(body.get("url", "")))
    except AssertionError:  # not a deep link to this bot
        return web.json_response({"ok": False})
    return web.json_response({"ok": True})


async def start(request: web.Request) -> web.Response:
    sandbox, person, _ = await _body(request)
    await sandbox.start_bot(person)
    return web.json_response({"ok": True})


async def quick(request: web.Request) -> web.Response:
    sandbox, person, _ = await _body(request)
    try:
        await sandbox.quick_start(person)
    except QuickStartError as e:
        return web.json_response({"ok": False, "error": e.code})
    return web.json_response({"ok": True})


async def language(request: web.Request) -> web.Response:
    sandbox, person, body = await _body(request)
    sandbox.set_language(person, str(body.get("lang", "zh")))
    return web.json_response({"ok": True})


async def open_webapp(request: web.Request) -> web.Response:
    sandbox, person, body = await _body(request)
    try:
        return web.json_response({"url": sandbox.webapp_launch(person, str(body.get("url")))})
    except ValueError:
        raise web.HTTPBadRequest(text="not this bot's Mini App") from None


ACTIONS = {
    "webapp": open_webapp,
    "send": send,
    "press": press,
    "link": link,
    "start": start,
    "quick": quick,
    "language": language,
}


async def serve(sandbox: Sandbox, host: str, port: int) -> web.AppRunner:
    """Start the page's server; returns its runner (``await runner.cleanup()`` to stop)."""
    runner = web.AppRunner(make_app(sandbox), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port, shutdown_timeout=1.0)
    await site.start()
    return runner
