"""Whole hands played through the Mini App in the sandbox, in Chromium (Playwright).

The sandbox as ``./run --seed 56`` starts it: its first game is dealt from seed 56, in
which seat 1 holds both ♠2 and nobody else holds both of a joker (checked against the
engine below): whoever declares first, that seat's ♠2 pair ends up standing, so it
declares (or overturns), becomes the dealer, buries and leads the first trick.

* Alice and three computers (quick start), once in English and once in Chinese: the
  same launch open in two phone pages at once, 360×640 and 320×568, one light and one
  dark (English: 360 light, 320 dark; Chinese: 360 dark, 320 light). Alice plays in the
  first through Telegram's own buttons (the sandbox's stand-in draws them at the bottom
  of the frame, as Telegram does): the ♠2 pair, the burial (Hint's eight cards), a throw
  the engine refuses, then Hint and Play to the result. At every phase, in both pages:
  the primary action (MainButton), the clock, the trump and the current trick are
  inside the viewport, nothing scrolls, no text overlaps another and no card hides the
  rank of the card it covers. Each completed trick stays drawn with its winner for
  more than a second after its fourth card; while following, the dimmed cards are
  exactly those the bot's view (the engine's ``followable``) leaves out. In English also:
  the Mini App beside the chats and over the chat on a phone; the phone locked at her
  turn (her DM shows it); the stream dropped (a banner, an action refused visibly);
  the page reloaded (selection and the last-trick view kept); Next hand (nothing of
  hand 1 is left); then in hand 2 a 炒底 window left unanswered ends as a Pass, not 托管.
* Four people, each in their own page, sit down through the group's links and play a
  whole hand in four 360×640 Mini Apps; a play reaches the three other apps in < 200 ms.

Screenshots of each phase are kept in ``artifacts/`` (paths printed).
"""

from __future__ import annotations

import os
import re
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import Error as PlaywrightError

from bot.i18n import t
from bot.views.card_labels import suit_groups
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
SMALL = {"width": 320, "height": 568}
DESKTOP = {"width": 1400, "height": 900}
SEED = 56
SPADE_2 = 0  # the card ♠2 (engine.cards: suit * 13 + rank)
DECLARE = "♠2 ♠2"  # how the Mini App's show button shows the pair
TURN_SECONDS = 20  # the turn clock: the 炒底 window of hand 2 is left to run out
HELD_SECONDS = 1.0  # a completed trick stays on screen at least this long
HELD_TRICKS = 4  # tricks whose hold is watched (the rest are played at once)
COUNTS = """(() => { const v = state.view, me = v.me.seat;
  return [["right", 1], ["top", 2], ["left", 3]].map(([pos, k]) => [v.seats[(me + k) % 4].count,
    document.querySelector(`.seat[data-pos=${pos}] .tag .sub`).textContent]); })()"""
VISIBILITY = """(state) => {  // as a phone's lock (or unlock) shows to a page
  Object.defineProperty(document, "visibilityState", { value: state, configurable: true });
  document.dispatchEvent(new Event("visibilitychange")); }"""
MAIN = "#tg-main-button"
SECOND = "#tg-secondary-button"
BACK = "#tg-back-button"

# what a player cannot read, as a list of problems: the primary action, the clock, the
# trump and the current trick outside the viewport (above Telegram's buttons), a page that
# scrolls, boxes of text that overlap, a card that hides the rank of the card it covers
LAYOUT = r"""() => {
  const vw = innerWidth, vh = innerHeight, out = [];
  const box = (el) => el.getBoundingClientRect();
  const shown = (el) => { const r = box(el); return r.width > 0 && r.height > 0; };
  const bar = document.getElementById("tg-bottom-bar");
  const floor = bar && bar.style.display !== "none" ? box(bar).top : vh;
  const inside = (el, name, bottom) => {
    const r = box(el);
    if (r.top < -0.5 || r.left < -0.5 || r.right > vw + 0.5 || r.bottom > bottom + 0.5)
      out.push(`${name} outside the viewport ${[r.left, r.top, r.right, r.bottom].map(Math.round)}`);
  };
  const main = document.getElementById("tg-main-button");
  if (main) inside(main, "MainButton", vh);
  for (const sel of ["#info", "#clock", "#table", "#hand", "#prompt"]) {
    const el = document.querySelector(sel);
    if (el && shown(el)) inside(el, sel, floor);
  }
  if (document.scrollingElement.scrollHeight > vh + 0.5) out.push("the page scrolls");
  const app = document.getElementById("app");
  if (app.scrollHeight > app.clientHeight + 0.5) out.push("the table scrolls");
  const table = box(document.getElementById("table"));
  for (const el of document.querySelectorAll(".seat > *, .seat .mark, .seat .tried, .tag .name, .tag .sub > *, #middle > *")) {
    const r = box(el);
    if (r.height && (r.top < table.top - 0.5 || r.bottom > table.bottom + 0.5 ||
        r.left < table.left - 0.5 || r.right > table.right + 0.5))
      out.push(`${el.className || el.id} beyond the table`);
  }
  const texts = [...document.querySelectorAll(
    "#banner, #info, #clock, #sound, #points .pts, #points .ctx, .tag, .play .fan, .play .mark, " +
    ".play .tried, .play .attempt, .play .beaten, .play .beater, #status, #shows > *, #prompt, #asks .ask, #asks button, " +
    "#tools button, #hand .label")].filter((el) => shown(el) && !el.closest("#result[hidden]"));
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i], b = texts[j];
      if (a.contains(b) || b.contains(a)) continue;
      const p = box(a), q = box(b);
      const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
      const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
      if (w > 1 && h > 1) out.push(`"${a.textContent.slice(0, 20)}" overlaps "${b.textContent.slice(0, 20)}"`);
    }
  }
  // the header (hand, trump, both levels) and what the points mean: never cut by an ellipsis
  for (const phrase of document.querySelectorAll("#info, #info > span, #points .ctx, #points .ctx span")) {
    if (!shown(phrase) || getComputedStyle(phrase).whiteSpace !== "nowrap") continue;  // lines that wrap
    const whole = phrase.cloneNode(true);  // its text on one line, nothing clipped: the width it needs
    whole.style.cssText = "position:absolute;visibility:hidden;white-space:nowrap;width:auto;max-width:none;overflow:visible;display:inline";
    const has = phrase.getBoundingClientRect().width;
    phrase.before(whole);  // in its place: what styles a part after another styles it alike
    const need = whole.getBoundingClientRect().width;
    whole.remove();
    if (need > has + 0.01)  // 0.1 px over: an ellipsis
      out.push(`"${phrase.textContent}" is cut`);
  }
  for (const who of document.querySelectorAll("#shows .line > span")) {  // "电脑2 加固": no word broken
    const texts = document.createTreeWalker(who, NodeFilter.SHOW_TEXT);
    for (let node = texts.nextNode(); node; node = texts.nextNode()) {
      for (const word of node.textContent.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        if (range.getClientRects().length > 1) out.push(`"${word[0]}" is broken over two lines`);
      }
    }
  }
  // a part of the header or of what the points mean that starts a line shows no "·" before
  // it: the strip its separator takes is clipped away (nothing there answers a tap either)
  for (const part of document.querySelectorAll("#info > span, #points .ctx > span")) {
    const r = box(part);
    if (!shown(part)) continue;
    const first = ![...part.parentElement.children].some((o) => o !== part && shown(o) &&
      Math.abs(box(o).top - r.top) < 2 && box(o).left < r.left);
    const sep = parseFloat(getComputedStyle(part, "::before").width) || 0;
    const at = document.elementFromPoint(r.left + sep / 2, r.top + r.height / 2);
    if (first && sep && part.contains(at)) out.push(`"${part.textContent}" starts a line with its "·"`);
  }
  // a selected card (raised) never covers the cards of the row above
  const rows = [...document.querySelectorAll("#hand .row")];
  for (let k = 1; k < rows.length; k++) {
    const above = Math.max(...[...rows[k - 1].querySelectorAll(".c:not(.sel)")].map((c) => box(c).bottom));
    for (const c of rows[k].querySelectorAll(".c.sel"))
      if (box(c).top < above - 0.5) out.push(`the raised ${c.title} covers the row above`);
  }
  // "赢得本轮（10分）", "won (10 points)": a bracket is never broken over two lines
  for (const mark of document.querySelectorAll(".play .mark")) {
    const texts = document.createTreeWalker(mark, NodeFilter.SHOW_TEXT);
    for (let node = texts.nextNode(); node; node = texts.nextNode()) {
      for (const part of node.textContent.matchAll(/[（(][^）)]*[）)]/g)) {
        const range = document.createRange();
        range.setStart(node, part.index);
        range.setEnd(node, part.index + part[0].length);
        const lines = new Set([...range.getClientRects()].map((q) => Math.round(q.top)));
        if (lines.size > 1) out.push(`"${part[0]}" is broken over two lines`);
      }
    }
  }
  for (const label of document.querySelectorAll("#hand .label")) {  // "From the kitty" on top
    const r = box(label);
    const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (at !== label) out.push(`the label "${label.textContent}" is covered`);
  }
  for (const row of document.querySelectorAll(".cards, #hand .row")) {
    const cards = [...row.querySelectorAll(".c")].filter(shown);
    for (let k = 0; k + 1 < cards.length; k++) {
      const c = cards[k], next = cards[k + 1];
      if (c.classList.contains("sel") || next.classList.contains("sel")) continue;
      const rank = box(c.querySelector(".r")), n = box(next);
      if (n.top > rank.bottom || n.left > box(c).right) continue;  // another row, or apart
      if (n.left < rank.right - 2) out.push(`the rank of ${c.title} is hidden`);
    }
  }
  return out;
}"""

