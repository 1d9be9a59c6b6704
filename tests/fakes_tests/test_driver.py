"""End to end: a real PTB Application driven by simulated people."""

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import Application, ChatMemberHandler, MessageHandler, TypeHandler, filters

from bot.fake_telegram import CallbackRecord, FakeClock, FakeTelegram, Message
from tests.fakes_tests.echo_app import build_echo_app


@pytest.fixture(params=["inprocess", "http"])
async def world(request: pytest.FixtureRequest) -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram(auto_settle=True) as world:
        world.transport = request.param  # type: ignore[attr-defined]
        yield world


@pytest.fixture
async def echo(world: FakeTelegram) -> AsyncIterator[Application[Any, Any, Any, Any, Any, Any]]:
    app = build_echo_app(world, world.transport)  # type: ignore[attr-defined]
    async with world.running(app):
        yield app


async def test_group_game_with_buttons(world: FakeTelegram, echo: Application) -> None:
    alice, bob = world.user("Alice", language_code="zh-hans"), world.user("Bob")
    table = world.group("Table", members=[bob], admins=[alice])
    command = await alice.send(table, "/newgame@ShengjiTestBot")
    assert command.entities == [{"type": "bot_command", "offset": 0, "length": 23}]
    game = world.last_message(table, from_bot=True)
    assert game.text == "Game!"
    assert game.keyboard() == [
        [("+1 (0)", "inc:0"), ("Alert", "alert")],
        [("Join", "https://t.me/ShengjiTestBot?start=join_42")],
    ]
    press = await bob.press(game, "+1 (0)")
    assert isinstance(press, CallbackRecord)
    assert (press.answered, press.text, press.show_alert) == (True, "now 1", False)
    assert game.text == "Game! 1" and game.edit_date is not None
    # The old button is gone from the current keyboard: pressing it fails the test.
    with pytest.raises(AssertionError, match=r"no button text='\+1 \(0\)'.*available: \[\["):
        await bob.press(game, "+1 (0)")
    alert = await alice.press(game, data="alert")
    assert (alert.text, alert.show_alert) == ("Careful!", True)
    # Privacy mode: plain chatter in the group never reaches the bot.
    await bob.send(table, "hello everyone")
    assert world.last_message(table).text == "hello everyone"


async def test_deep_link_button_starts_the_bot_in_dm(
    world: FakeTelegram, echo: Application
) -> None:
    carol = world.user("Carol")
    table = world.group("Table", members=[carol])
    await carol.send(table, "/newgame")
    game = world.last_message(table, from_bot=True)
    start = await carol.press(game, "Join")
    assert isinstance(start, Message) and start.text == "/start join_42"
    assert carol.user.started
    assert world.last_message(carol, from_bot=True).text == "Welcome Carol [join_42]"
    # DMs work now; the echo handler answers plain text there.
    await carol.send("hi")
    assert world.texts(carol)[-2:] == ["hi", "echo: hi"]


async def test_dm_rules_for_people(world: FakeTelegram, echo: Application) -> None:
    dave = world.user("Dave")
    with pytest.raises(AssertionError, match="never pressed START"):
        await dave.send("hi")
    with pytest.raises(AssertionError, match="not a member"):
        await dave.send(world.group("Other"), "/newgame")
    with pytest.raises(AssertionError, match="payload"):
        await dave.start_bot("bad payload!")


async def test_unanswered_callback_is_visible(world: FakeTelegram) -> None:
    # No bot running: the press is recorded, nobody answers it.
    erin = world.user("Erin", started=True)
    async with world.bot(world.transport) as bot:  # type: ignore[attr-defined]
        markup = InlineKeyboardMarkup([[InlineKeyboardButton("X", callback_data="x")]])
        await bot.send_message(erin.id, "pick", reply_markup=markup)
    press = await erin.press(world.last_message(erin), "X", settle=False)
    assert not press.answered
    assert world.core.updates[-1]["callback_query"]["data"] == "x"
    with pytest.raises(AssertionError, match="did not settle"):
        await world.settle(timeout=0.2)


