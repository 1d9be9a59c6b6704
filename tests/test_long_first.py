"""The suite's order under pytest-xdist (tests/conftest.py): the longest tests named in
``LONG`` exist (a renamed one would start wherever it falls and might end the run alone),
and they head the workers' shares in turn, a module's tests together."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests import conftest
from tests.conftest import LONG

TESTS = Path(__file__).resolve().parent


def test_every_long_test_named_exists() -> None:
    for prefix in LONG:
        path, _, name = prefix.partition("::")
        source = (TESTS / path).read_text()
        assert not name or re.search(rf"^(async )?def {re.escape(name)}", source, re.M), prefix


def test_the_long_tests_head_each_workers_share_in_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    def item(nodeid: str) -> Any:
        return SimpleNamespace(nodeid=nodeid)

    whole, monkey, dm, panels = (
        f"tests/{prefix}" for prefix in (LONG[0], LONG[1], LONG[2], LONG[4])
    )
    quick = [f"tests/a/test_{n}.py::test_quick" for n in range(9)]
    # collected in another order: the long ones in reverse, but the two cases as written
    shuffled = [panels + "[en]", dm, monkey + "test_x", whole + "[en]", whole + "[zh]"]
    items = [item(nodeid) for nodeid in quick[:4] + shuffled + quick[4:]]
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    conftest.pytest_collection_modifyitems(None, items)  # type: ignore[arg-type]
    order = [i.nodeid for i in items]
    # worksteal's shares of 14 tests for two workers: the first 7, then the other 7; the
    # long ones dealt in turn (en, monkey, panels; zh, dm), panels beside its module's en
    assert order[:3] == [whole + "[en]", panels + "[en]", monkey + "test_x"]
    assert order[3:7] == quick[:4]
    assert order[7:9] == [whole + "[zh]", dm]
    assert order[9:] == quick[4:]
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT")
    again = list(items)
    conftest.pytest_collection_modifyitems(None, again)  # type: ignore[arg-type]
    assert again == items  # in one process: the order as collected
