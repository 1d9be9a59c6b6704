import asyncio
from dataclasses import dataclass, field

from telegram.error import BadRequest, Forbidden

from bot.outbox import Content, Outbox


class VirtualClock:
    def __init__(self):
        self.t = 0.0

    def now(self):
        return self.t

    async def sleep(self, seconds):
        self.t += seconds
        await asyncio.sleep(0)


@dataclass
class Msg:
    message_id: int


@dataclass
class RecordingBot:
    clock: VirtualClock
    calls: list[tuple] = field(default_factory=list)
    texts: dict[int, str] = field(default_factory=dict)
    forbidden: bool = False

    async def send_message(self, chat_id, text, **kw):
        if self.forbidden:
            raise Forbidden("bot was blocked by the user")
        self.calls.append(("send", self.clock.now(), text))
        mid = len(self.texts) + 1
        self.texts[mid] = text
        return Msg(mid)

    async def edit_message_text(self, text, chat_id, message_id, **kw):
        self.calls.append(("edit", self.clock.now(), text))
        if self.texts.get(message_id) == text:
            raise BadRequest("Message is not modified")
        self.texts[message_id] = text

    async def delete_message(self, chat_id, message_id):
        self.calls.append(("delete", self.clock.now(), message_id))


def make(interval=3.0):
    clock = VirtualClock()
    bot = RecordingBot(clock)
    return bot, Outbox(bot, -1, interval, clock)


async def test_rapid_updates_coalesce_and_the_final_state_is_never_dropped():
    bot, box = make()
    box.put("table", Content("first"))
    await box.drain()
    for i in range(10):  # a burst while the outbox waits for its next slot
        box.put("table", Content(f"state {i}"))
    await box.drain()
    assert bot.texts[1] == "state 9"
    assert [c[0] for c in bot.calls] == ["send", "edit"]
    assert bot.calls[1][1] - bot.calls[0][1] >= 3.0


async def test_identical_states_are_not_sent_again():
    bot, box = make()
    box.put("table", Content("same"))
    await box.drain()
    box.put("table", Content("same"))
    await box.drain()
    assert len(bot.calls) == 1


async def test_never_more_than_twenty_calls_in_any_minute():
    bot, box = make(interval=3.1)
    for i in range(60):
        box.put(f"g1:h1:t{i}", Content(f"trick {i}"), family="table")
        box.put(f"g1:h1:t{i}", Content(f"trick {i} done"), family="table")
        await box.clock.sleep(1.0)
    await box.drain()
    times = [c[1] for c in bot.calls]
    for start in times:
        assert sum(1 for x in times if start <= x < start + 60) <= 20
    # the newest trick is shown in its final state
    assert "trick 59 done" in bot.texts.values()


async def test_a_newer_family_slot_supersedes_unsent_older_ones():
    bot, box = make()
    box.put("t1", Content("one"), family="table")
    box.put("t2", Content("two"), family="table")
    await box.drain()
    assert [c[2] for c in bot.calls] == ["two"]


async def test_resend_moves_the_message_down_and_deletes_the_old_one():
    bot, box = make(interval=0)
    box.put("hand", Content("a"))
    await box.drain()
    box.put("hand", Content("b"), resend=True)
    await box.drain()
    assert [c[0] for c in bot.calls] == ["send", "send", "delete"]


async def test_a_forbidden_chat_is_reported_once_and_not_retried():
    bot, box = make(interval=0)
    bot.forbidden = True
    reported = []

    async def on_forbidden(chat_id):
        reported.append(chat_id)

    box.on_forbidden = on_forbidden
    box.put("hand", Content("a"))
    await box.drain()
    assert reported == [-1]


async def test_outboxes_are_pending_until_every_state_was_delivered():
    from bot.outbox import Outboxes

    clock = VirtualClock()
    boxes = Outboxes(RecordingBot(clock), clock, group_interval=3.0, dm_interval=0.0)
    assert not boxes.pending()
    boxes.get(-1).put("a", Content("one"))
    boxes.get(-1).put("b", Content("two"))
    assert boxes.pending()
    await boxes.drain()
    assert not boxes.pending()
    await boxes.close()
