"""The bot's Bot API client: python-telegram-bot's ``BaseRequest`` on aiohttp (issue 34).

PTB's own ``HTTPXRequest`` form-encodes every parameter, so a DM's ~2.5 KB keyboard is
percent-encoded in Python on every edit; httpx's path costs ~1.2 ms of CPU an edit over
loopback HTTP (~1.4 ms over TLS), this one ~0.4 ms (~0.45), bench/request_cost.py. This
class sends ``RequestData.json_payload`` as one JSON body, and a multipart form only when
the call uploads a file (the level chart). PTB still does everything above the wire: it
builds the parameters, and ``BaseRequest._request_wrapper`` turns the (status, payload)
returned here into ``RetryAfter``, ``BadRequest`` and the rest, exactly as with
``HTTPXRequest``. Only failures without an answer are mapped here, as ``HTTPXRequest``
maps httpx's: a time-out is ``TimedOut``, any other failure to talk to the server
``NetworkError``, the aiohttp error kept as ``__cause__`` (``bot.infra.reach`` reads it to know
whether the request surely never left).
"""

from __future__ import annotations

import asyncio
import ssl
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import getproxies, proxy_bypass

import aiohttp
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

JSON_HEADERS = {"Content-Type": "application/json"}


class PoolTimeout(TimeoutError):
    """No connection of the pool became free within ``pool_timeout``: nothing was sent."""


