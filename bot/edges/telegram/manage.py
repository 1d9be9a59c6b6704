"""/endgame (creator or admin, with a confirm button) and /takeover N in a group."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update

from bot.edges.context import Context
from bot.edges.telegram import (
    chat_lang,
    edit_query_message,
    group_command,
    is_admin,
    reply,
    service,
)
from bot.edges.telegram.joining import display_name
from bot.i18n import t
from bot.service.live import Game
from bot.table import Answer
from bot.views.answers import Reply, reply_in
from bot.views.codec import EndButton
from bot.views.names import shown


async def _may_manage(context: Context, game: Game, user_id: int) -> bool:
    return user_id == game.table.rec.creator_id or await is_admin(
        context, game.table.rec.chat_id, user_id
    )


async def endgame_cmd(update: Update, context: Context) -> None:
    found = await group_command(update, context, "endgame.private")
    user = update.effective_user
    if found is None or user is None:
        return
    msg, chat, lang = found
    svc = service(context)
    thread = msg.message_thread_id if msg.is_topic_message else None
    game = await svc.open_game_in(chat.id, thread)
    if game is None:
        await reply(context, msg, t(lang, "endgame.none"))
        return
    if not await _may_manage(context, game, user.id):
        await reply(context, msg, t(lang, "endgame.refused"))
        return
    if game.table.rec.status == "lobby":
        await context.bot_data.chats.end_game(game, shown(display_name(user)))
        return
    hand = game.table.match.hand_number if game.table.match else 0
    yes = EndButton(True, game.table.rec.id, hand).pack()
    no = EndButton(False, game.table.rec.id, hand).pack()
    markup = InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(t(lang, "btn.end_yes"), callback_data=yes),
                InlineKeyboardButton(t(lang, "btn.end_no"), callback_data=no),
            ]
        ]
    )
    await reply(context, msg, t(lang, "endgame.confirm", n=hand), reply_markup=markup)


async def end_press(update: Update, context: Context, game: Game, button: EndButton) -> Reply:
    """The /endgame question's buttons: only the creator or an admin decides."""
    query = update.callback_query
    assert query is not None
    user = query.from_user
    lang = await chat_lang(context, update)
    if not await _may_manage(context, game, user.id):
        return reply_in(lang, Answer("endgame.refused", alert=True))
    if game.table.rec.status not in ("lobby", "running"):
        text, answer = t(lang, "endgame.none"), Answer("stale")
    elif not button.end:
        text, answer = t(lang, "endgame.kept"), Answer("endgame.kept")
    else:
        done = await context.bot_data.chats.end_game(game, shown(display_name(user)))
        if not done:
            text, answer = t(lang, "endgame.none"), Answer("stale")
        else:
            text, answer = t(lang, "endgame.ended"), Answer("endgame.ended")
    if query.message is not None:
        await edit_query_message(context, query, text)  # the question loses its buttons
    return reply_in(lang, answer)


async def takeover_cmd(update: Update, context: Context) -> None:
    found = await group_command(update, context, "takeover.private")
    if found is None:
        return
    msg, chat, lang = found
    svc = service(context)
    thread = msg.message_thread_id if msg.is_topic_message else None
    game = await svc.open_game_in(chat.id, thread)
    if game is None or game.table.rec.status != "running":
        await reply(context, msg, t(lang, "endgame.none"))
        return
    arg = context.args[0] if context.args else ""
    if arg not in ("1", "2", "3", "4"):  # not isdigit(): "²" and "⑦" pass it, not int()
        await reply(context, msg, t(lang, "takeover.usage"))
        return
    seat = int(arg) - 1
    link = context.bot_data.lobby.takeover_link(game, seat)
    if link is None:
        await reply(context, msg, t(lang, "take.not_free", seat=seat + 1))
        return
    markup = InlineKeyboardMarkup(
        [[InlineKeyboardButton(t(lang, "btn.take", n=seat + 1), url=link)]]
    )
    await reply(context, msg, t(lang, "takeover.link", n=seat + 1), reply_markup=markup)
