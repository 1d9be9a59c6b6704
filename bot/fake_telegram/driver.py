"""The test driver: a world of simulated people around one fake Telegram.

Everything runs in the test's event loop; nothing sleeps except :meth:`FakeTelegram.settle`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable, Iterable, Sequence, Sized
from contextlib import asynccontextmanager
from typing import Any, Literal, NoReturn
from urllib.parse import parse_qs, urlsplit

from telegram import Bot, Update
from telegram.ext import Application, ApplicationBuilder, ContextTypes, ExtBot, JobQueue

from .core import DEFAULT_TOKEN, TelegramCore
from .fake_clock import FakeClock
from .limits import RateLimits
from .methods import METHODS
from .objects import Button, CallbackRecord, Chat, Message, RequestRecord, User
from .transport_http import HttpServer
from .transport_inprocess import FakeRequest

Transport = Literal["inprocess", "http"]
# ``ApplicationBuilder()`` before an option changes its types (``context_types``, say)
DefaultBuilder = ApplicationBuilder[
    ExtBot[None],
    ContextTypes.DEFAULT_TYPE,
    dict[Any, Any],
    dict[Any, Any],
    dict[Any, Any],
    JobQueue[ContextTypes.DEFAULT_TYPE],
]
_PAYLOAD_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# how often settle() looks again while the loop waits on a thread, a process or a timer
# (nothing the loop runs tells it when those end)
_IDLE_POLL = 0.001


class FakeTelegram:
    """The world. ``async with FakeTelegram() as world:`` starts the HTTP server too."""

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_username: str = "ShengjiTestBot",
        bot_name: str = "Shengji",
        clock: FakeClock | None = None,
        rate_limits: RateLimits | None = None,
        privacy_mode: bool = True,
        http: bool = True,
        auto_settle: bool = False,
        settle_quiet: float = 0.05,
        settle_timeout: float = 5.0,
    ) -> None:
        self.core = TelegramCore(
            methods=METHODS,
            token=token,
            bot_username=bot_username,
            bot_name=bot_name,
            clock=clock,
            rate_limits=rate_limits,
            privacy_mode=privacy_mode,
        )
        self.clock = self.core.clock
        self.auto_settle = auto_settle
        self.settle_quiet = settle_quiet
        self.settle_timeout = settle_timeout
        self._server = HttpServer(self.core) if http else None
        self._apps: list[Application[Any, Any, Any, Any, Any, Any]] = []
        self._busy: list[Callable[[], bool]] = []

    # ------------------------------------------------------------------ lifecycle
    async def __aenter__(self) -> FakeTelegram:
        if self._server is not None:
            await self._server.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.core.close()
        if self._server is not None:
            await self._server.stop()

    # ------------------------------------------------------------------ plumbing
    @property
    def token(self) -> str:
        return self.core.token

    @property
    def bot_user(self) -> User:
        return self.core.bot

    @property
    def base_url(self) -> str:
        """For ``ApplicationBuilder().base_url(...)``; needs ``http=True`` and ``async with``."""
        if self._server is None or not self._server.port:
            raise RuntimeError("HTTP transport not running: use `async with FakeTelegram()`")
        return self._server.base_url

    def request(self) -> FakeRequest:
        """A fresh in-process ``BaseRequest`` (PTB wants separate ones for getUpdates)."""
        return FakeRequest(self.core)

    def application_builder(self, transport: Transport = "inprocess") -> DefaultBuilder:
        """An ``ApplicationBuilder`` with token and transport set; add your own options."""
        builder = ApplicationBuilder().token(self.token)
        if transport == "http":
            return builder.base_url(self.base_url)
        return builder.request(self.request()).get_updates_request(self.request())

    def bot(self, transport: Transport = "inprocess") -> Bot:
        """A bare ``telegram.Bot`` (use ``async with``) for API-level tests."""
        if transport == "http":
            return Bot(self.token, base_url=self.base_url)
        return Bot(self.token, request=self.request(), get_updates_request=self.request())

    @asynccontextmanager
    async def running(
        self,
        app: Application[Any, Any, Any, Any, Any, Any],
        *,
        poll_timeout: float = 1.0,
        allowed_updates: Sequence[str] | None = Update.ALL_TYPES,
        busy: Callable[[], bool] | None = None,
    ) -> AsyncIterator[Application[Any, Any, Any, Any, Any, Any]]:
        """Run ``app`` with long polling for the block; stops it cleanly afterwards.

        Keep ``poll_timeout`` short: stopping waits for the current getUpdates to return.
        ``busy``: the bot's own "still working" check (queued sends, held locks, due
        timers); :meth:`settle` also waits until it answers False, so a bot that works
        a while before its next request cannot make ``settle`` return early.
        """
        async with app:
            await app.start()
            assert app.updater is not None, "build the Application with an Updater"
            await app.updater.start_polling(
                poll_interval=0, timeout=int(poll_timeout) or 1, allowed_updates=allowed_updates
            )
            self._apps.append(app)
            if busy is not None:
                self._busy.append(busy)
            try:
                yield app
            finally:
                self._apps.remove(app)
                if busy is not None:
                    self._busy.remove(busy)
                await app.updater.stop()
                await app.stop()

    async def settle(self, *, quiet: float | None = None, timeout: float | None = None) -> None:
        """Wait until the bot has nothing left to do: every update confirmed by its next
        getUpdates, no request in flight and none for ``quiet`` seconds, the apps' update
        queues empty, every ``busy`` check False, and the event loop with nothing to run
        and no timer due within ``quiet`` seconds (a bot pausing briefly is waited for).

        Event-driven: it returns on the first turn of the loop where all that holds
        (looked at again one turn later, after the loop polled its sockets), not after
        polling on a wall-clock period. ``quiet`` covers work the loop cannot see (a
        database call in a thread, say); a bot whose ``busy`` check reports that work
        needs none (``quiet=0``). On asyncio's own loop it sees every callback due and
        every timer; on another (uvloop) only the tasks that can run, and timers through
        ``busy`` (:func:`_runnable`)."""
        quiet = self.settle_quiet if quiet is None else quiet
        timeout = self.settle_timeout if timeout is None else timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        confirmed = False
        while True:
            # (other settle() calls looking again, as this one does, are no work)
            running = _runnable(loop) - _looking_again[0]
            if loop.time() > deadline:
                self._not_settled(timeout, running)
            if running:  # some task can run now: the bot (or the test) is at work
                confirmed = False
                await _next_turn()
            elif self._at_rest(quiet) and not _timer_due(loop, quiet):
                if confirmed:
                    return
                # one more turn: the loop polls its sockets and threads' wake-ups first
                confirmed = True
                await _next_turn()
            else:  # everything waits on a thread, a process, a timer or the quiet
                confirmed = False
                await _look_later(loop)

    def _at_rest(self, quiet: float) -> bool:
        return (
            self.core.idle(quiet)
            and all(a.update_queue.empty() for a in self._apps)
            and not any(check() for check in self._busy)
        )

    def _not_settled(self, timeout: float, running: int) -> NoReturn:
        pending = [next(k for k in u if k != "update_id") for u in self.core.updates]
        busy = any(check() for check in self._busy)
        raise AssertionError(
            f"bot did not settle within {timeout}s; unconfirmed updates: {pending}, "
            f"requests in flight: {self.core.inflight}, busy: {busy}, callbacks ready: "
            f"{running}. Is the bot polling?"
        )

    async def _after_action(self, settle: bool | None) -> None:
        if self.auto_settle if settle is None else settle:
            await self.settle()

    # ------------------------------------------------------------------ people & chats
    def user(
        self,
        first_name: str,
        *,
        username: str | None = None,
        last_name: str | None = None,
        language_code: str | None = "en",
        started: bool = False,
    ) -> SimUser:
        """A new person. ``started=True`` means they pressed START in the bot's DM earlier."""
        user = self.core.add_user(
            first_name,
            username=username,
            last_name=last_name,
            language_code=language_code,
            started=started,
        )
        return SimUser(self, user)

    def group(
        self,
        title: str,
        *,
        members: Iterable[SimUser] = (),
        admins: Iterable[SimUser] = (),
        supergroup: bool = False,
        forum: bool = False,
        bot_admin: bool = False,
    ) -> Chat:
        """A group the bot is already in. The first admin (or member) is its creator."""
        chat = self.core.add_group(title, supergroup=supergroup, forum=forum, bot_admin=bot_admin)
        admins = list(admins)
        for person in members:
            chat.members[person.id] = "member"
        for person in admins:
            chat.members[person.id] = "administrator"
        creator = admins[0] if admins else next(iter(members), None)
        if creator is not None:
            chat.members[creator.id] = "creator"
        return chat

    def create_topic(self, forum: Chat, name: str, by: SimUser) -> int:
        """Open a forum topic; returns its ``message_thread_id``."""
        if not forum.is_forum:
            raise ValueError(f"{forum!r} is not a forum")
        note = self.core.store(
            forum, by.user, service={"forum_topic_created": {"name": name, "icon_color": 7322096}}
        )
        note.thread_id = note.message_id
        forum.topics[note.message_id] = name
        self.core.deliver_message(note)
        return note.message_id

    def kick_bot(self, group: Chat, by: SimUser | None = None) -> None:
        """Remove the bot from a group: my_chat_member update, then 403 on every write."""
        self.core.set_bot_status(group, "kicked", by.user if by else self.core._creator(group))

    def add_bot(self, group: Chat, by: SimUser | None = None, *, admin: bool = False) -> None:
        """(Re-)add the bot: my_chat_member update plus a new_chat_members service message."""
        actor = by.user if by else self.core._creator(group)
        self.core.set_bot_status(group, "administrator" if admin else "member", actor)
        note = self.core.store(
            group, actor, service={"new_chat_members": [self.core.bot.to_json()]}
        )
        self.core.deliver_message(note)

    def migrate_group(self, group: Chat, by: SimUser | None = None) -> Chat:
        """Upgrade a basic group to a supergroup; returns the new chat (new -100… id)."""
        return self.core.migrate_group(group, by.user if by else None)

    def flood(self, chat: Chat | SimUser, seconds: float) -> None:
        """Flood control in one chat: for ``seconds`` (the fake's clock) every message,
        edit or delete there is answered 429 with the ``retry_after`` left."""
        self.core.flood(self.chat_of(chat).id, seconds)

    # ------------------------------------------------------------------ reading
    def chat_of(self, chat_or_user: Chat | SimUser) -> Chat:
        return chat_or_user.private_chat if isinstance(chat_or_user, SimUser) else chat_or_user

    def transcript(self, chat: Chat | SimUser, *, thread_id: int | None = None) -> list[Message]:
        """Messages as members see them now (deleted ones gone, edits applied)."""
        messages = self.chat_of(chat).live_messages()
        if thread_id is not None:
            messages = [m for m in messages if m.thread_id == thread_id]
        return messages

    def texts(self, chat: Chat | SimUser) -> list[str]:
        """Just the visible texts (or captions) of :meth:`transcript`."""
        return [m.text or m.caption or "" for m in self.transcript(chat) if not m.service]

    def last_message(self, chat: Chat | SimUser, *, from_bot: bool | None = None) -> Message:
        """Latest live message, optionally only the bot's (or only people's)."""
        for message in reversed(self.transcript(chat)):
            if message.service:
                continue
            if from_bot is None or message.from_bot == from_bot:
                return message
        raise AssertionError(f"no matching message in {self.chat_of(chat)!r}")

    def requests(self, method: str | None = None, chat: Chat | None = None) -> list[RequestRecord]:
        """The request log, optionally filtered by method name and target chat."""
        return [
            r
            for r in self.core.log
            if (method is None or r.method == method)
            and (chat is None or str(r.chat_id) == str(chat.id))
        ]

    def max_calls_in_window(self, chat: Chat | SimUser | int, window: float = 60.0) -> int:
        """Most budget-spending calls to one chat within any ``window`` seconds."""
        chat_id = chat if isinstance(chat, int) else self.chat_of(chat).id
        return self.core.accounting.max_in_window(chat_id, window)

    def callbacks(self) -> list[CallbackRecord]:
        return list(self.core.callbacks.values())


