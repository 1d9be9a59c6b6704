"""What happens to the group itself: upgraded to a supergroup, the bot removed or added."""

from __future__ import annotations

from telegram import Update
from telegram.ext import ContextTypes

from bot.handlers import service


async def on_migrate(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Both service messages of an upgrade land here (old chat: ``migrate_to_chat_id``,
    new chat: ``migrate_from_chat_id``); moving twice is harmless."""
    msg = update.effective_message
    if msg is None:
        return
    if msg.migrate_to_chat_id:
        old, new = msg.chat.id, msg.migrate_to_chat_id
    elif msg.migrate_from_chat_id:
        old, new = msg.migrate_from_chat_id, msg.chat.id
    else:
        return
    await service(context).migrate_chat(old, new)
