"""Whole hands played through the Mini App in the sandbox, in Chromium (Playwright).

The sandbox as ``./run`` starts it; quick start (Alice and three computers); the DM's
🃏 Table button opens the Mini App beside the chats (a 360 px panel, launch data signed
by the sandbox's token). The same address, opened in a 360×640 phone-sized page, then
plays Alice's whole hand: a declaration if her cards allow one, the burial if she buries,
every play with Hint and Play, to the result. Then four people, each in their own page,
sit down through the group's links and play a whole hand in four 360×640 Mini Apps.
Screenshots at 360×640 are kept in ``artifacts/`` (paths printed).
"""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from bot.i18n import t
from tests.sandbox.process import QUICK, sandbox_process
from tests.sandbox.test_browser import ARTIFACTS

PHONE = {"width": 360, "height": 640}
WIDER_THAN_THE_PAGE = """[...document.querySelectorAll('body *')]
  .filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5)
  .map((e) => e.id || e.className).slice(0, 5)"""


def visible(page: Page, selector: str) -> bool:
    loc = page.locator(selector)
    return loc.count() > 0 and loc.first.is_visible()


def play_the_hand(app: Page, shots: dict[str, Path], deadline: float) -> dict[str, int]:
    """Alice's whole hand, tapped in the Mini App; returns what she did."""
    done: dict[str, int] = {"show": 0, "bury": 0, "play": 0, "pass": 0}
    while time.monotonic() < deadline:
        if visible(app, "#result"):
            return done
        phase = app.locator("body").get_attribute("data-phase")
        if visible(app, "[data-act=show]") and not done["show"]:
            app.screenshot(path=str(shots["declare"]))
            app.locator("[data-act=show]").first.click()
            done["show"] += 1
        elif visible(app, "[data-act=play]"):
            app.locator("[data-act=hint]").click()
            expect(app.locator("#hand .c.sel").first).to_be_visible()
            expect(app.locator("[data-act=play]")).to_be_enabled()
            if phase == "burying":
                expect(app.locator("#hand .c.sel")).to_have_count(8)
                app.screenshot(path=str(shots["bury"]))
                done["bury"] += 1
            elif done["play"] == 0:
                app.screenshot(path=str(shots["hand"]))  # the whole hand, one tap from playing
            elif done["play"] == 5:
                app.screenshot(path=str(shots["play"]))
                # the last trick on demand, then back to the trick in play
                app.locator("#last-btn").click()
                expect(app.locator(".play.last .cards").first).to_be_visible()
                app.screenshot(path=str(shots["last"]))
                app.locator("#last-btn").click()
            app.locator("[data-act=play]").click()
            expect(app.locator("#hand .c.sel")).to_have_count(0)
            done["play"] += phase == "playing"
        elif visible(app, "[data-act=pass]"):
            app.locator("[data-act=pass]").click()
            done["pass"] += 1
        app.wait_for_timeout(100)
    raise AssertionError(f"the hand did not end: {done}")


def test_a_whole_hand_through_the_mini_app_with_three_computers(
    tmp_path: Path, browser: Browser
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    shots = {
        k: ARTIFACTS / f"miniapp-{k}.png"
        for k in ("declare", "bury", "hand", "play", "last", "result")
    }
    beside = ARTIFACTS / "miniapp-sandbox.png"
    quick = {**QUICK, "DEAL_BATCH": "5", "DEAL_PACE_SECONDS": "0.4", "OVERTURN_WINDOW_SECONDS": "4"}
    with sandbox_process(tmp_path, "--lang", "en", **quick) as address:
        page = browser.new_page(viewport={"width": 1400, "height": 900}, locale="en-US")
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(f"sandbox: {e}"))
        try:
            page.goto(address + "?lang=en")
            expect(page.locator("body")).to_have_attribute("data-ready", "1")
            page.locator("#welcome-quick").click()
            # the DM's web_app button opens the Mini App beside the chats
            table = page.locator("#messages-private button.web-app").last
            expect(table).to_have_text(t("en", "btn.table"), timeout=20_000)
            table.click()
            frame = page.locator("#miniapp iframe")
            expect(frame).to_be_visible()
            inner = page.frame_locator("#miniapp iframe")
            expect(inner.locator(".seat[data-pos=top] .tag")).to_contain_text("🤖")
            box = frame.bounding_box()
            assert box is not None and box["width"] == 360
            page.screenshot(path=str(beside))
            src = frame.get_attribute("src")
            assert src and "#tgWebAppData=" in src

            # the same launch, in a phone-sized page, plays the hand
            app = browser.new_page(viewport=PHONE, locale="en-US", has_touch=True)
            app.on("pageerror", lambda e: errors.append(f"app: {e}"))
            app.goto(address.rstrip("/") + src)
            expect(app.locator(".seat[data-pos=left] .tag")).to_be_visible()
            did = play_the_hand(app, shots, time.monotonic() + 150)
            assert did["play"] >= 1
            # the result, and the last trick on demand
            expect(app.locator("#result")).to_contain_text(t("en", "webapp.result", n=1))
            app.screenshot(path=str(shots["result"]))
            # nothing is wider than the phone
            width = app.evaluate("document.documentElement.scrollWidth")
            wide = app.evaluate(WIDER_THAN_THE_PAGE)
            assert width <= PHONE["width"], (width, wide)
            haptics = app.evaluate("window.__haptics.length")
            assert haptics > 0  # taps and plays gave feedback where Telegram offers it
            assert not errors, errors
            print(f"Alice did {did}")
        finally:
            for path in [beside, *shots.values()]:
                if path.exists():
                    print(f"screenshot: {path}")
            page.close()