class SimUser:
    """A simulated person. Actions return what they produced; reads go through the world."""

    def __init__(self, world: FakeTelegram, user: User) -> None:
        self.world = world
        self.user = user

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def name(self) -> str:
        return self.user.first_name

    @property
    def private_chat(self) -> Chat:
        return self.world.core.chats[self.user.id]

    def __repr__(self) -> str:
        return f"<SimUser {self.name} {self.id}>"

    async def send(
        self,
        chat: Chat | str | None,
        text: str | None = None,
        *,
        thread_id: int | None = None,
        reply_to: Message | None = None,
        settle: bool | None = None,
    ) -> Message:
        """Type ``text`` into ``chat`` (the DM with the bot when omitted).

        ``await alice.send(group, "/newgame")`` or ``await alice.send("/help")``.
        """
        if isinstance(chat, str) and text is None:
            chat, text = None, chat
        if text is None:
            raise TypeError("send() needs a text")
        target = chat if isinstance(chat, Chat) else self.private_chat
        self._check_can_post(target)
        core = self.world.core
        message = core.store(
            target,
            self.user,
            text=text,
            entities=core.command_entities(text),
            thread_id=thread_id if thread_id is not None else _thread_of(reply_to),
            reply_to=reply_to,
        )
        core.deliver_message(message)
        await self.world._after_action(settle)
        return message

    def _check_can_post(self, chat: Chat) -> None:
        if chat.type == "private":
            if chat.user is not self.user:
                raise AssertionError(f"{self!r} cannot post in someone else's DM {chat!r}")
            if not self.user.started:
                raise AssertionError(
                    f"{self!r} never pressed START; Telegram clients need start_bot() first"
                )
            if self.user.blocked:
                raise AssertionError(f"{self!r} blocked the bot; call unblock_bot() first")
        elif self.user.id not in chat.members:
            raise AssertionError(f"{self!r} is not a member of {chat!r}")
        elif chat.migrated_to is not None:
            raise AssertionError(f"{chat!r} was upgraded; post in {chat.migrated_to}")

    async def start_bot(self, payload: str | None = None, *, settle: bool | None = None) -> Message:
        """Press START (optionally via a ``?start=payload`` deep link): sends ``/start payload``."""
        if payload is not None and not _PAYLOAD_RE.match(payload):
            raise AssertionError(
                f"deep-link payload {payload!r} is invalid: 1-64 chars of [A-Za-z0-9_-]"
            )
        self.user.started = True
        if self.user.blocked:  # START on a blocked bot unblocks it, as in the clients
            self.unblock_bot()
        text = "/start" if payload is None else f"/start {payload}"
        return await self.send(None, text, settle=settle)

    async def press(
        self,
        message: Message,
        text: str | None = None,
        *,
        data: str | None = None,
        settle: bool | None = None,
    ) -> CallbackRecord | Message:
        """Press an inline button on the message's *current* keyboard (by text or data).

        A callback button returns its :class:`CallbackRecord` (filled in when the bot
        answers); a deep-link URL button is followed and returns the ``/start`` message.
        """
        button = self._find_button(message, text, data)
        if button.data is not None:
            if message.chat.type == "private" and message.chat.user is not self.user:
                raise AssertionError(f"{self!r} cannot see {message!r}")
            record = self.world.core.callback(self.user, message, button.data)
            await self.world._after_action(settle)
            return record
        return await self.open_link(button.url or "", settle=settle)

    def _find_button(self, message: Message, text: str | None, data: str | None) -> Button:
        current = self.world.core.message(message.chat, message.message_id)
        if current is None:
            raise AssertionError(f"{message!r} was deleted; nothing to press")
        if (text is None) == (data is None):
            raise TypeError("press() needs exactly one of text= or data=")
        for row in current.buttons():
            for button in row:
                if (text is not None and button.text == text) or (
                    data is not None and button.data == data
                ):
                    return button
        wanted = f"text={text!r}" if text is not None else f"data={data!r}"
        raise AssertionError(
            f"no button {wanted} on the current keyboard of {current!r}; "
            f"available: {current.keyboard()}"
        )

    async def open_link(self, url: str, *, settle: bool | None = None) -> Message:
        """Follow a ``t.me/<bot>?start=<payload>`` deep link, as a tap on it would."""
        parts = urlsplit(url if "://" in url else f"https://{url}")
        bot_name = (self.world.core.bot.username or "").lower()
        if parts.netloc.lower() not in {"t.me", "telegram.me"} or (
            parts.path.strip("/").lower() != bot_name
        ):
            raise AssertionError(f"{url!r} is not a deep link to @{self.world.core.bot.username}")
        payload = parse_qs(parts.query).get("start", [None])[0]
        return await self.start_bot(payload, settle=settle)

    def block_bot(self) -> None:
        """Block the bot: my_chat_member (kicked) update; DMs then fail with 403."""
        self.user.blocked = True
        self.world.core.set_bot_status(self.private_chat, "kicked", self.user)

    def unblock_bot(self) -> None:
        self.user.blocked = False
        self.world.core.set_bot_status(self.private_chat, "member", self.user)


