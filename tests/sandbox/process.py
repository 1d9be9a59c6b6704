"""Start the sandbox as ``./run`` does (``python -m bot`` without a token) on a free port."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from queue import Empty, Queue
from threading import Thread

ROOT = Path(__file__).resolve().parents[2]
ADDRESS = re.compile(r"(http://127\.0\.0\.1:\d+/)")

# The bot's own settings, made quick for a test (a person would keep the defaults).
QUICK = {
    "DEAL_BATCH": "25",
    "DEAL_PACE_SECONDS": "0.05",
    "OVERTURN_WINDOW_SECONDS": "1",
    "COMPUTER_DELAY_SECONDS": "0.05",
    "COMPUTER_STRENGTH": "easy",  # the heuristic unless a test chooses in /settings
    "GROUP_INTERVAL_SECONDS": "0",
    "LOG_LEVEL": "WARNING",
}


@contextmanager
def sandbox_process(cwd: Path, *args: str, seed: int | None = None, **env: str) -> Iterator[str]:
    """Run ``python -m bot --port 0 ARGS`` with no BOT_TOKEN (``seed``: ``--seed N``, the
    games dealt from fixed seeds); yields the page's address."""
    if seed is not None:
        args = (*args, "--seed", str(seed))
    environ = {k: v for k, v in os.environ.items() if k != "BOT_TOKEN"}
    environ.update(PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1", **env)
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "--port", "0", *args],
        cwd=cwd,  # no .env there
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: Queue[str] = Queue()
    output: list[str] = []

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line)
            lines.put(line)

    Thread(target=pump, daemon=True).start()
    try:
        address = None
        while address is None:
            try:
                line = lines.get(timeout=30)
            except Empty:
                raise AssertionError(f"the sandbox printed no address: {''.join(output)}") from None
            if (m := ADDRESS.search(line)) is not None:
                address = m.group(1)
        yield address
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError("the sandbox did not stop on SIGTERM") from None
    assert proc.returncode == 0, "".join(output)
