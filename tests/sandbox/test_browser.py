"""The sandbox in a real browser (Playwright): a desktop window and phones.

Starts the sandbox as ``./run`` does without a token (``python -m bot``, a free port, the
default Chinese world), opens the page in English, quick-starts a game against three
computer players and plays by tapping in the private chat. The browser is Debian's
``chromium`` or, where that is missing, one Playwright installed (``playwright install
chromium``); without either the tests are skipped, except in CI (env ``CI``), where they
fail (``.ci/run`` installs chromium). Screenshots are kept in ``artifacts/`` (paths printed).
"""

from __future__ import annotations

import re
import time
from html import unescape
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from bot.i18n import t
from bot.render.names import isolate
from bot.sandbox.world import GROUP_TITLE, PEOPLE
from tests.sandbox.process import QUICK, ROOT, sandbox_process

ARTIFACTS = ROOT / "artifacts"
PHONES = [(360, 640), (390, 844)]


def plain(key: str, **values: object) -> str:
    """A bot text as the page shows it (tags gone)."""
    return unescape(re.sub(r"<[^>]+>", "", t("en", key, **values)))


def screenshot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / name
    page.screenshot(path=str(shot))
    print(f"screenshot: {shot}")


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


def test_the_sandbox_page_plays_a_card_by_tapping(tmp_path: Path, browser: Browser) -> None:
    with sandbox_process(tmp_path, **QUICK) as address:  # a Chinese world, an English page
        page = browser.new_page(viewport={"width": 1400, "height": 900}, locale="en-US")
        try:
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(address + "?lang=en")
            expect(page.locator("body")).to_have_attribute("data-ready", "1")
            # the people and the group are named in the page's language
            expect(page.locator("#group-title")).to_have_text(GROUP_TITLE["en"])
            expect(page.locator("#person option").first).to_have_text("1 · Alice")
            # on a desktop both chats show side by side
            expect(page.locator("#pane-private")).to_be_visible()
            expect(page.locator("#switch")).to_be_hidden()
            expect(page.locator("#welcome")).to_be_visible()
            page.locator("#welcome-quick").click()

            played = take_turn(page, time.monotonic() + 40)
            assert played, "Hint selected nothing"
            group = page.locator("#messages-group")
            alice = isolate("Alice")  # names are shown bidi-isolated
            expect(group).to_contain_text(f"{alice}: {' '.join(played)}", timeout=20_000)
            expect(group.locator(".from-bot b").first).to_be_visible()  # the bot's HTML
            expect(page.locator("#welcome")).to_be_hidden()
            assert not any(name in group.inner_text() for name in PEOPLE["zh"])

            # another tab is another person: Bob sees the group, not Alice's private chat
            bob = browser.new_page(locale="en-US")
            bob.goto(address + "?user=2&lang=en")
            expect(bob.locator("#person")).to_have_value("2")
            expect(bob.locator("#messages-group")).to_contain_text("Alice")
            expect(bob.locator("#messages-private .msg")).to_have_count(0)
            bob.close()
            assert not errors, errors
        finally:
            screenshot(page, "sandbox-browser.png")
            page.close()


@pytest.mark.parametrize(("width", "height"), PHONES)
def test_on_a_phone_one_chat_shows_at_a_time_and_your_hand_without_scrolling(
    tmp_path: Path, browser: Browser, width: int, height: int
) -> None:
    with sandbox_process(tmp_path, **QUICK) as address:
        page = browser.new_page(
            viewport={"width": width, "height": height},
            locale="en-US",
            is_mobile=True,
            has_touch=True,
            device_scale_factor=2,
        )
        try:
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(address + "?lang=en")
            expect(page.locator("body")).to_have_attribute("data-ready", "1")
            # the header is one row: its controls side by side, not wrapped
            tops = [
                page.locator(sel).bounding_box()["y"]  # type: ignore[index]
                for sel in (".logo", "#person", "#quick", ".langs")
            ]
            assert max(tops) - min(tops) < 12, tops
            assert page.locator(".topbar").bounding_box()["height"] < 56  # type: ignore[index]
            # one chat, and a switch naming both (the group in the page's language)
            group_tab = page.locator('#switch button[data-show="group"]')
            private_tab = page.locator('#switch button[data-show="private"]')
            expect(group_tab).to_have_text(GROUP_TITLE["en"])
            expect(page.locator("#pane-group")).to_be_visible()
            expect(page.locator("#pane-private")).to_be_hidden()
            private_tab.click()
            expect(page.locator("#pane-private")).to_be_visible()
            expect(page.locator("#pane-group")).to_be_hidden()

            page.locator("#quick").click()  # in the header, from the private chat
            # your cards come in the private chat, which stays; the group's news is a dot
            expect(group_tab.locator(".unread")).to_be_visible()
            expect(page.locator("#pane-private")).to_be_visible()
            expect(page.locator("#pane-group")).to_be_hidden()
            hand = page.locator("#messages-private .msg.has-kb").last
            expect(hand.get_by_role("button", name=plain("btn.hint"), exact=True)).to_be_visible(
                timeout=30_000
            )
            # the list ends with your hand: its cards and buttons all show, and the text
            # above them as far as there is room (a long one scrolls up, as in Telegram)
            expect(hand.locator(".kb")).to_be_in_viewport(ratio=1)
            expect(hand.locator(".bubble")).to_be_in_viewport(ratio=0.5 if height < 800 else 1)
            assert page.evaluate("document.scrollingElement.scrollHeight <= innerHeight")
            screenshot(page, f"sandbox-phone-{width}x{height}.png")

            group_tab.click()
            expect(group_tab.locator(".unread")).to_be_hidden()
            expect(page.locator("#messages-group")).to_contain_text("Alice")
            # the page in Chinese: the people and the group take Chinese names
            page.locator('.langs button[data-lang="zh"]').click()
            expect(group_tab).to_have_text(GROUP_TITLE["zh"])
            expect(page.locator("#person option").first).to_have_text(f"1 · {PEOPLE['zh'][0]}")
            assert not errors, errors
        finally:
            page.close()