# settle() calls looking again at the loop's next turn (their wake-ups are in its
# queue), and the timers of those looking again in a while: none of it is work
_looking_again = [0]
_polls: set[asyncio.TimerHandle] = set()


async def _next_turn() -> None:
    _looking_again[0] += 1
    try:
        await asyncio.sleep(0)
    finally:
        _looking_again[0] -= 1


async def _look_later(loop: asyncio.AbstractEventLoop) -> None:
    woken: asyncio.Future[None] = loop.create_future()
    handle = loop.call_later(_IDLE_POLL, _wake, woken)
    _polls.add(handle)
    try:
        await woken
    finally:
        _polls.discard(handle)
        handle.cancel()


def _wake(woken: asyncio.Future[None]) -> None:
    if not woken.done():
        woken.set_result(None)


def _runnable(loop: asyncio.AbstractEventLoop) -> int:
    """How much can run at the loop's next turn: asyncio's own loop shows its queue of
    callbacks due; another loop (uvloop, in C) shows nothing, so the tasks that can run are
    counted instead (a task not waiting, or waiting on a future already done), this one
    aside. Callbacks that are no task's step (a protocol's) are then unseen: ``quiet``
    and ``busy`` cover the rest."""
    ready: Sized | None = getattr(loop, "_ready", None)  # callbacks due this turn
    if ready is not None:
        return len(ready)
    me = asyncio.current_task()
    return sum(
        1
        for task in asyncio.all_tasks(loop)
        if task is not me
        and ((waiter := getattr(task, "_fut_waiter", None)) is None or waiter.done())
    )


def _timer_due(loop: asyncio.AbstractEventLoop, within: float) -> bool:
    """A timer of the loop (a sleep, a scheduled job's wake-up) goes off within ``within``
    s, other settle() calls' aside. A loop that shows no timers (uvloop): none seen (a
    bot's ``busy`` check reports its own timers due)."""
    until = loop.time() + within
    scheduled: list[asyncio.TimerHandle] | None = getattr(loop, "_scheduled", None)
    if scheduled is None:
        return False
    return any(h.when() <= until and not h.cancelled() and h not in _polls for h in scheduled)


def _thread_of(message: Message | None) -> int | None:
    return message.thread_id if message is not None else None
