"""The bot's version: ``version`` in pyproject.toml is the one place it is written.

An installed bot (``./run``, the image, the systemd virtualenv) reads it from the package's
metadata; a source tree that was never installed reads pyproject.toml beside the package.
"""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed_version
from pathlib import Path

DISTRIBUTION = "shengji-bot"


def _read() -> str:
    try:
        return installed_version(DISTRIBUTION)
    except PackageNotFoundError:
        pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
        try:
            return str(tomllib.loads(pyproject.read_text())["project"]["version"])
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "unknown"


__version__ = _read()
