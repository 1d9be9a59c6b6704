"""The lock files install what pyproject.toml asks for, every file checked by its hash, and
./run, ./test and the image install from them (scripts/venv.sh, deploy/Dockerfile)."""

import re
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]


def pins(lock: Path) -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes) of a lock written by scripts/lock.sh."""
    found: dict[str, tuple[str, int]] = {}
    text = re.sub(r"\\\n", " ", lock.read_text())
    for line in text.splitlines():
        line = line.split("#", 1)[0] if line.lstrip().startswith("#") else line
        if not line.strip():
            continue
        m = re.match(r"^([A-Za-z0-9._-]+)==(\S+)", line)
        assert m, f"{lock.name}: not an exact pin: {line[:80]}"
        found[canonicalize_name(m[1])] = (m[2], line.count("--hash=sha256:"))
    return found


def satisfied(req: Requirement, locked: dict[str, tuple[str, int]]) -> bool:
    pin = locked.get(canonicalize_name(req.name))
    return pin is not None and req.specifier.contains(pin[0])


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_every_pin_in_the_locks_carries_hashes():
    for name in ("requirements.lock", "requirements-dev.lock"):
        locked = pins(ROOT / name)
        assert locked, name
        assert all(hashes for _, hashes in locked.values()), name


def test_the_locks_satisfy_every_dependency_of_pyproject():
    runtime, dev = pins(ROOT / "requirements.lock"), pins(ROOT / "requirements-dev.lock")
    wanted = [Requirement(r) for r in project()["dependencies"]]
    for req in wanted:
        assert satisfied(req, runtime), f"{req} is not in requirements.lock: run scripts/lock.sh"
    for req in wanted + [Requirement(r) for r in project()["optional-dependencies"]["dev"]]:
        assert satisfied(req, dev), f"{req} is not in requirements-dev.lock: run scripts/lock.sh"
    assert "pytest-xdist" in dev
    # ./run after ./test runs the versions that ./test tested
    assert {n: v for n, (v, _) in runtime.items()} == {
        n: v for n, (v, _) in dev.items() if n in runtime
    }


def source_venv_sh(workdir: Path, *args: str) -> tuple[str, list[str]]:
    """Source scripts/venv.sh in ``workdir``, whose ``.venv/bin/python`` only logs its
    arguments: (what it printed, the pip commands it ran)."""
    log = workdir / "calls.log"
    log.unlink(missing_ok=True)
    done = subprocess.run(
        ["bash", "-c", f"set -euo pipefail; source {ROOT}/scripts/venv.sh {shlex.join(args)}"],
        cwd=workdir,
        capture_output=True,
        text=True,
        check=True,
    )
    calls = log.read_text().splitlines() if log.exists() else []
    return done.stdout + done.stderr, calls


def test_run_and_test_install_from_the_locks_once_and_again_when_a_lock_changes(tmp_path):
    for name in ("pyproject.toml", "requirements.lock", "requirements-dev.lock"):
        shutil.copy(ROOT / name, tmp_path / name)
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\necho "$*" >> {tmp_path}/calls.log\n')
    python.chmod(0o755)

    said, calls = source_venv_sh(tmp_path)  # ./run on a fresh clone
    assert said.startswith("Installing dependencies into .venv")
    assert calls == [
        "-m pip install --quiet --no-compile --require-hashes -r requirements.lock",
        "-m pip install --quiet --no-deps -e .",
    ]
    assert source_venv_sh(tmp_path) == ("", [])  # the second ./run installs nothing

    said, calls = source_venv_sh(tmp_path, "dev")  # ./test adds the test tools
    assert said.startswith("Installing the test tools") and "requirements-dev.lock" in calls[0]
    assert source_venv_sh(tmp_path) == ("", [])  # ./run keeps them and installs nothing

    with (tmp_path / "requirements-dev.lock").open("a") as lock:
        lock.write("# regenerated\n")
    said, calls = source_venv_sh(tmp_path)
    assert said.startswith("Updating .venv: requirements-dev.lock")
    assert "--require-hashes -r requirements-dev.lock" in calls[0]
    assert source_venv_sh(tmp_path, "dev") == ("", [])

    for script in ("run", "test"):
        assert "source ./scripts/venv.sh" in (ROOT / script).read_text()
