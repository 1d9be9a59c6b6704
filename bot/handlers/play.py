"""Every inline button: lobby buttons in the group, hand buttons in the DMs.

Each press is answered exactly once, whatever happens; forged or stale data changes
nothing and gets a polite answer.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot import codec
from bot.game import Answer
from bot.handlers import chat_lang, is_admin, service
from bot.handlers.manage import end_press
from bot.handlers.settings import settings_press
from bot.i18n import t

log = logging.getLogger(__name__)
LOBBY_KINDS = frozenset("LCRSX")


async def on_callback(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    if query is None:
        return
    try:
        answer = await _handle(update, context)
    except Exception:
        log.exception("callback %r failed", query.data)
        answer = Answer(t(await chat_lang(context, update), "error"), alert=True)
    try:
        await query.answer(answer.text[:200] or None, show_alert=answer.alert, url=answer.url)
    except TelegramError as e:
        log.info("could not answer callback: %s", e)


async def _handle(update: Update, context: ContextTypes.DEFAULT_TYPE) -> Answer:
    query = update.callback_query
    assert query is not None
    data = query.data or ""
    if data.startswith("cfg|"):
        return await settings_press(update, context)
    lang = await chat_lang(context, update)
    try:
        press = codec.decode(data)
    except codec.BadData:
        return Answer(t(lang, "bad_button"))
    svc = service(context)
    game = await svc.get(press.game)
    if game is None:
        return Answer(t(lang, "stale"))
    user = query.from_user
    if press.kind in "EK":
        return await end_press(update, context, game, press)
    if press.kind in LOBBY_KINDS:
        admin = False
        if press.kind != "L" and user.id != game.rec.creator_id:
            admin = await is_admin(context, game.rec.chat_id, user.id)
        async with game.lock:
            return await svc.lobby_press(game, press, user.id, admin, user.language_code)
    async with game.lock:
        return await svc.hand_press(game, press, user.id, user.language_code)
