"""Whole hands played through the Mini App in the sandbox, in Chromium (Playwright).

The sandbox as ``./run --seed 56`` starts it: its first game is dealt from seed 56, in
which seat 1 holds both ♠2 and nobody else holds both of a joker (checked against the
engine below): whoever declares first, that seat's ♠2 pair ends up standing, so it
declares (or overturns), becomes the dealer, buries and leads the first trick.

* Alice and three computers (quick start): the DM's 🃏 Table button opens the Mini App
  beside the chats (a desktop screenshot), and in the sandbox at 360×640 over the chat,
  the whole screen, as Telegram on a phone; the same launch, in a 360×640 page, plays
  Alice's hand: the ♠2 pair, the burial (Hint's eight cards), a throw the engine refuses
  (two singles of one suit, picked from what her view shows: another hand beats the
  lower one), then Hint and Play to the result; once, at her turn, her phone locks (the
  page hidden) and her DM shows her turn within seconds, then the app goes on.
* Four people, each in their own page, sit down through the group's links and play a
  whole hand in four 360×640 Mini Apps, the first of them as Alice above.

Screenshots are kept in ``artifacts/`` (paths printed).
"""

from __future__ import annotations

import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from bot.i18n import t
from bot.render.cards import suit_groups
from engine.cards import BJ, LJ
from engine.events import ThrowFailed
from engine.hand import Bury, Deal, Pass, Play, Show
from engine.match import MatchState
from engine.players import choose_bury
from engine.ranking import TRUMP
from engine.rules import RuleSet
from tests.sandbox.process import QUICK, sandbox_process
from tests.sandbox.test_browser import ARTIFACTS

PHONE = {"width": 360, "height": 640}
DESKTOP = {"width": 1400, "height": 900}
SEED = 56
SPADE_2 = 0  # the card ♠2 (engine.cards: suit * 13 + rank)
DECLARE = "♠2 ♠2"  # how the Mini App's show button shows the pair
COUNTS = """(() => { const v = state.view, me = v.me.seat;
  return [["right", 1], ["top", 2], ["left", 3]].map(([pos, k]) => [v.seats[(me + k) % 4].count,
    document.querySelector(`.seat[data-pos=${pos}] .tag .sub`).textContent]); })()"""
VISIBILITY = """(state) => {  // as a phone's lock (or unlock) shows to a page
  Object.defineProperty(document, "visibilityState", { value: state, configurable: true });
  document.dispatchEvent(new Event("visibilitychange")); }"""
WIDER_THAN_THE_PAGE = """[...document.querySelectorAll('body *')]
  .filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5)
  .map((e) => e.id || e.className).slice(0, 5)"""


def failing_throw(groups: list[dict[str, Any]]) -> list[int]:
    """The throw to try, from a hand as the seat's view groups it: in the plain suit
    with the most single cards, its highest single and its lowest (ties: the suit of
    the lower card)."""
    best: list[int] = []
    for group in groups:
        if group["trump"]:
            continue
        held = Counter(card["id"] for card in group["cards"])
        singles = sorted(card for card, n in held.items() if n == 1)
        if len(singles) > len(best) or (
            singles and len(singles) == len(best) > 0 and singles[0] < best[0]
        ):
            best = singles
    assert len(best) >= 2, groups
    return [best[-1], best[0]]


def test_the_seed_deals_seat_1_a_standing_declaration_and_a_throw_that_fails() -> None:
    """What the browser tests rely on, asked of the engine: seed 56's first hand."""
    hand = MatchState.new(RuleSet.from_preset("classic"), SEED).hand
    hand.apply(Deal(n=100))
    held = [Counter(cards) for cards in hand.hands]
    assert held[0][SPADE_2] == 2
    assert not any(held[s][joker] == 2 for s in (1, 2, 3) for joker in (LJ, BJ))
    hand.apply(Show(seat=0, cards=[SPADE_2, SPADE_2]))
    while hand.phase == "after_deal":
        hand.apply(Pass(seat=hand.next_actor().seats[0]))
    hand.apply(Bury(seat=0, cards=list(choose_bury(hand.observation(0)))))
    assert hand.phase == "playing" and hand.turn == 0
    obs = hand.observation(0)
    groups = [  # as bot.webapp.view groups a hand
        {"trump": klass == TRUMP, "cards": [{"id": card} for card in part]}
        for klass, parts in suit_groups(obs.ctx, obs.hand)
        for part in parts
    ]
    events = hand.apply(Play(seat=0, cards=failing_throw(groups)))
    assert any(isinstance(e, ThrowFailed) for e in events)


