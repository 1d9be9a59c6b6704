"""Paced, coalesced delivery of messages to one chat.

Telegram allows about 20 bot calls a minute in a group, edits included, and about one
a second in a private chat. Each chat has an :class:`Outbox`: the game only states
what each message (a *slot*) should show now; the outbox makes at most one call per
``interval`` seconds, always sending the newest state of the oldest changed slot, skips
edits that would change nothing, and waits out a 429. Intermediate states are dropped,
the final state never is, unless delivering it failed.

Failures. Delivery is at most once: a message is never posted twice. A 429 is waited
out and the state delivered then (Telegram did not take the call). A state whose
delivery fails otherwise, with a Telegram error or any other exception (a bug, a
response that cannot be read), is given up, logged once with the chat and the
message's key, and not retried: the call may have reached Telegram, and a bug would
fail again. The next state put into that message is delivered as usual (an edit, or
a new message if no message id is known). A send that went through counts as
delivered whatever its bookkeeping (``on_sent``: saving the message id) does
afterwards: its id is kept, so later states edit that message, and a failing
``on_sent`` is logged. The chat's sender task survives every exception.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

from telegram import Bot, InlineKeyboardMarkup, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError

log = logging.getLogger(__name__)


class Clock(Protocol):
    """``now`` paces calls (monotonic); ``wall`` dates a match (seconds since the epoch,
    saved with the game: a tournament's time limit counts across restarts)."""

    def now(self) -> float: ...

    def wall(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class LoopClock:
    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def wall(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


@dataclass(frozen=True)
class Content:
    text: str
    markup: InlineKeyboardMarkup | None = None
    # a picture (PNG) sent with ``text`` as its caption; only in one-shot slots
    photo: bytes | None = None

    @cached_property
    def key(self) -> tuple[str, str]:
        # computed once: pacing checks compare keys on every pass over the slots
        m = json.dumps(self.markup.to_dict(), sort_keys=True) if self.markup else ""
        return self.text, m


@dataclass
class Slot:
    key: str
    family: str | None
    desired: Content | None
    sent: Content | None = None
    message_id: int | None = None
    # send a fresh message (it notifies) and delete the previous one
    resend: bool = False
    oneshot: bool = False
    thread_id: int | None = None
    # what the owner last rendered into it (GameService: hand and turn of a DM hand)
    mark: tuple[int, int | None] | None = None

    @property
    def dirty(self) -> bool:
        if self.desired is None:
            return False
        if self.resend or self.message_id is None:
            return True
        return self.sent is None or self.sent.key != self.desired.key


OnSent = Callable[[int, str, int], Awaitable[None]]
OnForbidden = Callable[[int], Awaitable[None]]
OnMigrated = Callable[[int, int], None]


@dataclass
class Outbox:
    bot: Bot
    chat_id: int
    interval: float
    clock: Clock
    on_sent: OnSent | None = None
    on_forbidden: OnForbidden | None = None
    on_migrated: OnMigrated | None = None
    slots: dict[str, Slot] = field(default_factory=dict)
    calls: int = 0
    _last: float = float("-inf")
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _idle: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None
    # family slots superseded before they were ever sent: never sent later, out of order
    _dropped: set[str] = field(default_factory=set)
    _closed: bool = False

    def put(
        self,
        key: str,
        content: Content,
        *,
        family: str | None = None,
        resend: bool = False,
        oneshot: bool = False,
        thread_id: int | None = None,
    ) -> None:
        """Make slot ``key`` show ``content`` (soon). A new slot of a family drops the
        family's older slots that were never sent: their state lives on in the new one."""
        if key in self._dropped:
            return
        slot = self.slots.get(key)
        if slot is None:
            if family is not None:
                for k in [k for k, s in self.slots.items() if s.family == family]:
                    if self.slots[k].message_id is None:
                        del self.slots[k]
                        self._dropped.add(k)
            slot = self.slots[key] = Slot(
                key, family, content, oneshot=oneshot, thread_id=thread_id
            )
        slot.desired = content
        slot.resend = slot.resend or (resend and slot.message_id is not None)
        self._kick()

    def adopt(self, key: str, message_id: int, family: str | None = None) -> None:
        """Remember a message sent before a restart; the next ``put`` edits it."""
        self.slots[key] = Slot(key, family, None, message_id=message_id)

    def message_id(self, key: str) -> int | None:
        slot = self.slots.get(key)
        return slot.message_id if slot else None

    def _kick(self) -> None:
        self._idle.clear()
        self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def drain(self) -> None:
        if any(s.dirty for s in self.slots.values()):
            self._kick()
            await self._idle.wait()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
            self._task = None

    async def pace(self) -> None:
        """A call made outside the outbox (a reply to a command, an edit of the pressed
        message) takes its turn in this chat's pacing, so the two together stay within
        Telegram's budget (~20 calls a minute in a group)."""
        while (wait := self._last + self.interval - self.clock.now()) > 0:
            await self.clock.sleep(wait)
        self._last = self.clock.now()

    def _next(self) -> Slot | None:
        return next((s for s in self.slots.values() if s.dirty), None)

    async def _run(self) -> None:
        while not self._closed:
            slot = self._next()
            if slot is None:
                self._prune()
                self._idle.set()
                self._wake.clear()
                await self._wake.wait()
                continue
            wait = self._last + self.interval - self.clock.now()
            if wait > 0:
                await self.clock.sleep(wait)
                continue  # pick again: newer states may have arrived meanwhile
            self._last = self.clock.now()
            content = slot.desired
            try:
                await self._deliver(slot)
            except RetryAfter as e:
                delay = e.retry_after
                seconds = delay.total_seconds() if hasattr(delay, "total_seconds") else delay
                log.warning("429 in chat %s: waiting %ss", self.chat_id, seconds)
                await self.clock.sleep(float(seconds))
            except Exception:
                log.exception(
                    "chat %s: delivering message %s failed; this state is given up",
                    self.chat_id,
                    slot.key,
                )
                self._give_up(slot, content)

    def _give_up(self, slot: Slot, content: Content | None) -> None:
        """Never retry ``content``; a newer state put meanwhile is still delivered."""
        if content is None or slot.desired is not content:
            return
        slot.sent, slot.resend = content, False
        if slot.message_id is None:
            slot.desired = None

    async def _deliver(self, slot: Slot) -> None:
        content = slot.desired
        assert content is not None
        try:
            if slot.message_id is not None and not slot.resend:
                try:
                    await self._call_edit(slot.message_id, content)
                except BadRequest as e:
                    text = str(e).lower()
                    if "not modified" in text:
                        pass
                    elif "not found" in text or "can't be edited" in text:
                        slot.message_id = None
                        return  # send a new one on the next turn
                    else:
                        raise
            else:
                old = slot.message_id if slot.resend else None
                msg = await self._call_send(content, slot.thread_id)
                # posted: from here on this state counts as delivered, whatever follows
                # (the slot stays dirty until its id is recorded: the chat is still busy)
                slot.message_id, slot.resend = msg.message_id, False
                await self._sent(slot, msg.message_id)
                if old is not None:
                    await self._delete(old)
            slot.sent = content
        except Forbidden as e:
            log.info("chat %s refuses messages: %s", self.chat_id, e)
            # the slot stays pending until the owner has handled it (the chat is busy)
            if self.on_forbidden is not None:
                await self.on_forbidden(self.chat_id)
            if slot.desired is content:
                slot.sent, slot.desired = content, None
        except RetryAfter:
            raise
        except ChatMigrated as e:
            # the group became a supergroup: the owner moves its games to the new id
            log.info("chat %s migrated to %s", self.chat_id, e.new_chat_id)
            slot.sent, slot.desired = content, None
            if self.on_migrated is not None:
                self.on_migrated(self.chat_id, e.new_chat_id)
        except TelegramError as e:
            log.warning("chat %s slot %s: %s", self.chat_id, slot.key, e)
            self._give_up(slot, content)

    async def _sent(self, slot: Slot, message_id: int) -> None:
        """Report a posted message; a failure here must not make it post again."""
        if self.on_sent is None:
            return
        try:
            await self.on_sent(self.chat_id, slot.key, message_id)
        except Exception:
            log.exception(
                "chat %s: message %s was sent (id %s) but recording it failed",
                self.chat_id,
                slot.key,
                message_id,
            )

    async def _call_send(self, content: Content, thread_id: int | None) -> Message:
        self.calls += 1
        if content.photo is not None:
            return await self.bot.send_photo(
                self.chat_id,
                content.photo,
                caption=content.text,
                reply_markup=content.markup,
                parse_mode=ParseMode.HTML,
                message_thread_id=thread_id,
            )
        return await self.bot.send_message(
            self.chat_id,
            content.text,
            reply_markup=content.markup,
            parse_mode=ParseMode.HTML,
            message_thread_id=thread_id,
            disable_web_page_preview=True,
        )

    async def _call_edit(self, message_id: int, content: Content) -> None:
        self.calls += 1
        await self.bot.edit_message_text(
            content.text,
            chat_id=self.chat_id,
            message_id=message_id,
            reply_markup=content.markup,
            parse_mode=ParseMode.HTML,
            disable_web_page_preview=True,
        )

    async def _delete(self, message_id: int) -> None:
        self.calls += 1
        try:
            await self.bot.delete_message(self.chat_id, message_id)
        except TelegramError as e:
            log.info("could not delete %s in %s: %s", message_id, self.chat_id, e)

    def _prune(self, keep: int = 4) -> None:
        """Forget sent one-shot slots, and family slots but the newest ``keep`` of each
        family (the renderer only ever updates the last two of a family)."""
        seen: dict[str, int] = {}
        for k in reversed(list(self.slots)):
            s = self.slots[k]
            if s.dirty:
                continue
            if s.oneshot:
                del self.slots[k]
            elif s.family is not None:
                seen[s.family] = seen.get(s.family, 0) + 1
                if seen[s.family] > keep:
                    del self.slots[k]
                    self._dropped.add(k)


class Outboxes:
    """One :class:`Outbox` per chat, created on first use."""

    def __init__(
        self,
        bot: Bot,
        clock: Clock,
        group_interval: float,
        dm_interval: float,
        on_sent: OnSent | None = None,
        on_forbidden: OnForbidden | None = None,
        on_migrated: OnMigrated | None = None,
    ) -> None:
        self.bot, self.clock = bot, clock
        self.group_interval, self.dm_interval = group_interval, dm_interval
        self.on_sent, self.on_forbidden = on_sent, on_forbidden
        self.on_migrated = on_migrated
        self._boxes: dict[int, Outbox] = {}

    def get(self, chat_id: int) -> Outbox:
        box = self._boxes.get(chat_id)
        if box is None:
            interval = self.dm_interval if chat_id > 0 else self.group_interval
            box = Outbox(
                self.bot,
                chat_id,
                interval,
                self.clock,
                on_sent=self.on_sent,
                on_forbidden=self.on_forbidden,
                on_migrated=self.on_migrated,
            )
            self._boxes[chat_id] = box
        return box

    def drop(self, chat_id: int) -> None:
        """Forget a chat's outbox (its messages are gone or unreachable); pending
        states are dropped. Safe to call from that outbox's own task."""
        box = self._boxes.pop(chat_id, None)
        if box is None:
            return
        box._closed = True
        box._wake.set()
        if box._task is not None and box._task is not asyncio.current_task():
            box._task.cancel()

    async def drain(self) -> None:
        for box in list(self._boxes.values()):
            await box.drain()

    def pending(self) -> bool:
        """Some chat has a message state that was not delivered yet."""
        return any(s.dirty for box in self._boxes.values() for s in box.slots.values())

    def backlog(self) -> dict[int, int]:
        """Per chat with any: how many message states are not delivered yet."""
        counts = {c: sum(s.dirty for s in box.slots.values()) for c, box in self._boxes.items()}
        return {c: n for c, n in counts.items() if n}

    async def close(self) -> None:
        for box in self._boxes.values():
            await box.close()
        self._boxes.clear()
