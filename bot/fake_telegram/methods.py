"""Bot API methods. Each handler validates like Telegram, then mutates the core."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from .api_errors import NOT_MODIFIED, QUERY_TOO_OLD, ApiError, bad_request
from .core import DEFAULT_UPDATE_TYPES, TelegramCore
from .html import parse_html
from .objects import JSON, Chat, Message
from .params import Params

MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_ANSWER = 200
MAX_BUTTONS = 100
MAX_ROW = 8
_COMMAND_NAME = re.compile(r"^[a-z0-9_]{1,32}$")

Handler = Callable[[TelegramCore, Params], Awaitable[Any]]
METHODS: dict[str, tuple[str, Handler]] = {}


def api(name: str) -> Callable[[Handler], Handler]:
    def register(func: Handler) -> Handler:
        METHODS[name.lower()] = (name, func)  # Telegram method names are case-insensitive
        return func

    return register


# ------------------------------------------------------------------------ helpers
def formatted(
    core: TelegramCore, p: Params, field: str, limit: int, mode_field: str = "parse_mode"
) -> tuple[str, list[JSON]]:
    """Text after entity parsing, checked against Telegram's limits."""
    raw = p.str(field) or ""
    mode = (p.str(mode_field) or "").strip()
    if mode.upper() == "HTML":
        text, entities = parse_html(raw)
    elif mode:
        if mode not in {"Markdown", "MarkdownV2"}:
            raise bad_request("unsupported parse_mode")
        raise bad_request(f"the fake Telegram does not implement parse_mode {mode}")
    else:
        entity_field = "entities" if field == "text" else "caption_entities"
        text, entities = raw, p.json(entity_field) or []
    if field == "text" and not text.strip():
        raise bad_request("message text is empty")
    if len(text) > limit:
        raise bad_request(
            "message is too long" if field == "text" else "message caption is too long"
        )
    return text, entities


def inline_markup(p: Params) -> tuple[JSON | None, JSON | None]:
    """Split reply_markup into (inline keyboard, other keyboard), validating the former."""
    markup = p.json("reply_markup", "reply keyboard markup JSON object")
    if markup is None:
        return None, None
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" not in markup:
        return None, markup
    rows = markup["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        raise bad_request(
            'can\'t parse inline keyboard button: field "inline_keyboard" must be an Array'
        )
    if sum(len(r) for r in rows) > MAX_BUTTONS or any(len(r) > MAX_ROW for r in rows):
        raise bad_request("too many inline keyboard buttons")
    for row in rows:
        for button in row:
            check_button(button)
    # Telegram drops empty rows when echoing the keyboard back.
    return {"inline_keyboard": [r for r in rows if r]}, None


def check_button(button: Any) -> None:
    if not isinstance(button, dict) or not isinstance(button.get("text"), str):
        raise bad_request("can't parse inline keyboard button: Text must be a String")
    if not button["text"].strip():
        raise bad_request("BUTTON_TEXT_INVALID")
    if button.get("style", "primary") not in ("primary", "success", "danger"):
        raise bad_request("can't parse inline keyboard button: unknown style")
    if "callback_data" in button:
        size = len(str(button["callback_data"]).encode("utf-8"))
        if not 1 <= size <= 64:
            raise bad_request("BUTTON_DATA_INVALID")
    elif "url" in button:
        if not re.match(r"^(https?|tg)://\S+$", str(button["url"])):
            raise bad_request("BUTTON_URL_INVALID")
    elif not any(k not in ("text", "style") for k in button):
        raise bad_request(
            "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
        )


def thread_for(chat: Chat, p: Params, reply_to: Message | None) -> int | None:
    thread_id = p.int("message_thread_id")
    if thread_id is None:
        return reply_to.thread_id if reply_to is not None else None
    if not chat.is_forum or thread_id not in chat.topics:
        raise bad_request("message thread not found")
    return thread_id


def reply_target(core: TelegramCore, chat: Chat, p: Params) -> Message | None:
    reply = p.json("reply_parameters") or {}
    message_id = reply.get("message_id") or p.int("reply_to_message_id")
    if message_id is None:
        return None
    target = core.message(chat, int(message_id))
    if target is None and not reply.get("allow_sending_without_reply"):
        raise bad_request("message to be replied not found")
    return target


