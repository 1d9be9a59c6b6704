"""An injectable clock so tests control the fake's notion of time."""

from __future__ import annotations

import time

# 2023-11-14: a fixed, realistic epoch so message dates look like real ones.
DEFAULT_START = 1_700_000_000.0


class FakeClock:
    """Unix-time clock used for message dates, rate-limit windows and accounting.

    ``ticking=True`` (default) lets real elapsed time pass as well, so a bot that
    paces itself with real sleeps is measured as it would be in Telegram.
    ``ticking=False`` freezes time entirely: only :meth:`advance` moves it.
    """

    def __init__(self, start: float = DEFAULT_START, *, ticking: bool = True) -> None:
        self._base = start
        self._ticking = ticking
        self._real_start = time.monotonic()

    def now(self) -> float:
        if self._ticking:
            return self._base + (time.monotonic() - self._real_start)
        return self._base

    def advance(self, seconds: float) -> None:
        """Jump forward; never backwards, because Telegram's time never does."""
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        self._base += seconds

    def __call__(self) -> float:
        return self.now()
