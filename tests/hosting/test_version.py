"""One version, written in pyproject.toml, is what `python -m bot --version`, /help and
/metrics (tests/e2e/test_commands.py, tests/hosting/test_metrics.py) show."""

import re
import subprocess
import sys
import tomllib
from importlib.metadata import PackageNotFoundError
from pathlib import Path

import bot.infra.version

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_python_m_bot_version_prints_the_version_of_pyproject():
    done = subprocess.run(
        [sys.executable, "-m", "bot", "--version"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0
    assert done.stdout == f"shengji-bot {PYPROJECT['version']}\n"
    assert bot.infra.version.__version__ == PYPROJECT["version"]


def test_a_source_tree_never_installed_reads_pyproject(monkeypatch):
    def not_installed(name):
        raise PackageNotFoundError(name)

    monkeypatch.setattr(bot.infra.version, "installed_version", not_installed)
    assert bot.infra.version._read() == PYPROJECT["version"]


def test_the_changelog_has_an_entry_for_this_version_and_the_licence_is_mit():
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in changelog
    assert re.search(
        rf"^## \[{re.escape(PYPROJECT['version'])}\] - \d{{4}}-\d\d-\d\d$", changelog, re.M
    )
    assert PYPROJECT["license"] == "MIT"
    licence = (ROOT / "LICENSE").read_text()
    assert licence.startswith("MIT License") and "The shengji-bot authors" in licence
