import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.fake_telegram import FakeTelegram


@pytest.mark.parametrize("transport", ["inprocess", "http"])
async def test_get_me_and_send(fake_telegram: FakeTelegram, transport: str) -> None:
    alice = fake_telegram.user("Alice", started=True)
    async with fake_telegram.bot(transport) as bot:
        me = await bot.get_me()
        assert me.username == "ShengjiTestBot"
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Go", callback_data="go")]])
        sent = await bot.send_message(
            alice.id, "<b>hi</b> 👋", parse_mode="HTML", reply_markup=keyboard
        )
        assert sent.text == "hi 👋"
        assert sent.entities[0].type == "bold"
        assert sent.reply_markup == keyboard
    assert fake_telegram.last_message(alice).keyboard() == [[("Go", "go")]]
