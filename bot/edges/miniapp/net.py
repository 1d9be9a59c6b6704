"""The Mini App server's connections: bounded in number, and who is on the other end
(issue 28).

Every connection holds a file descriptor. Past the process's limit (``RLIMIT_NOFILE``) a
server accepts nothing, asyncio logs a traceback per failed accept, and the bot's own
calls to Telegram and its database fail too. So the server holds at most a cap of
connections (:class:`Gate`): ``WEBAPP_MAX_CONNECTIONS``, or the descriptor limit less
``HEADROOM`` for the bot's own. At the cap a new connection takes the place of the oldest
idle one (connected but in no request: nothing sent yet, a partial header, or between
requests), as nginx reuses its keep-alive connections; when all are busy (requests, event
streams) it is answered 503 and closed. What the gate did is logged in one line a minute,
and so are asyncio's failures to accept for want of a descriptor (a traceback each, by
the hundred a second, else), which a limit lowered while the bot runs can still cause.
Silent connections are aiohttp's to close (``keepalive_timeout``, which also runs from
the moment a connection opens: ``WEBAPP_IDLE_SECONDS``); a request's body has as long to
arrive (:meth:`Gate.middleware`).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import resource
from collections import Counter
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

log = logging.getLogger(__name__)

# descriptors kept for the bot's own (Telegram: a pool of 256 at most; the database; the
# health endpoint) and for a burst of connections accepted before they are counted
# (asyncio accepts up to its backlog, 128, at a time)
HEADROOM = 384
LOG_SECONDS = 60.0  # at most one line about the cap this often
REFUSING = 128  # refused connections that may wait for their request before they close
# how long a refused connection, or one whose body was not read, waits for the rest of
# its request before it closes (so that its client reads the answer, not a reset)
LINGER_SECONDS = 1.0
IDLE_AGE = 0.25  # an idle connection younger than this is not closed for a new one
ACCEPT_FAILED = "socket.accept() out of system resource"  # asyncio's words (EMFILE)
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Content-Length: 5\r\nRetry-After: 10\r\nConnection: close\r\n\r\nbusy\n"
)


def descriptor_limit() -> int:
    """The process's soft limit of open files (it can change while the bot runs)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 1 << 20 if soft == resource.RLIM_INFINITY else soft


