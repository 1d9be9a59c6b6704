"""/settings (alias /lang) in a group: language and rule preset; /startlevel (hidden).

Only group admins change settings. A change also applies to a lobby that has not
started yet; running matches keep the rules they started with.
"""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import ContextTypes

from bot import codec
from bot.game import Answer
from bot.handlers import chat_lang, edit_query_message, group_command, is_admin, reply, service
from bot.i18n import LANGS, t
from bot.render.cards import rank_label
from engine.cards import NotationError, parse_rank
from engine.rules import PRESETS


def _keyboard(lang: str, current_lang: str | None, preset: str) -> InlineKeyboardMarkup:
    langs = [
        InlineKeyboardButton(
            ("✓ " if current_lang == code else "") + t(code, "lang.name"),
            callback_data=codec.settings_data("lang", code),
        )
        for code in LANGS
    ]
    presets = [
        [
            InlineKeyboardButton(
                ("✓ " if preset == p else "") + t(lang, f"preset.{p}"),
                callback_data=codec.settings_data("preset", p),
            )
        ]
        for p in PRESETS
    ]
    return InlineKeyboardMarkup([langs, *presets])


def _text(lang: str, preset: str, start_level: int) -> str:
    return t(
        lang, "settings.text", preset=t(lang, f"preset.{preset}"), level=rank_label(start_level)
    )


async def settings_cmd(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    found = await group_command(update, context, "settings.private")
    if found is None:
        return
    msg, chat, lang = found
    s = await service(context).chats.settings(chat.id)
    await reply(
        context,
        msg,
        _text(lang, s.preset, s.start_level),
        reply_markup=_keyboard(lang, s.lang, s.preset),
    )


async def settings_press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> Answer:
    query, chat = update.callback_query, update.effective_chat
    assert query is not None
    lang = await chat_lang(context, update)
    try:
        key, value = codec.decode_settings(query.data or "")
    except codec.BadData:
        return Answer(t(lang, "bad_button"))
    if chat is None or chat.type == "private":
        return Answer(t(lang, "bad_button"))
    if not await is_admin(context, chat.id, query.from_user.id):
        return Answer(t(lang, "settings.admins_only"), alert=True)
    svc = service(context)
    s = await svc.chats.settings(chat.id)
    if key == "lang" and value in LANGS:
        s.lang = value
    elif key == "preset" and value in PRESETS:
        s.preset = value
    else:
        return Answer(t(lang, "bad_button"))
    await svc.chats.save_settings(s)
    lang = s.lang or lang
    if query.message is not None:
        await edit_query_message(
            context,
            query,
            _text(lang, s.preset, s.start_level),
            reply_markup=_keyboard(lang, s.lang, s.preset),
        )
    return Answer(t(lang, "settings.saved"))


async def startlevel_cmd(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Hidden: /startlevel <rank> sets the level both teams start new matches at."""
    msg, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if msg is None or chat is None or user is None or chat.type == "private":
        return
    lang = await chat_lang(context, update)
    if not await is_admin(context, chat.id, user.id):
        await reply(context, msg, t(lang, "settings.admins_only"))
        return
    try:
        level = parse_rank(context.args[0]) if context.args else None
    except NotationError:
        level = None
    if level is None:
        await reply(context, msg, t(lang, "startlevel.usage"))
        return
    svc = service(context)
    s = await svc.chats.settings(chat.id)
    s.start_level = level
    await svc.chats.save_settings(s)
    await reply(context, msg, t(lang, "startlevel.saved", level=rank_label(level)))