# the cards the page dims, and the cards the bot's view says cannot be played
DIMMED = """() => {
  const me = state.view.me;
  const dim = [...document.querySelectorAll("#hand .c.dim")].map((e) => +e.dataset.id).sort((a, b) => a - b);
  const ok = new Set(me.playable || []);
  const out = me.hand.filter((c) => me.playable && !ok.has(c)).sort((a, b) => a - b);
  return [dim, out];
}"""


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
    groups = [  # as bot.views.miniapp groups a hand
        {"trump": klass == TRUMP, "cards": [{"id": card} for card in part]}
        for klass, parts in suit_groups(obs.ctx, obs.hand)
        for part in parts
    ]
    events = hand.apply(Play(seat=0, cards=failing_throw(groups)))
    assert any(isinstance(e, ThrowFailed) for e in events)


def visible(page: Page, selector: str) -> bool:
    loc = page.locator(selector)
    return loc.count() > 0 and loc.first.is_visible()


def main_button(app: Page) -> tuple[str, bool] | None:
    """Telegram's MainButton as the page set it: its text and whether it is active."""
    shown = app.evaluate(
        "(() => { const b = Telegram.WebApp.MainButton;"
        " return b.isVisible ? [b.text, b.isActive] : null; })()"
    )
    return None if shown is None else (shown[0], shown[1])


def press_main(app: Page) -> None:
    expect(app.locator(f"{MAIN}[data-active='1'][data-progress='0']")).to_be_visible()
    app.locator(MAIN).click()


def wait_js(app: Page, expression: str, arg: Any = None, timeout: float = 30_000) -> None:
    """Until ``expression`` (with ``arg``) is true in the page, polled from here: the
    page's Content-Security-Policy allows no eval, which Playwright's
    ``wait_for_function`` needs inside the page (``evaluate`` is not the page's)."""
    deadline = time.monotonic() + timeout / 1000
    while not app.evaluate(expression, arg):
        assert time.monotonic() < deadline, f"not true within {timeout} ms: {expression}"
        app.wait_for_timeout(20)


def still_asked(app: Page, version: int, selector: str) -> bool:
    """Wait until ``selector`` shows, or the table moves past ``version``; whether the
    table is still at ``version`` (so what was asked there is still asked)."""
    wait_js(
        app,
        "([v, sel]) => state.view.version !== v || !!document.querySelector(sel)",
        [version, selector],
        timeout=5000,
    )
    return bool(view_of(app)["version"] == version)


def gone(app: Page, text: str) -> None:
    """The MainButton no longer offers ``text`` (hidden, or another action now)."""
    expect(app.locator(MAIN, has_text=re.compile(f"^{re.escape(text)}$"))).to_have_count(0)


def tap_card(app: Page, pos: int) -> None:
    """Tap a card of the hand where it shows (cards overlap: their left strip)."""
    app.locator(f"#hand .c[data-pos='{pos}']").click(position={"x": 6, "y": 14})


def view_of(app: Page) -> dict[str, Any]:
    return app.evaluate("state.view")


def readable(app: Page, where: str) -> None:
    problems = app.evaluate(LAYOUT)
    if problems:
        shot = ARTIFACTS / f"miniapp-unreadable-{where.replace(' ', '-')}.png"
        app.screenshot(path=str(shot))
        raise AssertionError(f"{where}: {problems} (see {shot})")


