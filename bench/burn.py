"""A loaded host for the benches: CPU burner processes, and the load they ran under.

``with Burners(n) as load:`` starts ``n`` processes that spin on the CPU (at the bench's own
priority) until the block ends; ``load.summary()`` then gives the machine's 1-minute load
average over the block (read every few seconds from ``os.getloadavg``: the machine is
shared, so the load is what it was, burners and everybody else, not ``n``).
"""

from __future__ import annotations

import multiprocessing
import os
import statistics
import threading
from types import TracebackType


def _spin(stop: multiprocessing.synchronize.Event) -> None:  # type: ignore[name-defined]
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x += 1


class Burners:
    def __init__(self, n: int, every: float = 5.0) -> None:
        self.n, self.every = n, every
        self.loads: list[float] = []
        self._stop = multiprocessing.Event()
        self._procs: list[multiprocessing.Process] = []
        self._done = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)

    def _read(self) -> None:
        while not self._done.wait(self.every):
            self.loads.append(os.getloadavg()[0])

    def __enter__(self) -> Burners:
        for _ in range(self.n):
            p = multiprocessing.Process(target=_spin, args=(self._stop,), daemon=True)
            p.start()
            self._procs.append(p)
        self.loads.append(os.getloadavg()[0])
        self._reader.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._done.set()
        self._stop.set()
        for p in self._procs:
            p.join(5)
            if p.is_alive():
                p.terminate()

    def summary(self) -> str:
        xs = self.loads or [os.getloadavg()[0]]
        return (
            f"{self.n} burner process(es); machine load (1-min average, {len(xs)} readings):"
            f" median {statistics.median(xs):.1f}, min {min(xs):.1f}, max {max(xs):.1f}"
            f" on {os.cpu_count()} cores"
        )
