"""The sandbox in a real browser: Debian's chromium, driven by Playwright, plays a card.

Starts the sandbox as ``./run`` does without a token (``python -m bot``, a free port),
opens the page, quick-starts a game against three computer players, plays the first
card(s) by tapping in the private chat and checks that the group's table shows them.
A screenshot is kept in ``artifacts/`` (path printed). ``.ci/run`` installs chromium.
"""

from __future__ import annotations

import re
import shutil
import time
from html import unescape
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from bot.i18n import t
from tests.sandbox.process import QUICK, ROOT, sandbox_process

ARTIFACTS = ROOT / "artifacts"
BROWSERS = ("chromium", "chromium-browser")


def chromium() -> str:
    for name in BROWSERS:
        if path := shutil.which(name):
            return path
    pytest.fail("Debian's chromium is needed: apt-get install chromium (.ci/run does it)")


def plain(key: str, **values: object) -> str:
    """A bot text as the page shows it (tags gone)."""
    return unescape(re.sub(r"<[^>]+>", "", t("en", key, **values)))


def take_turn(page: Page, deadline: float) -> list[str]:
    """Wait for our turn in the private chat; bury or play with Hint; returns what we played."""
    hand = page.locator("#messages-private .msg.has-kb").last
    # a lead, a follow (the first words: the count follows)
    your_turn = (plain("dm.your_turn.lead"), plain("dm.your_turn.one_tap"), "Your turn:")
    bury = plain("btn.bury", n=8)
    while time.monotonic() < deadline:
        text = hand.inner_text() if hand.count() else ""
        burying = plain("btn.bury", n=0).split(" ")[0] in text and "/8" in text
        if any(turn in text for turn in your_turn) or burying:
            hand.get_by_role("button", name=plain("btn.hint"), exact=True).click()
            # the answer as a toast, the selection as ✓ on the tapped card buttons
            expect(page.locator("#pane-private .toast")).to_be_visible()
            expect(hand.get_by_role("button", name=re.compile("^✓")).first).to_be_visible()
            selected = [
                b.removeprefix("✓")
                for b in hand.locator("button").all_inner_texts()
                if b.startswith("✓")
            ]
            if burying:
                hand.get_by_role("button", name=bury, exact=True).click()
            else:  # "▶️ Play 2/2" on a follow, "▶️ Play (3)" on a lead
                play = plain("btn.play.n", n=len(selected)).split("(")[0].strip()
                hand.get_by_role("button", name=re.compile("^" + re.escape(play))).click()
            if not burying:
                return selected
            expect(hand.get_by_role("button", name=bury)).to_have_count(0, timeout=15_000)
        page.wait_for_timeout(200)
    raise AssertionError("it never was our turn")


def test_the_sandbox_page_plays_a_card_by_tapping(tmp_path: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "sandbox-browser.png"
    with (
        sandbox_process(tmp_path, "--lang", "en", **QUICK) as address,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=chromium())
        page = browser.new_page(viewport={"width": 1400, "height": 900}, locale="en-US")
        try:
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(address + "?lang=en")
            expect(page.locator("body")).to_have_attribute("data-ready", "1")
            expect(page.locator("#welcome")).to_be_visible()
            page.locator("#welcome-quick").click()

            played = take_turn(page, time.monotonic() + 40)
            assert played, "Hint selected nothing"
            group = page.locator("#messages-group")
            expect(group).to_contain_text(f"Alice: {' '.join(played)}", timeout=20_000)
            expect(group.locator(".from-bot b").first).to_be_visible()  # the bot's HTML
            expect(page.locator("#welcome")).to_be_hidden()

            # another tab is another person: Bob sees the group, not Alice's private chat
            bob = browser.new_page(locale="en-US")
            bob.goto(address + "?user=2&lang=en")
            expect(bob.locator("#person")).to_have_value("2")
            expect(bob.locator("#messages-group")).to_contain_text("Alice")
            expect(bob.locator("#messages-private .msg")).to_have_count(0)
            assert not errors, errors
        finally:
            page.screenshot(path=str(shot))
            print(f"screenshot: {shot}")
            browser.close()