class Table:
    """Alice's Mini App (``app``, where she plays) and a second page of the same launch
    (``other``: another size and theme) that only follows; checks and screenshots of
    each phase in both (``miniapp-<lang>-<size>-<theme>-<phase>.png``)."""

    def __init__(self, lang: str, app: Page, other: Page, names: tuple[str, str]) -> None:
        self.lang, self.app, self.other, self.names = lang, app, other, names
        self.did: Counter[str] = Counter()
        self.shots: list[Path] = []
        self.held: list[float] = []
        self.old: Page | None = None  # a third page, as a client before Bot API 7.10 opens it

    def T(self, key: str, **values: Any) -> str:
        return t(self.lang, key, **values)

    def check(self, phase: str, shot: bool = True) -> None:
        """Both pages at the same moment: readable, and a screenshot of the phase."""
        version = view_of(self.app)["version"]
        expect(self.other.locator("body")).to_have_attribute("data-phase", re.compile("."))
        deadline = time.monotonic() + 5
        while view_of(self.other)["version"] < version and time.monotonic() < deadline:
            self.other.wait_for_timeout(30)
        for page, name in ((self.app, self.names[0]), (self.other, self.names[1])):
            readable(page, f"{name} {phase}")
            # the level this hand is played at (打N), in the header as the DM says it
            level = view_of(page)["level"]
            expect(page.locator("#info")).to_contain_text(self.T("webapp.level", level=level))
            if shot and not self.did[f"shot {name} {phase}"]:
                path = ARTIFACTS / f"miniapp-{self.lang}-{name}-{phase}.png"
                page.screenshot(path=str(path))
                self.shots.append(path)
                self.did[f"shot {name} {phase}"] += 1
        self.did["checked"] += 1

    def step(self, view: dict[str, Any]) -> bool:
        """One step of Alice's if it is hers to take at ``view``; returns whether she acted."""
        app = self.app
        if view["result"] is not None or view["phase"] is None:
            return False
        me = view["me"]
        declare = app.locator("#asks [data-act=show]", has_text=DECLARE)
        if declare.count() and declare.first.is_visible():
            version = view_of(app)["version"]
            self.check("declare")
            try:
                if view["phase"] == "after_deal":
                    assert main_button(app) == (self.T("btn.pass"), True)
                declare.first.click(timeout=3000)
            except (AssertionError, PlaywrightError):
                if view_of(app)["version"] != version:
                    return True  # someone declared or the window closed meanwhile: look again
                raise
            expect(declare).to_have_count(0)
            self.did["declare"] += 1
            return True
        if me["can_pass"] and view["phase"] == "after_deal":
            # The window may close while we look (the computers pass, or it runs out):
            # then the table has moved past ``view`` and the loop looks again.
            if not still_asked(app, view["version"], "#asks .ask"):
                return True
            self.check("window")
            try:
                expect(app.locator("#asks .ask")).to_contain_text(
                    re.sub("<[^>]+>", "", self.T("webapp.ask.pass"))
                )
                if view["shows"]:  # hand 1: overturning makes you the dealer (反主反打)
                    order = " > ".join("♠♥♣♦"[s] for s in RuleSet().overturn_suit_order)
                    first = self.T("webapp.ask.overturn.first", order=order)
                    expect(app.locator("#asks .ask")).to_contain_text(re.sub("<[^>]+>", "", first))
            except AssertionError:
                if view_of(app)["version"] != view["version"]:
                    return True  # the window closed while the pages were checked
                raise
            if not still_asked(app, view["version"], f"{MAIN}[data-active='1'][data-progress='0']"):
                return True
            app.locator(MAIN).click()
            gone(app, self.T("btn.pass"))
            return True
        if not (me["my_turn"] and view["phase"] in ("burying", "playing")):
            return False
        if view["phase"] == "burying":
            # the bury's own prompt, not the answer to the pass that closed the window
            expect(app.locator("#prompt")).to_contain_text(self.T("webapp.your_bury"))
            expect(app.locator("#prompt")).not_to_have_text(self.T("ack.pass"))
            self.check("bury")
            app.locator(SECOND).click()
            expect(app.locator("#hand .c.sel")).to_have_count(8)
            assert main_button(app) == (self.T("btn.bury", n=8), True)
            self.check("bury-selected")
            press_main(app)
            expect(app.locator("#hand .c.picked")).to_have_count(0)
            self.did["bury"] += 1
            return True
        if not self.did["throw"]:
            self.throw(view)
            return True
        following = bool(view["trick"] and view["trick"]["plays"])
        wait_js(app, "!state.hold")  # the trick just won gives way to the lead
        self.check("follow" if following else "lead")
        if not following:  # her own lead: her turn, never "waiting for" herself
            expect(app.locator("#status")).to_have_text(self.T("webapp.your_turn"))
        if following:
            dimmed, unplayable = app.evaluate(DIMMED)
            assert dimmed == unplayable, (dimmed, unplayable)
            self.did["dimmed"] += bool(dimmed)
            if dimmed and not self.did["refused"]:
                # a tap on a card she cannot play says why: the engine's reason (须跟♦)
                card = dimmed[0]
                pos = app.locator(f"#hand .c.dim[data-id='{card}']").first.get_attribute("data-pos")
                assert pos is not None
                tap_card(app, int(pos))
                reason = view_of(app)["me"]["refusals"][str(card)]
                expect(app.locator("#prompt.alert")).to_have_text(reason)
                self.did["refused"] += 1
        self.counts_shown()
        app.locator(SECOND).click()
        expect(app.locator(f"{MAIN}[data-active='1']")).to_be_visible()
        if self.did["play"] == 7 and self.lang == "en":
            self.reload()
        if self.did["play"] == 4:
            self.last_trick()
        press_main(app)
        expect(app.locator("#hand .c.sel")).to_have_count(0)
        # no refusal outlives the play it was about
        expect(app.locator("#prompt.alert")).to_have_count(0)
        self.did["play"] += 1
        return True

    def throw(self, view: dict[str, Any]) -> None:
        """Lead two singles of one suit: the engine finds them beaten, the lower one is
        played alone and the table shows what was tried, not marked as winning."""
        app, me = self.app, view["me"]
        self.check("lead")
        if self.old is not None:  # no SecondaryButton there: Hint is a button of the page
            old = self.old
            expect(old.locator("#tools [data-act=hint]")).to_have_text(self.T("btn.hint"))
            expect(old.locator(SECOND)).to_have_count(0)
            expect(old.locator(MAIN)).to_be_visible()
            readable(old, "Bot API 7.0 lead")
        # a lead of two suit classes: Play waits, the prompt says why (the bot would refuse it)
        classes = me["classes"]
        mixed = [0, next(i for i, k in enumerate(classes) if k != classes[0])]
        for pos in mixed:
            tap_card(app, pos)
        expect(app.locator("#prompt.alert")).to_have_text(self.T("webapp.mixed_lead"))
        assert main_button(app) == (self.T("btn.play.n", n=2), False)
        for pos in mixed:
            tap_card(app, pos)
        expect(app.locator("#hand .c.sel")).to_have_count(0)
        cards = failing_throw(me["groups"])
        taken: set[int] = set()
        for card in cards:
            pos = next(i for i, c in enumerate(me["hand"]) if c == card and i not in taken)
            taken.add(pos)
            tap_card(app, pos)
        expect(app.locator("#hand .c.sel")).to_have_count(2)
        assert main_button(app) == (self.T("btn.play.n", n=2), True)
        press_main(app)
        mine = app.locator(".seat[data-pos=bottom] .play")
        expect(mine.locator(".tried")).to_have_text(self.T("webapp.failed_throw"))
        expect(mine.locator(".attempt .c")).to_have_count(2)
        # whose cards beat it (RULES 13), under what was tried, and no "winning" above it
        play = view_of(app)["trick"]["plays"][0]
        by = re.sub("<[^>]+>", "", view_of(app)["seats"][play["beaten_by_seat"]]["name"])
        expect(mine.locator(".beaten")).to_have_text(self.T("webapp.beaten_by", name=by))
        expect(mine.locator(".beater .c")).to_have_count(len(play["beaten_by"]))
        # at one moment (the table redraws as the others play): a mark is above the tried
        above = app.evaluate(
            """() => { const play = document.querySelector(".seat[data-pos=bottom] .play");
              const mark = play && play.querySelector(".mark"), tried = play && play.querySelector(".tried");
              return !mark || !tried || mark.getBoundingClientRect().top < tried.getBoundingClientRect().top; }"""
        )
        assert above, "a mark under the failed throw's tried cards"
        for tried in mine.locator(".attempt .c").all():  # what was tried never looks winning
            # (a retrying assertion: the table may be redrawn while it is read)
            expect(tried).to_have_css("box-shadow", "none")
        # one amount, the penalty explained in it: "0 (20 in tricks, −20 throw penalty)";
        # read from the page in one look (the table moves on meanwhile: a trick won)
        same = """() => (document.querySelector("#points .pen") || {}).textContent
                     === state.view.points.penalty_line"""
        wait_js(app, same)  # the page drew the view it holds
        points = view_of(app)["points"]
        assert points["penalty"] and "-" not in points["penalty_line"], points
        expect(app.locator("#points .pts")).to_contain_text(points["team_name"])
        self.check("failed-throw")
        self.did["throw"] += 1
        self.did["play"] += 1

    def watch_the_trick(self, done: int) -> None:
        """The trick just completed stays drawn, its winner marked, for a second after
        its fourth card reached the page (the page's clock: when it began to hold it)."""
        app = self.app
        since = app.evaluate("state.hold ? performance.now() - (state.hold.until - HOLD_MS) : null")
        if since is None:
            return  # Alice led the next trick at once (a player may move on)
        winner = view_of(app)["last"]["winner"]
        pos = app.evaluate(
            f"Object.entries(seatOrder(state.view)).find(([, s]) => s === {winner})[0]"
        )
        if done == 1:
            self.check("trick-won")
        while True:
            # at one moment: how long it has been drawn, its winner's mark, its cards
            held, marked, cards = app.evaluate(
                "[state.hold && performance.now() - (state.hold.until - HOLD_MS),"
                f" document.querySelectorAll('.seat[data-pos={pos}] .play.won .mark').length,"
                " document.querySelectorAll('.seat .play .c').length]"
            )
            assert held is not None and marked == 1 and cards >= 4, (done, held, marked, cards)
            if held >= HELD_SECONDS * 1000:
                break
            app.wait_for_timeout(40)
        self.held.append(held / 1000)

    def last_trick(self) -> None:
        """The last trick, one tap away; Telegram's BackButton closes it."""
        app = self.app
        app.locator("#last-btn").click()
        expect(app.locator("body")).to_have_attribute("data-trick", "last")
        expect(app.locator(BACK)).to_be_visible()
        expect(app.locator(".play.last .cards").first).to_be_visible()
        self.check("last-trick")
        app.locator(BACK).click()
        expect(app.locator(BACK)).to_have_count(0)
        expect(app.locator("body")).not_to_have_attribute("data-trick", "last")
        self.did["last"] += 1

    def reload(self) -> None:
        """A reload keeps the cards selected and the last trick open."""
        app = self.app
        before = app.locator("#hand .c.sel").evaluate_all("(cs) => cs.map((c) => c.dataset.id)")
        app.locator("#last-btn").click()
        expect(app.locator(BACK)).to_be_visible()
        sound = app.locator("#sound")
        expect(sound).to_have_attribute("aria-pressed", "false")  # off unless asked for
        sound.click()
        app.reload()
        expect(sound).to_have_attribute("aria-pressed", "true")  # the choice is kept
        sound.click()
        expect(app.locator("body")).to_have_attribute("data-trick", "last")
        expect(app.locator(BACK)).to_be_visible()
        after = app.locator("#hand .c.sel").evaluate_all("(cs) => cs.map((c) => c.dataset.id)")
        assert sorted(after) == sorted(before) and before, (before, after)
        app.locator(BACK).click()
        expect(app.locator(BACK)).to_have_count(0)
        self.did["reload"] += 1

    def offline(self) -> None:
        """The stream drops: a banner on top, and a tap is refused where it shows."""
        app = self.app
        app.context.set_offline(True)
        banner = app.locator("#banner")
        expect(banner).to_be_visible()
        assert banner.bounding_box()["y"] == 0
        self.check("offline")
        app.locator(SECOND).click()
        expect(app.locator("#prompt.alert")).to_have_text(self.T("webapp.offline_refused"))
        expect(app.locator("#hand .c.sel")).to_have_count(0)
        app.context.set_offline(False)
        expect(banner).to_be_hidden(timeout=15_000)
        self.did["offline"] += 1

    def lock_the_phone(self, dm: Page) -> None:
        """At her turn the phone locks (the page hidden): within seconds her DM shows
        the turn again, as a new message; unlocked, the app follows the table again."""
        turn = dm.locator("#messages-private .msg").last
        expect(turn).not_to_contain_text("Your turn")  # the DM waited: the app showed all
        for page in (self.app, self.other):  # her second page is on the same phone
            page.evaluate(VISIBILITY, "hidden")
        expect(turn).to_contain_text("Your turn", timeout=10_000)
        for page in (self.app, self.other):
            page.evaluate(VISIBILITY, "visible")
        self.did["locked"] += 1

    def counts_shown(self) -> None:
        """Each other seat's cards left, as its tag says them ("1 card", "2 cards"):
        read with the view the page drew them from."""
        if self.lang != "en":
            return
        for count, text in self.app.evaluate(COUNTS):
            said = re.findall(r"(?<!\d)(\d+) (cards?)\b", text)
            assert said == [(str(count), "card" if count == 1 else "cards")], (count, text)

    def play_the_hand(self, dm: Page | None) -> None:
        app = self.app
        deadline = time.monotonic() + 150
        done = 0
        while view_of(app)["result"] is None:
            assert time.monotonic() < deadline, f"the hand did not end: {self.did}"
            view = view_of(app)
            if view["tricks_done"] > done:
                done = view["tricks_done"]
                if done <= HELD_TRICKS and view["phase"] == "playing":
                    self.watch_the_trick(done)
                continue
            me = view["me"]
            assert not me["auto"], f"Alice was put on auto-play: {self.did}"
            if (
                dm is not None
                and me["my_turn"]
                and self.did["play"] == 5
                and not self.did["locked"]
            ):
                self.lock_the_phone(dm)
                continue
            if (
                me["my_turn"]
                and self.did["play"] == 6
                and dm is not None
                and not self.did["offline"]
            ):
                self.offline()
                continue
            if not self.step(view):
                app.wait_for_timeout(40)

    def result(self) -> None:
        app = self.app
        expect(app.locator("#result")).to_contain_text(self.T("webapp.result", n=1))
        view = view_of(app)
        name = re.sub("<[^>]+>", "", view["seats"][view["result"]["next_dealer"]]["name"])
        expect(app.locator("#result .next")).to_contain_text(name)
        assert main_button(app) == (self.T("btn.next_hand"), True)
        assert not app.evaluate("Telegram.WebApp.isClosingConfirmationEnabled")
        # the score said once: no live hint ("80 takes over …") left under it
        for page in (self.app, self.other):
            expect(page.locator("#points .ctx")).to_have_count(0)
            # the kitty's suits as text, drawn in the theme's colours (no black emoji ♠)
            assert "\ufe0f" not in page.locator("#result").inner_text()
        self.check("result")

    def next_hand(self) -> None:
        """Next hand: nothing of hand 1 stays on screen, in either page."""
        press_main(self.app)
        for page in (self.app, self.other):
            expect(page.locator("#info")).to_contain_text(
                re.sub("<[^>]+>", "", self.T("webapp.hand", n=2))
            )
            for gone in ("#points", "#result"):
                expect(page.locator(gone)).to_be_hidden()
            expect(page.locator(".seat .play .c")).to_have_count(0)
            expect(page.locator(f"{BACK}, #status.won, #last-btn")).to_have_count(0)
            text = page.locator("#app").inner_text()
            assert self.T("webapp.result", n=1) not in text, text
            shown, view = page.evaluate(
                "[[...document.querySelectorAll('#hand .c')].map((c) => +c.dataset.id), state.view]"
            )
            assert view["hand_no"] == 2 and view["result"] is None
            assert sorted(shown) == sorted(view["me"]["hand"])
        self.check("next-hand")

    def chaodi_runs_out(self) -> None:
        """Hand 2: Alice passes the after-deal window and buries if asked; the 炒底
        window reaches her, explains itself, and left to run out counts as her Pass."""
        app = self.app
        deadline = time.monotonic() + 60
        while True:
            assert time.monotonic() < deadline, "炒底 never reached Alice"
            view = view_of(app)
            me = view["me"]
            if view["phase"] == "chaodi" and me["my_turn"]:
                break
            if view["phase"] == "playing":
                pytest.fail("hand 2 went to play without asking Alice (炒底)")
            if me["can_pass"] and view["phase"] == "after_deal":
                press_main(app)
                while view_of(app)["version"] == view["version"]:
                    app.wait_for_timeout(30)
            elif me["my_turn"] and view["phase"] == "burying":
                app.locator(SECOND).click()
                expect(app.locator("#hand .c.sel")).to_have_count(8)
                press_main(app)
            app.wait_for_timeout(50)
        self.check("chaodi")
        # the answer to her pass of the last window is gone: the prompt is this window's
        expect(app.locator("#prompt")).not_to_have_text(self.T("ack.pass"))
        expect(app.locator("#clock")).to_be_visible()
        # 炒底's pass is 不炒 ("Don't overturn"), and the ask names the suit order of pairs
        assert main_button(app) == (self.T("btn.pass.chaodi"), True)
        order = " > ".join("♠♥♣♦"[s] for s in RuleSet().overturn_suit_order)
        ask = re.sub("<[^>]+>", "", self.T("webapp.ask.chaodi", order=order))
        expect(app.locator("#asks .ask")).to_contain_text(ask)
        assert app.evaluate("Telegram.WebApp.isClosingConfirmationEnabled")
        seat = view_of(app)["me"]["seat"]
        waited = time.monotonic()
        expect(app.locator("#asks")).to_be_hidden(timeout=(TURN_SECONDS + 10) * 1000)
        view = view_of(app)
        assert time.monotonic() - waited > TURN_SECONDS / 2
        assert not view["me"]["auto"] and not view["seats"][seat]["auto"], view["seats"]
        assert view["phase"] != "chaodi" or view["to_act"]["seats"] != [seat]
        expect(app.locator("#app")).not_to_contain_text(self.T("webapp.auto"))
        self.did["chaodi"] += 1


