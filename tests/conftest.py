"""The suite's temporary files (every test's database among them) live in memory when
the machine has a RAM-backed ``/dev/shm`` with room: SQLite's fsync at each commit then
costs nothing, where on a loaded machine a test's wall time went mostly to its database
waiting for the disk (issue 19: the suite in minutes on any machine). No test checks
durability across a power cut. A ``TMPDIR`` set by whoever runs the tests is kept."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

SHM = "/dev/shm"
ROOM = 1 << 30  # free bytes it must have (Docker gives containers 64 MiB: too small)


def pytest_configure(config: pytest.Config) -> None:
    if "TMPDIR" in os.environ or not os.access(SHM, os.W_OK | os.X_OK):
        return
    if shutil.disk_usage(SHM).free >= ROOM:
        tempfile.tempdir = SHM  # tmp_path's root, and every tempfile's
