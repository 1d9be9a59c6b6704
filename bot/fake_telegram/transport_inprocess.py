"""The in-process transport: a PTB ``BaseRequest`` that calls the core directly."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from telegram._utils.defaultvalue import DEFAULT_NONE
from telegram._utils.types import ODVInput
from telegram.request import BaseRequest, RequestData

from .core import TelegramCore


class FakeRequest(BaseRequest):
    """Pass to ``ApplicationBuilder().request(...)`` and ``.get_updates_request(...)``.

    Parameters go through the same string/JSON encoding PTB uses on the wire, so
    both transports exercise identical decoding in the core.
    """

    def __init__(self, core: TelegramCore) -> None:
        self.core = core

    @property
    def read_timeout(self) -> float | None:
        return None

    async def initialize(self) -> None:
        """Nothing to open: there is no connection."""

    async def shutdown(self) -> None:
        """Nothing to close."""

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = DEFAULT_NONE,
        write_timeout: ODVInput[float] = DEFAULT_NONE,
        connect_timeout: ODVInput[float] = DEFAULT_NONE,
        pool_timeout: ODVInput[float] = DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self.core.unreachable:
            asked = request_data.parameters if request_data is not None else {}
            self.core.dropped.append((_split_url(url)[1], asked.get("chat_id")))
            raise ConnectionRefusedError("[Errno 111] Connect call failed (fake Telegram)")
        token, api_method = _split_url(url)
        params: dict[str, str] = {}
        files: dict[str, bytes] = {}
        if request_data is not None:
            params = dict(request_data.json_parameters)
            for name, part in request_data.multipart_data.items():
                content = part[1]
                files[name] = content if isinstance(content, bytes) else content.read()
        status, body = await self.core.handle(token, api_method, params, files)
        return status, json_bytes(body)


def json_bytes(body: object) -> bytes:
    """The answer as UTF-8 JSON; text that is not valid Unicode (a lone surrogate, e.g.
    in forged callback data) as ``\\u`` escapes, as Telegram's JSON carries it."""
    try:
        return json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(body).encode("ascii")


def _split_url(url: str) -> tuple[str, str]:
    """``.../bot<token>/<method>`` -> (token, method), whatever the host."""
    parts = urlsplit(url).path.rstrip("/").split("/")
    token_part = parts[-2] if len(parts) >= 2 else ""
    return token_part.removeprefix("bot"), parts[-1]
