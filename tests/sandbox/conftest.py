"""What the sandbox's browser tests share: the browser (one per test module and worker) and
the sandbox page opened on a phone."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

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


@contextmanager
def phone_page(
    browser: Browser,
    address: str,
    width: int = 360,
    height: int = 640,
    errors: list[str] | None = None,
) -> Iterator[Page]:
    """The sandbox's page in English on a phone of this size, loaded (closed after);
    ``errors`` collects the page's script errors from the start."""
    page = browser.new_page(
        viewport={"width": width, "height": height},
        locale="en-US",
        is_mobile=True,
        has_touch=True,
        device_scale_factor=2,
    )
    if errors is not None:
        page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(address + "?lang=en")
        expect(page.locator("body")).to_have_attribute("data-ready", "1")
        yield page
    finally:
        page.close()


def quick_start_in_private_chat(page: Page) -> None:
    """On a phone: show the private chat, then Quick start (the deal comes there)."""
    page.locator('#switch button[data-show="private"]').click()
    page.locator("#quick").click()
