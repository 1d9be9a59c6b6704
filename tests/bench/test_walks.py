"""bench/walks.py cannot rot: the three walks of docs/architecture.md, measured on this
checkout, each cross the layers a reader expects, from its own edge, and nothing else."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "walks.py"


def load():  # noqa: ANN201
    spec = importlib.util.spec_from_file_location("walks_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


async def test_each_walk_crosses_its_edge_the_table_the_engine_and_publishing() -> None:
    measured = await load().measure()
    assert list(measured) == ["tapped card", "Mini App action", "computer move"]
    walks = {name: w["files"] for name, w in measured.items()}
    for name, w in measured.items():
        # hops are counted up to the save, every entry is a hop, the engine's own count
        assert 0 < w["hops"] <= w["hops_all"], name
        assert 0 < sum(w["entries"].values()) <= w["hops"], name  # a hop in or back
        assert 0 <= w["reentries_outside_engine"] <= w["reentries"] < w["hops"], name
    for files in walks.values():
        assert len(files) == len(set(files))
        assert all(f.startswith(("bot/", "engine/")) and f.endswith(".py") for f in files)
        assert not [f for f in files if f.startswith("bot/fake_telegram/")]
        # every change: the state machine, the engine, one save, one publish
        assert {"bot/table/machine.py", "engine/hand.py", "bot/data/store.py"} <= set(files)
        assert "bot/delivery/publish.py" in files

    tap, act, computer = walks["tapped card"], walks["Mini App action"], walks["computer move"]
    assert "bot/edges/telegram/play.py" in tap and "bot/edges/miniapp/server.py" not in tap
    assert "bot/edges/miniapp/server.py" in act and "bot/edges/telegram/play.py" not in act
    assert "bot/edges/timers.py" in computer
    assert any(f.startswith("engine/players/") for f in computer)  # the move is decided
    assert not {"bot/edges/telegram/play.py", "bot/edges/miniapp/server.py"} & set(computer)
    # the edge is where each walk starts
    assert tap.index("bot/edges/telegram/play.py") < tap.index("bot/table/machine.py")
    assert act.index("bot/edges/miniapp/server.py") < act.index("bot/table/machine.py")
    assert computer.index("bot/edges/timers.py") < computer.index("bot/table/machine.py")
