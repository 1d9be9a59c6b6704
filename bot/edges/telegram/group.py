"""What happens to the group itself: upgraded to a supergroup, the bot removed or added."""

from __future__ import annotations

from telegram import Update

from bot.edges.context import Context


async def on_migrate(update: Update, context: Context) -> None:
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
    await context.bot_data.chats.migrate_chat(old, new)


async def on_my_member(update: Update, context: Context) -> None:
    """The bot's own membership changed. In a group: removed → lobbies cancelled, games
    paused; (re)added or allowed to write again → paused games resume."""
    change = update.my_chat_member
    if change is None or change.chat.type not in ("group", "supergroup"):
        return
    status = change.new_chat_member.status
    if status in ("left", "kicked"):
        await context.bot_data.chats.bot_removed(change.chat.id)
    elif status in ("member", "administrator") or (
        status == "restricted" and getattr(change.new_chat_member, "can_send_messages", False)
    ):
        await context.bot_data.chats.bot_added(change.chat.id)
