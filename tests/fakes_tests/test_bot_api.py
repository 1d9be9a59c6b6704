"""The real PTB ``Bot`` against the fake, on both transports."""

import datetime as dt
from collections.abc import AsyncIterator

import pytest
from telegram import Bot, BotCommand, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, ChatMigrated, EndPointNotFound, Forbidden, RetryAfter

from bot.fake_telegram import FakeClock, FakeTelegram, RateLimits

NOT_MODIFIED = (
    "Message is not modified: specified new message content and reply markup of the message "
    "are exactly the same as a current content and reply markup of the message"
)


@pytest.fixture(params=["inprocess", "http"])
async def bot(request: pytest.FixtureRequest, fake_telegram: FakeTelegram) -> AsyncIterator[Bot]:
    async with fake_telegram.bot(request.param) as bot:
        yield bot


def _seconds(value: object) -> float:
    # PTB 22 gives an int by default and a timedelta when opted in.
    return value.total_seconds() if isinstance(value, dt.timedelta) else float(value)


def kb(*rows: list[tuple[str, str]]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(t, callback_data=d) for t, d in row] for row in rows]
    )


async def test_send_edit_delete_round_trip(fake_telegram: FakeTelegram, bot: Bot) -> None:
    alice = fake_telegram.user("Alice", started=True)
    sent = await bot.send_message(alice.id, "one", reply_markup=kb([("A", "a")]))
    assert (sent.message_id, sent.from_user.id, sent.chat.id) == (1, bot.id, alice.id)
    assert sent.edit_date is None
    edited = await bot.edit_message_text("two", alice.id, sent.message_id, reply_markup=kb())
    assert edited.text == "two" and edited.edit_date is not None
    marked = await bot.edit_message_reply_markup(
        alice.id, sent.message_id, reply_markup=kb([("B", "b")])
    )
    assert marked.reply_markup == kb([("B", "b")])
    assert fake_telegram.last_message(alice).keyboard() == [[("B", "b")]]
    assert await bot.delete_message(alice.id, sent.message_id)
    assert fake_telegram.transcript(alice) == []
    again = await bot.send_message(alice.id, "three")
    assert again.message_id == 2  # ids keep counting, like Telegram's


async def test_edit_text_without_markup_drops_the_keyboard(
    fake_telegram: FakeTelegram, bot: Bot
) -> None:
    alice = fake_telegram.user("Alice", started=True)
    sent = await bot.send_message(alice.id, "one", reply_markup=kb([("A", "a")]))
    edited = await bot.edit_message_text("two", alice.id, sent.message_id)
    assert edited.reply_markup is None


async def test_identical_edit_is_not_modified(fake_telegram: FakeTelegram, bot: Bot) -> None:
    alice = fake_telegram.user("Alice", started=True)
    sent = await bot.send_message(
        alice.id, "<b>x</b>", parse_mode="HTML", reply_markup=kb([("A", "a")])
    )
    with pytest.raises(BadRequest) as caught:
        await bot.edit_message_text(
            "<b>x</b>", alice.id, sent.message_id, parse_mode="HTML", reply_markup=kb([("A", "a")])
        )
    assert caught.value.message == NOT_MODIFIED
    with pytest.raises(BadRequest, match="not modified"):
        await bot.edit_message_reply_markup(
            alice.id, sent.message_id, reply_markup=kb([("A", "a")])
        )
    # Same text but different formatting is a real change.
    await bot.edit_message_text("x", alice.id, sent.message_id, reply_markup=kb([("A", "a")]))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda b, c: b.edit_message_text("x", c, 999), "Message to edit not found"),
        (lambda b, c: b.edit_message_reply_markup(c, 999), "Message to edit not found"),
        (lambda b, c: b.delete_message(c, 999), "Message to delete not found"),
        (lambda b, c: b.send_message(c, "x" * 4097), "Message is too long"),
        (
            lambda b, c: b.send_message(c, "<b>x</i>", parse_mode="HTML"),
            "Can't parse entities: unmatched end tag at byte offset 4, "
            'expected "</b>", found "</i>"',
        ),
        (
            lambda b, c: b.send_message(c, "a < b", parse_mode="HTML"),
            "Can't parse entities: unclosed start tag at byte offset 2",
        ),
        (
            lambda b, c: b.send_message(c, "x", reply_markup=kb([("A", "a" * 65)])),
            "Button_data_invalid",
        ),
        (lambda b, c: b.send_message(c, "x", reply_markup=kb([("A", "")])), "Button_data_invalid"),
        (
            lambda b, c: b.send_message(c, "x", reply_markup=kb([("A", "a")] * 9)),
            "Too many inline keyboard buttons",
        ),
        (
            lambda b, c: b.send_message(c, "x", reply_markup=kb(*[[("A", "a")] * 8] * 13)),
            "Too many inline keyboard buttons",
        ),
        (lambda b, c: b.send_message(-42, "x"), "Chat not found"),
        (lambda b, c: b.send_message(c, "   "), "Message text is empty"),
        (
            lambda b, c: b.send_message(c, "x", reply_to_message_id=77),
            "Message to be replied not found",
        ),
    ],
)
async def test_bad_requests(fake_telegram: FakeTelegram, bot: Bot, call, message: str) -> None:
    alice = fake_telegram.user("Alice", started=True)
    with pytest.raises(BadRequest) as caught:
        await call(bot, alice.id)
    # PTB capitalises the first letter and strips "Bad Request: ".
    assert caught.value.message == message


