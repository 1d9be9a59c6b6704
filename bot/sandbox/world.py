"""The sandbox's world: four people and a group around the built-in fake Telegram.

The real bot (``build_application``, as in production) polls the fake in-process. The page
acts as one of the four people at a time: what they type, tap and open goes through the
fake's driver exactly as in the end-to-end tests, and every change of a chat they can see
is pushed to the page as a message snapshot.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any
from urllib.parse import urlencode

from bot.app import ALLOWED_UPDATES, ShengjiApplication, build_application
from bot.edges.miniapp.auth import sign
from bot.fake_telegram import (
    CallbackRecord,
    Chat,
    FakeClock,
    FakeTelegram,
    Message,
    RateLimits,
    SimUser,
)
from bot.infra.config import Settings
from bot.sandbox.markup import to_html
from bot.views import codec

log = logging.getLogger(__name__)

PEOPLE = {
    "zh": ["小明", "小红", "小刚", "小丽"],
    "en": ["Alice", "Bob", "Carol", "Dave"],
}
GROUP_TITLE = {"zh": "升级沙盒", "en": "Shengji sandbox"}
TELEGRAM_LANG = {"zh": "zh-hans", "en": "en"}
# the Mini App's address as the bot is told it; the page serves it at /webapp/
WEBAPP_URL = "https://sandbox.invalid/webapp/"
ANSWER_WAIT = 10.0  # Telegram clients give up on a press's spinner after about this long


@dataclass(eq=False)  # each open page is its own subscriber
class Subscriber:
    """One open page: the person it acts as and the queue of events for it."""

    person: SimUser
    queue: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)


class QuickStartError(Exception):
    """Quick start could not open a game (``code`` is a key of the page's texts)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class Sandbox:
    """The fake world, the bot running in it, and the pages following it."""

    def __init__(self, settings: Settings, lang: str = "zh") -> None:
        self.lang = lang if lang in PEOPLE else "zh"
        self.settings = settings
        # Telegram's own rate limits for chats where people play (no bulk-notification
        # cap): the sandbox shows the bot's real pacing
        self.world = FakeTelegram(
            bot_username="ShengjiSandboxBot",
            clock=FakeClock(time.time()),  # message times in the page are today's
            rate_limits=RateLimits(global_per_second=None),
            http=False,
        )
        self.people = [
            self.world.user(name, language_code=TELEGRAM_LANG[self.lang])
            for name in PEOPLE[self.lang]
        ]
        self.group = self.world.group(
            GROUP_TITLE[self.lang], admins=self.people[:1], members=self.people[1:]
        )
        self.subscribers: set[Subscriber] = set()
        self._shown: dict[tuple[int, int], str] = {}  # (chat, message) -> last snapshot sent
        self._dirty = asyncio.Event()
        self.world.core.watchers.append(self._dirty.set)
        self.app: ShengjiApplication | None = None  # the bot's Application, while running

    # ------------------------------------------------------------------ running
    @asynccontextmanager
    async def running(self, seed_source: Callable[[], int] | None = None) -> AsyncIterator[None]:
        """Run the bot against the world, and the broadcaster, for the block."""
        with TemporaryDirectory(prefix="shengji-sandbox-") as tmp:
            # a fresh database each time: the fake world itself is not kept either
            settings = self.settings.model_copy(
                update={
                    "bot_token": self.world.token,
                    "database_path": Path(tmp) / "sandbox.sqlite3",
                    # the DM's 🃏 Table button: the page opens the Mini App beside the chats
                    "webapp_url": WEBAPP_URL,
                }
            )
            app = build_application(
                settings,
                request=self.world.request(),
                get_updates_request=self.world.request(),
                seed_source=seed_source,
            )
            self.app = app
            async with self.world, self.world.running(app, allowed_updates=ALLOWED_UPDATES):
                broadcaster = asyncio.create_task(self._broadcast())
                try:
                    yield
                finally:
                    broadcaster.cancel()
                    self.close_pages()

    # ------------------------------------------------------------------ reading
    def person(self, number: int) -> SimUser:
        """Person 1..4 (the page's ``?user=N``)."""
        if not 1 <= number <= len(self.people):
            raise KeyError(number)
        return self.people[number - 1]

    def chats_of(self, person: SimUser) -> list[Chat]:
        """The chats this person sees: the groups they are in, then their DM with the bot."""
        groups = [
            c
            for c in self.world.core.chats.values()
            if c.is_group and person.id in c.members and c.migrated_to is None
        ]
        return [*groups, person.private_chat]

    def snapshot(self, person: SimUser) -> dict[str, Any]:
        """Everything a newly opened page needs."""
        bot = self.world.bot_user
        return {
            "type": "snapshot",
            "bot": {"id": bot.id, "name": bot.first_name, "username": bot.username},
            "me": self.person_json(person),
            "people": [self.person_json(p) for p in self.people],
            "chats": [self.chat_json(c) for c in self.chats_of(person)],
            "messages": [message_json(m) for c in self.chats_of(person) for m in c.live_messages()],
        }

    def person_json(self, person: SimUser) -> dict[str, Any]:
        return {
            "number": self.people.index(person) + 1,
            "id": person.id,
            "name": person.name,
            "started": person.user.started,
            "lang": person.user.language_code,
        }

    def chat_json(self, chat: Chat) -> dict[str, Any]:
        if chat.type == "private":
            return {"id": chat.id, "type": "private", "title": self.world.bot_user.first_name}
        return {"id": chat.id, "type": chat.type, "title": chat.title, "members": len(chat.members)}

    # ------------------------------------------------------------------ live updates
    def subscribe(self, person: SimUser) -> Subscriber:
        sub = Subscriber(person)
        sub.queue.put_nowait(self.snapshot(person))
        self.subscribers.add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        self.subscribers.discard(sub)

    def close_pages(self) -> None:
        """Tell every open page that the sandbox stops (their event streams end)."""
        for sub in list(self.subscribers):
            sub.queue.put_nowait({"type": "bye"})
        self.subscribers.clear()

    def changed(self) -> None:
        """Something the pages show may have changed (people's actions call this)."""
        self._dirty.set()

    async def _broadcast(self) -> None:
        while True:
            await self._dirty.wait()
            await asyncio.sleep(0.02)  # one push for a burst of calls
            self._dirty.clear()
            try:
                self._push_changes()
            except Exception:  # a page must never stop the sandbox
                log.exception("sandbox: pushing changes failed")

    def _push_changes(self) -> None:
        events: list[tuple[Chat, dict[str, Any]]] = []
        for chat in list(self.world.core.chats.values()):
            for message in list(chat.messages.values()):
                key = (chat.id, message.message_id)
                if message.deleted:
                    if self._shown.pop(key, None) is not None:
                        events.append((chat, {"type": "delete", "chat": chat.id, "id": key[1]}))
                    continue
                data = message_json(message)
                fingerprint = json.dumps(data, sort_keys=True, ensure_ascii=False)
                if self._shown.get(key) != fingerprint:
                    self._shown[key] = fingerprint
                    events.append((chat, {"type": "message", "message": data}))
        for sub in list(self.subscribers):
            visible = {c.id for c in self.chats_of(sub.person)}
            for chat, event in events:
                if chat.id in visible:
                    sub.queue.put_nowait(event)
            sub.queue.put_nowait({"type": "people", "people": self.people_json()})

    def people_json(self) -> list[dict[str, Any]]:
        return [self.person_json(p) for p in self.people]

    # ------------------------------------------------------------------ acting
    def chat(self, person: SimUser, chat_id: int) -> Chat:
        for chat in self.chats_of(person):
            if chat.id == chat_id:
                return chat
        raise KeyError(chat_id)

    async def send(self, person: SimUser, chat_id: int, text: str) -> None:
        chat = self.chat(person, chat_id)
        if chat.type == "private" and not person.user.started:
            await person.start_bot(settle=False)
        else:
            await person.send(chat, text, settle=False)
        self.changed()

    async def start_bot(self, person: SimUser, payload: str | None = None) -> None:
        await person.start_bot(payload, settle=False)
        self.changed()

    async def open_link(self, person: SimUser, url: str) -> None:
        await person.open_link(url, settle=False)
        self.changed()

    async def press(
        self, person: SimUser, chat_id: int, message_id: int, data: str
    ) -> dict[str, Any]:
        """Tap a callback button; waits for the bot's answer (toast or alert) like a client."""
        chat = self.chat(person, chat_id)
        message = self.world.core.message(chat, message_id)
        if message is None:
            return {"answered": False, "gone": True}
        record = await person.press(message, data=data, settle=False)
        assert isinstance(record, CallbackRecord)  # found by its callback data
        self.changed()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ANSWER_WAIT
        while not record.answered and loop.time() < deadline:
            await asyncio.sleep(0.02)
        return {
            "answered": record.answered,
            "text": record.text,
            "show_alert": record.show_alert,
            "url": record.url,
        }

    def webapp_launch(self, person: SimUser, url: str) -> str:
        """Open a ``web_app`` button as Telegram would: the page's address of the Mini App
        with the person's launch data signed by the sandbox's token (in the fragment,
        where Telegram puts it and the stand-in for its script reads it)."""
        if not url.startswith(WEBAPP_URL):
            raise ValueError(url)
        user = person.user
        me = {"id": user.id, "first_name": user.first_name, "language_code": user.language_code}
        fields = {
            "query_id": f"sandbox{user.id}",
            "user": json.dumps(me, ensure_ascii=False, separators=(",", ":")),
            "auth_date": str(int(time.time())),
        }
        launch = urlencode(
            {"tgWebAppData": sign(fields, self.world.token), "tgWebAppVersion": "8.0"}
        )
        return f"/webapp/{url[len(WEBAPP_URL) :]}#{launch}"

    def set_language(self, person: SimUser, lang: str) -> None:
        """The person's Telegram app language (the bot answers in it where the group lets it);
        the people and the group take names of that language (the page's)."""
        person.user.language_code = TELEGRAM_LANG.get(lang, lang)
        if lang in PEOPLE and lang != self.lang:
            self.rename(lang)
        self.changed()

    def rename(self, lang: str) -> None:
        """Give the people and the group their names in ``lang``; every open page is sent
        a new snapshot. (A seat taken earlier keeps the name the bot saw when it was taken,
        as a Telegram rename would.)"""
        self.lang = lang
        for person, name in zip(self.people, PEOPLE[lang], strict=True):
            person.user.first_name = name
        self.group.title = GROUP_TITLE[lang]
        for sub in list(self.subscribers):
            sub.queue.put_nowait(self.snapshot(sub.person))

    async def quick_start(self, person: SimUser) -> None:
        """/newgame in the group, take a seat through its link, +🤖 until full, Start."""
        before = self.group.next_message_id
        await person.send(self.group, "/newgame", settle=False)
        self.changed()
        reply = await self._wait_for(lambda: self._bot_message(self.group, before), 10.0)
        seats = [b.url for row in reply.buttons() for b in row if b.url] if reply else []
        if not seats:
            raise QuickStartError("quick.busy")  # e.g. a game is already open in the group
        dm_before = person.private_chat.next_message_id
        await self.open_link(person, seats[0] or "")
        if not await self._wait_for(lambda: self._bot_message(person.private_chat, dm_before)):
            raise QuickStartError("quick.failed")
        kinds = _callback_kinds(reply)
        for _ in range(len(self.people)):  # +🤖 until the bot says (or shows) that it is full
            if "C" not in _callback_kinds(reply):
                break
            answer = await self.press(person, self.group.id, reply.message_id, kinds["C"])
            if not answer["answered"]:
                raise QuickStartError("quick.failed")
            if answer["text"]:
                break
        answer = await self.press(person, self.group.id, reply.message_id, kinds["S"])
        if not answer["answered"] or answer["show_alert"]:
            raise QuickStartError("quick.failed")

    def _bot_message(self, chat: Chat, first_id: int) -> Message | None:
        for message in chat.live_messages():
            if message.message_id >= first_id and message.from_bot:
                return message
        return None

    async def _wait_for(self, check: Callable[[], Any], timeout: float = 10.0) -> Any:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            found = check()
            if found:
                return found
            await asyncio.sleep(0.05)
        return None


def _callback_kinds(message: Message) -> dict[str, str]:
    """Callback data of a message's buttons by their kind letter (the bot's codec)."""
    kinds: dict[str, str] = {}
    for row in message.buttons():
        for button in row:
            if button.data:
                with suppress(codec.BadData):
                    kinds[codec.decode(button.data).kind] = button.data
    return kinds


def message_json(message: Message) -> dict[str, Any]:
    """A message as the page draws it (HTML already made safe by :func:`to_html`)."""
    sender = message.sender
    data: dict[str, Any] = {
        "chat": message.chat.id,
        "id": message.message_id,
        "date": message.date,
        "edited": message.edit_date is not None,
        "from": {
            "id": sender.id if sender else None,
            "name": sender.first_name if sender else "",
            "bot": bool(sender and sender.is_bot),
        },
        "keyboard": [
            [
                {
                    "text": b.text,
                    "data": b.data,
                    "url": b.url,
                    "web_app": b.web_app,
                    "style": b.style,
                }
                for b in row
            ]
            for row in message.buttons()
        ],
    }
    if message.text is not None:
        data["html"] = to_html(message.text, message.entities)
        if message.chat.type == "private" and not data["from"]["bot"]:
            if message.text.startswith("/start "):  # a deep link: clients hide the payload
                data["html"] = to_html("/start", message.entities[:1])
    if message.caption is not None:
        data["html"] = to_html(message.caption, message.caption_entities)
    if message.photo:
        data["photo"] = message.photo[-1]["file_id"]
    if message.service:
        data["service"] = sorted(message.service)
    if message.reply_to is not None:
        data["reply_to"] = message.reply_to.message_id
    return data
