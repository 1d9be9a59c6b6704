"""The public rule scenarios, through `python -m engine.conformance` (CONFORMANCE.md)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import conformance

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "rules" / "cases"
COPY = Path(__file__).parent / "cases"
CASES = sorted((SHARED if SHARED.is_dir() else COPY).glob("*.jsonl"))
# this project's own scenarios: decided details the shared cases do not cover yet
OWN = sorted((Path(__file__).parent / "scenarios").glob("*.jsonl"))


def test_the_copied_cases_match_the_shared_ones() -> None:
    # Where the shared folder is absent (a bare CI checkout), the copy is all there is.
    assert (
        sorted(p.name for p in COPY.glob("*.jsonl")) == [p.name for p in CASES]
        or not SHARED.is_dir()
    )
    for path in SHARED.glob("*.jsonl"):
        assert (COPY / path.name).read_text() == path.read_text(), f"refresh {path.name}"


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_every_public_case_passes(path: Path) -> None:
    out = io.StringIO()
    passed, failed = conformance.check([str(path)], out)
    assert failed == 0, out.getvalue()
    assert passed > 0


@pytest.mark.parametrize("path", OWN, ids=lambda p: p.name)
def test_every_own_scenario_passes(path: Path) -> None:
    out = io.StringIO()
    passed, failed = conformance.check([str(path)], out)
    assert failed == 0, out.getvalue()
    assert passed > 0


def test_command_line_check_mode_exit_codes(tmp_path: Path) -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "engine.conformance", *map(str, CASES)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert ok.returncode == 0, ok.stdout
    assert ok.stdout.strip().endswith("0 failed")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        "# a comment\n\n"
        '{"id": "wrong", "kind": "compare", "context": {"level": "2", "trump": "S"},'
        ' "input": {"a": "AS", "b": "KS"}, "expect": {"result": "b"}}\n'
        '{"id": "unknown", "kind": "mystery", "input": {}, "expect": {}}\n'
        '{"id": "notation", "kind": "compare", "context": {"level": "2", "trump": "S"},'
        ' "input": {"a": "ZZ", "b": "KS"}, "expect": {"result": "a"}}\n'
        '{"id": "missing", "kind": "follow", "context": {"level": "2", "trump": "S"},'
        ' "input": {"lead": "AS"}, "expect": {"legal": true}}\n'
        "not json\n"
    )
    res = subprocess.run(
        [sys.executable, "-m", "engine.conformance", str(bad)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert res.returncode == 1
    lines = res.stdout.strip().splitlines()
    assert lines[-1] == "0 passed, 5 failed"
    assert "expected" in lines[0] and "wrong" in lines[0]
    assert "unknown kind 'mystery'" in res.stdout
    assert "'ZZ'" in res.stdout
    assert "malformed case" in res.stdout
    assert "invalid JSON" in res.stdout


def test_answer_mode_answers_with_exactly_the_expected_keys() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "engine.conformance", "--answer", *map(str, CASES)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert res.returncode == 0
    answers = [json.loads(line) for line in res.stdout.splitlines()]
    cases = [json.loads(x) for p in CASES for x in p.read_text().splitlines() if x.strip()]
    cases = [c for c in cases if isinstance(c, dict)]
    assert len(answers) == len(cases)
    for case, got in zip(cases, answers, strict=True):
        assert got["id"] == case["id"]
        assert set(got["answer"]) == set(case["expect"])
        assert got["answer"] == case["expect"]


def test_answer_mode_ignores_expect(tmp_path: Path) -> None:
    f = tmp_path / "c.jsonl"
    f.write_text(
        '{"id": "x", "kind": "kitty", "context": {"level": "10", "trump": "H"},'
        ' "input": {"kitty": "5S 10H KD 3C 4C 6D 7D 8D", "last_lead": "AS AS",'
        ' "attackers_won_last": true}, "expect": {"bonus": 1}}\n'
    )
    out = io.StringIO()
    assert conformance.answer_all([str(f)], out) == 0
    assert json.loads(out.getvalue()) == {"id": "x", "answer": {"bonus": 100}}
