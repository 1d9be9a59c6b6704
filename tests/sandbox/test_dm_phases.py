"""A player's DM at each phase of a hand, on a phone (360×640), in Chromium (issue 16).

Quick-starts a game against three computers in the sandbox page on a fixed deal
(``--seed``) and plays it by tapping in the private chat: declares ♠2 (the first card we
are dealt), passes the window, buries with Hint, leads a throw of two low singles (it
fails: someone holds a higher card), then plays with Hint to the end. A screenshot of the
DM is kept in ``artifacts/`` at each phase: deal, window, bury, lead, follow, failed throw,
result. Every phase is required: on this deal no computer can declare, reinforce or
overturn, so our seat deals and buries whenever we tap (the first test proves it for
every moment of the deal), and the computers' choices are a function of the game's seed.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, expect

from bot.data.options import group_rules
from bot.data.saved import ChatSettings
from bot.i18n import t
from bot.views.card_labels import card_label
from engine.hand import DEALT, Deal, Show
from engine.match import MatchState
from tests.sandbox.conftest import phone_page, quick_start_in_private_chat
from tests.sandbox.process import QUICK, sandbox_process
from tests.sandbox.test_browser import plain, screenshot, shows_selection

PHASES = ("deal", "window", "bury", "lead", "follow", "failed-throw", "result")
RANKS = {
    r: i for i, r in enumerate(["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"])
}
SLOW_DEAL = {
    **QUICK,
    "DEAL_BATCH": "3",  # 3 cards a seat at a time: the deal shows, and we declare in it
    "DEAL_PACE_SECONDS": "0.3",
    "OVERTURN_WINDOW_SECONDS": "20",
}
# The sandbox's first game is dealt from this seed: seat 1 (us) is dealt ♠2 first; the
# computers hold no 2 (the level) and no pair of jokers, so none of them can show anything.
SEED = 203278
OUR_SEAT, SPADE_2 = 0, 0
DECLARE = t("en", "btn.show", action=t("en", "btn.show.declare"), cards=card_label(SPADE_2, "en"))


def test_on_the_fixed_deal_only_our_seat_can_show_whenever_we_declare() -> None:
    """The premise of the test below, for the sandbox's rules (a group's defaults) and
    its deal in batches: after each batch, and after the deal, our ♠2 declares; at no
    moment before or after it may a computer declare, reinforce or overturn."""
    rules = group_rules(ChatSettings(chat_id=1))
    batch = 4 * int(SLOW_DEAL["DEAL_BATCH"])
    moments = range(1, -(-DEALT // batch) + 1)  # we tap after batch 1, 2, ... or the last
    for declare_after in moments:
        match = MatchState.new(rules, SEED)
        for dealt in moments:
            match.apply(Deal(n=batch))
            if dealt == declare_after:
                assert [SPADE_2] in match.hand.show_options(OUR_SEAT)
                match.apply(Show(seat=OUR_SEAT, cards=[SPADE_2]))
            for seat in (1, 2, 3):
                assert match.hand.show_options(seat) == [], (declare_after, dealt, seat)
        assert match.hand.phase == "after_deal" and match.hand.dealer == OUR_SEAT


def click(hand: Locator, name: str | re.Pattern[str], exact: bool = False) -> None:
    # the page re-renders a message as the bot edits it: the event goes to the button
    # as it is now (a pointer click waits for a layout that keeps moving)
    hand.get_by_role("button", name=name, exact=exact).first.dispatch_event("click")


def low_singles(hand: Locator, text: str) -> list[str]:
    """Two low single cards of one side suit (not trump, not the level rank), if any."""
    trump = re.search(r"trump (\S+)", text)
    level = re.search(r"Level (\S+)", text)
    labels = [b.strip() for b in hand.locator("button").all_inner_texts()]
    cards = [m for b in labels if (m := re.fullmatch(r"([♠♥♣♦])️?(\w+)", b))]
    # each card's label as its button shows it (a red suit's as text, on a red button)
    shown = {(m.group(1), m.group(2)): m.group(0) for m in cards}
    for suit in "♠♥♣♦":
        if trump and trump.group(1).startswith(suit):
            continue
        ranks = [m.group(2) for m in cards if m.group(1) == suit and m.group(2) in RANKS]
        ranks = [r for r in ranks if not level or r != level.group(1)]
        singles = sorted((r for r in set(ranks) if ranks.count(r) == 1), key=RANKS.__getitem__)
        if len(singles) >= 2 and singles[0] != "A":
            return [shown[suit, r] for r in singles[:2]]
    return []


def play_the_hand(page: Page, deadline: float) -> set[str]:
    """Play the hand in the DM; returns the phases shot."""
    hand = page.locator("#messages-private .msg.has-kb").last
    last = page.locator("#messages-private .msg").last
    shots: set[str] = set()
    tried_throw = False

    def shot(name: str) -> None:
        if name not in shots:
            screenshot(page, f"dm-phase-{name}.png")
            shots.add(name)

    def declare() -> bool:
        """Tap 📣 Declare ♠️2 if the DM offers it (we have not declared yet)."""
        button = hand.get_by_role("button", name=DECLARE, exact=True)
        if button.count():
            button.first.dispatch_event("click")
            return True
        return False

    before = ""
    while time.monotonic() < deadline:
        text = last.inner_text() if last.count() else ""
        if text == before:  # the DM has not shown our last action yet
            page.wait_for_timeout(100)
            continue
        before = ""
        if plain("result.title", n=1) in text:
            shot("result")
            return shots
        if "tried to throw" in text:
            shot("failed-throw")
        if "Dealing…" in text:
            shot("deal")
            if declare():
                before = text
        elif plain("dm.window.first") in text and hand.get_by_role("button", name="Pass").count():
            if declare():  # the deal ended before our tap reached the bot
                before = text
                continue
            shot("window")
            click(hand, "Pass")
            before = text
        elif "Pick 8 cards to bury" in text:
            click(hand, plain("btn.hint"))
            if not shows_selection(hand):
                continue  # tapped as the message changed ("out of date"): look again
            shot("bury")
            click(hand, plain("btn.bury", n=8), exact=True)
            # the bury done (a Hint tapped meanwhile would select a lead)
            expect(last).not_to_contain_text("Pick 8 cards to bury", timeout=15_000)
        elif plain("dm.your_turn.lead") in text:
            shot("lead")
            cards = [] if tried_throw else low_singles(hand, text)
            if cards:
                tried_throw = True
                for card in cards:
                    click(hand, card)
                    # both cards selected before ▶️ Play (a tap never goes stale: only
                    # a play moves the hand on)
                    selected = hand.get_by_role("button", name="✓" + card)
                    expect(selected).to_be_visible(timeout=15_000)
                click(hand, plain("btn.play.n", n=len(cards)), exact=True)  # those alone
            else:
                click(hand, plain("btn.hint"))
                if not shows_selection(hand):
                    continue  # tapped as the message changed ("out of date"): look again
                click(hand, re.compile(r"^▶️ Play"))
            before = last.inner_text()
        elif "Your turn:" in text or plain("dm.your_turn.one_tap") in text:
            click(hand, plain("btn.hint"))
            if not shows_selection(hand):
                continue  # tapped as the message changed ("out of date"): look again
            shot("follow")
            click(hand, re.compile(r"^▶️ Play"))
            before = last.inner_text()
        page.wait_for_timeout(100)
    raise AssertionError(f"the hand did not end; shown: {sorted(shots)}")


def test_a_dm_at_each_phase_of_a_hand_on_a_phone(tmp_path: Path, browser: Browser) -> None:
    with (
        sandbox_process(tmp_path, seed=SEED, **SLOW_DEAL) as address,
        phone_page(browser, address) as page,
    ):
        quick_start_in_private_chat(page)
        shots = play_the_hand(page, time.monotonic() + 120)
    assert shots == set(PHASES)