def editable(core: TelegramCore, p: Params, method: str) -> Message:
    if p.has("inline_message_id"):
        raise bad_request("the fake Telegram does not implement inline messages")
    chat = core.writable_chat(p.chat_id())
    core.charge(method, chat)
    message = core.message(chat, p.int("message_id"))
    if message is None:
        raise bad_request("message to edit not found")
    if not message.from_bot:
        raise bad_request("message can't be edited")
    return message


def file_id_for(content: bytes) -> str:
    return "AgAC" + hashlib.sha1(content).hexdigest()


# --------------------------------------------------------------------- bot & setup
@api("getMe")
async def get_me(core: TelegramCore, p: Params) -> JSON:
    return {
        **core.bot.to_json(),
        "can_join_groups": True,
        "can_read_all_group_messages": not core.privacy_mode,
        "supports_inline_queries": False,
    }


@api("getUpdates")
async def get_updates(core: TelegramCore, p: Params) -> list[JSON]:
    if core.webhook_url:
        raise ApiError(
            409,
            "Conflict: can't use getUpdates method while webhook is active; "
            "use deleteWebhook to delete the webhook first",
        )
    allowed = p.json("allowed_updates")
    if allowed is not None:
        core.allowed_updates = frozenset(allowed) or DEFAULT_UPDATE_TYPES
    core.confirm(p.int("offset", 0) or 0)
    limit = min(max(p.int("limit", 100) or 100, 1), 100)
    await core.wait_for_updates(max(p.float("timeout", 0) or 0, 0))
    batch = core.updates[:limit]
    if batch:
        core.delivered_upto = max(core.delivered_upto, batch[-1]["update_id"])
    return batch


@api("setWebhook")
async def set_webhook(core: TelegramCore, p: Params) -> bool:
    core.webhook_url = p.str("url") or ""
    core.webhook_secret = p.str("secret_token") or ""
    core.webhook_connections = min(max(p.int("max_connections", 40) or 40, 1), 100)
    core.wake_polls()  # a long poll under way ends; the next one is refused (409)
    if p.bool("drop_pending_updates"):
        core.updates.clear()
    return True


@api("deleteWebhook")
async def delete_webhook(core: TelegramCore, p: Params) -> bool:
    core.webhook_url = ""
    if p.bool("drop_pending_updates"):
        core.updates.clear()
    return True


@api("getWebhookInfo")
async def get_webhook_info(core: TelegramCore, p: Params) -> JSON:
    return {
        "url": core.webhook_url,
        "has_custom_certificate": False,
        "pending_update_count": len(core.updates),
    }


@api("close")
async def close(core: TelegramCore, p: Params) -> bool:
    return True


@api("logOut")
async def log_out(core: TelegramCore, p: Params) -> bool:
    return True


def _scope_key(p: Params) -> tuple[str, str]:
    scope = p.json("scope") or {"type": "default"}
    return json.dumps(scope, sort_keys=True), p.str("language_code") or ""


@api("setMyCommands")
async def set_my_commands(core: TelegramCore, p: Params) -> bool:
    commands = p.json("commands") or []
    if len(commands) > 100:
        raise bad_request("too many commands")
    for command in commands:
        if not _COMMAND_NAME.match(str(command.get("command", ""))):
            raise bad_request("BOT_COMMAND_INVALID")
        if not 1 <= len(str(command.get("description", "")).strip()) <= 256:
            raise bad_request("command description must be non-empty")
    core.commands[_scope_key(p)] = [
        {"command": c["command"], "description": c["description"]} for c in commands
    ]
    return True


@api("getMyCommands")
async def get_my_commands(core: TelegramCore, p: Params) -> list[JSON]:
    return core.commands.get(_scope_key(p), [])


@api("deleteMyCommands")
async def delete_my_commands(core: TelegramCore, p: Params) -> bool:
    core.commands.pop(_scope_key(p), None)
    return True


# --------------------------------------------------------------------- messages
@api("sendMessage")
async def send_message(core: TelegramCore, p: Params) -> JSON:
    chat = core.writable_chat(p.chat_id())
    core.charge("sendMessage", chat)
    text, entities = formatted(core, p, "text", MAX_TEXT)
    return store_sent(core, chat, p, text=text, entities=entities)


