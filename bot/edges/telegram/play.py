"""Every inline button: where a tap goes.

A press is parsed completely into its button family (``bot.views.codec.parse``) before
anything is locked, routed by the family, and answered exactly once, whatever happens;
data this bot did not make is answered "unknown button" here, stale data by the table,
and neither changes anything.

    LobbyButton (leave, +/- computer, start, cancel)    → GameService.lobby.press
    EndButton (the /endgame question)                   → handlers.manage.end_press
    SettingsButton ("cfg|…", no game)                   → handlers.settings.settings_press
    a DM hand's buttons, the group's "Next hand"        → GameService.hands.press

Each of those runs one step through ``GameService.change``: lock → engine → save once
→ publish once → arm timers once. The answer never waits for any chat's output.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import TelegramError

from bot.data.store import database_fault
from bot.edges.context import Context
from bot.edges.telegram import chat_lang, describe, is_admin
from bot.edges.telegram.manage import end_press
from bot.edges.telegram.settings import settings_press
from bot.service.live import StepFailed
from bot.table import Answer
from bot.views import codec
from bot.views.answers import Reply, reply_in
from bot.views.codec import EndButton, Kind, LobbyButton, SettingsButton

log = logging.getLogger(__name__)


async def on_callback(update: Update, context: Context) -> None:
    query = update.callback_query
    if query is None:
        return
    try:
        said = await _route(update, context)
    except StepFailed:  # logged with the game's id; the game is as it was saved
        lang = await chat_lang(context, update)
        said = reply_in(lang, Answer("error.undone", alert=True))
    except Exception as e:
        if fault := database_fault(e):  # a full disk: one line, no traceback
            log.error("%s failed (%s)", describe(update, context), fault)
        else:
            log.exception("%s failed", describe(update, context))
        said = reply_in(await chat_lang(context, update), Answer("error", alert=True))
    try:
        await query.answer(said.text[:200] or None, show_alert=said.alert)
    except TelegramError as e:
        log.info("could not answer callback: %s", e)


async def _route(update: Update, context: Context) -> Reply:
    """The press's answer in the reader's words: a lobby's in the group's language, a
    seat's in the presser's, the rest in the chat's."""
    query = update.callback_query
    assert query is not None
    try:
        button = codec.parse(query.data)
    except codec.BadData:
        return reply_in(await chat_lang(context, update), Answer("bad_button"))
    if isinstance(button, SettingsButton):
        return await settings_press(update, context, button)
    parts = context.bot_data.parts  # read once: the rest are plain attributes
    svc = parts.service
    # a press on a message of an ended game changes nothing: the game is read from the
    # disk and stays there (``detached``), answered as the table answers it (stale)
    game = await svc.read(button.game)
    if game is None:
        return reply_in(await chat_lang(context, update), Answer("stale"))
    user = query.from_user
    group, presser = game.table.rec.lang, game.table.rec.user_lang(user.id, user.language_code)
    match button:
        case EndButton():  # closes the question; changes a game only while it runs
            return await end_press(update, context, game, button)
        case LobbyButton() if game.detached:
            return reply_in(group, Answer("stale"))  # a lobby's answers: the group's words
        case _ if game.detached:
            return reply_in(presser, Answer("stale"))
        case LobbyButton():
            boss = button.kind == Kind.LEAVE or user.id == game.table.rec.creator_id
            admin = not boss and await is_admin(context, game.table.rec.chat_id, user.id)
            answer = await parts.lobby.press(game, button.command(user.id, admin))
            return reply_in(group, answer)
        case _:
            msg = query.message
            private = msg is not None and msg.chat.type == "private"
            dm_message = msg.message_id if msg is not None and private else None
            command = button.command(user.id, user.language_code)
            return reply_in(presser, await parts.hands.press(game, command, dm_message))
