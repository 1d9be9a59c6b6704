"""The suite's temporary files (every test's database among them) live in memory when
the machine has a RAM-backed ``/dev/shm`` with room: SQLite's fsync at each commit then
costs nothing, where on a loaded machine a test's wall time went mostly to its database
waiting for the disk (issue 19: the suite in minutes on any machine). No test checks
durability across a power cut. A ``TMPDIR`` set by whoever runs the tests is kept.

The event loop the async tests run on: asyncio's own, or uvloop's (what the bot runs on
in production, bot.infra.eventloop) with ``--event-loop uvloop`` (or ``TEST_EVENT_LOOP=uvloop``):
the whole suite runs on either. A test marked ``asyncio(loop_factories=["uvloop"])`` runs
on that one whatever is chosen (tests/e2e/test_uvloop.py: a whole hand, in every run)."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping

import pytest
import uvloop

SHM = "/dev/shm"
ROOM = 1 << 30  # free bytes it must have (Docker gives containers 64 MiB: too small)


LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "asyncio": asyncio.new_event_loop,
    "uvloop": uvloop.new_event_loop,
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--event-loop",
        choices=sorted(LOOPS),
        default=os.environ.get("TEST_EVENT_LOOP", "asyncio"),
        help="the event loop of the async tests (default: $TEST_EVENT_LOOP, else asyncio)",
    )


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> Mapping[str, Callable[[], asyncio.AbstractEventLoop]]:
    marker = item.get_closest_marker("asyncio")
    if marker is not None and "loop_factories" in marker.kwargs:
        return LOOPS  # the test names its loops
    chosen = config.getoption("--event-loop")
    return {chosen: LOOPS[chosen]}


def pytest_configure(config: pytest.Config) -> None:
    if "TMPDIR" in os.environ or not os.access(SHM, os.W_OK | os.X_OK):
        return
    if shutil.disk_usage(SHM).free >= ROOM:
        tempfile.tempdir = SHM  # tmp_path's root, and every tempfile's
