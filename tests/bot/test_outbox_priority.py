"""Replies to people before the table, and an outage logged once (bot/delivery/outbox.py,
issue 28 items 7 and 9).

A reply (a command's answer, a refusal) is delivered before the chat's other changed
messages and may borrow the next call's token: in a group whose table is behind, it goes
out at once and the table's edit waits; the group stays within 20 calls a minute. While
Telegram cannot be reached, no chat logs its failures one by one (``bot.infra.reach`` logs the
outage once, tests/hosting/test_faults.py); edits and sends that surely never reached
Telegram are tried again, a send that may have reached it is not sent twice."""

import asyncio
import logging
import random

import httpx
from telegram.error import NetworkError, TimedOut

from bot.delivery.outbox import Outboxes
from bot.infra.reach import DELIVERY_RETRIES, MethodFailed
from bot.views.messages import Content
from tests.bot.test_outbox import RecordingBot


class SteppedClock:
    """The bot's clock, moved by the test: a sleep ends when the test advances past it."""

    def __init__(self) -> None:
        self.t = 0.0
        self.sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        fut = asyncio.get_running_loop().create_future()
        entry = (self.t + max(0.0, seconds), fut)
        self.sleepers.append(entry)
        try:
            await fut
        finally:
            if entry in self.sleepers:
                self.sleepers.remove(entry)

    async def settle(self) -> None:
        for _ in range(20):
            await asyncio.sleep(0)

    async def advance(self, seconds: float) -> None:
        end = self.t + seconds
        await self.settle()
        while due := [s for s in self.sleepers if s[0] <= end and not s[1].done()]:
            at, fut = min(due, key=lambda s: s[0])
            self.t = max(self.t, at)
            fut.set_result(None)
            await self.settle()
        self.t = end
        await self.settle()


def group_of(bot, clock, interval=3.2):
    boxes = Outboxes(bot, clock, group_interval=interval, dm_interval=1.0)
    return boxes, boxes.get(-100)


async def test_a_reply_goes_out_at_once_and_the_tables_edit_is_the_one_that_waits():
    clock = SteppedClock()
    bot = RecordingBot(clock)
    boxes, group = group_of(bot, clock, interval=3.0)
    group.put("table", Content("table 1"))
    await clock.advance(0)
    for i in range(2, 12):  # the table changes faster than the group is paced
        group.put("table", Content(f"table {i}"))
        group.put(f"trick{i}", Content(f"trick {i}"))  # and other messages wait too
    await clock.advance(0.5)
    group.post(Content("/takeover: which seat? (1-4)"))
    await clock.advance(0.01)
    assert bot.calls[-1] == ("send", 0.5, "/takeover: which seat? (1-4)")
    group.post(Content("second answer"))  # the credit is spent: the next slot
    await clock.advance(60)
    calls = [(what, at, text) for what, at, text in bot.calls]
    assert calls[2] == ("send", 3.0, "second answer")
    # the table waited for both: its next edit comes two slots later than it would have
    assert calls[3] == ("edit", 9.0, "table 11")
    await boxes.close()


async def test_replies_never_take_the_group_past_twenty_calls_a_minute():
    clock = SteppedClock()
    bot = RecordingBot(clock)
    boxes, group = group_of(bot, clock)
    rng = random.Random(5)
    posted = []
    for step in range(600):  # ten minutes: a busy table and people typing commands
        group.put("table", Content(f"table {step}"))
        if rng.random() < 0.2:
            posted.append(f"reply {step}")
            group.post(Content(posted[-1]))
        await clock.advance(rng.uniform(0.2, 1.8))
    await clock.advance(len(posted) * 3.2)
    times = [at for _, at, _ in bot.calls]
    assert len(times) > 150
    assert max(sum(1 for x in times if t <= x < t + 60) for t in times) <= 20
    # every reply was sent, in order
    assert [text for _, _, text in bot.calls if text.startswith("reply")] == posted
    await boxes.close()


