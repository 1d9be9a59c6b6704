"""Update handlers: short functions that parse the update, call GameService, answer."""

from __future__ import annotations

from telegram import CallbackQuery, Chat, Message, Update
from telegram.error import BadRequest
from telegram.ext import ContextTypes

from bot import i18n
from bot.game import GameService


def service(context: ContextTypes.DEFAULT_TYPE) -> GameService:
    return context.application.bot_data["service"]


async def chat_lang(context: ContextTypes.DEFAULT_TYPE, update: Update) -> str:
    """The group's language, else the user's Telegram language, else the default."""
    svc = service(context)
    chat = update.effective_chat
    group_lang = None
    if chat is not None and chat.type != "private":
        group_lang = (await svc.store.chat_settings(chat.id)).lang
    user = update.effective_user
    return i18n.pick(
        group_lang, user.language_code if user else None, svc.settings.default_language
    )


async def group_command(
    update: Update, context: ContextTypes.DEFAULT_TYPE, private_key: str
) -> tuple[Message, Chat, str] | None:
    """The message, chat and language of a command meant for a group. Sent in a
    private chat it is answered with ``private_key`` (what to do instead): None."""
    msg, chat = update.effective_message, update.effective_chat
    if msg is None or chat is None:
        return None
    lang = await chat_lang(context, update)
    if chat.type == "private":
        await reply(context, msg, i18n.t(lang, private_key))
        return None
    return msg, chat, lang


async def is_admin(context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int) -> bool:
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except Exception:  # the check is a courtesy: on failure only the creator may act
        return False
    return member.status in ("creator", "administrator")


async def is_member(context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int) -> bool:
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except Exception:  # unknown: let them in rather than lock out a real member
        return True
    return member.status not in ("left", "kicked")


async def pace(context: ContextTypes.DEFAULT_TYPE, chat_id: int) -> None:
    """A group's direct replies take their turn in its outbox's pacing (Telegram's
    ~20 calls a minute per group count replies and edits too)."""
    if chat_id < 0:
        await service(context).outboxes.get(chat_id).pace()


async def reply(context: ContextTypes.DEFAULT_TYPE, msg: Message, text: str, **kwargs: object):
    """``msg.reply_text``, paced in groups."""
    await pace(context, msg.chat_id)
    return await msg.reply_text(text, **kwargs)  # type: ignore[arg-type]


async def edit_query_message(
    context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, text: str, **kwargs: object
) -> None:
    """Edit the pressed message (paced in groups); pressing an option that is already
    shown (the chosen language again, a second tap before the client refreshed)
    changes nothing."""
    if query.message is not None:
        await pace(context, query.message.chat.id)
    try:
        await query.edit_message_text(text, **kwargs)  # type: ignore[arg-type]
    except BadRequest as e:
        if "not modified" not in str(e).lower():
            raise