async def test_membership_updates_block_kick_and_add(world: FakeTelegram) -> None:
    seen: list[tuple[str, str]] = []

    async def record(update: Update, context: object) -> None:
        change = update.my_chat_member
        assert change is not None
        seen.append((change.chat.type, change.new_chat_member.status))

    app = world.application_builder(world.transport).build()  # type: ignore[attr-defined]
    app.add_handler(ChatMemberHandler(record, ChatMemberHandler.MY_CHAT_MEMBER))
    frank = world.user("Frank", started=True)
    table = world.group("Table", members=[frank])
    async with world.running(app):
        frank.block_bot()
        await world.settle()
        frank.unblock_bot()
        world.kick_bot(table, by=frank)
        await world.settle()
        world.add_bot(table, by=frank, admin=True)
        await world.settle()
    assert seen == [
        ("private", "kicked"),
        ("private", "member"),
        ("group", "kicked"),
        ("group", "administrator"),
    ]


async def test_migration_service_messages_reach_the_bot(world: FakeTelegram) -> None:
    seen: list[dict[str, Any]] = []

    async def record(update: Update, context: object) -> None:
        message = update.effective_message
        assert message is not None
        seen.append(
            {"chat": message.chat.id, "to": message.migrate_to_chat_id,
             "from": message.migrate_from_chat_id}
        )  # fmt: skip

    app = world.application_builder(world.transport).build()  # type: ignore[attr-defined]
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, record))
    gina = world.user("Gina")
    table = world.group("Table", admins=[gina])
    async with world.running(app):
        new = world.migrate_group(table)
        await world.settle()
    assert seen == [
        {"chat": table.id, "to": new.id, "from": None},
        {"chat": new.id, "to": None, "from": table.id},
    ]
    with pytest.raises(AssertionError, match="upgraded"):
        await gina.send(table, "/newgame")


async def test_forum_topics(world: FakeTelegram) -> None:
    got: list[tuple[int | None, str]] = []

    async def reply(update: Update, context: object) -> None:
        message = update.effective_message
        assert message is not None and message.text
        got.append((message.message_thread_id, message.text))
        await message.reply_text("in topic")  # PTB keeps the thread via the reply

    app = world.application_builder(world.transport).build()  # type: ignore[attr-defined]
    app.add_handler(MessageHandler(filters.COMMAND, reply))
    hank = world.user("Hank")
    forum = world.group("Forum", admins=[hank], forum=True)
    topic = world.create_topic(forum, "Table 1", by=hank)
    async with world.running(app):
        await hank.send(forum, "/newgame", thread_id=topic)
    assert got == [(topic, "/newgame")]
    answer = world.last_message(forum, from_bot=True)
    assert (answer.thread_id, answer.to_json()["is_topic_message"]) == (topic, True)
    assert [m.text for m in world.transcript(forum, thread_id=topic)] == [
        None,  # the topic-created service message
        "/newgame",
        "in topic",
    ]


async def test_privacy_mode_off_and_admin_bot_see_everything(world: FakeTelegram) -> None:
    texts: list[str] = []

    async def record(update: Update, context: object) -> None:
        assert update.effective_message is not None
        texts.append(update.effective_message.text or "")

    app = world.application_builder(world.transport).build()  # type: ignore[attr-defined]
    app.add_handler(TypeHandler(Update, record))
    ivy = world.user("Ivy")
    quiet = world.group("Quiet", members=[ivy])
    loud = world.group("Loud", members=[ivy], bot_admin=True)
    async with world.running(app):
        await ivy.send(quiet, "chatter")
        await ivy.send(quiet, "/cmd@OtherBot")
        await ivy.send(quiet, "/cmd")
        await ivy.send(loud, "chatter")
    assert texts == ["/cmd", "chatter"]


async def test_accounting_and_clock() -> None:
    clock = FakeClock(ticking=False)
    async with FakeTelegram(clock=clock, http=False) as world:
        jo = world.user("Jo")
        table = world.group("Table", members=[jo])
        async with world.bot() as bot:
            first = await bot.send_message(table.id, "a")
            assert first.date.timestamp() == clock.now()
            for _ in range(4):
                await bot.send_message(table.id, "b")
            clock.advance(61)
            await bot.edit_message_text("c", table.id, first.message_id)
            await bot.send_chat_action(table.id, "typing")  # not budgeted
        assert world.max_calls_in_window(table, 60) == 5
        assert world.max_calls_in_window(table, 120) == 6
        edits = world.requests("editMessageText", table)
        assert edits[0].ok and edits[0].time == clock.now()