def open_app(
    browser: Browser,
    address: str,
    src: str,
    errors: list[str],
    name: str,
    size: dict[str, int] = PHONE,
    scheme: str = "light",
    locale: str = "en-US",
) -> Page:
    """The Mini App of a launch address, in a phone-sized touch page."""
    app = browser.new_page(viewport=size, locale=locale, has_touch=True, color_scheme=scheme)  # type: ignore[arg-type]
    app.on("pageerror", lambda e: errors.append(f"{name}: {e}"))
    refused_by_csp(app, errors, name)
    app.goto(address.rstrip("/") + src)
    expect(app.locator(".seat[data-pos=left] .tag")).to_be_visible()
    return app


def refused_by_csp(page: Page, errors: list[str], name: str) -> None:
    """Anything the Mini App's Content-Security-Policy refuses (a script, a style, a
    frame) is an error: the browser says so on the console."""
    page.on(
        "console",
        lambda m: (
            errors.append(f"{name}: {m.text}") if "Content Security Policy" in m.text else None
        ),
    )


def on_a_phone(browser: Browser, address: str, errors: list[str]) -> None:
    """The sandbox at 360×640: the DM's Table button opens the Mini App over the chat as
    Telegram does on a phone (the whole screen, a close control in its header); closing
    it, or the phone's back gesture, returns to the DM."""
    phone = browser.new_page(viewport=PHONE, locale="en-US", has_touch=True)
    phone.on("pageerror", lambda e: errors.append(f"sandbox on a phone: {e}"))
    refused_by_csp(phone, errors, "sandbox on a phone")  # the Mini App framed in it too
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
            else:  # the app's BackButton shows in the header, as in Telegram, and goes back
                app = phone.frame(url=re.compile("/webapp/"))
                assert app is not None
                # the table hides the BackButton whenever it redraws with no last trick
                # open; the computers play on meanwhile, so that is held off while the
                # header's back is checked (else a redraw may turn it into Close first)
                app.evaluate(
                    "const b = Telegram.WebApp.BackButton; window.__back = 0;"
                    " window.__hide = b.hide; b.hide = () => b;"
                    " b.onClick(() => window.__back++); b.show()"
                )
                expect(close).to_have_text("‹ Back")
                close.click()
                wait_js(app, "window.__back === 1")
                app.evaluate(
                    "const b = Telegram.WebApp.BackButton; b.hide = window.__hide; b.hide()"
                )
                expect(close).to_have_text("✕ Close")
                phone.screenshot(path=str(ARTIFACTS / "miniapp-phone-sandbox.png"))
                close.click()
            expect(sheet).to_have_count(0)
            expect(phone.locator("body")).to_have_attribute("data-show", "private")
            expect(table).to_be_visible()
    finally:
        phone.close()


