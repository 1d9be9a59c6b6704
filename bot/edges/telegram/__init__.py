"""Telegram's update handlers: short functions that parse the update, call GameService,
reply.

Handlers take no locks and touch no store; a reply is handed to the chat's paced
outbox (it never waits for the chat's budget), and membership or admin checks are
cached (``bot.edges.members``).
"""

from __future__ import annotations

from telegram import CallbackQuery, Chat, InlineKeyboardMarkup, Message, Update
from telegram.constants import ParseMode

from bot import i18n
from bot.data.saved import ChatSettings
from bot.edges.context import Context
from bot.edges.members import Members
from bot.edges.presses import CallbackPress
from bot.service.game import GameService
from bot.views import codec
from bot.views.messages import Content


def service(context: Context) -> GameService:
    return context.bot_data.service


def members(context: Context) -> Members:
    return context.bot_data.members


async def chat_lang(
    context: Context, update: Update | CallbackPress, settings: ChatSettings | None = None
) -> str:
    """In a group, the group's language (its setting, which its first game's creator
    chose; else an open game's); in a private chat, and in a group that never had a
    game, the user's Telegram language; else the default. ``settings``: the group's,
    if the caller read them already."""
    svc = service(context)
    if isinstance(update, CallbackPress):
        chat_id, chat_type, user_lang = update.chat_id, update.chat_type, update.language_code
    else:
        chat, user = update.effective_chat, update.effective_user
        chat_id, chat_type = (chat.id, chat.type) if chat is not None else (None, None)
        user_lang = user.language_code if user else None
    group_lang = None
    if chat_id is not None and chat_type != "private":
        if settings is None:
            settings = await context.bot_data.chats.settings(chat_id)
        group_lang = settings.lang
        if group_lang is None:  # a game opened before groups remembered a language
            group_lang = next((g.table.rec.lang for g in await svc.games_in(chat_id)), None)
    return i18n.pick(group_lang, user_lang, svc.settings.default_language)


async def group_command(
    update: Update,
    context: Context,
    private_key: str,
    settings: ChatSettings | None = None,
) -> tuple[Message, Chat, str] | None:
    """The message, chat and language of a command meant for a group (``settings``:
    the group's, if read already). Sent in a private chat it is answered with
    ``private_key`` (what to do instead): None."""
    msg, chat = update.effective_message, update.effective_chat
    if msg is None or chat is None:
        return None
    lang = await chat_lang(context, update, settings)
    if chat.type == "private":
        await reply(context, msg, i18n.t(lang, private_key))
        return None
    return msg, chat, lang


async def is_admin(context: Context, chat_id: int, user_id: int) -> bool:
    return await members(context).is_admin(chat_id, user_id)


async def is_member(context: Context, chat_id: int, user_id: int) -> bool:
    return await members(context).is_member(chat_id, user_id)


async def reply(
    context: Context,
    msg: Message,
    text: str,
    *,
    parse_mode: str | None = None,
    reply_markup: InlineKeyboardMarkup | None = None,
    reply_to_message_id: int | None = None,
) -> None:
    """Reply to ``msg`` (quoting it in a group): handed to the chat's outbox, sent
    before the chat's other messages (the group's table waits) within the chat's
    budget, retried after a flood wait."""
    quote = msg.chat.type != "private"
    target = reply_to_message_id or (msg.message_id if quote else None)
    content = Content(text, reply_markup, html=parse_mode == ParseMode.HTML, reply_to=target)
    thread = msg.message_thread_id if msg.is_topic_message else None
    context.bot_data.outboxes.get(msg.chat_id).post(content, thread_id=thread)


async def edit_query_message(
    context: Context,
    query: CallbackQuery,
    text: str,
    *,
    reply_markup: InlineKeyboardMarkup | None = None,
    parse_mode: str | None = None,
) -> None:
    """Make the pressed message show ``text`` (and ``reply_markup``), in the chat's
    turn; pressing an option already shown changes nothing."""
    msg = query.message
    if msg is None:
        return
    box = context.bot_data.outboxes.get(msg.chat.id)
    key = f"m{msg.message_id}"
    if key not in box.slots:
        box.adopt(key, msg.message_id, oneshot=True)
    # an answer to the person who pressed: before the chat's table (bot/delivery/outbox.py)
    box.put(key, Content(text, reply_markup, parse_mode == ParseMode.HTML), reply=True)


def describe(update: Update | CallbackPress, context: Context) -> str:
    """Which update, where: its id, chat, the chat's open games (a DM: the games its
    person sits in) and the command's name; never names, texts or arguments (they are
    personal data)."""
    parts = [f"update {update.update_id}"]
    if isinstance(update, CallbackPress):
        chat_id, data = update.chat_id, update.data
    else:
        chat = update.effective_chat
        chat_id = chat.id if chat is not None else None
        query = update.callback_query
        data = query.data if query is not None else None
    if chat_id is not None:
        parts.append(f"in chat {chat_id}")
        svc = context.bot_data.service if context.bot_data.running else None
        games = [
            g.table.rec.id
            for g in (svc.games.values() if svc else ())
            if g.table.rec.status in ("lobby", "running")
            and (
                g.table.rec.chat_id == chat_id
                or (chat_id > 0 and g.table.rec.seat_of(chat_id) is not None)
            )
        ]
        if games:
            parts.append("game " + ", ".join(map(str, games)))
    if isinstance(update, CallbackPress) or update.callback_query is not None:
        try:
            press = codec.decode(data)
            parts.append(f"press {press.kind} of game {press.game}")
        except codec.BadData:
            parts.append("a press")
        return " ".join(parts)
    msg: Message | None = update.effective_message
    if msg is not None and (msg.text or "").startswith("/"):
        parts.append("command " + (msg.text or "").split()[0].split("@")[0][:32])
    return " ".join(parts)
