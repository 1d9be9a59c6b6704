"""The HTTP transport: an aiohttp server speaking the Bot API on 127.0.0.1."""

from __future__ import annotations

import socket
import ssl
from typing import Any

from aiohttp import BodyPartReader, web

from .core import TelegramCore
from .transport_inprocess import json_bytes


class HttpServer:
    """Serves ``/bot<token>/<method>``; PTB runs unchanged with ``base_url(server.base_url)``."""

    def __init__(self, core: TelegramCore) -> None:
        self.core = core
        self.port = 0
        self.scheme = "http"
        self._runner: web.AppRunner | None = None

    @property
    def base_url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}/bot"

    async def start(self, ssl_context: ssl.SSLContext | None = None) -> None:
        """Listen on a free port; with ``ssl_context`` (a server context holding a
        certificate for 127.0.0.1), over TLS at an ``https`` base URL."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))  # the OS picks a free port; no races between tests
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock, ssl_context=ssl_context).start()
        self.scheme = "http" if ssl_context is None else "https"

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _handle(self, request: web.Request) -> web.Response:
        if self.core.unreachable:  # no answer: the client sees a dropped connection
            params, _ = await read_params(request)
            self.core.dropped.append((request.match_info["method"], params.get("chat_id")))
            if request.transport is not None:
                request.transport.close()
            return web.Response(status=502)
        params, files = await read_params(request)
        status, body = await self.core.handle(
            request.match_info["token"], request.match_info["method"], params, files
        )
        return web.json_response(body, status=status, dumps=_dumps)


async def read_params(request: web.Request) -> tuple[dict[str, Any], dict[str, bytes]]:
    """Query string plus whichever body PTB (or anyone) sent: form, multipart or JSON."""
    params: dict[str, Any] = dict(request.query)
    files: dict[str, bytes] = {}
    if request.content_type == "application/json":
        body = await request.json()
        if isinstance(body, dict):
            params.update(body)
    elif request.content_type == "multipart/form-data":
        reader = await request.multipart()
        async for part in reader:
            if not isinstance(part, BodyPartReader):
                continue  # a nested multipart: the Bot API sends none
            if part.filename is not None:
                files[part.name or ""] = await part.read()
            else:
                params[part.name or ""] = await part.text()
    elif request.can_read_body:
        params.update(await request.post())
    return params, files


def _dumps(value: Any) -> str:
    return json_bytes(value).decode("utf-8")