# (language, the pages: (size, theme) where Alice plays, then the one that follows)
RUNS = {
    "en": ((PHONE, "light"), (SMALL, "dark")),
    "zh": ((PHONE, "dark"), (SMALL, "light")),
}


@pytest.mark.parametrize("lang", list(RUNS))
def test_a_whole_hand_through_the_mini_app_readable_at_every_phase(
    tmp_path: Path, browser: Browser, lang: str
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    beside = ARTIFACTS / "miniapp-desktop.png"
    english = lang == "en"
    # the after-deal window closes once all four passed: its clock only a backstop
    quick = {
        **QUICK,
        "DEAL_BATCH": "5",
        "DEAL_PACE_SECONDS": "0.3",
        "OVERTURN_WINDOW_SECONDS": "120",
        "COMPUTER_DELAY_SECONDS": "0.1",
        "TURN_TIMEOUT_SECONDS": str(TURN_SECONDS),
    }
    locale = "en-US" if english else "zh-CN"
    errors: list[str] = []
    table: Table | None = None
    with sandbox_process(tmp_path, "--lang", lang, seed=SEED, **quick) as address:
        page = browser.new_page(viewport=DESKTOP, locale=locale)
        page.on("pageerror", lambda e: errors.append(f"sandbox: {e}"))
        try:
            page.goto(f"{address}?lang={lang}")
            expect(page.locator("body")).to_have_attribute("data-ready", "1")
            page.locator("#welcome-quick").click()
            # the DM's web_app button opens the Mini App beside the chats
            button = page.locator("#messages-private button.web-app").last
            expect(button).to_have_text(t(lang, "btn.table"), timeout=20_000)
            button.click()
            frame = page.locator("#miniapp iframe")
            expect(frame).to_be_visible()
            inner = page.frame_locator("#miniapp iframe")
            expect(inner.locator(".seat[data-pos=top] .tag")).to_contain_text("🤖")
            box = frame.bounding_box()
            assert box is not None and box["width"] == 360
            src = frame.get_attribute("src")
            assert src and "#tgWebAppData=" in src
            if english:
                panes = page.locator("#panes").bounding_box()
                assert panes is not None and panes["x"] + panes["width"] <= box["x"]  # beside
                page.screenshot(path=str(beside))
            page.locator("#miniapp .miniapp-close").click()
            expect(page.locator("#miniapp")).to_have_count(0)
            if english:
                on_a_phone(browser, address, errors)

            (size, scheme), (size2, scheme2) = RUNS[lang]
            app = open_app(browser, address, src, errors, "app", size, scheme, locale)
            other = open_app(browser, address, src, errors, "other", size2, scheme2, locale)
            names = (f"{size['width']}-{scheme}", f"{size2['width']}-{scheme2}")
            table = Table(lang, app, other, names)
            if not english:
                old = src.replace("tgWebAppVersion=8.0", "tgWebAppVersion=7.0")
                assert old != src
                table.old = open_app(browser, address, old, errors, "old", SMALL, "dark", locale)
            table.play_the_hand(page if english else None)
            table.result()
            did = table.did
            assert did["declare"] == 1 and did["bury"] == 1 and did["throw"] == 1, did
            assert did["play"] > 1 and did["last"] == 1 and did["dimmed"] > 0, did
            assert len(table.held) >= HELD_TRICKS - 1 and min(table.held) >= HELD_SECONDS, (
                table.held
            )
            haptics = app.evaluate("window.__haptics")
            assert ["notification", "warning"] in haptics  # her turn, felt
            if english:
                assert did["locked"] == 1 and did["offline"] == 1 and did["reload"] == 1, did
            table.next_hand()
            table.chaodi_runs_out()
            assert not errors, errors
            print(f"Alice did {dict(did)}; completed tricks held {table.held}")
        finally:
            for path in [beside, *(table.shots if table else [])]:
                if path.exists():
                    print(f"screenshot: {path}")
            for context in browser.contexts:
                context.close()


ARRIVALS = """(() => {  // when each version of the table reached this page's stream,
  // and when each play left it
  window.__arrivals = [];
  window.__sent = [];
  const send = window.fetch;
  window.fetch = (path, opts) => {
    if (String(path).endsWith("api/act") && opts && /"action":"play"/.test(opts.body))
      window.__sent.push(performance.timeOrigin + performance.now());
    return send(path, opts);
  };
  const Source = window.EventSource;
  window.EventSource = class extends Source {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => {
        window.__arrivals.push([JSON.parse(e.data).version, performance.timeOrigin + performance.now()]);
      });
    }
  };
})()"""


def act_once(app: Page) -> float | None:
    """One step of a person in their Mini App, if it is theirs to take: pass in the
    window, or Hint then Play. Returns when a play left (the page's clock), or None."""
    view = view_of(app)
    me = view["me"]
    if view["result"] is not None:
        return None
    if me["my_turn"] and view["phase"] in ("burying", "playing"):
        app.locator(SECOND).click()
        expect(app.locator(f"{MAIN}[data-active='1']")).to_be_visible()
        press_main(app)
        expect(app.locator("#hand .c.sel")).to_have_count(0)
        return float(app.evaluate("window.__sent[window.__sent.length - 1]"))
    if me["can_pass"]:
        try:
            press_main(app)
        except AssertionError:
            if view_of(app)["version"] != view["version"]:
                return None  # the window closed while we looked (someone declared): look again
            raise
        gone(app, t("en", "btn.pass"))
        return 0.0
    return None


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
                app = browser.new_page(viewport=PHONE, locale="en-US", has_touch=True)
                app.add_init_script(ARRIVALS)
                app.on("pageerror", lambda e, n=n: errors.append(f"app {n + 1}: {e}"))
                app.goto(address.rstrip("/") + src)
                expect(app.locator(".seat[data-pos=left] .tag")).to_be_visible()
                apps.append(app)
            # seat 1 declares its ♠2 pair when it may; then everyone hints and plays
            deadline = time.monotonic() + 150
            lags: list[float] = []
            declared = False
            while not all(view_of(app)["result"] is not None for app in apps):
                assert time.monotonic() < deadline, "the hand did not end"
                declare = apps[0].locator("#asks [data-act=show]", has_text=DECLARE)
                if not declared and declare.count() and declare.first.is_visible():
                    declare.first.click()
                    declared = True
                    continue
                moved = False
                for n, app in enumerate(apps):
                    sent = act_once(app)
                    if sent is None:
                        continue
                    moved = True
                    if sent:
                        version = view_of(app)["version"]
                        for other in apps[:n] + apps[n + 1 :]:
                            lags.append(reached(other, version) - sent)
                if not moved:
                    apps[0].wait_for_timeout(30)
            for n, app in enumerate(apps):
                readable(app, f"app {n + 1} result")
                app.screenshot(path=str(ARTIFACTS / f"miniapp-four-{n + 1}.png"))
            assert declared
            lags.sort()
            p99 = lags[min(len(lags) - 1, int(len(lags) * 0.99))]
            print(
                f"a play reached the other apps: median {statistics.median(lags):.0f} ms, "
                f"p99 {p99:.0f} ms ({len(lags)} arrivals)"
            )
            # 200 ms (loopback); a machine busy beyond twice its cores (a shared CI box
            # running four browsers) is given 500
            busy = os.getloadavg()[0] > 2 * (os.cpu_count() or 1)
            assert len(lags) > 60 and p99 < (500 if busy else 200), (p99, busy, lags[-5:])
            assert not errors, errors
        finally:
            print(f"screenshots: {ARTIFACTS}/miniapp-four-*.png")
            for context in browser.contexts:
                context.close()


def reached(app: Page, version: int) -> float:
    """When the first table at ``version`` or later reached ``app`` (its page's clock)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        at = app.evaluate(f"(window.__arrivals.find(([v]) => v >= {version}) || [])[1]")
        if at is not None:
            return float(at)
        app.wait_for_timeout(10)
    raise AssertionError(f"version {version} never reached the app")


# (theme, locale, the group's computer strength): at 普通 a Hint is the search's, answered
# at once ("thinking") and selected when the search ends
WHY_RUNS = {"en": ("light", "en-US", "easy"), "zh": ("dark", "zh-CN", "normal")}


def choose_strength(chat: Page, lang: str, strength: str) -> None:
    """Alice, the group's admin, picks the computers' strength in /settings (before the
    game: a match keeps the strength it started with)."""
    group = chat.locator("#messages-group")
    box = chat.locator("form.composer[data-kind=group] input")
    for look in (False, True):  # choose, then open the row again: the choice is ticked
        box.fill("/settings")
        box.press("Enter")
        group.locator("button", has_text=t(lang, "opt.cs")).last.click()
        name = t(lang, f"opt.cs.{strength}")
        if look:
            expect(group.locator("button", has_text="✓ " + name).last).to_be_visible()
        else:
            group.locator("button", has_text=re.compile("^" + re.escape(name) + "$")).last.click()


def dm_why(chat: Page, lang: str, shots: list[Path]) -> None:
    """Alice's DM before she opens the Mini App: Hint says why under the selection (and
    she plays it), until "Why?" on the last trick lists the computers' plays with why."""
    hinted = 0
    deadline = time.monotonic() + 120
    why_title = re.escape(t(lang, "dm.why.title", n="@")).replace("@", r"\d+")
    while True:
        assert time.monotonic() < deadline, hinted
        dm = chat.locator("#messages-private .msg").last
        why = dm.locator("button", has_text=t(lang, "btn.why"))
        if hinted and why.count():
            why.click()
            expect(dm).to_contain_text(re.compile(why_title))
            text = dm.inner_text()
            lines = [x for x in text.splitlines() if x.startswith("🤖 ")]
            assert any(x.count(" · ") >= 1 and re.search("[:：]", x) for x in lines), text
            shots.append(ARTIFACTS / f"dm-why-{lang}.png")
            dm.screenshot(path=str(shots[-1]))
            dm.locator("button", has_text=t(lang, "btn.why.hide")).click()
            expect(dm).not_to_contain_text(re.compile(why_title))
            return
        hint = dm.locator("button", has_text=t(lang, "btn.hint"))
        if not hint.count():
            chat.wait_for_timeout(100)
            continue
        hint.click()
        expect(dm).to_contain_text(re.compile("💡 [^\n]+[:：]"))
        if not hinted:
            shots.append(ARTIFACTS / f"dm-hint-{lang}.png")
            dm.screenshot(path=str(shots[-1]))
        play = dm.locator("button", has_text=re.compile(r"^▶️|^Bury|^扣底"))
        play.first.click()
        played = chat.locator("#messages-private .msg").last
        expect(played).not_to_contain_text(re.compile("💡 [^\n]*[:：]"))  # no hint line
        hinted += 1


