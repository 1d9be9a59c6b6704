"""/help (and a bare /start in the DM): how to play; a pointer for anything else in the DM.
/help also says which version of the bot answers."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ParseMode

from bot.edges.context import Context
from bot.edges.telegram import chat_lang, reply
from bot.i18n import t
from bot.infra.version import __version__


async def help_cmd(update: Update, context: Context) -> None:
    msg = update.effective_message
    if msg is None:
        return
    lang = await chat_lang(context, update)
    text = t(lang, "help") + "\n\n" + t(lang, "help.version", version=__version__)
    await reply(context, msg, text, parse_mode=ParseMode.HTML)


async def dm_pointer(update: Update, context: Context) -> None:
    """Plain text or an unknown command in the DM: the game is played with buttons."""
    msg = update.effective_message
    if msg is None:
        return
    lang = await chat_lang(context, update)
    await reply(context, msg, t(lang, "dm.pointer"))
