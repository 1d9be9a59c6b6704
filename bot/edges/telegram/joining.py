"""/newgame in a group, /start <payload> in the DM (the deep-link join), lobby buttons."""

from __future__ import annotations

from telegram import Update, User
from telegram.constants import ParseMode

from bot import i18n
from bot.edges.context import Context
from bot.edges.telegram import chat_lang, group_command, is_member, reply, service
from bot.i18n import t
from bot.table import Answer
from bot.views import codec
from bot.views.answers import words
from bot.views.names import clip, shown

ANONYMOUS_ADMIN = 1087968824  # @GroupAnonymousBot


def display_name(user: User) -> str:
    name = user.full_name or user.username or str(user.id)
    return clip(name, 32)


async def newgame(update: Update, context: Context) -> None:
    group = update.effective_chat
    if group is not None and group.type == "channel":
        return
    # the group's settings are read once: its language, and the new game's options
    settings = None
    if group is not None and group.type != "private":
        settings = await context.bot_data.chats.settings(group.id)
    found = await group_command(update, context, "newgame.private", settings)
    if found is None or settings is None:
        return
    msg, chat, lang = found
    user = update.effective_user
    if user is None or msg.sender_chat is not None or user.is_bot or user.id == ANONYMOUS_ADMIN:
        await reply(context, msg, t(lang, "newgame.anonymous"))
        return
    thread = msg.message_thread_id if msg.is_topic_message else None
    game, created = await context.bot_data.lobby.new_game(
        settings, thread, chat.title or "", user.id, lang
    )
    if not created:
        lobby_id = context.bot_data.lobby.lobby_message_id(game)
        await reply(
            context,
            msg,
            t(lang, "newgame.exists"),
            reply_to_message_id=lobby_id or msg.message_id,
        )


async def start(update: Update, context: Context) -> None:
    msg, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if msg is None or chat is None or user is None:
        return
    svc = service(context)
    lang = await chat_lang(context, update)
    if chat.type != "private":
        await reply(context, msg, t(lang, "start.group"))
        return
    payload = context.args[0] if context.args else ""
    if not payload:  # the bot opened (or unblocked): their hands back, else how to play
        games = await context.bot_data.chats.dm_started(user.id)
        for started in games:
            back = t(
                started.table.rec.user_lang(user.id, user.language_code),
                "join.back",
                group=shown(started.table.rec.chat_title or "?"),
            )
            await reply(context, msg, back, parse_mode=ParseMode.HTML)
        if not games:
            await reply(context, msg, t(lang, "help"), parse_mode=ParseMode.HTML)
        return
    try:
        link = codec.parse_link(payload)
    except codec.BadData:
        await reply(context, msg, t(lang, "start.bad_link"))
        return
    game = await svc.get(link.game)
    if game is None:
        await reply(context, msg, t(lang, "join.no_game"))
        return
    lang = game.table.rec.user_lang(user.id, user.language_code)
    group = shown(game.table.rec.chat_title or "?")
    name, code = display_name(user), i18n.normalize(user.language_code)
    seat = 0
    if isinstance(link, codec.OpenLink):
        said = await context.bot_data.chats.open_dm(link.game, user.id)
    elif not await is_member(context, game.table.rec.chat_id, user.id):
        said = Answer("join.not_member")
    elif isinstance(link, codec.TakeLink):
        seat = link.seat
        said = await context.bot_data.lobby.take_over(link.game, seat, user.id, name, code)
        lang = game.table.rec.user_lang(user.id, user.language_code)
    else:
        seat = link.seat
        said = await context.bot_data.lobby.join(link.game, seat, user.id, name, code)
    text = words(lang, said, group=group, seat=seat + 1)
    await reply(context, msg, text, parse_mode=ParseMode.HTML)