@pytest.mark.parametrize("lang", list(WHY_RUNS))
def test_hint_says_why_and_why_tells_the_last_tricks_computer_plays(
    tmp_path: Path, browser: Browser, lang: str
) -> None:
    """Alice and three computers: in her DM, then in the Mini App at 360×640, each Hint
    selects the play with one line saying why, in her words; "Why?" on the last trick
    shows why each computer played as it did (decided when it played), and hides again."""
    ARTIFACTS.mkdir(exist_ok=True)
    scheme, locale, strength = WHY_RUNS[lang]
    quick = {**QUICK, "COMPUTER_DELAY_SECONDS": "0.1", "TURN_TIMEOUT_SECONDS": "120"}
    errors: list[str] = []
    shots: list[Path] = []
    with sandbox_process(tmp_path, "--lang", lang, seed=SEED, **quick) as address:
        chat = browser.new_page(viewport=DESKTOP, locale=locale)
        chat.on("pageerror", lambda e: errors.append(f"sandbox: {e}"))
        try:
            chat.goto(f"{address}?lang={lang}")
            expect(chat.locator("body")).to_have_attribute("data-ready", "1")
            if strength != "easy":
                choose_strength(chat, lang, strength)
                chat.locator("#quick").click()  # the welcome went with the first message
            else:
                chat.locator("#welcome-quick").click()
            button = chat.locator("#messages-private button.web-app").last
            expect(button).to_have_text(t(lang, "btn.table"), timeout=20_000)
            dm_why(chat, lang, shots)
            button = chat.locator("#messages-private button.web-app").last
            button.click()
            src = chat.locator("#miniapp iframe").get_attribute("src")
            assert src
            chat.locator("#miniapp .miniapp-close").click()
            app = open_app(browser, address, src, errors, "app", PHONE, scheme, locale)
            hints = whys = 0
            deadline = time.monotonic() + 150
            while hints < 3 or not whys:
                assert time.monotonic() < deadline, (hints, whys)
                view = view_of(app)
                me = view["me"]
                assert view["result"] is None, "the hand ended first"
                last = view["last"]
                lines = [p["why"] for p in (last or {}).get("plays", []) if p["why"]]
                why = app.locator("#tools [data-act=why]")
                if not whys and view["phase"] == "playing" and lines and why.count():
                    why.click()
                    box = app.locator("#why")
                    expect(box).to_be_visible()
                    expect(box.locator("h3")).to_have_text(
                        t(lang, "webapp.why_title", n=last["number"])
                    )
                    shown = box.locator(".line").all_text_contents()
                    if view_of(app)["last"]["number"] != last["number"]:
                        continue  # a trick ended meanwhile: another Why?
                    assert len(shown) == len(lines) >= 3  # the three computers at least
                    for text, line in zip(shown, lines, strict=True):
                        assert text.endswith(" · " + line)
                    readable(app, f"why {lang}")
                    shots.append(ARTIFACTS / f"miniapp-why-{lang}.png")
                    app.screenshot(path=str(shots[-1]))
                    app.locator("#tools [data-act=why]").click()
                    expect(box).to_be_hidden()
                    whys += 1
                    continue
                if me["my_turn"] and view["phase"] in ("burying", "playing"):
                    wait_js(app, "!state.hold")
                    app.locator(SECOND).click()
                    wait_js(app, "!!(state.view.me.hint && state.sel.length)")
                    line = view_of(app)["me"]["hint"]["line"]
                    prompt = app.locator("#prompt.hint")
                    expect(prompt).to_have_text(t(lang, "webapp.hint_why", line=line))
                    readable(app, f"hint {lang}")
                    if not hints:
                        shots.append(ARTIFACTS / f"miniapp-hint-{lang}.png")
                        app.screenshot(path=str(shots[-1]))
                    hints += 1
                    press_main(app)
                    expect(app.locator("#hand .c.sel")).to_have_count(0)
                    continue
                if me["can_pass"]:
                    ready = f"{MAIN}[data-active='1'][data-progress='0']"
                    if still_asked(app, view["version"], ready):
                        app.locator(MAIN).click()
                    continue
                app.wait_for_timeout(50)
            assert not errors, errors
        finally:
            for path in shots:
                print(f"screenshot: {path}")
            for context in browser.contexts:
                context.close()