def act_once(app: Page) -> bool:
    """One step of a person in their Mini App, if it is theirs to take: pass in the
    window (or 炒底), or Hint then Play / Bury. Returns whether they acted."""
    if visible(app, "[data-act=play]"):
        app.locator("[data-act=hint]").click()
        expect(app.locator("[data-act=play]")).to_be_enabled()
        app.locator("[data-act=play]").click()
        expect(app.locator("#hand .c.sel")).to_have_count(0)
        return True
    if visible(app, "[data-act=pass]"):
        app.locator("[data-act=pass]").click()
        expect(app.locator("[data-act=pass]")).to_have_count(0)
        return True
    return False


def test_four_people_play_a_whole_hand_in_their_mini_apps(tmp_path: Path, browser: Browser) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    quick = {**QUICK, "OVERTURN_WINDOW_SECONDS": "30"}
    with sandbox_process(tmp_path, "--lang", "en", **quick) as address:
        errors: list[str] = []
        chats = []
        for n in range(1, 5):  # each person's own page, as four people in four browsers
            page = browser.new_page(viewport={"width": 1400, "height": 900}, locale="en-US")
            page.on("pageerror", lambda e: errors.append(f"sandbox: {e}"))
            page.goto(f"{address}?user={n}&lang=en")
            expect(page.locator("body")).to_have_attribute("data-ready", "1")
            chats.append(page)
        try:
            composer = chats[0].locator('.composer[data-kind="group"] input')
            composer.fill("/newgame")
            composer.press("Enter")
            for n, page in enumerate(chats):  # each takes their seat through its link
                seat = page.locator("#messages-group button", has_text=t("en", "btn.sit", n=n + 1))
                seat.last.click()
                expect(page.locator("#messages-private .msg").first).to_be_visible()
            start = chats[0].locator("#messages-group button", has_text=t("en", "btn.start"))
            start.last.click()
            apps = []
            for n, page in enumerate(chats):  # each opens the table from their DM
                table = page.locator("#messages-private button.web-app").last
                expect(table).to_be_visible(timeout=20_000)
                table.click()
                src = page.locator("#miniapp iframe").get_attribute("src")
                assert src
                app = browser.new_page(viewport=PHONE, locale="en-US", has_touch=True)
                app.on("pageerror", lambda e, n=n: errors.append(f"app {n + 1}: {e}"))
                app.goto(address.rstrip("/") + src)
                expect(app.locator(".seat[data-pos=left] .tag")).to_be_visible()
                apps.append(app)
            deadline = time.monotonic() + 180
            acted = 0
            while not all(visible(app, "#result") for app in apps):
                assert time.monotonic() < deadline, f"the hand did not end ({acted} actions)"
                if not any([act_once(app) for app in apps]):
                    apps[0].wait_for_timeout(100)
                acted += 1
            for n, app in enumerate(apps):
                expect(app.locator("#result")).to_contain_text(t("en", "webapp.result", n=1))
                app.screenshot(path=str(ARTIFACTS / f"miniapp-four-{n + 1}.png"))
            assert not errors, errors
        finally:
            print(f"screenshots: {ARTIFACTS}/miniapp-four-*.png")
            for page in browser.contexts:
                page.close()
