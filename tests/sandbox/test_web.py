"""The sandbox's page API in-process: what each person's page receives and what taps do."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from bot.infra.config import Settings
from bot.sandbox.web import make_app
from bot.sandbox.world import GROUP_TITLE, PEOPLE, Sandbox

QUICK = dict(
    deal_batch=25,
    deal_pace_seconds=0.01,
    overturn_window_seconds=0.5,
    computer_delay_seconds=0.01,
    group_interval_seconds=0.0,
    computer_strength="easy",
)

Event = dict[str, Any]


@asynccontextmanager
async def sandbox_page(lang: str = "en") -> AsyncIterator[tuple[Sandbox, TestClient]]:
    sandbox = Sandbox(Settings(_env_file=None, **QUICK), lang)  # type: ignore[call-arg]
    async with sandbox.running(), TestClient(TestServer(make_app(sandbox))) as client:
        yield sandbox, client


class Page:
    """One open page: the event stream of person ``user`` and the messages it shows."""

    def __init__(self, client: TestClient, user: int) -> None:
        self.client, self.user = client, user
        self.messages: dict[tuple[int, int], Event] = {}
        self.snapshot: Event = {}

    async def __aenter__(self) -> Page:
        self.response = await self.client.get(f"/api/events?user={self.user}")
        self.snapshot = await self._next()
        for m in self.snapshot["messages"]:
            self.messages[(m["chat"], m["id"])] = m
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.response.close()

    async def _next(self) -> Event:
        while True:
            line = await asyncio.wait_for(self.response.content.readline(), 10)
            if line.startswith(b"data: "):
                return json.loads(line[6:])

    async def until(self, found: Callable[[], Any], timeout: float = 10.0) -> Any:
        """Read events until ``found()`` answers something truthy."""
        async with asyncio.timeout(timeout):
            while not (result := found()):
                event = await self._next()
                if event["type"] == "message":
                    m = event["message"]
                    self.messages[(m["chat"], m["id"])] = m
                elif event["type"] == "delete":
                    self.messages.pop((event["chat"], event["id"]), None)
        return result

    def chat(self, kind: str) -> int:
        return next(c["id"] for c in self.snapshot["chats"] if c["type"] == kind)

    def in_chat(self, kind: str) -> list[Event]:
        chat = self.chat(kind)
        return [m for (c, _), m in sorted(self.messages.items()) if c == chat]

    def with_button(self, kind: str, label: str) -> Event | None:
        for m in reversed(self.in_chat(kind)):
            for row in m["keyboard"]:
                if any(b["text"] == label for b in row):
                    return m
        return None

    async def post(self, action: str, **body: Any) -> Event:
        response = await self.client.post(f"/api/{action}", json={"user": self.user, **body})
        assert response.status == 200, await response.text()
        return await response.json()


def button(message: Event, label: str) -> dict[str, Any]:
    return next(b for row in message["keyboard"] for b in row if b["text"] == label)


async def test_quick_start_seats_you_and_your_cards_arrive_in_your_private_chat():
    async with sandbox_page() as (_, client), Page(client, 1) as me, Page(client, 2) as bob:
        assert await me.post("quick") == {"ok": True}
        hand = await me.until(lambda: me.with_button("private", "💡 Hint"))
        assert "hand 1 · seat 1" in hand["html"]
        lobby = me.in_chat("group")[1]
        await me.until(
            lambda: "The game has started" in me.messages[(lobby["chat"], lobby["id"])]["html"]
        )
        assert me.in_chat("group")[0]["html"].startswith('<a class="cmd" data-cmd="/newgame">')
        # Bob's page follows the group too, but never Alice's private chat
        await bob.until(lambda: len(bob.in_chat("group")) >= 2)
        assert not any(c == me.chat("private") for c, _ in bob.messages)


async def test_a_tap_is_answered_as_the_bot_answered_it_and_the_keyboard_follows():
    async with sandbox_page() as (_, client), Page(client, 1) as me:
        await me.post("quick")
        hand = await me.until(lambda: me.with_button("private", "💡 Hint"))
        answer = await me.post(
            "press", chat=hand["chat"], message=hand["id"], data=button(hand, "💡 Hint")["data"]
        )
        assert answer["answered"] and answer["text"] and not answer["show_alert"]
        await me.until(
            lambda: any(
                b["text"].startswith("✓")
                for row in me.messages[(hand["chat"], hand["id"])]["keyboard"]
                for b in row
            )
        )


async def test_a_seat_link_opens_the_private_chat_with_start_and_seats_that_person():
    async with sandbox_page() as (sandbox, client), Page(client, 2) as bob:
        await bob.post("send", chat=bob.chat("group"), text="/newgame")
        lobby = await bob.until(lambda: bob.with_button("group", "🪑 Seat 2"))
        assert not bob.snapshot["me"]["started"]
        assert await bob.post("link", url=button(lobby, "🪑 Seat 2")["url"]) == {"ok": True}
        welcome = await bob.until(lambda: [m for m in bob.in_chat("private") if m["from"]["bot"]])
        assert "seat 2" in welcome[0]["html"]
        # as in Telegram's apps, the link's START shows as /start (the payload stays hidden)
        assert bob.in_chat("private")[0]["html"] == '<a class="cmd" data-cmd="/start">/start</a>'

        assert sandbox.person(2).user.started
        assert await bob.post("link", url="https://t.me/SomeOtherBot?start=x") == {"ok": False}


async def test_quick_start_in_a_group_with_an_open_game_says_so():
    async with sandbox_page() as (_, client), Page(client, 1) as me:
        await me.post("send", chat=me.chat("group"), text="/newgame")
        await me.until(lambda: me.with_button("group", "▶️ Start"))
        assert await me.post("quick") == {"ok": False, "error": "quick.busy"}


async def test_commands_typed_in_the_group_reach_the_bot_and_its_formatting_shows():
    async with sandbox_page("zh") as (_, client), Page(client, 1) as me:
        assert me.snapshot["me"]["name"] == "小明"
        await me.post("send", chat=me.chat("group"), text="/rules")
        rules = await me.until(lambda: [m for m in me.in_chat("group") if m["from"]["bot"]])
        assert "<b>" in rules[0]["html"]
        unknown = await me.client.post("/api/send", json={"user": 9, "chat": 1, "text": "x"})
        assert unknown.status == 400


async def test_the_page_language_names_the_people_and_the_group():
    async with sandbox_page("zh") as (_, client), Page(client, 1) as me:
        assert [p["name"] for p in me.snapshot["people"]] == PEOPLE["zh"]
        assert {c["title"] for c in me.snapshot["chats"]} >= {GROUP_TITLE["zh"]}
        assert await me.post("language", lang="en") == {"ok": True}
        while (event := await me._next())["type"] != "snapshot":
            pass
        assert (
            [p["name"] for p in event["people"]]
            == PEOPLE["en"]
            == ["Alice", "Bob", "Carol", "Dave"]
        )
        assert {c["title"] for c in event["chats"]} >= {GROUP_TITLE["en"]}
        assert event["me"]["lang"] == "en"
        # what Alice says from now on is signed with her English name
        await me.post("send", chat=me.chat("group"), text="hello")
        said = await me.until(lambda: [m for m in me.in_chat("group") if "hello" in m["html"]])
        assert said[0]["from"]["name"] == "Alice"
