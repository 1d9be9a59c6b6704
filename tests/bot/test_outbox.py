import asyncio
import logging
from dataclasses import dataclass, field

from telegram.error import BadRequest, Forbidden

from bot.delivery.outbox import Outbox
from bot.views.messages import Content


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

    async def do_api_request(self, endpoint, api_kwargs):
        """The outbox's raw calls (the result as Telegram sends it: a dict)."""
        kw = dict(api_kwargs)
        chat_id, text = kw.pop("chat_id"), kw.pop("text")
        if endpoint == "sendMessage":
            return {"message_id": (await self.send_message(chat_id, text, **kw)).message_id}
        assert endpoint == "editMessageText", endpoint
        message_id = kw.pop("message_id")
        await self.edit_message_text(text, chat_id, message_id, **kw)
        return {"message_id": message_id}


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


async def test_an_urgent_state_skips_the_calm_and_newer_states_replace_it_without_a_backlog():
    bot, box = make(interval=3.0)
    box.put("table", Content("card 1"), calm=6.0)
    await box.drain()  # sent at 0
    await box.clock.sleep(3.0)  # a token is there again; the calm lasts until 6
    box.put("table", Content("card 2"), calm=6.0)
    box.put("table", Content("trick 1 won"), calm=6.0, urgent=True)
    await box.drain()
    assert [(c[0], c[1], c[2]) for c in bot.calls][1] == ("edit", 3.0, "trick 1 won")
    # tricks won faster than the chat's pacing: each render shows what the group
    # missed, so only the newest goes out, in the next slot
    for i in range(2, 6):
        box.put("table", Content(f"tricks 1..{i} won"), calm=6.0, urgent=True)
    await box.drain()
    assert [(c[1], c[2]) for c in bot.calls[2:]] == [(6.0, "tricks 1..5 won")]
    # a calm state after it waits for the calm again
    box.put("table", Content("card 3"), calm=6.0)
    await box.drain()
    assert bot.calls[-1][1:] == (12.0, "card 3")


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


async def test_a_resends_delete_takes_its_own_place_in_a_private_chats_budget():
    # Telegram counts a delete as a call: a send and a delete for one token put a
    # private chat (1 a second after a burst of 3) over its limit, a 429 in the sandbox
    clock = VirtualClock()
    bot = RecordingBot(clock)
    box = Outbox(bot, 7, 1.0, clock, burst=3)
    box.put("hand", Content("a"))
    await box.drain()
    box.put("hand", Content("b"), resend=True)
    box.put("note", Content("c"))
    box.put("other", Content("d"))
    await box.drain()
    assert [c[0] for c in bot.calls] == ["send", "send", "delete", "send", "send"]
    times = [c[1] for c in bot.calls]
    # a token bucket of 3, one more a second: no call before its token
    assert times == [0.0, 0.0, 0.0, 1.0, 2.0], times


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
    from bot.delivery.outbox import Outboxes

    clock = VirtualClock()
    boxes = Outboxes(RecordingBot(clock), clock, group_interval=3.0, dm_interval=0.0)
    assert not boxes.pending()
    boxes.get(-1).put("a", Content("one"))
    boxes.get(-1).put("b", Content("two"))
    assert boxes.pending()
    await boxes.drain()
    assert not boxes.pending()
    await boxes.close()


async def test_closed_outboxes_have_handed_every_note_to_the_store_and_a_late_box_is_closed():
    """The store closes right after the outboxes: a message forgotten just before (its
    note on its way to the store) is noted by then, and a box made while they close
    stops too."""
    from bot.delivery.outbox import Outboxes

    clock = VirtualClock()
    noted: list[tuple[int, str, int | None]] = []

    async def on_shown(chat_id: int, key: str, message_id: int | None, digest: str | None):
        for _ in range(5):  # a commit takes a few turns of the loop
            await asyncio.sleep(0)
        noted.append((chat_id, key, message_id))

    boxes = Outboxes(RecordingBot(clock), clock, 0.0, 0.0, on_shown=on_shown)
    boxes.get(-1).put("a", Content("one"))
    await boxes.drain()
    assert noted == [(-1, "a", 1)]
    boxes.get(-1).forget("a")  # its note goes to the store in the background
    made: list[Outbox] = []

    async def put_meanwhile() -> None:
        await asyncio.sleep(0)
        made.append(boxes.get(-3))  # a game changing as the bot stops
        made[0].put("b", Content("two"))

    meanwhile = asyncio.create_task(put_meanwhile())
    await boxes.close()
    await meanwhile
    assert noted[-1] == (-1, "a", None)
    assert made and made[0]._task is None and len(boxes) == 0  # its delivery stopped too


