"""The browser the sandbox's browser tests share (one per test module and worker)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

DEBIAN = ("chromium", "chromium-browser")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's chromium if on PATH, else the one Playwright installed (``playwright
    install chromium``); with neither the test is skipped, but in CI (env ``CI``) it fails."""
    with sync_playwright() as playwright:
        path = next((p for name in DEBIAN if (p := shutil.which(name))), None)
        if path is None and not Path(playwright.chromium.executable_path).exists():
            reason = "no browser: apt-get install chromium, or playwright install chromium"
            if os.environ.get("CI"):
                pytest.fail(reason)
            pytest.skip(reason)
        browser = playwright.chromium.launch(executable_path=path)  # None: Playwright's
        yield browser
        browser.close()
