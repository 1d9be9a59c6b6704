"""/last and /stats: what the group remembers (bot.data.history).

/last in a group shows its previous hand; in a DM, the last hand the person played (in any
group) with their own cards as dealt. /stats in a group shows the group's players and
records; /stats me (or /stats in a DM) the sender's record across groups.
"""

from __future__ import annotations

from telegram import Update
from telegram.constants import ParseMode

from bot.data import history
from bot.edges.context import Context
from bot.edges.telegram import chat_lang, reply, service
from bot.i18n import t
from bot.views import history_text as render


async def last_cmd(update: Update, context: Context) -> None:
    msg, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if msg is None or chat is None or user is None:
        return
    lang = await chat_lang(context, update)
    store = service(context).store
    if chat.type == "private":
        rec = await history.last_hand_of(store, user.id)
        seat = (
            next(
                (i for i, s in enumerate(rec.seats) if s.user_id == user.id and not s.computer),
                None,
            )
            if rec
            else None
        )
        text = render.last_text(lang, rec, seat) if rec else t(lang, "last.none_dm")
    else:
        rec = await history.last_hand(store, chat.id)
        text = render.last_text(lang, rec) if rec else t(lang, "last.none")
    await reply(context, msg, text, parse_mode=ParseMode.HTML)


async def stats_cmd(update: Update, context: Context) -> None:
    msg, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if msg is None or chat is None or user is None:
        return
    lang = await chat_lang(context, update)
    store = service(context).store
    if chat.type == "private" or (context.args and context.args[0].lower() in ("me", "我")):
        p = await history.player_stats(store, user.id)
        text = render.me_text(lang, p.name if p else user.full_name, p)
    else:
        text = render.stats_text(lang, chat.title or "", await history.group_stats(store, chat.id))
    await reply(context, msg, text, parse_mode=ParseMode.HTML)