async def test_readme_example() -> None:
    from telegram.ext import CallbackQueryHandler, CommandHandler

    async def newgame(update: Update, context: Any) -> None:
        buttons = [
            [InlineKeyboardButton("Join", url="https://t.me/ShengjiTestBot?start=g1")],
            [InlineKeyboardButton("Deal", callback_data="deal")],
        ]
        await update.effective_message.reply_text(
            "Table", reply_markup=InlineKeyboardMarkup(buttons)
        )

    async def start(update: Update, context: Any) -> None:
        await update.effective_message.reply_text(f"Welcome {context.args}")

    async def deal(update: Update, context: Any) -> None:
        await update.callback_query.answer()

    async with FakeTelegram(auto_settle=True) as world:
        app = world.application_builder("inprocess").build()
        app.add_handlers(
            [CommandHandler("newgame", newgame), CommandHandler("start", start),
             CallbackQueryHandler(deal)]
        )  # fmt: skip
        alice = world.user("Alice", language_code="zh-hans")
        bob = world.user("Bob", username="bob")
        table = world.group("Table", members=[bob], admins=[alice])
        async with world.running(app):
            await alice.send(table, "/newgame")
            game = world.last_message(table, from_bot=True)
            assert game.keyboard()[0] == [("Join", "https://t.me/ShengjiTestBot?start=g1")]
            await bob.press(game, "Join")
            assert world.last_message(bob, from_bot=True).text == "Welcome ['g1']"
            press = await alice.press(game, data="deal")
            assert press.answered and not press.show_alert
        assert world.max_calls_in_window(table, 60) <= 20


async def test_settle_waits_for_the_bots_own_busy_check(world: FakeTelegram) -> None:
    """A bot that works a while before its next request tells settle() through ``busy``."""
    app = world.application_builder().build()
    working = {"busy": True}
    asyncio.get_running_loop().call_later(0.2, working.update, {"busy": False})
    async with world.running(app, busy=lambda: working["busy"]):
        await world.settle(quiet=0.005)
        assert working["busy"] is False
    async with world.running(app):
        working["busy"] = True  # no longer registered: settle does not wait for it
        await world.settle(quiet=0.005)


async def test_settle_waits_until_the_loop_has_nothing_left_to_run(world: FakeTelegram) -> None:
    """No quiet period: a bot working between two requests without waiting on anything
    (many turns of the loop) is waited for, over both transports."""

    async def reply_twice(update: Update, context: Any) -> None:
        assert update.effective_chat is not None
        await context.bot.send_message(update.effective_chat.id, "one")
        for _ in range(200):
            await asyncio.sleep(0)
        await context.bot.send_message(update.effective_chat.id, "two")

    app = world.application_builder(world.transport).build()  # type: ignore[attr-defined]
    app.add_handler(MessageHandler(filters.TEXT, reply_twice))
    gina = world.user("Gina", started=True)
    async with world.running(app):
        await gina.send("hi", settle=False)
        await world.settle(quiet=0)
        assert world.texts(gina) == ["hi", "one", "two"]


async def test_settle_waits_for_a_pause_shorter_than_quiet(world: FakeTelegram) -> None:
    """A bot sleeping briefly before its next request: its timer is due within ``quiet``."""

    async def reply_after_a_pause(update: Update, context: Any) -> None:
        assert update.effective_chat is not None
        await context.bot.send_message(update.effective_chat.id, "one")
        await asyncio.sleep(0.2)
        await context.bot.send_message(update.effective_chat.id, "two")

    app = world.application_builder(world.transport).build()  # type: ignore[attr-defined]
    app.add_handler(MessageHandler(filters.TEXT, reply_after_a_pause))
    hana = world.user("Hana", started=True)
    async with world.running(app):
        await hana.send("hi", settle=False)
        await world.settle(quiet=0.3)
        assert world.texts(hana) == ["hi", "one", "two"]


async def test_settle_called_at_once_from_several_tasks_returns_in_each(
    world: FakeTelegram, echo: Application
) -> None:
    """Settling callers wait on the loop too; none of them counts as the bot at work."""
    ivan = world.user("Ivan", started=True)
    await ivan.send("hi", settle=False)
    await asyncio.wait_for(asyncio.gather(*(world.settle() for _ in range(3))), 5)
    assert world.texts(ivan) == ["hi", "echo: hi"]
