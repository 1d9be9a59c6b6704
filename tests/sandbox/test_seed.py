"""``./run --seed N``: the sandbox's deals come from fixed seeds, so a deal can be replayed.

The sandbox is started as ``./run`` starts it (``python -m bot``, no token); its page's API
quick-starts a game for person 1 (Alice, seat 1) and reads her private chat until her 25
cards are dealt.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import aiohttp

from bot.views.card_labels import card_label
from tests.sandbox.process import QUICK, sandbox_process

# a card's label in the sandbox's default (Chinese) world, as a word (not a count: ♠️6张)
LABELS = sorted({card_label(c, "zh") for c in range(54)}, key=len, reverse=True)
CARD = re.compile("(?:" + "|".join(map(re.escape, LABELS)) + r")(?=\s|$)")
HAND_SIZE = 25  # 108 cards, 8 in the kitty, four seats


def dealt(html: str) -> Counter[str] | None:
    """The cards of a DM's hand paragraph once all are dealt (the paragraph with most cards)."""
    paragraphs = re.sub(r"<[^>]+>", "", html).split("\n\n")
    cards = max((CARD.findall(p) for p in paragraphs), key=len)
    return Counter(cards) if len(cards) == HAND_SIZE else None


async def first_hand(address: str) -> Counter[str]:
    """Quick-start a game as Alice; her cards as first dealt to her private chat."""
    async with (
        aiohttp.ClientSession(address, timeout=aiohttp.ClientTimeout(total=30)) as http,
        http.get("/api/events", params={"user": "1"}) as events,
    ):
        snapshot = None
        async for line in events.content:
            if not line.startswith(b"data: "):
                continue
            event = json.loads(line[6:])
            if snapshot is None:
                snapshot = event
                dm = next(c["id"] for c in snapshot["chats"] if c["type"] == "private")
                quick = await http.post("/api/quick", json={"user": 1})
                assert (await quick.json())["ok"]
            elif event["type"] == "message" and event["message"]["chat"] == dm:
                if (hand := dealt(event["message"].get("html", ""))) is not None:
                    return hand
    raise AssertionError("the event stream ended before Alice's cards were dealt")


def first_hand_of_a_sandbox(cwd: Path, seed: int) -> Counter[str]:
    cwd.mkdir()
    with sandbox_process(cwd, seed=seed, **QUICK) as address:
        return asyncio.run(first_hand(address))


def test_the_same_seed_deals_alice_the_same_first_hand_and_another_seed_another(
    tmp_path: Path,
) -> None:
    seeds = (7, 7, 8)
    with ThreadPoolExecutor(len(seeds)) as pool:  # three sandboxes side by side
        runs = [
            pool.submit(first_hand_of_a_sandbox, tmp_path / str(i), s) for i, s in enumerate(seeds)
        ]
        hands = [run.result() for run in runs]
    assert hands[0] == hands[1]
    assert hands[0] != hands[2]