# the panel as a player reads it: inside the viewport above Telegram's buttons, nothing wider
# than the page, no name or line cut, the page itself never scrolling (the panel's body does)
PANEL = r"""() => {
  const vw = innerWidth, vh = innerHeight, out = [];
  const box = (el) => el.getBoundingClientRect();
  const bar = document.getElementById("tg-bottom-bar");
  const floor = bar && bar.style.display !== "none" ? box(bar).top : vh;
  const panel = document.getElementById("panel"), body = panel.querySelector(".body");
  const p = box(panel);
  if (p.top < 0 || p.bottom > floor + 0.5 || p.left < -0.5 || p.right > vw + 0.5) out.push("the panel is outside the viewport");
  if (document.scrollingElement.scrollHeight > vh + 0.5) out.push("the page scrolls");
  if (body.scrollWidth > body.clientWidth + 0.5) out.push("the panel is wider than the page");
  for (const el of panel.querySelectorAll(".head, .who, .line, .beat, .kitty, td, th, .tabs button, h4")) {
    const r = box(el);
    if (r.width && (r.left < p.left - 0.5 || r.right > p.right + 0.5)) out.push(`"${el.textContent.slice(0, 20)}" beyond the panel`);
    if (el.scrollWidth > el.clientWidth + 0.5) out.push(`"${el.textContent.slice(0, 30)}" is cut`);
  }
  return out;
}"""


def panel_readable(page: Page, where: str) -> None:
    problems = page.evaluate(PANEL)
    if problems:
        shot = ARTIFACTS / f"miniapp-unreadable-{where.replace(' ', '-')}.png"
        page.screenshot(path=str(shot))
        raise AssertionError(f"{where}: {problems} (see {shot})")


def open_panel(page: Page, name: str) -> None:
    """One tap from the table: the header's 📋 (the hand's tricks) or 📈 (the match)."""
    page.locator(f"#bar [data-panel={name}]").click()
    expect(page.locator("body")).to_have_attribute("data-panel", name)
    expect(page.locator("#table")).to_be_hidden()
    expect(page.locator(BACK)).to_be_visible()  # Telegram's BackButton: back to the table


def panel_doc(page: Page, name: str) -> dict[str, Any]:
    """The panel's document as the page read it, once drawn from the latest view."""
    wait_js(
        page,
        "(n) => !!(state.panels[n] && state.panels[n].doc && state.panels[n].at === panelStamp(n, state.view)"
        " && document.querySelector('#panel .body').dataset.key === `${n}.${state.panels[n].at}`)",
        name,
    )
    doc: dict[str, Any] = page.evaluate("(n) => state.panels[n].doc", name)
    return doc


def close_panel(page: Page) -> None:
    page.locator(BACK).click()
    expect(page.locator("body")).not_to_have_attribute("data-panel", re.compile("."))
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator(BACK)).to_have_count(0)


def check_tricks_panel(page: Page, lang: str, failed: bool) -> dict[str, Any]:
    """Every trick of the hand in order, each play under its seat's name, the winner's
    marked; the failed throw's row says what was tried, who beat it with what, the penalty."""
    doc = panel_doc(page, "tricks")
    view = view_of(page)
    rows = page.locator("#panel .trick")
    expect(rows).to_have_count(len(doc["tricks"]))
    live = bool(view["trick"] and view["trick"]["plays"])
    assert len(doc["tricks"]) == view["tricks_done"] + live > 0
    names = [
        re.sub("<[^>]+>", "", s["name"]).replace("\u2068", "").replace("\u2069", "")
        for s in view["seats"]
    ]
    for i, trick in enumerate(doc["tricks"]):
        row = rows.nth(i)
        expect(row.locator(".head b")).to_have_text(t(lang, "webapp.tricks.trick", n=i + 1))
        expect(row.locator(".p")).to_have_count(len(trick["plays"]))
        if trick["winner"] is not None:
            expect(row.locator(f".p.won[data-seat='{trick['winner']}']")).to_have_count(1)
    throws = [p for tr in doc["tricks"] for p in tr["plays"] if "attempted" in p]
    assert bool(throws) == failed, throws
    for play in throws:
        cell = page.locator(f"#panel .trick .p.failed[data-seat='{play['seat']}']").first
        expect(cell.locator(".attempt .c")).to_have_count(len(play["attempted"]))
        beat = cell.locator(".beat")
        expect(beat).to_contain_text(names[play["beaten_by_seat"]])
        expect(beat.locator(".c")).to_have_count(len(play["beaten_by"]))
        penalty = f"+{play['penalty']}" if play["penalty"] > 0 else str(play["penalty"])
        expect(beat.locator(".pen")).to_have_text(t(lang, "webapp.tricks.penalty", n=penalty))
    taken = page.locator("#panel .taken b")
    for team in (0, 1):
        expect(taken.filter(has_text=doc["taken"][team]["team_name"])).to_contain_text(
            str(doc["taken"][team]["points"])
        )
    return doc


# the panels at both sizes in both themes, Chinese at 320×568 dark (issue 36 asks it read well)
PANEL_RUNS = {
    "en": ((PHONE, "light"), (SMALL, "dark")),
    "zh": ((SMALL, "dark"), (PHONE, "light")),
}


@pytest.mark.parametrize("lang", list(PANEL_RUNS))
def test_the_hands_tricks_and_the_matchs_history_one_tap_from_the_table(
    tmp_path: Path, browser: Browser, lang: str
) -> None:
    """Alice and three computers, in two pages of one launch (360×640 and 320×568, light and
    dark): after her failed throw the 📋 panel lists the tricks with the throw's row (what was
    tried, the beater and its holder, the penalty); the hand then plays out (her turn runs
    out: 托管), and the panel has every trick, each team's point cards and the kitty; 📈 has
    the hand's row and the level chart, and still does in hand 2."""
    ARTIFACTS.mkdir(exist_ok=True)
    english = lang == "en"
    quick = {
        **QUICK,
        "DEAL_BATCH": "25",
        "OVERTURN_WINDOW_SECONDS": "120",
        "COMPUTER_DELAY_SECONDS": "0.05",
        "TURN_TIMEOUT_SECONDS": "12",
    }
    locale = "en-US" if english else "zh-CN"
    errors: list[str] = []
    shots: list[Path] = []
    with sandbox_process(tmp_path, "--lang", lang, seed=SEED, **quick) as address:
        page = browser.new_page(viewport=DESKTOP, locale=locale)
        page.on("pageerror", lambda e: errors.append(f"sandbox: {e}"))
        try:
            page.goto(f"{address}?lang={lang}")
            expect(page.locator("body")).to_have_attribute("data-ready", "1")
            page.locator("#welcome-quick").click()
            button = page.locator("#messages-private button.web-app").last
            expect(button).to_have_text(t(lang, "btn.table"), timeout=20_000)
            button.click()
            src = page.locator("#miniapp iframe").get_attribute("src")
            assert src
            page.locator("#miniapp .miniapp-close").click()
            (size, scheme), (size2, scheme2) = PANEL_RUNS[lang]
            app = open_app(browser, address, src, errors, "app", size, scheme, locale)
            other = open_app(browser, address, src, errors, "other", size2, scheme2, locale)
            pages = {f"{size['width']}-{scheme}": app, f"{size2['width']}-{scheme2}": other}
            table = Table(lang, app, other, tuple(pages))  # type: ignore[arg-type]

            def look(name: str, phase: str) -> None:
                for where, p in pages.items():
                    panel_readable(p, f"{where} {phase}")
                    shot = ARTIFACTS / f"miniapp-{name}-{lang}-{where}-{phase}.png"
                    p.screenshot(path=str(shot))
                    shots.append(shot)

            deadline = time.monotonic() + 90
            while not table.did["throw"]:  # declare, pass, bury, then the failed throw
                assert time.monotonic() < deadline, table.did
                if not table.step(view_of(app)):
                    app.wait_for_timeout(40)
            # the table rests at her next turn (12 s before it runs out) while the panels are read
            wait_js(app, "state.view.phase === 'playing' && state.view.me.my_turn && !state.hold")
            for p in pages.values():
                open_panel(p, "tricks")
                check_tricks_panel(p, lang, failed=True)
            look("tricks", "failed-throw")
            for p in pages.values():
                close_panel(p)

            # her turns run out: 托管 plays the hand out
            expect(app.locator("#result")).to_be_visible(timeout=120_000)
            for p in pages.values():
                open_panel(p, "tricks")
                doc = check_tricks_panel(p, lang, failed=True)
                assert len(doc["tricks"]) == view_of(p)["tricks_done"]
                expect(p.locator("#panel .kitty .c")).to_have_count(8)  # public now
            look("tricks", "hand-over")
            for p in pages.values():
                p.locator("#panel .body").evaluate("(b) => { b.scrollTop = b.scrollHeight; }")
            look("tricks", "hand-over-end")
            for p in pages.values():
                p.locator("#panel .tabs [data-panel=history]").click()
                doc = panel_doc(p, "history")
                [row] = doc["hands"]
                view = view_of(p)
                assert row["levels"] == view["result"]["levels"]
                assert row["dealer"] == view["dealer"]
                expect(p.locator("#panel tr[data-n='1'] td")).to_have_count(6)
                expect(p.locator("#panel tr[data-n='1']")).to_contain_text(str(row["points"]))
                expect(p.locator("#panel svg polyline")).to_have_count(2)
                expect(p.locator("#panel svg circle")).to_have_count(4)  # before and after
            look("history", "hand-over")
            for p in pages.values():
                close_panel(p)

            # hand 2: the match's history is there during the match
            if view_of(app)["me"]["auto"]:
                press_main(app)  # I'm back
                expect(app.locator(MAIN)).to_have_text(t(lang, "btn.next_hand"))
            press_main(app)
            for p in pages.values():
                expect(p.locator("#info")).to_contain_text(
                    re.sub("<[^>]+>", "", t(lang, "webapp.hand", n=2))
                )
                open_panel(p, "history")
                doc = panel_doc(p, "history")
                assert doc["hand_no"] == 2 and len(doc["hands"]) == 1
                expect(p.locator("#panel tr[data-n]")).to_have_count(1)
            look("history", "hand-2")
            for p in pages.values():
                p.locator("#panel .tabs [data-panel=tricks]").click()
                doc = panel_doc(p, "tricks")
                assert doc["hand_no"] == 2
                expect(p.locator("#panel .trick")).to_have_count(len(doc["tricks"]))
                close_panel(p)
            assert not errors, errors
        finally:
            for path in shots:
                print(f"screenshot: {path}")
            for context in browser.contexts:
                context.close()