def visible(page: Page, selector: str) -> bool:
    loc = page.locator(selector)
    return loc.count() > 0 and loc.first.is_visible()


# whether a toast (shown as an answer is) covers the points line, the table or the hand,
# and which seat names are cut short
READABLE = """() => {
  const box = (s) => document.querySelector(s).getBoundingClientRect();
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  toast("Played.", false);
  const covered = ["#points", "#table", "#hand"].filter((s) => meet(box("#toast"), box(s)));
  const cut = [...document.querySelectorAll(".tag .name")]
    .filter((n) => n.scrollHeight > n.clientHeight + 1 || n.scrollWidth > n.clientWidth + 1)
    .map((n) => n.textContent);
  return {covered, cut};
}"""


def tap_card(app: Page, pos: int) -> None:
    """Tap a card of the hand where it shows (cards overlap: their left strip)."""
    app.locator(f"#hand .c[data-pos='{pos}']").click(position={"x": 6, "y": 14})


class Declarer:
    """Seat 1's person in their Mini App: declares, buries, throws and fails, plays on;
    screenshots of each step (``miniapp-<prefix>-<step>.png``)."""

    def __init__(self, app: Page, prefix: str, dm: Page | None = None) -> None:
        self.app, self.prefix, self.dm = app, prefix, dm  # dm: their sandbox page
        self.did: Counter[str] = Counter()
        self.shots: list[Path] = []

    def shot(self, step: str) -> None:
        path = ARTIFACTS / f"miniapp-{self.prefix}-{step}.png"
        self.app.screenshot(path=str(path))
        self.shots.append(path)

    def step(self) -> bool:
        """One step if it is theirs to take; returns whether they acted."""
        app = self.app
        if visible(app, "#result"):
            return False
        declare = app.locator("[data-act=show]", has_text=DECLARE)
        if declare.count() and declare.first.is_visible():
            self.shot("declare")
            declare.first.click()
            expect(declare).to_have_count(0)
            self.did["declare"] += 1
            return True
        if visible(app, "[data-act=pass]"):
            app.locator("[data-act=pass]").click()
            expect(app.locator("[data-act=pass]")).to_have_count(0)
            return True
        if not visible(app, "[data-act=play]"):
            return False
        view = app.evaluate("state.view")
        if view["phase"] == "burying":
            app.locator("[data-act=hint]").click()
            expect(app.locator("#hand .c.sel")).to_have_count(8)
            self.shot("bury")
            app.locator("[data-act=play]").click()
            expect(app.locator("#hand .c.picked")).to_have_count(0)
            self.did["bury"] += 1
            return True
        if not self.did["throw"]:
            self.throw(view)
            return True
        self.counts_shown()
        if self.dm is not None and self.did["play"] == 3:
            self.lock_the_phone(self.dm)
        app.locator("[data-act=hint]").click()
        expect(app.locator("[data-act=play]")).to_be_enabled()
        if self.did["play"] == 5:
            self.shot("play")
            app.locator("#last-btn").click()  # the last trick on demand, then back
            expect(app.locator(".play.last .cards").first).to_be_visible()
            self.shot("last")
            app.locator("#last-btn").click()
        app.locator("[data-act=play]").click()
        expect(app.locator("#hand .c.sel")).to_have_count(0)
        self.did["play"] += 1
        return True

    def throw(self, view: dict[str, Any]) -> None:
        """Lead two singles of one suit: the engine finds them beaten, the lower one is
        played alone and everyone's table shows what was tried."""
        app, me = self.app, view["me"]
        assert view["trick"] is None or not view["trick"]["plays"], view["trick"]
        cards = failing_throw(me["groups"])
        taken: set[int] = set()
        for card in cards:
            pos = next(i for i, c in enumerate(me["hand"]) if c == card and i not in taken)
            taken.add(pos)
            tap_card(app, pos)
        expect(app.locator("#hand .c.sel")).to_have_count(2)
        self.shot("throw")
        app.locator("[data-act=play]").click()
        tried = app.locator(".seat[data-pos=bottom] .play .tried")
        expect(tried).to_have_text(t("en", "webapp.failed_throw"))
        expect(app.locator(".seat[data-pos=bottom] .play .cards")).to_have_count(2)
        expect(app.locator("#points")).to_contain_text(t("en", "webapp.penalty", n="")[:-1])
        self.shot("failed-throw")
        assert app.evaluate(READABLE) == {"covered": [], "cut": []}
        self.did["throw"] += 1
        self.did["play"] += 1

    def lock_the_phone(self, dm: Page) -> None:
        """At their turn the phone locks (the page hidden): within seconds their DM shows
        the turn again, as a new message; unlocked, the app follows the table again."""
        turn = dm.locator("#messages-private .msg").last
        expect(turn).not_to_contain_text("Your turn")  # the DM waited: the app showed all
        start = time.monotonic()
        self.app.evaluate(VISIBILITY, "hidden")
        expect(turn).to_contain_text("Your turn", timeout=10_000)
        print(f"phone locked: the DM showed the turn after {time.monotonic() - start:.1f} s")
        self.app.evaluate(VISIBILITY, "visible")
        self.did["locked"] += 1

    def counts_shown(self) -> None:
        """Each other seat's cards left, as its tag says them ("1 card", "2 cards"):
        read with the view the page drew them from."""
        for count, text in self.app.evaluate(COUNTS):
            said = re.findall(r"(?<!\d)(\d+) (cards?)\b", text)
            assert said == [(str(count), "card" if count == 1 else "cards")], (count, text)
            self.did["one card"] += count == 1


