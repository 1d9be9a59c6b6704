"""Shared helpers for the engine tests: contexts by notation and the public cases."""

from __future__ import annotations

import json
from pathlib import Path

from engine.cards import SUITS, parse_rank
from engine.ranking import TrumpContext

_SHARED = Path(__file__).resolve().parents[3] / "shared" / "rules" / "cases"
# The shared specification's cases when they sit beside the checkout, else the copy.
CASES_DIR = _SHARED if _SHARED.is_dir() else Path(__file__).parent / "cases"


def ctx_of(level: str, trump: str, permanent_twos: bool = False) -> TrumpContext:
    return TrumpContext(
        parse_rank(level), None if trump == "none" else SUITS.index(trump), permanent_twos
    )


def load_cases(name: str) -> list[dict]:
    """The public cases of one file (a missing file is an error, never an empty list)."""
    text = (CASES_DIR / f"{name}.jsonl").read_text(encoding="utf-8")
    lines = (line.strip() for line in text.splitlines())
    return [json.loads(line) for line in lines if line and not line.startswith("#")]


def case_ctx(case: dict) -> TrumpContext:
    c = case["context"]
    return ctx_of(c["level"], c["trump"], bool(c.get("options", {}).get("permanent_twos")))
