"""/settings (alias /lang) in a group: the group's language, rules and pace, every option
of RULES.md 11–12 one screen each (bot.data.options); /startlevel <rank> (hidden shortcut).

Group admins change settings, and so does the creator of the group's open lobby (their
game takes the rules). A change reaches a lobby that has not started; a running match keeps
the rules it started with (the screen shows them when they differ). The language applies
at once. Presses carry ``cfg|<option>|<value>``; anything else is answered and changes
nothing.
"""

from __future__ import annotations

from telegram import InlineKeyboardMarkup, Update
from telegram.constants import ParseMode

from bot.data import options
from bot.data.saved import ChatSettings
from bot.edges.context import Context
from bot.edges.telegram import (
    chat_lang,
    edit_query_message,
    group_command,
    is_admin,
    reply,
    service,
)
from bot.i18n import LANGS, t
from bot.service.game import GameService
from bot.table import Answer
from bot.views import settings_screens as screens
from bot.views.answers import Reply, reply_in
from bot.views.card_labels import rank_label
from bot.views.codec import SettingsButton
from engine.cards import NotationError, parse_rank
from engine.rules import RuleSet


def running_rules(svc: GameService, chat_id: int) -> RuleSet | None:
    """The rules of the group's match in play, if any."""
    for game in svc.games.values():
        if (
            game.table.rec.chat_id == chat_id
            and game.table.rec.status == "running"
            and game.table.match
        ):
            return game.table.match.rules
    return None


def _home(svc: GameService, lang: str, s: ChatSettings) -> tuple[str, InlineKeyboardMarkup]:
    rules = options.group_rules(s)
    text = screens.home_text(lang, s, rules, svc.settings, running_rules(svc, s.chat_id))
    return text, screens.home_keyboard(lang, s)


def _screen(
    svc: GameService, lang: str, s: ChatSettings, code: str
) -> tuple[str, InlineKeyboardMarkup]:
    opt = options.BY_CODE[code]
    value = options.value_of(opt, s, options.group_rules(s), svc.settings)
    return screens.option_text(lang, opt, value), screens.option_keyboard(lang, opt, value)


async def _may_change(context: Context, chat_id: int, user_id: int) -> bool:
    svc = service(context)
    creator = any(
        g.table.rec.chat_id == chat_id
        and g.table.rec.status == "lobby"
        and g.table.rec.creator_id == user_id
        for g in svc.games.values()
    )
    return creator or await is_admin(context, chat_id, user_id)


async def settings_cmd(update: Update, context: Context) -> None:
    found = await group_command(update, context, "settings.private")
    if found is None:
        return
    msg, chat, lang = found
    svc = service(context)
    text, markup = _home(svc, lang, await context.bot_data.chats.settings(chat.id))
    await reply(context, msg, text, reply_markup=markup, parse_mode=ParseMode.HTML)


async def settings_press(update: Update, context: Context, button: SettingsButton) -> Reply:
    query, chat = update.callback_query, update.effective_chat
    assert query is not None
    lang = await chat_lang(context, update)
    key, value = button.key, button.value
    if chat is None or chat.type == "private":
        return reply_in(lang, Answer("bad_button"))
    if key == "open" and value not in options.BY_CODE:
        return reply_in(lang, Answer("bad_button"))
    if not await _may_change(context, chat.id, query.from_user.id):
        return reply_in(lang, Answer("settings.admins_only", alert=True))
    svc = service(context)
    s = await context.bot_data.chats.settings(chat.id)
    answer = Answer()
    screen: str | None = value if key == "open" else None
    if key == "lang":
        if value not in LANGS:
            return reply_in(lang, Answer("bad_button"))
        s.lang = lang = value
    elif key not in ("open", "home"):
        try:
            s = options.choose(s, key, value)
        except options.Refused as e:
            return reply_in(lang, Answer(f"conflict.{e.reason}", alert=True))
        except ValueError:
            return reply_in(lang, Answer("bad_button"))
        if key in options.BY_CODE and options.BY_CODE[key].multi:
            screen = key  # several values: stay on the option's screen
    if key not in ("open", "home"):
        await context.bot_data.chats.save_settings(s)
        answer = Answer("settings.saved")
    text, markup = _screen(svc, lang, s, screen) if screen else _home(svc, lang, s)
    if query.message is not None:
        await edit_query_message(
            context, query, text, reply_markup=markup, parse_mode=ParseMode.HTML
        )
    return reply_in(lang, answer)


async def startlevel_cmd(update: Update, context: Context) -> None:
    """Hidden: /startlevel <rank> sets the level both teams start new matches at."""
    found = await group_command(update, context, "settings.private")
    user = update.effective_user
    if found is None or user is None:
        return
    msg, chat, lang = found
    if not await _may_change(context, chat.id, user.id):
        await reply(context, msg, t(lang, "settings.admins_only"))
        return
    try:
        level = parse_rank(context.args[0]) if context.args else None
    except NotationError:
        level = None
    if level is None:
        await reply(context, msg, t(lang, "startlevel.usage"))
        return
    try:
        s = options.choose(await context.bot_data.chats.settings(chat.id), "sl", str(level))
    except options.Refused as e:
        await reply(context, msg, t(lang, f"conflict.{e.reason}"))
        return
    await context.bot_data.chats.save_settings(s)
    await reply(context, msg, t(lang, "startlevel.saved", level=rank_label(level)))