def open_app(browser: Browser, address: str, src: str, errors: list[str], name: str) -> Page:
    """The Mini App of a launch address, in a 360×640 touch page."""
    app = browser.new_page(viewport=PHONE, locale="en-US", has_touch=True)
    app.on("pageerror", lambda e: errors.append(f"{name}: {e}"))
    app.goto(address.rstrip("/") + src)
    expect(app.locator(".seat[data-pos=left] .tag")).to_be_visible()
    return app


def check_the_result(app: Page) -> None:
    expect(app.locator("#result")).to_contain_text(t("en", "webapp.result", n=1))
    width = app.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], (width, app.evaluate(WIDER_THAN_THE_PAGE))


def on_a_phone(browser: Browser, address: str, errors: list[str]) -> None:
    """The sandbox at 360×640: the DM's Table button opens the Mini App over the chat as
    Telegram does on a phone (the whole screen, a close control in its header); closing
    it, or the phone's back gesture, returns to the DM."""
    phone = browser.new_page(viewport=PHONE, locale="en-US", has_touch=True)
    phone.on("pageerror", lambda e: errors.append(f"sandbox on a phone: {e}"))
    try:
        phone.goto(address + "?lang=en")
        expect(phone.locator("body")).to_have_attribute("data-ready", "1")
        phone.locator('#switch button[data-show="private"]').click()
        table = phone.locator("#messages-private button.web-app").last
        for leave in ("back", "close"):
            table.click()
            sheet = phone.locator("#miniapp")
            inner = phone.frame_locator("#miniapp iframe")
            expect(inner.locator(".seat[data-pos=top] .tag")).to_contain_text("🤖")
            assert sheet.bounding_box() == {"x": 0, "y": 0, **PHONE}
            frame = phone.locator("#miniapp iframe").bounding_box()
            assert frame is not None and frame["x"] == 0 and frame["width"] == PHONE["width"]
            assert frame["y"] + frame["height"] == PHONE["height"]
            close = phone.locator("#miniapp .miniapp-close")
            expect(close).to_have_text("✕ Close")
            assert close.bounding_box()["y"] < frame["y"]  # in the header, above the app
            if leave == "back":
                phone.go_back()
            else:
                phone.screenshot(path=str(ARTIFACTS / "miniapp-phone-sandbox.png"))
                close.click()
            expect(sheet).to_have_count(0)
            expect(phone.locator("body")).to_have_attribute("data-show", "private")
            expect(table).to_be_visible()
    finally:
        phone.close()


