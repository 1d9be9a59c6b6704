"""Paced, coalesced delivery of messages to one chat.

Telegram allows about 20 bot calls a minute in a group, edits included, and about one
a second in a private chat (a burst of a few tolerated). Each chat has an
:class:`Outbox`: the game only states what each message (a *slot*) should show now;
the outbox spends a token bucket (``burst`` calls, one more every ``interval``
seconds), always sending the newest state of the oldest changed slot, skips edits
that would change nothing, and waits out a 429 and tries again (nothing is dropped).
Intermediate states are dropped, the final state never is (unless delivering it
failed): whoever renders a message makes its newest state show what older ones would
have (the group's table repeats the tricks its readers missed). A state put as
*urgent* (a finished trick) goes out at once, before a live message's calm is over.
A state may also be put as its renderer (``put_later``: the group's live table), asked
for the message's newest state only when the chat delivers it: the states a calm
replaces are never rendered.

What each message shows is remembered as a digest of its text and keyboard, with its
message id, through ``on_shown`` (the store, waited for: a new message's id) and
``on_edited`` (the store, noted with its next commit: an edited message's digest): after a
restart an unchanged message is neither sent nor edited again.

Replies to people before the table. A reply (a command's answer, a refusal: ``post``; a
pressed menu's new state: ``put(..., reply=True)``) is delivered before every other
changed slot of its chat, and may borrow the next call's token (``REPLY_CREDIT``): in a
group whose table is behind, a reply goes out at once, or in the chat's next slot if
another reply just borrowed it, and the table's edit is the one that waits. Over any
minute the chat keeps its budget (one call more at most, 20 a minute in a group at the
default pace); no handler ever waits.

Failures. Delivery is at most once: a message is never posted twice. A 429 is waited
out and the state delivered then (Telegram did not take the call). Telegram unreachable
(no answer, ``bot.infra.reach.unreachable``) is an outage, logged once by ``bot.infra.reach`` (when it
starts, with the retry schedules, and when it ends), never per message; the chat tries
its newest states again after ``DELIVERY_RETRIES`` (an edit, or a send that surely
never reached Telegram: the connection failed), and gives up a send that may have
reached it. A state whose delivery fails otherwise, with a Telegram error or any other
exception (a bug, a response that cannot be read), is given up, logged once with the
chat and the message's key, and not retried: the call may have reached Telegram, and a
bug would fail again. The next state put into that message is delivered as usual (an edit, or
a new message if no message id is known). A send that went through counts as
delivered whatever its bookkeeping (``on_shown``: saving what the message shows)
does afterwards: its id is kept, so later states edit that message, and a failing
``on_shown`` is logged. The chat's sender task survives every exception.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from telegram import Bot, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)
from telegram.warnings import PTBUserWarning

from bot.infra.reach import DELIVERY_RETRIES, surely_not_sent, unreachable
from bot.views.messages import Clock, Content, Keyboard

log = logging.getLogger(__name__)


def _ptb(markup: InlineKeyboardMarkup | Keyboard | None) -> InlineKeyboardMarkup | None:
    """PTB's keyboard, for the calls made through PTB's own methods."""
    if isinstance(markup, Keyboard):
        return InlineKeyboardMarkup.de_json(markup.to_dict(), None)
    return markup


# a message's newest state, rendered when its chat delivers it (``Outbox.put_later``);
# given the slot (what it shows now); None: nothing to deliver any more
Later = Callable[["Slot"], Awaitable[Content | None]]


@dataclass
class Slot:
    key: str
    family: str | None
    desired: Content | None
    # the newest state, not rendered yet (``desired`` is older): the slot may be dirty
    later: Later | None = None
    # the digest of what the message shows now (None: unknown, or nothing yet)
    shown: str | None = None
    # the tag of the state it shows (None: unknown, e.g. after a restart)
    shown_tag: object = None
    message_id: int | None = None
    # send a fresh message (it notifies) and delete the previous one
    resend: bool = False
    oneshot: bool = False
    thread_id: int | None = None
    # the newest state goes out at once, whatever the calm (a finished trick)
    urgent: bool = False
    # a live message that may lag: at least this long between two of its edits, but
    # for urgent states (the group's table: a finished trick goes out at once)
    calm: float = 0.0
    delivered_at: float = float("-inf")
    # an answer to a person: goes before every other changed slot of the chat
    reply: bool = False

    def ready_at(self) -> float:
        """When this slot may be delivered (its chat's budget aside)."""
        if self.urgent or self.message_id is None or self.resend:
            return float("-inf")
        return self.delivered_at + self.calm

    @property
    def dirty(self) -> bool:
        if self.later is not None:
            return True  # maybe: known once rendered (``Outbox._render``)
        if self.desired is None:
            return False
        if self.resend or self.message_id is None:
            return True
        return self.shown != self.desired.digest

    def next_content(self) -> Content:
        """The state to deliver now: the newest (it is no longer urgent once taken)."""
        self.urgent = False
        assert self.desired is not None
        return self.desired


OnShown = Callable[[int, str, int | None, str | None], Awaitable[None]]
OnEdited = Callable[[int, str, int, str | None], None]
OnForbidden = Callable[[int], Awaitable[None]]
OnMigrated = Callable[[int, int], None]

_replies = itertools.count(1)

# a reply may spend this many tokens ahead of the chat's bucket (the next call waits)
REPLY_CREDIT = 1.0


@dataclass
class Outbox:
    bot: Bot
    chat_id: int
    interval: float
    clock: Clock
    burst: int = 1
    on_shown: OnShown | None = None
    on_forbidden: OnForbidden | None = None
    on_migrated: OnMigrated | None = None
    # an edit's note, not waited for (None: through on_shown)
    on_edited: OnEdited | None = None
    slots: dict[str, Slot] = field(default_factory=dict)
    calls: int = 0
    _tokens: float = 0.0
    _last: float = float("-inf")
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _idle: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None
    # family slots superseded before they were ever sent: never sent later, out of order
    _dropped: set[str] = field(default_factory=set)
    _closed: bool = False
    _calm: float | None = None
    _failures: int = 0  # deliveries failed in a row, Telegram unreachable
    # set when a reply is put: a pause for the bucket or a calm ends early
    _reply_put: asyncio.Event = field(default_factory=asyncio.Event)

    def put(
        self,
        key: str,
        content: Content,
        *,
        family: str | None = None,
        resend: bool = False,
        oneshot: bool = False,
        thread_id: int | None = None,
        urgent: bool = False,
        calm: float = 0.0,
        reply: bool = False,
    ) -> None:
        """Make slot ``key`` show ``content`` (soon). A new slot of a family drops the
        family's older slots that were never sent: their state lives on in the new one.
        ``calm``: a state of this message waits that long after its last edit, unless
        it (or a state it replaced before its turn) is ``urgent``. ``reply``: an answer
        to a person, delivered before every other changed slot of the chat."""
        self._put(key, content, None, family, resend, oneshot, thread_id, urgent, calm, reply)

    def put_later(
        self,
        key: str,
        render: Later,
        *,
        family: str | None = None,
        thread_id: int | None = None,
        urgent: bool = False,
        calm: float = 0.0,
    ) -> None:
        """As :meth:`put`, the state given as its renderer: called when the chat
        delivers the message (after its calm, in its turn), and only then, for the
        newest state; a ``render`` put since replaces it unrendered."""
        self._put(key, None, render, family, False, False, thread_id, urgent, calm, False)

    def _put(
        self,
        key: str,
        content: Content | None,
        later: Later | None,
        family: str | None,
        resend: bool,
        oneshot: bool,
        thread_id: int | None,
        urgent: bool,
        calm: float,
        reply: bool,
    ) -> None:
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
        slot.urgent = slot.urgent or urgent
        if later is None:
            slot.desired = content
        slot.later = later
        slot.calm = calm
        slot.reply = reply
        slot.resend = slot.resend or (resend and slot.message_id is not None)
        if slot.dirty:
            self._kick()
            if reply:
                self._reply_put.set()
        else:
            slot.urgent = False

    def post(self, content: Content, *, thread_id: int | None = None) -> None:
        """A new message of its own answering a person (a command's answer, a refusal):
        sent before the chat's other changed messages (``reply``)."""
        self.put(f"r{next(_replies)}", content, oneshot=True, thread_id=thread_id, reply=True)

    def adopt(
        self,
        key: str,
        message_id: int,
        family: str | None = None,
        shown: str | None = None,
        oneshot: bool = False,
    ) -> None:
        """Remember a message sent before (a restart, a pressed message); the next
        ``put`` edits it, unless it already shows that (``shown``: its digest).
        A ``oneshot`` slot is forgotten once delivered (and never persisted)."""
        self.slots[key] = Slot(
            key, family, None, shown=shown, message_id=message_id, oneshot=oneshot
        )

    def message_id(self, key: str) -> int | None:
        slot = self.slots.get(key)
        return slot.message_id if slot else None

    def renew(self, key: str) -> None:
        """The next ``put`` of ``key`` sends a new message and deletes the old one (its
        keyboard goes with it: one live message per slot)."""
        slot = self.slots.get(key)
        if slot is not None and slot.message_id is not None:
            slot.resend = True

    def forget(self, key: str) -> None:
        """The next ``put`` of ``key`` sends a new message (the old one stays as it is)."""
        if self.slots.pop(key, None) is not None:
            self._persist(key, None, None)

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

    def retire(self, prefix: str) -> None:
        """Forget the delivered slots whose keys start with ``prefix`` (a game that
        ended: its messages stay as they are, nothing will change them again)."""
        for key in [k for k, s in self.slots.items() if k.startswith(prefix) and not s.dirty]:
            del self.slots[key]
            self._persist(key, None, None)
        self._dropped = {k for k in self._dropped if not k.startswith(prefix)}

    def spent(self) -> bool:
        """Nothing to deliver, nothing remembered, and a full bucket: a new outbox for
        this chat would behave exactly as this one (it can go)."""
        if self.slots or self._dropped or (self._task is not None and not self._idle.is_set()):
            return False
        if self.interval <= 0:
            return True
        return self.clock.now() - self._last >= (self.burst - self._tokens) * self.interval

    def _next(self) -> Slot | None:
        """The oldest changed slot that may go now; else None, with ``_calm`` the time
        the first waiting one may go (None: nothing is waiting)."""
        now = self.clock.now()
        self._calm = None
        for s in self.slots.values():
            if s.reply and s.dirty:
                return s
        for s in self.slots.values():
            if not s.dirty:
                continue
            at = s.ready_at()
            if at <= now:
                return s
            self._calm = at if self._calm is None else min(self._calm, at)
        return None

    def _wait(self, need: float = 1.0) -> float:
        """Seconds until the bucket holds ``need`` tokens (0: a call may go now; a
        reply needs one less, ``REPLY_CREDIT``, and leaves the bucket in debt)."""
        now = self.clock.now()
        if self.interval <= 0:
            return 0.0
        self._tokens = min(float(self.burst), self._tokens + (now - self._last) / self.interval)
        self._last = now
        return 0.0 if self._tokens > need - 1e-9 else (need - self._tokens) * self.interval

    async def _pause(self, seconds: float) -> None:
        """Sleep ``seconds`` on the bot's clock, or less: until a reply is put."""
        if self._reply_put.is_set():
            self._reply_put.clear()
            return
        sleep = asyncio.ensure_future(self.clock.sleep(seconds))
        woken = asyncio.ensure_future(self._reply_put.wait())
        try:
            await asyncio.wait((sleep, woken), return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleep.cancel()
            woken.cancel()
        self._reply_put.clear()

    async def _take_token(self) -> None:
        """Wait until the bucket holds a token, and spend it."""
        while (wait := self._wait()) > 0:
            await self.clock.sleep(wait)
        self._tokens = max(0.0, self._tokens - 1)

    async def _run(self) -> None:
        while not self._closed:
            self._reply_put.clear()  # what is put from here on is seen by _next
            slot = self._next()
            if slot is None and self._calm is not None:
                await self._pause(self._calm - self.clock.now())
                continue
            if slot is None:
                self._prune()
                self._idle.set()
                self._wake.clear()
                await self._wake.wait()
                continue
            wait = self._wait(1.0 - REPLY_CREDIT if slot.reply else 1.0)
            if wait > 0:
                await self._pause(wait)
                continue  # pick again: newer states (a reply) may have arrived meanwhile
            if slot.later is not None and not await self._render(slot):
                continue  # the newest state shows nothing new: no call
            self._tokens -= 1
            slot.delivered_at = self.clock.now()
            urgent = slot.urgent
            content = slot.next_content()
            try:
                await self._deliver(slot, content)
                self._failures = 0
            except NetworkError as e:  # Telegram unreachable: bot.infra.reach logs the outage
                slot.urgent = slot.urgent or urgent
                if slot.message_id is None or slot.resend:  # a send
                    if not surely_not_sent(e):
                        self._give_up(slot, content)  # it may be there: never twice
                pause = DELIVERY_RETRIES[min(self._failures, len(DELIVERY_RETRIES) - 1)]
                self._failures += 1
                await self.clock.sleep(pause)
            except RetryAfter as e:
                slot.urgent = slot.urgent or urgent  # Telegram took nothing: still urgent
                delay = e.retry_after
                seconds = delay.total_seconds() if hasattr(delay, "total_seconds") else delay
                log.warning("429 in chat %s: waiting %ss", self.chat_id, seconds)
                self._tokens = 0.0
                await self.clock.sleep(float(seconds))
            except Exception:
                log.exception(
                    "chat %s: delivering message %s failed; this state is given up",
                    self.chat_id,
                    slot.key,
                )
                self._give_up(slot, content)

    async def _render(self, slot: Slot) -> bool:
        """Render the slot's newest state (``put_later``); whether it is to be
        delivered. A renderer that fails gives that state up, logged once."""
        later: Any = slot.later
        try:
            content = await later(slot)
        except Exception:
            log.exception("chat %s: rendering message %s failed", self.chat_id, slot.key)
            content = None
        if slot.later is later:  # else a newer renderer came meanwhile: it goes next
            slot.later, slot.desired = None, content  # None: the message stays as it is
        if not slot.dirty:
            slot.urgent = False
            return False
        return slot.later is None

    def _give_up(self, slot: Slot, content: Content) -> None:
        """Never retry ``content``; a newer state put meanwhile is still delivered."""
        if slot.desired is not content:
            return
        # not retried: as far as pacing goes, it counts as shown (no one waits for it)
        slot.shown, slot.shown_tag, slot.resend = content.digest, content.tag, False
        if slot.message_id is None:
            slot.desired = None

    async def _deliver(self, slot: Slot, content: Content) -> None:
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
                await self._record(slot, content, edited=True)
            else:
                old = slot.message_id if slot.resend else None
                sent = await self._call_send(content, slot.thread_id)
                # posted: from here on this state counts as delivered, whatever follows
                # (the slot stays dirty until it is recorded: the chat is still busy)
                slot.message_id, slot.resend = sent, False
                await self._record(slot, content)
                if old is not None:
                    await self._take_token()  # Telegram counts the delete as a call too
                    await self._delete(old)
            self._shown(slot, content)
        except Forbidden as e:
            log.info("chat %s refuses messages: %s", self.chat_id, e)
            # the slot stays pending until the owner has handled it (the chat is busy)
            if self.on_forbidden is not None:
                await self.on_forbidden(self.chat_id)
            slot.urgent = False
            if slot.desired is content:
                slot.shown, slot.desired = content.digest, None
        except RetryAfter:
            raise
        except NetworkError as e:
            if unreachable(e):
                raise
            log.warning("chat %s slot %s: %s", self.chat_id, slot.key, e)
            self._give_up(slot, content)
        except ChatMigrated as e:
            # the group became a supergroup: the owner moves its games to the new id
            log.info("chat %s migrated to %s", self.chat_id, e.new_chat_id)
            slot.urgent = False
            slot.shown, slot.desired = content.digest, None
            if self.on_migrated is not None:
                self.on_migrated(self.chat_id, e.new_chat_id)
        except TelegramError as e:
            log.warning("chat %s slot %s: %s", self.chat_id, slot.key, e)
            self._give_up(slot, content)

    def _shown(self, slot: Slot, content: Content) -> None:
        slot.shown, slot.shown_tag = content.digest, content.tag

    async def _record(self, slot: Slot, content: Content, edited: bool = False) -> None:
        """Save what the message shows now; a failure here must not make it post again.
        An edit's note is not waited for (its message id is saved already)."""
        if self.on_shown is None or slot.oneshot or slot.message_id is None:
            return
        try:
            if edited and self.on_edited is not None:
                self.on_edited(self.chat_id, slot.key, slot.message_id, content.digest)
                return
            await self.on_shown(self.chat_id, slot.key, slot.message_id, content.digest)
        except Exception:
            log.exception(
                "chat %s: message %s was delivered (id %s) but recording it failed",
                self.chat_id,
                slot.key,
                slot.message_id,
            )

    def _persist(self, key: str, message_id: int | None, shown: str | None) -> None:
        if self.on_shown is None:
            return
        task = asyncio.get_running_loop().create_task(self._save(key, message_id, shown))
        _background.add(task)
        task.add_done_callback(_background.discard)

    async def _save(self, key: str, message_id: int | None, shown: str | None) -> None:
        assert self.on_shown is not None
        try:
            await self.on_shown(self.chat_id, key, message_id, shown)
        except Exception:
            log.exception("chat %s: recording message %s failed", self.chat_id, key)

    async def _call_send(self, content: Content, thread_id: int | None) -> int:
        self.calls += 1
        if content.photo is not None:
            photo = await self.bot.send_photo(
                self.chat_id,
                content.photo,
                caption=content.text,
                reply_markup=_ptb(content.markup),
                parse_mode=ParseMode.HTML,
                message_thread_id=thread_id,
            )
            return photo.message_id
        params = self._text_params(content)
        if thread_id is not None:
            params["message_thread_id"] = thread_id
        if content.reply_to is not None:
            params["reply_parameters"] = {
                "allow_sending_without_reply": True,
                "message_id": content.reply_to,
            }
        return await self._raw("sendMessage", params)

    async def _call_edit(self, message_id: int, content: Content) -> None:
        self.calls += 1
        params = self._text_params(content)
        params["message_id"] = message_id
        await self._raw("editMessageText", params, edited=message_id)

    def _text_params(self, content: Content) -> dict[str, object]:
        """A text's parameters, only those it has (PTB leaves a None out of the request
        anyway, after converting it as it converts every parameter, some µs a call); the
        objects already serialised as PTB would serialise them (a JSON string each)."""
        params: dict[str, object] = {
            "chat_id": self.chat_id,
            "text": content.text,
            "link_preview_options": _NO_PREVIEW,
        }
        if content.html:
            params["parse_mode"] = "HTML"
        markup = content.markup_json
        if markup is not None:
            params["reply_markup"] = markup
        return params

    async def _raw(self, method: str, params: dict[str, object], edited: int | None = None) -> int:
        """Send or edit a message; its id. The answer is read raw: the bot needs the
        id, not the ``Message`` PTB would build (its keyboard included) for every edit.
        An edit (of message ``edited``) may be answered ``true`` (as the Bot API answers
        for inline messages): done, and its id is known. Any other answer without an id
        cannot be read (an error, as PTB would raise one)."""
        result = await self.bot.do_api_request(method, api_kwargs=params)
        if edited is not None and result is True:
            return edited
        return int(result["message_id"])

    async def _delete(self, message_id: int) -> None:
        self.calls += 1
        try:
            await self.bot.delete_message(self.chat_id, message_id)
        except TelegramError as e:  # e.g. older than 48 h: at least its buttons go
            log.info("could not delete %s in %s: %s", message_id, self.chat_id, e)
            self.calls += 1
            try:
                await self.bot.edit_message_reply_markup(self.chat_id, message_id)
            except TelegramError as e:
                log.info("could not clear the buttons of %s in %s: %s", message_id, self.chat_id, e)

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
                    self._persist(k, None, None)


# the link preview is off in every text the bot sends
# (as PTB sends it: ``json.dumps`` of the object, a string in the call's JSON body)
_NO_PREVIEW = json.dumps({"is_disabled": True})
# ``Bot.do_api_request`` warns that the typed method exists: the raw result is the point
warnings.filterwarnings(
    "ignore", r"Please use 'Bot\.(sendMessage|editMessageText)'", PTBUserWarning
)

# outboxes are swept for spent ones once they are this many (then twice what is left)
SWEEP_AT = 256

# store writes of what messages show, running after the call that changed it
_background: set[asyncio.Task[None]] = set()


class Outboxes:
    """One :class:`Outbox` per chat, created on first use."""

    def __init__(
        self,
        bot: Bot,
        clock: Clock,
        group_interval: float,
        dm_interval: float,
        dm_burst: int = 3,
        on_shown: OnShown | None = None,
        on_forbidden: OnForbidden | None = None,
        on_migrated: OnMigrated | None = None,
        on_edited: OnEdited | None = None,
    ) -> None:
        self.bot, self.clock = bot, clock
        self.group_interval, self.dm_interval, self.dm_burst = group_interval, dm_interval, dm_burst
        self.on_shown, self.on_forbidden = on_shown, on_forbidden
        self.on_migrated, self.on_edited = on_migrated, on_edited
        self._boxes: dict[int, Outbox] = {}
        self._sweep_at = SWEEP_AT

    def message_id(self, chat_id: int, key: str) -> int | None:
        """The id of the message ``key`` shows in the chat (None: none known)."""
        box = self._boxes.get(chat_id)
        slot = None if box is None else box.slots.get(key)
        return None if slot is None else slot.message_id

    def get(self, chat_id: int) -> Outbox:
        box = self._boxes.get(chat_id)
        if box is None:
            if len(self._boxes) >= self._sweep_at:
                self.sweep()
                self._sweep_at = max(SWEEP_AT, 2 * len(self._boxes))
            dm = chat_id > 0
            box = Outbox(
                self.bot,
                chat_id,
                self.dm_interval if dm else self.group_interval,
                self.clock,
                burst=self.dm_burst if dm else 1,
                on_shown=self.on_shown,
                on_forbidden=self.on_forbidden,
                on_migrated=self.on_migrated,
                on_edited=self.on_edited,
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

    async def delivered(self, chat_ids: list[int]) -> None:
        """Until these chats delivered every state put so far (given up counts)."""
        for chat_id in chat_ids:
            box = self._boxes.get(chat_id)
            if box is not None:
                await box.drain()

    def retire(self, chat_ids: list[int], prefix: str) -> None:
        """A game ended and its last states were delivered: its slots (keys starting
        with ``prefix``) are forgotten in these chats, and the outboxes left spent."""
        for chat_id in chat_ids:
            box = self._boxes.get(chat_id)
            if box is not None:
                box.retire(prefix)
                if box.spent():
                    self.drop(chat_id)

    def sweep(self) -> None:
        """Drop every spent outbox (a chat nobody wrote to lately leaves memory)."""
        for chat_id in [c for c, box in self._boxes.items() if box.spent()]:
            self.drop(chat_id)

    def __len__(self) -> int:
        return len(self._boxes)

    def pending(self) -> bool:
        """Some chat has a message state that was not delivered yet."""
        return any(s.dirty for box in self._boxes.values() for s in box.slots.values())

    def backlog(self) -> dict[int, int]:
        """Per chat with any: how many message states are not delivered yet."""
        counts = {c: sum(s.dirty for s in box.slots.values()) for c, box in self._boxes.items()}
        return {c: n for c, n in counts.items() if n}

    async def close(self) -> None:
        """Stop every chat's delivery (a box made meanwhile too: a game changing as the
        bot stops), then wait for the notes of what messages show on their way to the
        store (``_persist``): the store closes next, and commits what it was given."""
        while self._boxes:
            await self._boxes.popitem()[1].close()
        if _background:
            await asyncio.wait(set(_background))
