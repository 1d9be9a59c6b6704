"""Every inline button: where a tap goes.

A press is parsed (``bot.codec``), routed by its kind, and answered exactly once,
whatever happens; forged or stale data changes nothing and gets a polite answer.

    lobby buttons (leave, +/- computer, start, cancel)  → GameService.lobby.press
    the /endgame question (end, keep playing)           → handlers.manage.end_press
    settings buttons ("cfg|…", no game)                 → handlers.settings.settings_press
    everything else: a hand in a DM, "Next hand"        → GameService.hands.press

Each of those runs one step through ``GameService.change``: lock → engine → save once
→ publish once → arm timers once. The answer never waits for any chat's output.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import TelegramError

from bot import codec
from bot.codec import END_KINDS, LOBBY_KINDS, Kind
from bot.context import Context
from bot.game import Answer, StepFailed
from bot.handlers import chat_lang, describe, is_admin, service
from bot.handlers.manage import end_press
from bot.handlers.settings import settings_press
from bot.i18n import t
from bot.store import database_fault

log = logging.getLogger(__name__)


async def on_callback(update: Update, context: Context) -> None:
    query = update.callback_query
    if query is None:
        return
    try:
        answer = await _route(update, context)
    except StepFailed:  # logged with the game's id; the game is as it was saved
        answer = Answer(t(await chat_lang(context, update), "error.undone"), alert=True)
    except Exception as e:
        if fault := database_fault(e):  # a full disk: one line, no traceback
            log.error("%s failed (%s)", describe(update, context), fault)
        else:
            log.exception("%s failed", describe(update, context))
        answer = Answer(t(await chat_lang(context, update), "error"), alert=True)
    try:
        await query.answer(answer.text[:200] or None, show_alert=answer.alert)
    except TelegramError as e:
        log.info("could not answer callback: %s", e)


async def _route(update: Update, context: Context) -> Answer:
    query = update.callback_query
    assert query is not None
    data = query.data or ""
    if data.startswith("cfg|"):
        return await settings_press(update, context)
    try:
        press = codec.decode(data)
    except codec.BadData:
        return Answer(t(await chat_lang(context, update), "bad_button"))
    svc = service(context)
    game = await svc.get(press.game)
    if game is None:
        return Answer(t(await chat_lang(context, update), "stale"))
    user = query.from_user
    if press.kind in END_KINDS:
        return await end_press(update, context, game, press)
    if press.kind in LOBBY_KINDS:
        boss = press.kind == Kind.LEAVE or user.id == game.rec.creator_id
        admin = not boss and await is_admin(context, game.rec.chat_id, user.id)
        return await svc.lobby.press(game, press, user.id, admin, user.language_code)
    msg = query.message
    dm_message = msg.message_id if msg is not None and msg.chat.type == "private" else None
    return await svc.hands.press(game, press, user.id, user.language_code, dm_message)