async def test_text_limit_counts_visible_text_after_entity_parsing(
    fake_telegram: FakeTelegram, bot: Bot
) -> None:
    alice = fake_telegram.user("Alice", started=True)
    sent = await bot.send_message(alice.id, "<b>" + "x" * 4096 + "</b>", parse_mode="HTML")
    assert len(sent.text) == 4096
    fits = kb(*[[("A", "a")] * 8] * 12, [("B", "b")] * 4)  # exactly 100 buttons
    await bot.send_message(alice.id, "x", reply_markup=fits)


async def test_forbidden(fake_telegram: FakeTelegram, bot: Bot) -> None:
    stranger = fake_telegram.user("Stranger")
    with pytest.raises(Forbidden, match="^Forbidden: bot can't initiate conversation with a user$"):
        await bot.send_message(stranger.id, "hi")
    blocker = fake_telegram.user("Blocker", started=True)
    blocker.block_bot()
    with pytest.raises(Forbidden, match="^Forbidden: bot was blocked by the user$"):
        await bot.send_message(blocker.id, "hi")
    group = fake_telegram.group("G", members=[blocker])
    supergroup = fake_telegram.group("S", members=[blocker], supergroup=True)
    fake_telegram.kick_bot(group)
    fake_telegram.kick_bot(supergroup)
    with pytest.raises(Forbidden, match="^Forbidden: bot was kicked from the group chat$"):
        await bot.send_message(group.id, "hi")
    with pytest.raises(Forbidden, match="^Forbidden: bot was kicked from the supergroup chat$"):
        await bot.send_message(supergroup.id, "hi")


async def test_chat_migrated(fake_telegram: FakeTelegram, bot: Bot) -> None:
    alice = fake_telegram.user("Alice")
    group = fake_telegram.group("Table", members=[alice])
    new = fake_telegram.migrate_group(group)
    assert str(new.id).startswith("-100") and new.type == "supergroup"
    with pytest.raises(ChatMigrated) as caught:
        await bot.send_message(group.id, "hi")
    assert caught.value.new_chat_id == new.id
    assert (await bot.send_message(new.id, "hi")).chat.type == "supergroup"


async def test_unknown_method_is_404(bot: Bot) -> None:
    with pytest.raises(EndPointNotFound):
        await bot.do_api_request("sendTelepathy", api_kwargs={"chat_id": 1})


async def test_callback_answers(fake_telegram: FakeTelegram, bot: Bot) -> None:
    alice = fake_telegram.user("Alice", started=True)
    sent = await bot.send_message(alice.id, "x", reply_markup=kb([("A", "a")]))
    message = fake_telegram.transcript(alice)[-1]
    assert sent.message_id == message.message_id
    record = await alice.press(message, "A")
    with pytest.raises(BadRequest, match="Message_too_long"):
        await bot.answer_callback_query(record.id, "x" * 201)
    with pytest.raises(BadRequest, match="Url_invalid"):
        await bot.answer_callback_query(record.id, url="https://example.com")
    assert await bot.answer_callback_query(record.id, "y" * 200, show_alert=True)
    assert (record.answered, record.text, record.show_alert) == (True, "y" * 200, True)
    with pytest.raises(BadRequest, match="Query is too old and response timeout expired"):
        await bot.answer_callback_query(record.id)
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query("12345")
    late = await alice.press(message, data="a")
    fake_telegram.clock.advance(16)
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query(late.id)
    deep = await alice.press(message, data="a")
    await bot.answer_callback_query(deep.id, url="https://t.me/ShengjiTestBot?start=seat_1")
    assert deep.url == "https://t.me/ShengjiTestBot?start=seat_1"


