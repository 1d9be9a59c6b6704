"""The world's nouns: users, chats, messages, callback queries, request records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]


@dataclass
class User:
    id: int
    first_name: str
    username: str | None = None
    last_name: str | None = None
    language_code: str | None = None
    is_bot: bool = False
    started: bool = False  # pressed START (or followed a deep link) in the bot's DM
    blocked: bool = False  # blocked the bot

    def to_json(self) -> JSON:
        data: JSON = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        for key in ("last_name", "username", "language_code"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


@dataclass(frozen=True)
class Button:
    """One inline button as the user sees it."""

    text: str
    data: str | None = None
    url: str | None = None
    web_app: str | None = None  # a Mini App button's address
    style: str | None = None  # its colour (Bot API 9.4): primary, success, danger

    @property
    def target(self) -> str | None:
        return self.data if self.data is not None else self.url


@dataclass
class Message:
    """A message as stored by the fake; always the *current* version (edits mutate it)."""

    chat: Chat
    message_id: int
    sender: User | None
    date: int
    text: str | None = None
    entities: list[JSON] = field(default_factory=list)
    reply_markup: JSON | None = None  # inline keyboards only; Telegram echoes nothing else
    reply_keyboard: JSON | None = None  # ReplyKeyboardMarkup/Remove/ForceReply, not echoed
    thread_id: int | None = None
    reply_to: Message | None = None
    edit_date: int | None = None
    caption: str | None = None
    caption_entities: list[JSON] = field(default_factory=list)
    photo: list[JSON] | None = None
    service: JSON = field(default_factory=dict)  # e.g. migrate_to_chat_id, pinned_message
    deleted: bool = False

    @property
    def from_bot(self) -> bool:
        return self.sender is not None and self.sender.is_bot

    @property
    def chat_id(self) -> int:
        return self.chat.id

    def buttons(self) -> list[list[Button]]:
        """The current inline keyboard as rows of :class:`Button`."""
        rows = (self.reply_markup or {}).get("inline_keyboard", [])
        return [
            [
                Button(
                    b.get("text", ""),
                    b.get("callback_data"),
                    b.get("url"),
                    (b.get("web_app") or {}).get("url"),
                    b.get("style"),
                )
                for b in row
            ]
            for row in rows
        ]

    def keyboard(self) -> list[list[tuple[str, str | None]]]:
        """The current inline keyboard as rows of ``(text, callback_data or url)``."""
        return [[(b.text, b.target) for b in row] for row in self.buttons()]

    def to_json(self, *, with_reply: bool = True) -> JSON:
        data: JSON = {
            "message_id": self.message_id,
            "date": self.date,
            "chat": self.chat.to_json(),
        }
        if self.sender is not None:
            data["from"] = self.sender.to_json()
        if self.thread_id is not None:
            data["message_thread_id"] = self.thread_id
            data["is_topic_message"] = True
        if self.reply_to is not None and with_reply:
            data["reply_to_message"] = self.reply_to.to_json(with_reply=False)
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        if self.text is not None:
            data["text"] = self.text
            if self.entities:
                data["entities"] = self.entities
        if self.photo is not None:
            data["photo"] = self.photo
        if self.caption is not None:
            data["caption"] = self.caption
            if self.caption_entities:
                data["caption_entities"] = self.caption_entities
        if self.reply_markup is not None:
            data["reply_markup"] = self.reply_markup
        data.update(self.service)
        return data

    def __repr__(self) -> str:
        who = "bot" if self.from_bot else (self.sender.first_name if self.sender else "-")
        body = self.text if self.text is not None else self.caption or self.service
        return f"<Message {self.chat.id}/{self.message_id} {who}: {body!r}>"


@dataclass
class Chat:
    id: int
    type: str  # "private" | "group" | "supergroup"
    title: str | None = None
    user: User | None = None  # the other party of a private chat
    is_forum: bool = False
    members: dict[int, str] = field(default_factory=dict)  # user id -> creator|administrator|member
    bot_status: str = "member"  # member | administrator | left | kicked
    migrated_to: int | None = None
    migrated_from: int | None = None
    messages: dict[int, Message] = field(default_factory=dict)
    next_message_id: int = 1
    pinned: list[int] = field(default_factory=list)
    topics: dict[int, str] = field(default_factory=dict)  # message_thread_id -> name

    @property
    def is_group(self) -> bool:
        return self.type in {"group", "supergroup"}

    def to_json(self) -> JSON:
        if self.type == "private" and self.user is not None:
            data: JSON = {"id": self.id, "type": "private", "first_name": self.user.first_name}
            if self.user.last_name:
                data["last_name"] = self.user.last_name
            if self.user.username:
                data["username"] = self.user.username
            return data
        data = {"id": self.id, "type": self.type, "title": self.title}
        if self.is_forum:
            data["is_forum"] = True
        return data

    def take_message_id(self) -> int:
        message_id = self.next_message_id
        self.next_message_id += 1
        return message_id

    def live_messages(self) -> list[Message]:
        return [m for m in self.messages.values() if not m.deleted]

    def __repr__(self) -> str:
        name = self.title or (self.user.first_name if self.user else "?")
        return f"<Chat {self.type} {self.id} {name!r}>"


@dataclass
class CallbackRecord:
    """One button press and how (whether) the bot answered it."""

    id: str
    user: User
    message: Message
    data: str
    created_at: float
    answered: bool = False
    text: str | None = None
    show_alert: bool = False
    url: str | None = None
    cache_time: int | None = None
    answered_at: float | None = None


@dataclass
class RequestRecord:
    """One bot request as Telegram would have seen it."""

    time: float
    method: str
    chat_id: int | str | None
    params: dict[str, Any]
    ok: bool = True
    error_code: int | None = None
    description: str | None = None
    result: Any = None