# ------------------------------------------------------------ failures at each step
# Delivery is at most once: whatever fails, the chat's sender lives on, the failure is
# logged once with the chat and the message, and no message is posted twice.


class Boom(Exception):
    pass


class FailingBot(RecordingBot):
    """Fails the next call at a chosen step: before the request reaches Telegram, or
    after Telegram posted the message but before the bot could read the answer."""

    fail: str | None = None

    async def send_message(self, chat_id, text, **kw):
        if self.fail == "before":
            self.fail = None
            raise Boom("before the request")
        msg = await super().send_message(chat_id, text, **kw)
        if self.fail == "after":
            self.fail = None
            raise Boom("the answer could not be read")
        return msg

    async def edit_message_text(self, text, chat_id, message_id, **kw):
        if self.fail == "edit":
            self.fail = None
            raise Boom("edit")
        await super().edit_message_text(text, chat_id, message_id, **kw)


def failing(interval=0.0):
    clock = VirtualClock()
    bot = FailingBot(clock)
    return bot, Outbox(bot, -7, interval, clock)


async def drained(box):
    """Drain, or fail: a sender that died would leave its state pending for ever."""
    await asyncio.wait_for(box.drain(), 5.0)


def errors(caplog):
    return [r for r in caplog.records if r.levelno >= logging.ERROR]


def sends(bot):
    return [c[2] for c in bot.calls if c[0] == "send"]


async def test_a_send_failing_before_the_request_is_logged_once_and_the_sender_lives(caplog):
    bot, box = failing()
    bot.fail = "before"
    box.put("lobby", Content("lobby 1"))
    await drained(box)
    assert sends(bot) == []
    [err] = errors(caplog)
    assert "-7" in err.getMessage() and "lobby" in err.getMessage()
    box.put("lobby", Content("lobby 2"))  # the next state goes out as usual
    await drained(box)
    assert sends(bot) == ["lobby 2"] and not box.slots["lobby"].dirty
    assert len(errors(caplog)) == 1


async def test_a_send_whose_answer_was_lost_is_not_sent_again(caplog):
    bot, box = failing()
    bot.fail = "after"  # Telegram posted it; the bot never learns its id
    box.put("lobby", Content("lobby 1"))
    await drained(box)
    box.put("other", Content("other"))
    await drained(box)
    assert sends(bot) == ["lobby 1", "other"]
    assert len(errors(caplog)) == 1


async def test_a_send_whose_bookkeeping_failed_is_not_sent_a_second_time(caplog):
    bot, box = failing()
    saved = []

    async def on_shown(chat_id, key, message_id, digest):
        if not saved:
            saved.append(None)
            raise Boom("database is locked")
        saved.append((chat_id, key, message_id))

    box.on_shown = on_shown
    box.put("lobby", Content("lobby 1"))
    await drained(box)
    [err] = errors(caplog)
    assert "-7" in err.getMessage() and "lobby" in err.getMessage()
    box.put("lobby", Content("lobby 2"))
    box.put("table", Content("table"))
    await drained(box)
    # the lobby was posted once and then edited; the sender went on with the table
    assert [c[0] for c in bot.calls] == ["send", "edit", "send"]
    assert bot.texts[1] == "lobby 2" and bot.texts[2] == "table"
    assert saved[1:] == [(-7, "lobby", 1), (-7, "table", 2)]
    assert len(errors(caplog)) == 1