def test_a_whole_hand_through_the_mini_app_with_three_computers(
    tmp_path: Path, browser: Browser
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    beside = ARTIFACTS / "miniapp-desktop.png"
    # the after-deal window closes once all four passed: its clock only a backstop
    quick = {
        **QUICK,
        "DEAL_BATCH": "5",
        "DEAL_PACE_SECONDS": "0.3",
        "OVERTURN_WINDOW_SECONDS": "120",
    }
    errors: list[str] = []
    with sandbox_process(tmp_path, "--lang", "en", seed=SEED, **quick) as address:
        page = browser.new_page(viewport=DESKTOP, locale="en-US")
        page.on("pageerror", lambda e: errors.append(f"sandbox: {e}"))
        alice: Declarer | None = None
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
            panes = page.locator("#panes").bounding_box()
            assert panes is not None and panes["x"] + panes["width"] <= box["x"]  # beside
            page.screenshot(path=str(beside))
            src = frame.get_attribute("src")
            assert src and "#tgWebAppData=" in src
            page.locator("#miniapp .miniapp-close").click()
            expect(page.locator("#miniapp")).to_have_count(0)
            on_a_phone(browser, address, errors)

            # the same launch, in a phone-sized page, plays the hand

            app = open_app(browser, address, src, errors, "app")
            counts = app.evaluate("[1, 2, 0].map((n) => P('webapp.cards', n))")
            assert counts == ["1 card", "2 cards", "0 cards"], counts
            alice = Declarer(app, "alice", dm=page)
            deadline = time.monotonic() + 90
            while not visible(app, "#result"):
                assert time.monotonic() < deadline, f"the hand did not end: {alice.did}"
                if not alice.step():
                    app.wait_for_timeout(50)
            check_the_result(app)
            alice.shot("result")
            assert alice.did["declare"] == 1 and alice.did["bury"] == 1, alice.did
            assert alice.did["throw"] == 1 and alice.did["play"] > 1, alice.did
            assert alice.did["locked"] == 1, alice.did
            assert app.evaluate("window.__haptics.length") > 0  # feedback where Telegram has it
            assert not errors, errors
            print(f"Alice did {dict(alice.did)}")
        finally:
            for path in [beside, *(alice.shots if alice else [])]:
                if path.exists():
                    print(f"screenshot: {path}")
            page.close()


def act_once(app: Page) -> bool:
    """One step of a person in their Mini App, if it is theirs to take: pass in the
    window, or Hint then Play. Returns whether they acted."""
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
    quick = {**QUICK, "OVERTURN_WINDOW_SECONDS": "120"}
    errors: list[str] = []
    with sandbox_process(tmp_path, "--lang", "en", seed=SEED, **quick) as address:
        chats = []
        for n in range(1, 5):  # each person's own page, as four people in four browsers
            page = browser.new_page(viewport=DESKTOP, locale="en-US")
            page.on("pageerror", lambda e: errors.append(f"sandbox: {e}"))
            page.goto(f"{address}?user={n}&lang=en")
            expect(page.locator("body")).to_have_attribute("data-ready", "1")
            chats.append(page)
        first: Declarer | None = None
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
                page.locator("#miniapp .miniapp-close").click()
                apps.append(open_app(browser, address, src, errors, f"app {n + 1}"))
            first = Declarer(apps[0], "four")
            deadline = time.monotonic() + 120
            acted = 0
            while not all(visible(app, "#result") for app in apps):
                assert time.monotonic() < deadline, f"the hand did not end ({acted} actions)"
                moved = [first.step(), *(act_once(app) for app in apps[1:])]
                if not any(moved):
                    apps[0].wait_for_timeout(50)
                acted += 1
            for n, app in enumerate(apps):
                check_the_result(app)
                app.screenshot(path=str(ARTIFACTS / f"miniapp-four-{n + 1}.png"))
            assert first.did["declare"] == 1 and first.did["bury"] == 1, first.did
            assert first.did["throw"] == 1 and first.did["play"] > 1, first.did
            assert not errors, errors
        finally:
            print(f"screenshots: {ARTIFACTS}/miniapp-four-*.png")
            for context in browser.contexts:
                context.close()