def store_sent(core: TelegramCore, chat: Any, p: Params, **content: Any) -> JSON:
    """Store a message the bot sent (markup, reply and topic from the request)."""
    inline, other = inline_markup(p)
    reply_to = reply_target(core, chat, p)
    message = core.store(
        chat,
        core.bot,
        reply_markup=inline,
        reply_keyboard=other,
        reply_to=reply_to,
        thread_id=thread_for(chat, p, reply_to),
        **content,
    )
    return message.to_json()


@api("sendPhoto")
async def send_photo(core: TelegramCore, p: Params) -> JSON:
    chat = core.writable_chat(p.chat_id())
    core.charge("sendPhoto", chat)
    photo = p.str("photo")
    if "photo" in p.files:  # a direct upload is a multipart part named after the field
        content = p.files["photo"]
    elif not photo:
        raise bad_request("there is no photo in the request")
    elif photo.startswith("attach://"):
        attached = p.files.get(photo.removeprefix("attach://"))
        if attached is None:
            raise bad_request("wrong file identifier/HTTP URL specified")
        content = attached
    else:
        content = photo.encode("utf-8")  # a file_id or URL: keep the reference itself
    file_id = file_id_for(content)
    core.files[file_id] = content
    caption: str | None = None
    caption_entities: list[JSON] = []
    if p.has("caption"):
        caption, caption_entities = formatted(core, p, "caption", MAX_CAPTION)
    sizes = [
        {
            "file_id": file_id,
            "file_unique_id": file_id[-16:],
            "width": 320,
            "height": 320,
            "file_size": len(content),
        }
    ]
    return store_sent(
        core, chat, p, photo=sizes, caption=caption, caption_entities=caption_entities
    )


@api("editMessageText")
async def edit_message_text(core: TelegramCore, p: Params) -> JSON:
    message = editable(core, p, "editMessageText")
    if message.text is None:
        raise bad_request("there is no text in the message to edit")
    text, entities = formatted(core, p, "text", MAX_TEXT)
    # Omitting reply_markup removes the keyboard, exactly as in Telegram.
    inline, _ = inline_markup(p)
    if (text, entities, inline) == (message.text, message.entities, message.reply_markup):
        raise bad_request(NOT_MODIFIED)
    message.text, message.entities, message.reply_markup = text, entities, inline
    message.edit_date = core.now()
    return message.to_json()


@api("editMessageCaption")
async def edit_message_caption(core: TelegramCore, p: Params) -> JSON:
    message = editable(core, p, "editMessageCaption")
    if message.photo is None:
        raise bad_request("there is no caption in the message to edit")
    caption, entities = formatted(core, p, "caption", MAX_CAPTION)
    inline, _ = inline_markup(p)
    current = (message.caption or "", message.caption_entities, message.reply_markup)
    if (caption, entities, inline) == current:
        raise bad_request(NOT_MODIFIED)
    message.caption, message.caption_entities, message.reply_markup = caption, entities, inline
    message.edit_date = core.now()
    return message.to_json()


@api("editMessageReplyMarkup")
async def edit_message_reply_markup(core: TelegramCore, p: Params) -> JSON:
    message = editable(core, p, "editMessageReplyMarkup")
    inline, _ = inline_markup(p)
    if inline == message.reply_markup:
        raise bad_request(NOT_MODIFIED)
    message.reply_markup = inline
    message.edit_date = core.now()
    return message.to_json()


@api("deleteMessage")
async def delete_message(core: TelegramCore, p: Params) -> bool:
    chat = core.chat(p.chat_id())
    core.charge("deleteMessage", chat)
    message = core.message(chat, p.int("message_id"))
    if message is None:
        raise bad_request("message to delete not found")
    own_or_private = message.from_bot or chat.type == "private"
    if not own_or_private and chat.bot_status != "administrator":
        raise bad_request("message can't be deleted")
    if core.clock.now() - message.date > 48 * 3600 and not own_or_private:
        raise bad_request("message can't be deleted for everyone")
    message.deleted = True
    chat.pinned = [m for m in chat.pinned if m != message.message_id]
    return True


@api("sendChatAction")
async def send_chat_action(core: TelegramCore, p: Params) -> bool:
    core.writable_chat(p.chat_id())
    if not p.has("action"):
        raise bad_request("action is empty")
    return True