class NetBot(RecordingBot):
    """Telegram unreachable while ``down``: how the connection fails is ``how``."""

    down: bool = False
    how: str = "refused"
    failed: int = 0

    def _fail(self):
        self.failed += 1
        if self.how == "refused":  # no connection: the request never left
            cause = httpx.ConnectError("[Errno 111] Connection refused")
            raise NetworkError(f"httpx.ConnectError: {cause}") from cause
        cause = httpx.ReadTimeout("timed out")  # sent, no answer: it may have arrived
        raise TimedOut("Timed out") from cause

    async def send_message(self, chat_id, text, **kw):
        if self.down:
            self._fail()
        return await super().send_message(chat_id, text, **kw)

    async def edit_message_text(self, text, chat_id, message_id, **kw):
        if self.down:
            self._fail()
        await super().edit_message_text(text, chat_id, message_id, **kw)


def warnings_of(caplog):
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


async def test_in_an_outage_no_chat_logs_its_failures_and_the_newest_states_go_out_after(
    caplog,
):
    clock = SteppedClock()
    bot = NetBot(clock)
    boxes = Outboxes(bot, clock, group_interval=3.2, dm_interval=1.0)
    chats = [-100, -200, 11, 12]
    for c in chats:
        boxes.get(c).put("table", Content(f"{c}: before"))
    await clock.advance(1)
    sent = len(bot.calls)
    bot.down = True
    for c in chats:  # an answer to the last command before Telegram went away
        boxes.get(c).post(Content(f"{c}: reply"))
    for minute in range(2):  # two minutes of play while Telegram cannot be reached
        for s in range(0, 60, 2):
            for c in chats:
                boxes.get(c).put("table", Content(f"{c}: state {minute}.{s}"))
            await clock.advance(2)
    assert bot.failed >= 8 and len(bot.calls) == sent
    bot.down = False
    await clock.advance(DELIVERY_RETRIES[-1] + 10)
    assert warnings_of(caplog) == []
    for c in chats:  # each chat shows its newest state; no reply was lost
        assert bot.texts[[m for m, t in bot.texts.items() if t.startswith(f"{c}: ")][0]] == (
            f"{c}: state 1.58"
        )
        assert f"{c}: reply" in bot.texts.values()
    await boxes.close()


async def test_a_send_that_may_have_reached_telegram_is_not_sent_twice(caplog):
    clock = SteppedClock()
    bot = NetBot(clock)
    boxes = Outboxes(bot, clock, group_interval=0.0, dm_interval=0.0)
    bot.down, bot.how = True, "timed out"
    boxes.get(-1).post(Content("did it arrive?"))
    boxes.get(-1).put("table", Content("edit me"))
    await clock.advance(1)
    bot.down = False
    boxes.get(-1).put("table", Content("edited"))
    await clock.advance(40)
    assert [t for _, _, t in bot.calls] == ["edited"]  # the reply was given up, once
    assert warnings_of(caplog) == []
    await boxes.close()


async def test_a_method_telegram_answers_with_500_is_no_outage(caplog):
    clock = SteppedClock()
    bot = RecordingBot(clock)
    boxes = Outboxes(bot, clock, group_interval=0.0, dm_interval=0.0)
    edit = bot.edit_message_text

    async def failing_edit(text, chat_id, message_id, **kw):
        if text == "unsupported":
            raise MethodFailed("Internal Server Error (500 from editMessageText)")
        await edit(text, chat_id, message_id, **kw)

    bot.edit_message_text = failing_edit
    box = boxes.get(-1)
    box.put("table", Content("one"))
    await clock.advance(1)
    box.put("table", Content("unsupported"))
    await clock.advance(1)
    box.put("table", Content("two"))
    await clock.advance(1)
    [line] = warnings_of(caplog)  # that message, not an outage
    assert "unreachable" not in line and "Internal Server Error" in line
    assert [t for _, _, t in bot.calls] == ["one", "two"]  # given up, not retried
    await boxes.close()
