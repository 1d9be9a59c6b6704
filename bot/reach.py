"""Whether Telegram answers: one log line when it stops (with what retries and when), one
when it answers again, and the readiness that ``/readyz`` reports (``bot.metrics``).

Every Bot API call the bot makes passes through ``metrics.InstrumentedRequest``, which
tells :class:`Reach` how it went: an HTTP answer below 500 means Telegram was reached
(a refusal too: Telegram said so); no answer (a network error, a time-out) or a 5xx from
Telegram's front servers means it was not. An outage is logged once, whatever the number
of calls that fail meanwhile (long polling retries by itself: PTB's polling loop waits
1 s after the first failure, then 1.5 times longer each time, at most 30 s).
"""

from __future__ import annotations

import logging
import time

log = logging.getLogger(__name__)

# what retries while Telegram cannot be reached, for the log line
POLLING_RETRIES = (
    "polling retries by itself (after 1 s, then 1.5 times longer each time, at most 30 s)"
)
WEBHOOK_RETRIES = "Telegram retries posting updates to the webhook by itself"


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