class AiohttpRequest(BaseRequest):
    """A ``BaseRequest`` on one ``aiohttp.ClientSession``, opened by ``initialize`` and
    closed by ``shutdown``, holding at most ``connection_pool_size`` connections (as
    ``HTTPXRequest``'s pool: 256 for the bot's calls, 1 for getUpdates).

    PTB's four time-outs (seconds, None: no limit; ``DEFAULT_NONE`` in a call: this
    object's) are kept as PTB means them, as closely as aiohttp allows:

    - ``pool_timeout``: waiting for one of the ``connection_pool_size`` connections to be
      free. aiohttp bounds that wait only together with opening a connection, so the
      wait is this class's own (a semaphore of the pool's size in front of aiohttp's
      pool of the same size); past it, ``TimedOut`` caused by :class:`PoolTimeout`.
    - ``connect_timeout`` → ``ClientTimeout.connect`` and ``sock_connect``: opening a new
      connection, TCP and TLS (or taking an idle one).
    - ``read_timeout`` → ``sock_read``: the longest silence while waiting for and reading
      the answer, as httpx's read time-out. getUpdates' long poll gets its own from PTB.
    - ``write_timeout`` (``media_write_timeout`` when a file is uploaded, as in
      ``HTTPXRequest``): aiohttp has no time-out on writing, so the whole call is bounded
      instead, ``total`` = connect + write + read (None if any is None).

    aiohttp rounds a time-out of 5 s or more up to the next whole second (its
    ``ceil_threshold``). A failure to connect (refused, DNS, TLS, a connect or pool
    time-out) raises before anything is written; aiohttp never repeats a POST by itself
    (it retries only idempotent methods on a reused connection), so no call is made twice.

    TLS: by default the server is verified against the system's certificate store
    (OpenSSL's default paths, which honour ``SSL_CERT_FILE``), as aiohttp does. A host
    whose Bot API server has a private CA passes ``ca_file`` (trusted instead of the
    system's store) or its own ``ssl_context``. A proxy comes from the environment
    (``HTTPS_PROXY``, ``NO_PROXY``), as with httpx, read once a host (aiohttp's own
    ``trust_env`` would read it, and ``.netrc``, in a thread on every call).
    """

    __slots__ = (
        "_connect_timeout",
        "_media_write_timeout",
        "_pool_size",
        "_pool_timeout",
        "_proxies",
        "_read_timeout",
        "_session",
        "_slots",
        "_ssl",
        "_write_timeout",
    )

    def __init__(
        self,
        connection_pool_size: int = 256,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
        media_write_timeout: float | None = 20.0,
        *,
        ssl_context: ssl.SSLContext | None = None,
        ca_file: str | Path | None = None,
    ) -> None:
        if ssl_context is not None and ca_file is not None:
            raise ValueError("pass ssl_context or ca_file, not both")
        if ca_file is not None:
            ssl_context = ssl.create_default_context(cafile=str(ca_file))
        self._ssl: ssl.SSLContext | bool = ssl_context if ssl_context is not None else True
        self._pool_size = connection_pool_size
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._media_write_timeout = media_write_timeout
        self._proxies: dict[tuple[str, str], str | None] = {}
        self._session: aiohttp.ClientSession | None = None
        self._slots = asyncio.Semaphore(connection_pool_size)  # anew in each session's loop

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            self._slots = asyncio.Semaphore(self._pool_size)
            connector = aiohttp.TCPConnector(limit=self._pool_size, ssl=self._ssl)
            self._session = aiohttp.ClientSession(
                connector=connector,
                headers={"User-Agent": self.USER_AGENT},
                timeout=self._timeout(files=False),
            )

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    def _timeout(
        self,
        read: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        *,
        files: bool,
    ) -> aiohttp.ClientTimeout:
        """PTB's time-outs of one call as aiohttp's (the class's docstring says how)."""
        r = self._read_timeout if isinstance(read, DefaultValue) else read
        c = self._connect_timeout if isinstance(connect, DefaultValue) else connect
        if isinstance(write, DefaultValue):
            w = self._media_write_timeout if files else self._write_timeout
        else:
            w = write
        total = None if c is None or w is None or r is None else c + w + r
        return aiohttp.ClientTimeout(total=total, connect=c, sock_connect=c, sock_read=r)

    def _proxy(self, url: str) -> str | None:
        """The environment's proxy for ``url``'s host, if any (read once a host)."""
        parts = urlsplit(url)
        key = (parts.scheme, parts.hostname or "")
        if key not in self._proxies:
            bypass = not key[1] or proxy_bypass(key[1])
            self._proxies[key] = None if bypass else getproxies().get(key[0])
        return self._proxies[key]

    async def _take_slot(self, pool_timeout: ODVInput[float]) -> None:
        """One of the pool's connections, waiting ``pool_timeout`` at most."""
        if not self._slots.locked():
            await self._slots.acquire()  # free: no timer to arm
            return
        wait = self._pool_timeout if isinstance(pool_timeout, DefaultValue) else pool_timeout
        try:
            async with asyncio.timeout(wait):
                await self._slots.acquire()
        except TimeoutError:
            cause = PoolTimeout(f"all {self._pool_size} connections busy for {wait} s")
            raise TimedOut(
                f"Pool timeout: {cause}; the request was not sent to Telegram"
            ) from cause

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data is not None and request_data.contains_files
        timeout = self._timeout(read_timeout, write_timeout, connect_timeout, files=files)
        body: aiohttp.FormData | bytes | None = None
        headers = None
        if request_data is not None and files:
            body = multipart(request_data)
        elif request_data is not None:
            body, headers = request_data.json_payload, JSON_HEADERS
        await self._take_slot(pool_timeout)
        try:
            async with session.request(
                method, url, data=body, headers=headers, timeout=timeout, proxy=self._proxy(url)
            ) as response:
                return response.status, await response.read()
        except TimeoutError as e:  # aiohttp's time-outs are TimeoutErrors too
            raise TimedOut(f"aiohttp.{type(e).__name__}: {e}" if str(e) else None) from e
        except (aiohttp.ClientError, OSError) as e:
            raise NetworkError(f"aiohttp.{type(e).__name__}: {e}") from e
        finally:
            self._slots.release()


def multipart(request_data: RequestData) -> aiohttp.FormData:
    """A call that uploads files as ``multipart/form-data``: each parameter a field (JSON
    encoded as PTB encodes it), each file a part with its name and type."""
    form = aiohttp.FormData()
    for name, value in request_data.json_parameters.items():
        form.add_field(name, value)
    for name, (filename, content, mimetype) in request_data.multipart_data.items():
        form.add_field(name, content, filename=filename, content_type=mimetype)
    return form