async def test_chat_info_members_and_admins(fake_telegram: FakeTelegram, bot: Bot) -> None:
    alice, bob = fake_telegram.user("Alice"), fake_telegram.user("Bob", username="bob")
    carol = fake_telegram.user("Carol")
    group = fake_telegram.group(
        "Table", members=[bob], admins=[alice], supergroup=True, bot_admin=True
    )
    chat = await bot.get_chat(group.id)
    assert (chat.title, chat.type) == ("Table", "supergroup")
    assert (await bot.get_chat_member(group.id, alice.id)).status == "creator"
    assert (await bot.get_chat_member(group.id, bob.id)).status == "member"
    assert (await bot.get_chat_member(group.id, carol.id)).status == "left"
    assert (await bot.get_chat_member(group.id, bot.id)).status == "administrator"
    admins = await bot.get_chat_administrators(group.id)
    assert {a.user.id for a in admins} == {alice.id, bot.id}
    private = await bot.get_chat(bob.id)
    assert (private.type, private.username) == ("private", "bob")


async def test_pins_commands_photo_and_misc(fake_telegram: FakeTelegram, bot: Bot) -> None:
    alice = fake_telegram.user("Alice", started=True)
    plain = fake_telegram.group("Plain", members=[alice])
    sent = await bot.send_message(plain.id, "x")
    with pytest.raises(BadRequest, match="Not enough rights to manage pinned messages"):
        await bot.pin_chat_message(plain.id, sent.message_id)
    assert await bot.pin_chat_message(alice.id, (await bot.send_message(alice.id, "p")).message_id)
    assert (await bot.get_chat(alice.id)).pinned_message.text == "p"
    assert await bot.unpin_chat_message(alice.id)

    assert await bot.set_my_commands([BotCommand("newgame", "Start a game")])
    assert await bot.set_my_commands([BotCommand("neu", "Neues Spiel")], language_code="de")
    assert [c.command for c in await bot.get_my_commands()] == ["newgame"]
    assert [c.command for c in await bot.get_my_commands(language_code="de")] == ["neu"]
    assert await bot.delete_my_commands()
    assert await bot.get_my_commands() == ()
    with pytest.raises(BadRequest, match="Bot_command_invalid"):
        await bot.set_my_commands([BotCommand("New Game", "x")])

    photo = await bot.send_photo(
        alice.id, b"\x89PNG fake bytes", caption="<i>hand</i>", parse_mode="HTML"
    )
    assert photo.caption == "hand" and photo.photo[-1].file_size == 15
    assert fake_telegram.core.files[photo.photo[-1].file_id] == b"\x89PNG fake bytes"
    by_id = await bot.send_photo(alice.id, photo.photo[-1].file_id)
    assert by_id.photo
    assert await bot.send_chat_action(alice.id, "typing")
    assert await bot.log_out() and await bot.close()


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_rate_limits_answer_429() -> None:
    clock = FakeClock(ticking=False)
    async with FakeTelegram(clock=clock, rate_limits=RateLimits(), http=False) as world:
        alice = world.user("Alice", started=True)
        group = world.group("G", members=[alice])
        async with world.bot() as bot:
            for i in range(20):
                await bot.send_message(group.id, f"m{i}")
            with pytest.raises(RetryAfter) as caught:
                await bot.edit_message_text("edited", group.id, 1)  # edits spend the budget too
            assert _seconds(caught.value.retry_after) == 60
            clock.advance(30)
            with pytest.raises(RetryAfter) as caught:
                await bot.send_message(group.id, "still too soon")
            assert _seconds(caught.value.retry_after) == 30
            clock.advance(30)
            await bot.send_message(group.id, "ok again")
            assert world.max_calls_in_window(group, 60) == 20
            # Private chats: a small burst, then about one per second.
            for _ in range(3):
                await bot.send_message(alice.id, "dm")
            with pytest.raises(RetryAfter):
                await bot.send_message(alice.id, "dm")
            clock.advance(1)
            await bot.send_message(alice.id, "dm")
            # Unlimited methods stay available while limited.
            assert (await bot.get_me()).is_bot
            await bot.get_chat(group.id)
