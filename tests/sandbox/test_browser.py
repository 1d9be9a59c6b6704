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
from playwright.sync_api import Browser, Locator, Page, expect

from bot.i18n import LANGS, t
from bot.sandbox.world import GROUP_TITLE, PEOPLE
from bot.views.card_labels import card_label
from bot.views.messages import per_row
from bot.views.names import isolate
from tests.sandbox.conftest import phone_page, quick_start_in_private_chat
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


def shows_selection(hand: Locator, timeout: float = 5_000) -> bool:
    """Whether Hint's cards show selected (✓) on ``hand`` within ``timeout`` ms. A tap that
    lands while the bot edits the message is answered "out of date" and selects nothing,
    as in Telegram: the caller then reads the message again and taps anew."""
    try:
        expect(hand.get_by_role("button", name=re.compile("^✓")).first).to_be_visible(
            timeout=timeout
        )
    except AssertionError:
        return False
    return True


def old_message_dismissed(page: Page) -> bool:
    """Whether the bot's alert was up and was closed: a tap on a DM message the bot had
    just replaced by a newer one (a turn reaching a player who may be away comes as a
    new message) is answered "this message is old", as in Telegram. Any other alert fails."""
    if not page.locator("#alert").is_visible():
        return False
    text = page.locator("#alert-text").inner_text()
    assert text == plain("dm.old_message"), f"the bot answered with an alert: {text}"
    page.locator("#alert-ok").click()
    expect(page.locator("#alert")).to_be_hidden()
    return True


def take_turn(page: Page, deadline: float, on_selected=None) -> list[str]:  # noqa: ANN001
    """Wait for our turn in the private chat; bury or play with Hint; returns what we played.
    ``on_selected``: called once Hint's cards show selected (✓), before they go."""
    hand = page.locator("#messages-private .msg.has-kb").last
    # a lead, a follow (the first words: the count follows)
    your_turn = (plain("dm.your_turn.lead"), plain("dm.your_turn.one_tap"), "Your turn:")
    bury = plain("btn.bury", n=8)
    while time.monotonic() < deadline:
        if old_message_dismissed(page):
            continue
        text = hand.inner_text() if hand.count() else ""
        burying = plain("btn.bury", n=0).split(" ")[0] in text and "/8" in text
        if any(turn in text for turn in your_turn) or burying:
            hand.get_by_role("button", name=plain("btn.hint"), exact=True).click()
            # the answer as a toast, the selection as ✓ on the tapped card buttons
            # (or, on a message just replaced, the alert that it is old)
            expect(page.locator("#pane-private .toast, #alert:not([hidden])").first).to_be_visible()
            if old_message_dismissed(page) or not shows_selection(hand):
                continue  # the tap met the message being edited ("out of date"): look again
            # each card as the text says it (a red suit's button has its suit as text)
            selected = [
                re.sub("([♥♦])(?!\ufe0f)", "\\1\ufe0f", b.removeprefix("✓"))
                for b in hand.locator("button").all_inner_texts()
                if b.startswith("✓")
            ]
            if on_selected is not None:
                on_selected()
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
    errors: list[str] = []
    with (
        sandbox_process(tmp_path, **QUICK) as address,
        phone_page(browser, address, width, height, errors) as page,
    ):
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


# each button of the private chat's last keyboard whose text does not fit (cut with …)
_CUT_BUTTONS = """() => {
  const kbs = document.querySelectorAll('#messages-private .msg.has-kb .kb');
  const kb = kbs[kbs.length - 1];
  if (!kb) return [[], 0];
  const buttons = [...kb.querySelectorAll('button')];
  const cut = buttons.filter(b => b.scrollWidth > b.clientWidth).map(b => b.innerText);
  return [cut, buttons.length];
}"""


# The same keyboard, its rows replaced by rows of the widest labels the DM has, laid out
# as the bot lays them out (bot.views.messages): each button's text measured.
_CUT_IN_ROWS = """(rows) => {
  const kbs = document.querySelectorAll('#messages-private .msg.has-kb .kb');
  const kb = kbs[kbs.length - 1].cloneNode(true);
  kbs[kbs.length - 1].after(kb);
  const row = kb.querySelector('.kb-row'), button = row.querySelector('button');
  kb.replaceChildren(...rows.map(labels => {
    const r = row.cloneNode(false);
    r.replaceChildren(...labels.map(text => {
      const b = button.cloneNode(false);
      b.textContent = text;
      return b;
    }));
    return r;
  }));
  const cut = [...kb.querySelectorAll('button')]
    .filter(b => b.scrollWidth > b.clientWidth).map(b => b.textContent);
  kb.remove();
  return cut;
}"""


