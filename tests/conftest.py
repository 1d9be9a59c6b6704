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


# The tests that take longest (seconds of one worker, docs/testing.md), longest first: with
# several workers they start first, dealt in turn to the head of each worker's share of the
# run (pytest-xdist's worksteal gives each worker one contiguous share and lets an idle
# worker take the far end of another's), so that no worker is left alone at the end with
# a long one. A test's prefix is enough: every parametrized case of it is moved.
LONG = (
    "sandbox/test_miniapp_browser.py::test_a_whole_hand_through_the_mini_app_readable",
    "hostile/test_monkey.py::",
    "sandbox/test_dm_phases.py::test_a_dm_at_each_phase",
    "hosting/test_outages.py::test_an_outage_while_games_run",
    "sandbox/test_miniapp_browser.py::test_the_hands_tricks_and_the_matchs_history",
    "sandbox/test_miniapp_browser.py::test_four_people",
    "e2e/test_lifecycle.py::",
    "sandbox/test_miniapp_browser.py::test_hint_says_why",
    "e2e/test_pace.py::test_with_computers_at_the_table",
    "bench/test_capacity.py::",
    "sandbox/test_miniapp_browser.py::test_the_card_counter",
    "webapp/test_dropped.py::",
    "hosting/test_metrics.py::test_the_outbox_backlog",
    "hostile/test_sockets.py::",
    "engine/test_players_search.py::",
    "sandbox/test_browser.py::test_the_sandbox_page_plays_a_card",
    "hosting/test_faults.py::test_an_outage_while_polling",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers < 2:
        return

    def rank(item: pytest.Item) -> int | None:
        at = item.nodeid.removeprefix("tests/")
        return next((i for i, prefix in enumerate(LONG) if at.startswith(prefix)), None)

    long = sorted((item for item in items if rank(item) is not None), key=rank)  # type: ignore[arg-type,return-value]
    rest = [item for item in items if rank(item) is None]
    # the shares as worksteal cuts them: the i-th worker takes what is left // (workers - i)
    sizes, left = [], len(items)
    for i in range(workers):
        sizes.append(left // (workers - i))
        left -= sizes[-1]
    shares: list[list[pytest.Item]] = [[] for _ in range(workers)]
    for n, item in enumerate(long):
        shares[n % workers].append(item)
    for i, share in enumerate(shares):  # a module's tests kept together (its browser: one)
        modules: dict[str, list[pytest.Item]] = {}
        for item in share:
            modules.setdefault(item.nodeid.split("::")[0], []).append(item)
        shares[i] = [item for tests in modules.values() for item in tests]
    for share, size in zip(shares, sizes, strict=True):
        while len(share) < size and rest:
            share.append(rest.pop(0))
    items[:] = [item for share in shares for item in share] + rest
