"""A computer player from an earlier commit of this repository, for duplicate_eval.

    --b old:b2b9bb8:search        (the search player of commit b2b9bb8)

The commit's ``engine/`` is exported with ``git archive`` into a cache directory (never
into the work tree) and runs in a subprocess of its own with that ``engine`` on its path,
so today's engine and the old one never share a process. The game itself is played by
today's engine; the subprocess rebuilds the hand with the old engine from the same
arguments and the hand's action log (only what was applied since its last answer), asks
its player for the seat's move from its own observation and answers the move as JSON.
The seat's random stream travels with each request, so the old player draws from the
same stream as it would in process: the result is reproducible and a player against
itself still scores exactly zero.

Run as a script (``--serve``) it is that subprocess.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(tempfile.gettempdir()) / "shengji-old-engines"


def export(commit: str) -> Path:
    """The commit's ``engine/`` package, unpacked once into the cache; its directory."""
    full = subprocess.run(
        ["git", "rev-parse", "--verify", f"{commit}^{{commit}}"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    target = CACHE / full
    if (target / "engine" / "__init__.py").exists():
        return target
    archive = subprocess.run(
        ["git", "archive", "--format=tar", full, "engine"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=full[:12], dir=CACHE))
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(partial, filter="data")
    try:
        partial.rename(target)
    except OSError:  # another process exported it first
        shutil.rmtree(partial, ignore_errors=True)
    return target


def _rng_state(rng: random.Random) -> list[Any]:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _set_rng(rng: random.Random, state: list[Any]) -> None:
    rng.setstate((state[0], tuple(state[1]), state[2]))


class OldPlayer:
    """Today's side of the bridge: ``decide(state, seat, rng)`` gives the old player's move
    for ``seat`` in today's ``HandState``. ``new_hand`` holds the arguments the hand was
    made with (the old engine makes the same hand from them)."""

    def __init__(self, commit: str, spec: str, budget_ms: int | None) -> None:
        self.commit, self.spec, self.budget_ms = commit, spec, budget_ms
        self._proc: subprocess.Popen[str] | None = None

    def _server(self) -> subprocess.Popen[str]:
        if self._proc is None or self._proc.poll() is not None:
            env = dict(os.environ, PYTHONPATH=str(export(self.commit)))
            self._proc = subprocess.Popen(
                [sys.executable, __file__, "--serve"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
                text=True,
                cwd=tempfile.gettempdir(),  # not the repository: its engine must not be found
            )
        return self._proc

    def decide(self, state: Any, seat: int, rng: random.Random, new_hand: dict[str, Any]) -> Any:
        from pydantic import TypeAdapter

        from engine.hand import Action

        proc = self._server()
        request = {
            "spec": self.spec,
            "budget_ms": self.budget_ms,
            "hand": new_hand,
            "log": [a.model_dump(mode="json") for a in state.log],
            "seat": seat,
            "rng": _rng_state(rng),
        }
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(request) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the old player ({self.commit}) stopped")
        answer = json.loads(line)
        _set_rng(rng, answer["rng"])
        return TypeAdapter(Action).validate_python(answer["action"])

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.wait(timeout=10)


def serve() -> None:  # pragma: no cover - runs in the subprocess
    from pydantic import TypeAdapter

    import engine
    from engine.hand import Action, HandState
    from engine.players import get
    from engine.rules import RuleSet

    if Path(engine.__file__).resolve().is_relative_to(ROOT):
        raise SystemExit("old_player: today's engine was imported, not the exported one")
    adapter = TypeAdapter(Action)
    players: dict[tuple[str, int | None], Any] = {}
    key: Any = None
    applied: list[Any] = []
    state: Any = None
    for line in sys.stdin:
        req = json.loads(line)
        hand = req["hand"]
        k = (
            hand["preset"],
            hand["seed"],
            hand["hand_number"],
            hand["dealer"],
            tuple(hand["levels"]),
        )
        log = req["log"]
        if k != key or log[: len(applied)] != applied:
            rules = RuleSet.from_preset(hand["preset"])
            state = HandState.new(
                rules, hand["seed"], hand["hand_number"], hand["dealer"], list(hand["levels"])
            )
            key, applied = k, []
        for item in log[len(applied) :]:
            state.apply(adapter.validate_python(item))
            applied.append(item)
        spec = (req["spec"], req["budget_ms"])
        if spec not in players:
            name, *opts = req["spec"].split(",")
            options: dict[str, Any] = {o.split("=")[0]: int(o.split("=")[1]) for o in opts}
            if name == "search" and req["budget_ms"] is not None:
                options.setdefault("budget_ms", req["budget_ms"])
            players[spec] = get(name, **options)
        rng = random.Random()
        _set_rng(rng, req["rng"])
        action = players[spec](state.observation(req["seat"]), rng)
        out = {"action": action.model_dump(mode="json"), "rng": _rng_state(rng)}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
