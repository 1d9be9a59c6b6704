"""A small PTB app used to drive the fake end to end: commands, buttons, deep links."""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from bot.fake_telegram import FakeTelegram


def counter_keyboard(count: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(f"+1 ({count})", callback_data=f"inc:{count}"),
                InlineKeyboardButton("Alert", callback_data="alert"),
            ],
            [InlineKeyboardButton("Join", url="https://t.me/ShengjiTestBot?start=join_42")],
        ]
    )


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    payload = " ".join(context.args or [])
    assert update.effective_user and update.effective_message
    text = f"Welcome {update.effective_user.first_name}" + (f" [{payload}]" if payload else "")
    await update.effective_message.reply_text(text)


async def newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_chat
    await context.bot.send_message(
        update.effective_chat.id, "Game!", reply_markup=counter_keyboard(0)
    )


async def button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    assert query and query.data and query.message
    if query.data == "alert":
        await query.answer("Careful!", show_alert=True)
        return
    if query.data == "dm":
        await query.answer(url="https://t.me/ShengjiTestBot?start=from_button")
        return
    count = int(query.data.split(":")[1]) + 1
    await query.answer(f"now {count}")
    await query.edit_message_text(f"Game! {count}", reply_markup=counter_keyboard(count))


async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_message and update.effective_message.text
    await update.effective_message.reply_text(f"echo: {update.effective_message.text}")


def build_echo_app(
    world: FakeTelegram, transport: str = "inprocess"
) -> Application[Any, Any, Any, Any, Any, Any]:
    app = world.application_builder(transport).build()  # type: ignore[arg-type]
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CommandHandler("newgame", newgame))
    app.add_handler(CallbackQueryHandler(button))
    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, echo))
    return app
