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
from bot.edges.presses import CallbackPress
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
    """A press that arrived as python-telegram-bot's ``Update`` (the webhook's)."""
    if update.callback_query is not None:
        await on_press(CallbackPress.of_update(update), context)


async def on_press(press: CallbackPress, context: Context) -> None:
    """A press (long polling reads it lean: ``bot.edges.presses``), answered at once."""
    try:
        said = await _route(press, context)
    except StepFailed:  # logged with the game's id; the game is as it was saved
        said = reply_in(await chat_lang(context, press), Answer("error.undone", alert=True))
    except Exception as e:
        if fault := database_fault(e):  # a full disk: one line, no traceback
            log.error("%s failed (%s)", describe(press, context), fault)
        else:
            log.exception("%s failed", describe(press, context))
        said = reply_in(await chat_lang(context, press), Answer("error", alert=True))
    try:
        await context.bot.answer_callback_query(
            press.query_id, said.text[:200] or None, show_alert=said.alert
        )
    except TelegramError as e:
        log.info("could not answer callback: %s", e)


async def _route(press: CallbackPress, context: Context) -> Reply:
    """The press's answer in the reader's words: a lobby's in the group's language, a
    seat's in the presser's, the rest in the chat's."""
    try:
        button = codec.parse(press.data)
    except codec.BadData:
        return reply_in(await chat_lang(context, press), Answer("bad_button"))
    if isinstance(button, SettingsButton):
        return await settings_press(press.update(context.bot), context, button)
    parts = context.bot_data.parts  # read once: the rest are plain attributes
    svc = parts.service
    # a press on a message of an ended game changes nothing: the game is read from the
    # disk and stays there (``detached``), answered as the table answers it (stale)
    game = await svc.read(button.game)
    if game is None:
        return reply_in(await chat_lang(context, press), Answer("stale"))
    user_id = press.user_id
    rec = game.table.rec
    match button:
        case EndButton():  # closes the question; changes a game only while it runs
            return await end_press(press.update(context.bot), context, game, button)
        case LobbyButton() if game.detached:
            return reply_in(rec.lang, Answer("stale"))  # a lobby's answers: the group's words
        case _ if game.detached:
            return reply_in(rec.user_lang(user_id, press.language_code), Answer("stale"))
        case LobbyButton():
            boss = button.kind == Kind.LEAVE or user_id == rec.creator_id
            admin = not boss and await is_admin(context, rec.chat_id, user_id)
            answer = await parts.lobby.press(game, button.command(user_id, admin))
            return reply_in(rec.lang, answer)
        case _:
            dm_message = press.message_id if press.chat_type == "private" else None
            command = button.command(user_id, press.language_code)
            answer = await parts.hands.press(game, command, dm_message)
            if not answer.key:  # most presses are answered with nothing to read
                return Reply("", answer.alert)
            return reply_in(rec.user_lang(user_id, press.language_code), answer)