def derived_cap(limit: int) -> int:
    """The connections a process with ``limit`` descriptors can hold for the Mini App."""
    return max(limit - HEADROOM, limit // 4)


class Gate:
    """The server's protocol factory in front of aiohttp's (``web.Server``): what lets a
    connection in, in place of an idle one, or answers it 503. ``cap()``: the connections
    held at most (asked at every connection: the descriptor limit may change)."""

    def __init__(self, cap: Callable[[], int], body_seconds: float) -> None:
        self.cap, self.body_seconds = cap, body_seconds
        self.server: web.Server | None = None  # the runner's, once set up
        self.open: dict[RequestHandler, float] = {}  # connected (when), oldest first
        self.coming = 0  # let in, not yet connected (asyncio connects them next)
        self.busy: set[RequestHandler] = set()  # in a request (its handler runs)
        self.refusing = 0
        self.counts: Counter[str] = Counter()
        self._timer: asyncio.TimerHandle | None = None

    def __call__(self) -> asyncio.BaseProtocol:
        assert self.server is not None, "the runner is set up first"
        if len(self.open) + self.coming >= self.cap() and not self._room():
            self._note("refused")
            return _Refusal(self)
        self.coming += 1
        return _Counted(self, self.server())

    def _room(self) -> bool:
        """Close the oldest idle connection to make room for one more at the cap;
        False if all are busy (or just opened: their request may be on its way)."""
        idle = next((h for h in self.open if h not in self.busy), None)
        now = asyncio.get_running_loop().time()
        if idle is None or now - self.open[idle] < IDLE_AGE:
            return False
        del self.open[idle]
        idle.force_close()
        self._note("replaced")
        return True

    @web.middleware
    async def middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """Marks the connection busy while a request is handled (the root app's). A
        body is read first, within ``body_seconds`` (else 408): one sent a byte at a time
        would hold its connection busy, out of the idle timeout's reach."""
        protocol = request.protocol
        self.busy.add(protocol)
        try:
            if request.body_exists:
                try:
                    async with asyncio.timeout(self.body_seconds):
                        await request.read()  # kept: the handler's read() returns it
                except TimeoutError:
                    raise web.HTTPRequestTimeout(text="the body was too slow") from None
            return await handler(request)
        finally:
            self.busy.discard(protocol)

    # ------------------------------------------------------------------ the log
    def _note(self, what: str) -> None:
        """Count what happened ("refused", "replaced", "failed": a connection asyncio
        could not accept): said in a line at once after a quiet minute, then counted in a
        line a minute for as long as it goes on."""
        self.counts[what] += 1
        if self._timer is not None:
            return
        if what == "failed":
            log.warning(
                "Mini App: no descriptor left to accept a connection (limit %d): they wait in"
                " the kernel's queue, asyncio tries again each second (counted once a minute)",
                descriptor_limit(),
            )
        else:
            log.warning(
                "Mini App reached its cap of %d connections (descriptor limit %d): a new one"
                " replaces the oldest idle one, or is answered 503 (counted once a minute)",
                self.cap(),
                descriptor_limit(),
            )
        self.counts.clear()
        self._timer = asyncio.get_running_loop().call_later(LOG_SECONDS, self._tick)

    def _tick(self) -> None:
        self._timer = None
        if not self.counts:
            return
        log.warning(
            "Mini App in the last minute (a cap of %d connections, descriptor limit %d):"
            " %d answered 503, %d idle ones closed for new ones, %d not accepted for want of"
            " a descriptor",
            self.cap(),
            descriptor_limit(),
            self.counts["refused"],
            self.counts["replaced"],
            self.counts["failed"],
        )
        self.counts.clear()
        self._timer = asyncio.get_running_loop().call_later(LOG_SECONDS, self._tick)

    def filter(self, record: logging.LogRecord) -> bool:
        """A filter of asyncio's log: its line and traceback for every connection it
        cannot accept for want of a descriptor (up to its backlog at once, again each
        second) counted here instead. The last resort: the cap keeps the Mini App's
        connections below the limit, but a limit lowered while the bot runs, or one too
        small for a burst of connections, can still run out."""
        if isinstance(record.msg, str) and record.msg.startswith(ACCEPT_FAILED):
            self._note("failed")
            return False
        return True

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class _Counted(asyncio.Protocol):
    """aiohttp's protocol of a connection, counted by the gate while it is connected."""

    def __init__(self, gate: Gate, handler: RequestHandler) -> None:
        self.gate, self.handler = gate, handler

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.gate.coming -= 1
        self.gate.open[self.handler] = asyncio.get_running_loop().time()
        self.handler.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.gate.open.pop(self.handler, None)
        self.handler.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self.handler.data_received(data)

    def eof_received(self) -> None:
        self.handler.eof_received()  # None: the transport closes (aiohttp's answer too)

    def pause_writing(self) -> None:
        self.handler.pause_writing()

    def resume_writing(self) -> None:
        self.handler.resume_writing()


class _Refusal(asyncio.Protocol):
    """A connection over the cap: answered 503 at once and closed once its request is
    read (closing a socket with data unread resets it, and its client may never see the
    answer), or after LINGER_SECONDS of silence, as long as few others wait (REFUSING)."""

    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(BUSY)
        if self.gate.refusing >= REFUSING:
            transport.close()
            return
        self.transport = transport
        self.gate.refusing += 1
        transport.write_eof()
        asyncio.get_running_loop().call_later(LINGER_SECONDS, transport.close)

    def data_received(self, data: bytes) -> None:
        if self.transport is not None:
            self.transport.close()  # the request is read: nothing left to reset with

    def eof_received(self) -> bool:
        return False  # the client is done: close

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is not None:
            self.gate.refusing -= 1
            self.transport = None


class Site(web.BaseSite):
    """aiohttp's TCP site with a :class:`Gate` as its protocol factory."""

    def __init__(
        self, runner: web.BaseRunner, gate: Gate, host: str, port: int, backlog: int = 128
    ) -> None:
        super().__init__(runner, backlog=backlog)
        assert runner.server is not None
        gate.server = runner.server
        self.gate, self.host, self.port = gate, host, port

    @property
    def name(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def start(self) -> None:
        await super().start()
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            self.gate, self.host, self.port, backlog=self._backlog
        )
        logging.getLogger("asyncio").addFilter(self.gate)

    async def stop(self) -> None:
        await super().stop()
        logging.getLogger("asyncio").removeFilter(self.gate)
        self.gate.close()


# ---------------------------------------------------------------------- who asks
def client_address(request: web.Request) -> str:
    """Where a request comes from, for caps per address: its peer's address, or when the
    peer is a reverse proxy on this host or a private network (the Mini App is served
    behind one: Telegram opens HTTPS only), the last address of ``X-Forwarded-For``
    (the one the proxy added). An IPv6 address stands for its /64, which one host holds."""
    peer = request.remote or ""
    address = _ip(peer)
    if address is not None and (address.is_loopback or address.is_private):
        forwarded = request.headers.get("X-Forwarded-For", "").rsplit(",", 1)[-1].strip()
        address = _ip(forwarded) or address
    if address is None:
        return peer
    if address.version == 6 and address.ipv4_mapped is not None:  # a dual-stack socket's
        return str(address.ipv4_mapped)
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None