# (language: Alice's page (size, theme), the same launch in a second page, the locale)
COUNTER_RUNS = {
    "en": ((PHONE, "light"), (SMALL, "dark"), "en-US"),
    "zh": ((PHONE, "dark"), (SMALL, "light"), "zh-CN"),
}

# the card counter's problems: wider than the screen, a chip or a row beyond its panel
COUNTER_FITS = r"""() => {
  const box = document.getElementById("counter"), r = box.getBoundingClientRect(), out = [];
  if (r.left < -0.5 || r.right > innerWidth + 0.5) out.push("the counter is wider than the screen");
  for (const el of box.querySelectorAll("h3, .k, .out, .chip, .note")) {
    const q = el.getBoundingClientRect();
    if (q.width && (q.left < r.left - 0.5 || q.right > r.right + 0.5))
      out.push(`"${el.textContent}" beyond the counter`);
  }
  for (const row of box.querySelectorAll(".row"))
    if (row.scrollWidth > row.clientWidth + 1) out.push(`"${row.textContent.slice(0, 20)}" overflows`);
  return out;
}"""


def play_until_counted(app: Page, tricks: int) -> None:
    """Alice plays by Hint and the MainButton (passing where asked) until ``tricks`` tricks
    are done and it is her turn to play, the counter in her view."""
    deadline = time.monotonic() + 150
    while True:
        assert time.monotonic() < deadline, view_of(app)["phase"]
        view = view_of(app)
        me = view["me"]
        assert view["result"] is None, "the hand ended first"
        if view["tricks_done"] >= tricks and me["my_turn"] and me["counter"]:
            wait_js(app, "!state.hold")
            return
        if me["my_turn"] and view["phase"] in ("burying", "playing"):
            wait_js(app, "!state.hold")
            app.locator(SECOND).click()
            wait_js(app, "state.sel.length > 0")
            press_main(app)
            expect(app.locator("#hand .c.sel")).to_have_count(0)
            continue
        if me["can_pass"]:
            ready = f"{MAIN}[data-active='1'][data-progress='0']"
            if still_asked(app, view["version"], ready):
                app.locator(MAIN).click()
            continue
        app.wait_for_timeout(50)


@pytest.mark.parametrize("lang", list(COUNTER_RUNS))
def test_the_card_counter_and_im_away_in_the_mini_app(
    tmp_path: Path, browser: Browser, lang: str
) -> None:
    """Alice and three computers: three tricks in, on her turn, 🧮 opens the card counter
    over the table at 360×640 and 320×568 (light and dark): a row a suit class with the
    cards out and each high card (those all played struck through) as her seat's view
    counts them, the points, the voids, what "out" means; nothing beyond the screen. Then
    "I'm away" (我先托管): her seat shows 🤖 in both pages and the computer plays her turn,
    until the MainButton's "I'm back"."""
    ARTIFACTS.mkdir(exist_ok=True)
    first, second, locale = COUNTER_RUNS[lang]
    quick = {**QUICK, "COMPUTER_DELAY_SECONDS": "0.1", "TURN_TIMEOUT_SECONDS": "120"}
    errors: list[str] = []
    shots: list[Path] = []
    with sandbox_process(tmp_path, "--lang", lang, seed=SEED, **quick) as address:
        chat = browser.new_page(viewport=DESKTOP, locale=locale)
        chat.on("pageerror", lambda e: errors.append(f"sandbox: {e}"))
        try:
            chat.goto(f"{address}?lang={lang}")
            expect(chat.locator("body")).to_have_attribute("data-ready", "1")
            chat.locator("#welcome-quick").click()
            button = chat.locator("#messages-private button.web-app").last
            expect(button).to_have_text(t(lang, "btn.table"), timeout=20_000)
            button.click()
            src = chat.locator("#miniapp iframe").get_attribute("src")
            assert src
            chat.locator("#miniapp .miniapp-close").click()
            pages = [
                open_app(browser, address, src, errors, f"app {i}", size, scheme, locale)
                for i, (size, scheme) in enumerate((first, second))
            ]
            app = pages[0]
            play_until_counted(app, 3)
            version = view_of(app)["version"]
            for page, (size, scheme) in zip(pages, (first, second), strict=True):
                wait_js(page, "(v) => state.view.version === v", version)
                page.locator("#tools [data-act=counter]").click()
                box = page.locator("#counter")
                expect(box).to_be_visible()
                expect(box.locator("h3")).to_have_text(t(lang, "webapp.counter.title"))
                counter = view_of(page)["me"]["counter"]
                rows = box.locator(".row.class")
                assert rows.count() == len(counter["classes"]) == 4  # the trumps, 3 suits
                for row, klass in zip(rows.all(), counter["classes"], strict=True):
                    out = t(lang, "webapp.counter.out", n=klass["out"])
                    expect(row.locator(".out")).to_have_text(out)
                    high = klass["high"]
                    expect(row.locator(".chip")).to_have_count(len(high))
                    expect(row.locator(".chip.gone")).to_have_count(
                        sum(1 for h in high if h["n"] == 0)
                    )
                points = counter["points"]
                expect(box.locator(".row.points")).to_contain_text(str(points["unplayed"]))
                note = "note_hands" if counter["kitty_known"] else "note_kitty"
                expect(box.locator(".note")).to_have_text(t(lang, f"webapp.counter.{note}"))
                problems = page.evaluate(COUNTER_FITS)
                assert not problems, problems
                readable(page, f"counter {lang} {size['width']}")
                shots.append(ARTIFACTS / f"miniapp-counter-{lang}-{size['width']}-{scheme}.png")
                page.screenshot(path=str(shots[-1]))
                page.locator("#tools [data-act=counter]").click()
                expect(box).to_be_hidden()
            # I'm away: 托管 by choice, shown on her seat; the computer plays her turn
            held = view_of(app)["seats"][view_of(app)["me"]["seat"]]["count"]
            app.locator("#tools [data-act=away]").click()
            wait_js(app, "state.view.me.auto")
            for page in pages:
                expect(page.locator(".seat[data-pos=bottom] .tag")).to_contain_text("🤖")
            wait_js(app, "(n) => state.view.seats[state.view.me.seat].count < n", held)
            expect(app.locator(MAIN)).to_have_text(t(lang, "btn.auto.off"))
            expect(app.locator("#tools [data-act=away]")).to_have_count(0)
            shots.append(ARTIFACTS / f"miniapp-away-{lang}.png")
            app.screenshot(path=str(shots[-1]))
            press_main(app)
            wait_js(app, "!state.view.me.auto")
            expect(app.locator(".seat[data-pos=bottom] .tag")).not_to_contain_text("🤖")
            assert not errors, errors
        finally:
            for path in shots:
                print(f"screenshot: {path}")
            for context in browser.contexts:
                context.close()