# ------------------------------------------------------------------- pins
@api("pinChatMessage")
async def pin_chat_message(core: TelegramCore, p: Params) -> bool:
    chat = core.writable_chat(p.chat_id())
    core.charge("pinChatMessage", chat)
    if chat.is_group and chat.bot_status != "administrator":
        raise bad_request("not enough rights to manage pinned messages in the chat")
    message = core.message(chat, p.int("message_id"))
    if message is None:
        raise bad_request("message to pin not found")
    chat.pinned = [m for m in chat.pinned if m != message.message_id] + [message.message_id]
    # The client shows "bot pinned ..."; the bot gets no update for its own action.
    core.store(chat, core.bot, service={"pinned_message": message.to_json(with_reply=False)})
    return True


@api("unpinChatMessage")
async def unpin_chat_message(core: TelegramCore, p: Params) -> bool:
    chat = core.writable_chat(p.chat_id())
    core.charge("unpinChatMessage", chat)
    if chat.is_group and chat.bot_status != "administrator":
        raise bad_request("not enough rights to manage pinned messages in the chat")
    message_id = p.int("message_id") or (chat.pinned[-1] if chat.pinned else None)
    if message_id is None or message_id not in chat.pinned:
        raise bad_request("message to unpin not found")
    chat.pinned.remove(message_id)
    return True


# ------------------------------------------------------------------- chats
@api("getChat")
async def get_chat(core: TelegramCore, p: Params) -> JSON:
    chat = core.chat(p.chat_id())
    data: JSON = {
        **chat.to_json(),
        "accent_color_id": 0,
        "max_reaction_count": 11,
        "accepted_gift_types": {
            "unlimited_gifts": False,
            "limited_gifts": False,
            "unique_gifts": False,
            "premium_subscription": False,
            "gifts_from_channels": False,
        },
    }
    pinned = core.message(chat, chat.pinned[-1]) if chat.pinned else None
    if pinned is not None:
        data["pinned_message"] = pinned.to_json(with_reply=False)
    return data


def _member_user(core: TelegramCore, p: Params) -> Any:
    user_id = p.int("user_id")
    if user_id == core.bot.id:
        return core.bot
    user = core.users.get(user_id or 0)
    if user is None:
        raise bad_request("user not found")
    return user


@api("getChatMember")
async def get_chat_member(core: TelegramCore, p: Params) -> JSON:
    chat = core.chat(p.chat_id())
    return core.member_json(chat, _member_user(core, p))


@api("getChatAdministrators")
async def get_chat_administrators(core: TelegramCore, p: Params) -> list[JSON]:
    chat = core.chat(p.chat_id())
    if not chat.is_group:
        raise bad_request("there are no administrators in the private chat")
    admins = [
        core.member_json(chat, core.users[uid])
        for uid, status in chat.members.items()
        if status in {"creator", "administrator"}
    ]
    if chat.bot_status == "administrator":
        admins.append(core.member_json(chat, core.bot))
    return admins


@api("getChatMemberCount")
async def get_chat_member_count(core: TelegramCore, p: Params) -> int:
    chat = core.chat(p.chat_id())
    return len(chat.members) + 1 if chat.is_group else 2


# ------------------------------------------------------------------- callbacks
def _deep_link_ok(core: TelegramCore, url: str) -> bool:
    name = re.escape(core.bot.username or "")
    pattern = rf"^(https?://)?(t|telegram)\.me/{name}\?start=[A-Za-z0-9_-]{{1,64}}$"
    return re.match(pattern, url, re.IGNORECASE) is not None


@api("answerCallbackQuery")
async def answer_callback_query(core: TelegramCore, p: Params) -> bool:
    record = core.callbacks.get(p.str("callback_query_id") or "")
    too_old = record is None or core.clock.now() - record.created_at > core.callback_timeout
    if record is None or record.answered or too_old:
        raise bad_request(QUERY_TOO_OLD)
    text = p.str("text")
    if text is not None and len(text) > MAX_ANSWER:
        raise bad_request("MESSAGE_TOO_LONG")
    url = p.str("url")
    if url is not None and not _deep_link_ok(core, url):
        raise bad_request("URL_INVALID")
    record.answered, record.answered_at = True, core.clock.now()
    record.text, record.show_alert, record.url = text, p.bool("show_alert"), url
    record.cache_time = p.int("cache_time")
    return True