def widest_rows() -> list[list[str]]:
    """A row of each of the widest labels, as many a row as the bot puts there."""
    cards = [
        f"✓{card_label(c, lang)}" for lang in LANGS for c in (8, 21, 34, 47, 10, 23, 36, 49, 52, 53)
    ]
    rows = [[label] * per_row([label]) for label in cards]  # ✓♦️10, ✓大王 …
    for lang in LANGS:
        big = card_label(53, lang)
        show = t(lang, "btn.show", action=t(lang, "btn.show.reinforce"), cards="♦️10 ♦️10")
        actions = [
            t(lang, "btn.play.count", n=10, need=10),
            t(lang, "btn.play.n", n=10),
            t(lang, "btn.hint"),
            t(lang, "btn.clear"),
            t(lang, "btn.bury", n=8),
            t(lang, "btn.auto.off"),
            t(lang, "btn.pass"),
            t(lang, "btn.redeal"),
            show,
            t(lang, "btn.show", action=t(lang, "btn.show.overturn"), cards=f"{big} {big}"),
        ]
        rows += [[label] * min(3, per_row([label])) for label in actions]
    return rows


def test_on_a_phone_no_button_label_is_cut(tmp_path: Path, browser: Browser) -> None:
    """At 360×640 every card and action button of the hand shows its whole label, the
    ✓ of a selected card included (each button's text measured: none overflows): the
    keyboards of a game as it is played, and rows of the widest labels there are."""
    with sandbox_process(tmp_path, **QUICK) as address, phone_page(browser, address) as page:
        quick_start_in_private_chat(page)
        measured: list[int] = []
        cut: list[str] = []

        def measure() -> None:
            labels, count = page.evaluate(_CUT_BUTTONS)
            cut.extend(labels)
            measured.append(count)

        deadline = time.monotonic() + 120
        for _ in range(3):  # the bury if we deal, then our plays (cards ✓ by Hint)
            measure()
            take_turn(page, deadline, on_selected=measure)
        screenshot(page, "sandbox-phone-buttons-360x640.png")
        assert max(measured) >= 10, measured  # card keyboards were measured
        assert not cut, cut
        assert not page.evaluate(_CUT_IN_ROWS, widest_rows())


_LAST_LINES = """() => [...document.querySelectorAll(".welcome p")].map((p) => {
  const range = document.createRange();
  range.selectNodeContents(p);
  const lines = new Map();  // each line's width, by its top
  for (const r of range.getClientRects()) lines.set(Math.round(r.top), (lines.get(Math.round(r.top)) || 0) + r.width);
  const widths = [...lines.values()];
  return [p.textContent, widths.length, widths[widths.length - 1] / Math.max(...widths)];
})"""


def test_at_320_px_the_header_keeps_both_languages_and_no_word_is_left_alone(
    tmp_path: Path, browser: Browser
) -> None:
    """Issue 36: at 320 px the header clipped the EN button and the welcome left "局。"
    alone on its last line. Both languages' buttons are whole inside the screen, and no
    line of the welcome is less than a third as long as its longest, in English and Chinese."""
    with (
        sandbox_process(tmp_path, **QUICK) as address,
        phone_page(browser, address, width=320, height=568) as page,
    ):
        for lang in ("zh", "en"):
            page.locator(f".langs button[data-lang={lang}]").click()
            expect(page.locator(f".langs button[data-lang={lang}]")).to_have_class(re.compile("on"))
            for button in page.locator(".langs button").all():
                box = button.bounding_box()
                assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 320, box
            for text, lines, last in page.evaluate(_LAST_LINES):
                assert lines == 1 or last > 1 / 3, (lang, text, lines, last)
            screenshot(page, f"sandbox-320-{lang}.png")


def test_a_dms_deadline_shows_in_the_readers_own_time_zone(
    tmp_path: Path, browser: Browser
) -> None:
    """Issue 36: the DM said "until 03:22:12 UTC" to players on UTC+8. Its deadline is a
    date_time entity now, and the sandbox (as a Telegram client) shows it in the browser's
    zone: a reader in Shanghai reads the hour eight hours after UTC's."""
    window = {**QUICK, "OVERTURN_WINDOW_SECONDS": "60"}
    with sandbox_process(tmp_path, **window) as address:
        page = browser.new_page(
            viewport={"width": 360, "height": 640}, locale="en-GB", timezone_id="Asia/Shanghai"
        )
        try:
            page.goto(address + "?lang=en")
            expect(page.locator("body")).to_have_attribute("data-ready", "1")
            quick_start_in_private_chat(page)
            shown = page.locator("#messages-private .msg time.dt").last
            expect(shown).to_be_visible(timeout=20_000)
            unix = int(shown.get_attribute("data-unix") or 0)
            local = time.strftime("%H:%M:%S", time.gmtime(unix + 8 * 3600))
            expect(shown).to_have_text(local)  # en-GB: 24-hour clock, with seconds
            assert "UTC" not in shown.inner_text()
        finally:
            page.close()