async def test_a_resend_whose_bookkeeping_failed_still_deletes_the_old_message(caplog):
    bot, box = failing()

    async def on_shown(chat_id, key, message_id, digest):
        if message_id == 2:
            raise Boom("disk full")

    box.on_shown = on_shown
    box.put("hand", Content("a"))
    await drained(box)
    box.put("hand", Content("b"), resend=True)
    await drained(box)
    assert [c[0] for c in bot.calls] == ["send", "send", "delete"]
    assert box.message_id("hand") == 2 and not box.slots["hand"].dirty
    assert len(errors(caplog)) == 1


async def test_a_failing_edit_is_given_up_and_the_next_state_edits_the_same_message(caplog):
    bot, box = failing()
    box.put("table", Content("one"))
    await drained(box)
    bot.fail = "edit"
    box.put("table", Content("two"))
    await drained(box)
    assert not box.slots["table"].dirty  # not retried
    box.put("table", Content("three"))
    await drained(box)
    assert [c[2] for c in bot.calls] == ["one", "three"] and bot.texts[1] == "three"
    assert len(errors(caplog)) == 1


async def test_a_state_put_while_a_send_fails_is_still_delivered(caplog):
    bot, box = failing()
    entered = asyncio.Event()
    release = asyncio.Event()
    send = bot.send_message

    async def slow_failing_send(chat_id, text, **kw):
        if text == "old":
            entered.set()
            await release.wait()
            raise Boom("bug")
        return await send(chat_id, text, **kw)

    bot.send_message = slow_failing_send
    box.put("lobby", Content("old"))
    await entered.wait()
    box.put("lobby", Content("new"))  # arrives while "old" is in flight
    release.set()
    await drained(box)
    assert sends(bot) == ["new"]
    assert len(errors(caplog)) == 1


async def test_a_state_put_as_its_renderer_is_rendered_only_when_delivered_and_only_the_newest():
    bot, box = make()
    rendered: list[str] = []

    def later(text):
        async def render(slot):
            rendered.append(text)
            return Content(text)

        return render

    box.put_later("table", later("first"), family="t", calm=6.0)
    await box.drain()
    assert rendered == ["first"] and bot.texts[1] == "first"
    for i in range(5):  # during the table's calm: replaced before their turn, never rendered
        box.put_later("table", later(f"state {i}"), family="t", calm=6.0)
    await box.drain()
    assert rendered == ["first", "state 4"]
    assert bot.texts[1] == "state 4"
    assert [c[0] for c in bot.calls] == ["send", "edit"]
    assert bot.calls[1][1] - bot.calls[0][1] >= 6.0  # the calm held
    # a newest state that shows what the message shows costs no call
    box.put_later("table", later("state 4"), family="t", calm=6.0)
    await box.drain()
    assert len(bot.calls) == 2 and not box.slots["table"].dirty
    # an urgent one goes out at once (its calm not waited for), rendered then
    box.put_later("table", later("edit"), family="t", calm=6.0)
    await box.drain()
    edited = bot.clock.now()
    box.put_later("table", later("won"), family="t", calm=6.0, urgent=True)
    await box.drain()
    assert bot.texts[1] == "won" and bot.calls[-1][1] - edited == 3.0  # the chat's interval


async def test_a_renderer_with_nothing_to_show_or_failing_sends_nothing_and_the_next_state_goes(
    caplog,
):
    bot, box = make(interval=0)

    async def nothing(slot):
        return None

    async def broken(slot):
        raise ValueError("bug")

    async def fine(slot):
        return Content("fine")

    box.put_later("table", nothing)
    await box.drain()
    box.put_later("other", broken)
    await box.drain()
    assert bot.calls == []
    assert [r.message for r in caplog.records if r.levelno >= logging.ERROR] == [
        "chat -1: rendering message other failed"
    ]
    box.put_later("other", fine)
    await box.drain()
    assert bot.texts == {1: "fine"}
