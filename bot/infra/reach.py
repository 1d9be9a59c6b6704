"""Whether Telegram answers: one log line when it stops (with what retries and when), one
when it answers again, and the readiness that ``/readyz`` reports (``bot.edges.metrics``).

Every Bot API call the bot makes passes through ``metrics.InstrumentedRequest``, which
tells :class:`Reach` how it went: an answer of the Bot API means Telegram was reached (a
refusal too: Telegram said so; and a 500 with a Bot API error, e.g. a method a local Bot
API server does not support: that method failed, :class:`MethodFailed`); no answer (a
network error, a time-out), a 502/503/504 or a 5xx that is not a Bot API answer (Telegram's
front servers) means it was not (:func:`unreachable`). An outage is logged once, whatever the number
of calls that fail meanwhile (long polling retries by itself: PTB's polling loop waits
1 s after the first failure, then 1.5 times longer each time, at most 30 s).
"""

from __future__ import annotations

import logging
import time

import aiohttp
import httpx
from telegram.error import NetworkError

from bot.infra.request import PoolTimeout

log = logging.getLogger(__name__)

# Telegram unreachable: a chat's outbox tries its newest messages again after these
# pauses (seconds; the last one repeated until Telegram answers)
DELIVERY_RETRIES = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
_DELIVERIES = (
    "; each chat's newest messages are tried again after "
    + ", ".join(f"{p:g}" for p in DELIVERY_RETRIES)
    + f" s, then every {DELIVERY_RETRIES[-1]:g} s (a new message that may have reached"
    " Telegram is not sent twice)"
)
# what retries while Telegram cannot be reached, for the log line
POLLING_RETRIES = (
    "polling retries by itself (after 1 s, then 1.5 times longer each time, at most 30 s)"
    + _DELIVERIES
)
WEBHOOK_RETRIES = "Telegram retries posting updates to the webhook by itself" + _DELIVERIES


class Reach:
    """When Telegram last answered, and the outage under way if any."""

    def __init__(self, retries: str = POLLING_RETRIES) -> None:
        self.retries = retries
        self.last_ok: float | None = None  # time.monotonic() of the last answer
        self.down_since: float | None = None
        self.failures = 0
        self.reason = ""

    def ok(self) -> None:
        now = time.monotonic()
        if self.down_since is not None:
            log.warning(
                "Telegram reachable again after %.0f s (%d calls failed meanwhile)",
                now - self.down_since,
                self.failures,
            )
            self.down_since = None
        self.last_ok = now

    def failed(self, reason: str) -> None:
        self.reason = reason
        if self.down_since is None:
            self.down_since, self.failures = time.monotonic(), 0
            log.warning("Telegram unreachable (%s): %s", reason, self.retries)
        self.failures += 1

    def status(self) -> str:
        """Why Telegram does not count as reached, in a few words."""
        now = time.monotonic()
        if self.down_since is not None:
            return f"Telegram unreachable for {now - self.down_since:.0f} s ({self.reason})"
        if self.last_ok is None:
            return "Telegram not reached yet"
        return f"Telegram last answered {now - self.last_ok:.0f} s ago"

    def since_ok(self) -> float | None:
        """Seconds since Telegram last answered (None: never)."""
        return None if self.last_ok is None else time.monotonic() - self.last_ok


def reason_of(error: BaseException) -> str:
    """A network error in a few words, without a traceback (PTB's messages hold no token)."""
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class MethodFailed(NetworkError):
    """Telegram answered a call with a server error of the Bot API (HTTP 5xx with
    ``{"ok": false, ...}``): Telegram was reached, this method failed. A
    ``NetworkError`` (what python-telegram-bot raises for a 5xx) that is no outage."""


# HTTP statuses of Telegram's front servers when the Bot API behind them does not answer
GATEWAY_ERRORS = frozenset({502, 503, 504})


def unreachable(error: BaseException) -> bool:
    """Whether a failed call means that Telegram could not be reached (no answer, a
    time-out, a gateway error), not that it refused or failed one method."""
    return isinstance(error, NetworkError) and not isinstance(error, MethodFailed)


# failures before the request could reach Telegram (no connection was made): httpx's
# (PTB's HTTPXRequest, TELEGRAM_CLIENT=httpx) and aiohttp's (bot.infra.request): a refused
# connection, DNS, TLS (ClientConnectorSSLError, ClientConnectorCertificateError), a
# proxy (all ClientConnectorError), none opened in time (ConnectionTimeoutError), no
# free connection in the pool (PoolTimeout). Not a connection lost after the request
# was written (ServerDisconnectedError, ClientOSError) nor a read time-out
# (SocketTimeoutError).
_NOT_CONNECTED = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.PoolTimeout,
    aiohttp.ClientConnectorError,
    aiohttp.ConnectionTimeoutError,
    PoolTimeout,
    ConnectionRefusedError,
)


def surely_not_sent(error: BaseException) -> bool:
    """Whether a failed call surely never reached Telegram: the connection itself failed
    (a send may be tried again without posting twice). A time-out or a connection lost
    after the request was written may have reached it."""
    seen: BaseException | None = error
    for _ in range(8):  # a chain of causes is short (PTB's, then httpx's or aiohttp's)
        if seen is None:
            break
        if isinstance(seen, _NOT_CONNECTED):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
