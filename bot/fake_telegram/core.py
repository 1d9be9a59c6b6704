"""The in-memory Telegram: one world shared by both transports and the test driver."""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from .api_errors import ApiError, bad_request, forbidden
from .fake_clock import FakeClock
from .limits import COUNTED_METHODS, Accounting, RateLimits
from .objects import JSON, CallbackRecord, Chat, Message, RequestRecord, User
from .params import Params

DEFAULT_TOKEN = "123456789:TEST-fake-token"

# Telegram's default when allowed_updates was never set (or set to []).
DEFAULT_UPDATE_TYPES = frozenset(
    {
        "message",
        "edited_message",
        "channel_post",
        "edited_channel_post",
        "business_connection",
        "business_message",
        "edited_business_message",
        "deleted_business_messages",
        "inline_query",
        "chosen_inline_result",
        "callback_query",
        "shipping_query",
        "pre_checkout_query",
        "purchased_paid_media",
        "poll",
        "poll_answer",
        "my_chat_member",
        "chat_join_request",
        "chat_boost",
        "removed_chat_boost",
    }
)

_COMMAND_RE = re.compile(r"(?<!\S)/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?")

Handler = Callable[["TelegramCore", Params], Awaitable[Any]]


class TelegramCore:
    """Owns all state. Transports call :meth:`handle`; the driver calls the rest."""

    def __init__(
        self,
        *,
        methods: Mapping[str, tuple[str, Handler]],
        token: str = DEFAULT_TOKEN,
        bot_username: str = "ShengjiTestBot",
        bot_name: str = "Shengji",
        clock: FakeClock | None = None,
        rate_limits: RateLimits | None = None,
        privacy_mode: bool = True,
        callback_timeout: float = 15.0,
    ) -> None:
        self.token = token
        # the Bot API methods by lower-case name (``methods.METHODS``: they use this module)
        self.methods = methods
        self.clock = clock or FakeClock()
        self.rate_limits = rate_limits  # None: never answer 429, but still account
        # chat -> until when its counted calls are answered 429 (``flood``)
        self.floods: dict[int, float] = {}
        self.privacy_mode = privacy_mode
        self.callback_timeout = callback_timeout
        self.bot = User(int(token.split(":")[0]), bot_name, username=bot_username, is_bot=True)
        self.users: dict[int, User] = {}
        self.chats: dict[int, Chat] = {}
        self.accounting = Accounting()
        self.log: list[RequestRecord] = []
        self.callbacks: dict[str, CallbackRecord] = {}
        self.commands: dict[tuple[str, str], list[JSON]] = {}
        self.files: dict[str, bytes] = {}
        self.webhook_url = ""
        # what setWebhook gave besides the URL (``webhook.WebhookPoster`` sends with them)
        self.webhook_secret = ""
        self.webhook_connections = 40
        self.allowed_updates: frozenset[str] = DEFAULT_UPDATE_TYPES
        self.updates: list[JSON] = []  # not yet confirmed by an offset
        self.delivered_upto = 0  # highest update_id handed to the bot
        self._update_ids = itertools.count(1)
        self._ids = itertools.count(1001)
        self._supergroup_ids = itertools.count(1_000_000_001)
        self._wakeup = asyncio.Event()
        self.closing = False
        # faults a test may switch on: no call gets an answer (the transports fail as a
        # network does); every edit answers ``true`` (as the Bot API does for inline
        # messages, and some emulators for all) instead of the edited message
        self._unreachable = False
        # the calls that got no answer while unreachable: (method, chat_id)
        self.dropped: list[tuple[str, object]] = []
        self.edits_answer_true = False
        self.inflight = 0
        self.last_activity = time.monotonic()
        # called after every request but getUpdates (the sandbox's page follows the chats)
        self.watchers: list[Callable[[], None]] = []

    # ----------------------------------------------------------------- world building
    def new_id(self) -> int:
        return next(self._ids)

    def add_user(self, first_name: str, **fields: Any) -> User:
        user = User(fields.pop("id", None) or self.new_id(), first_name, **fields)
        self.users[user.id] = user
        self.chats[user.id] = Chat(user.id, "private", user=user)
        return user

    def add_group(
        self, title: str, *, supergroup: bool = False, forum: bool = False, bot_admin: bool = False
    ) -> Chat:
        if supergroup or forum:
            chat_id = -int(f"100{next(self._supergroup_ids):010d}")
            chat = Chat(chat_id, "supergroup", title=title, is_forum=forum)
        else:
            chat = Chat(-self.new_id(), "group", title=title)
        chat.bot_status = "administrator" if bot_admin else "member"
        self.chats[chat.id] = chat
        return chat

    def now(self) -> int:
        return int(self.clock.now())

    # ----------------------------------------------------------------------- updates
    def push_update(self, kind: str, payload: JSON) -> JSON | None:
        """Queue an update unless allowed_updates filters it out (Telegram drops those)."""
        if kind not in self.allowed_updates:
            return None
        update = {"update_id": next(self._update_ids), kind: payload}
        self.updates.append(update)
        self._wakeup.set()
        return update

    def confirm(self, offset: int) -> None:
        if offset < 0:
            self.updates = self.updates[offset:]
        elif offset > 0:
            self.updates = [u for u in self.updates if u["update_id"] >= offset]

    async def wait_for_updates(self, timeout: float) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while not (self.updates or self.closing or self._unreachable or self.webhook_url):
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                return
            self._wakeup.clear()
            try:
                await asyncio.wait_for(self._wakeup.wait(), remaining)
            except TimeoutError:
                return

    @property
    def unreachable(self) -> bool:
        return self._unreachable

    @unreachable.setter
    def unreachable(self, value: bool) -> None:
        """Unreachable: a long poll under way ends now (empty), the next call fails."""
        self._unreachable = value
        self.wake_polls()

    def wake_polls(self) -> None:
        """A long poll under way returns now (with what it has)."""
        self._wakeup.set()

    def close(self) -> None:
        """Release every long poll at once so servers and apps stop promptly."""
        self.closing = True
        self._wakeup.set()

    def idle(self, quiet: float) -> bool:
        """True when every update was confirmed and the bot has been quiet for `quiet` s."""
        quiet_for = time.monotonic() - self.last_activity
        return not self.updates and self.inflight == 0 and quiet_for >= quiet

    # ------------------------------------------------------------------ dispatching
    async def handle(
        self,
        token: str,
        method: str,
        raw: Mapping[str, Any],
        files: Mapping[str, bytes] | None = None,
    ) -> tuple[int, JSON]:
        """Run one Bot API call; returns (HTTP status, response body)."""
        if token != self.token:
            return 401, {"ok": False, "error_code": 401, "description": "Unauthorized"}
        entry = self.methods.get(method.lower())
        if entry is None:
            return 404, {"ok": False, "error_code": 404, "description": "Not Found"}
        name, handler = entry
        params = Params(raw, files)
        record = RequestRecord(self.clock.now(), name, raw.get("chat_id"), dict(raw))
        self.log.append(record)
        polling = name == "getUpdates"
        if not polling:
            self.inflight += 1
        try:
            result = await handler(self, params)
        except ApiError as error:
            record.ok, record.error_code, record.description = False, error.code, error.description
            return error.code, error.to_json()
        finally:
            if not polling:
                self.inflight -= 1
                self.last_activity = time.monotonic()
                for watcher in self.watchers:
                    watcher()
        if self.edits_answer_true and name.startswith("edit"):
            result = True
        record.result = result
        if polling and result:
            self.last_activity = time.monotonic()
        return 200, {"ok": True, "result": result}

    # ------------------------------------------------------------- chat resolution
    def chat(self, chat_id: int | str) -> Chat:
        """Look up a chat the way Telegram does for any method taking chat_id."""
        chat = self._find_chat(chat_id)
        if chat is None:
            raise bad_request("chat not found")
        if chat.migrated_to is not None:
            raise bad_request(
                "group chat was upgraded to a supergroup chat",
                migrate_to_chat_id=chat.migrated_to,
            )
        if chat.is_group and chat.bot_status in {"left", "kicked"}:
            kind = "group chat" if chat.type == "group" else "supergroup chat"
            if chat.bot_status == "kicked":
                raise forbidden(f"bot was kicked from the {kind}")
            raise forbidden(f"bot is not a member of the {kind}")
        return chat

    def writable_chat(self, chat_id: int | str) -> Chat:
        """A chat the bot may post into: private chats need a started, unblocked user."""
        chat = self.chat(chat_id)
        if chat.type == "private" and chat.user is not None:
            if chat.user.blocked:
                raise forbidden("bot was blocked by the user")
            if not chat.user.started:
                raise forbidden("bot can't initiate conversation with a user")
        return chat

    def _find_chat(self, chat_id: int | str) -> Chat | None:
        if isinstance(chat_id, int):
            return self.chats.get(chat_id)
        name = chat_id.lstrip("@").lower()
        for chat in self.chats.values():
            if chat.is_group and (chat.title or "").lower() == name:
                return chat
        return None

    def charge(self, method: str, chat: Chat) -> None:
        """Rate-limit check and accounting for calls that spend a chat's budget."""
        if method not in COUNTED_METHODS:
            return
        now = self.clock.now()
        until = self.floods.get(chat.id)
        if until is not None and now < until:
            wait = max(1, math.ceil(until - now))
            raise ApiError(429, f"Too Many Requests: retry after {wait}", retry_after=wait)
        if self.rate_limits is not None:
            late = self.accounting.retry_after(self.rate_limits, chat.id, chat.is_group, now)
            if late is not None:
                raise ApiError(429, f"Too Many Requests: retry after {late}", retry_after=late)
        self.accounting.record(chat.id, now)

    def flood(self, chat_id: int, seconds: float) -> None:
        """Answer 429 to the chat's counted calls for ``seconds`` (from now)."""
        self.floods[chat_id] = self.clock.now() + seconds

    # ------------------------------------------------------------ messages & people
    def store(self, chat: Chat, sender: User | None, **fields: Any) -> Message:
        message = Message(chat, chat.take_message_id(), sender, self.now(), **fields)
        chat.messages[message.message_id] = message
        return message

    def message(self, chat: Chat, message_id: int | None) -> Message | None:
        found = chat.messages.get(message_id or 0)
        return None if found is None or found.deleted else found

    def command_entities(self, text: str) -> list[JSON]:
        return [
            {"type": "bot_command", "offset": _u16(text[: m.start()]), "length": _u16(m.group())}
            for m in _COMMAND_RE.finditer(text)
        ]

    def bot_sees(self, message: Message) -> bool:
        """Privacy mode: in groups a non-admin bot only sees commands, replies, services."""
        chat = message.chat
        if not chat.is_group:
            return True
        if chat.bot_status not in {"member", "administrator"}:
            return False
        if not self.privacy_mode or chat.bot_status == "administrator" or message.service:
            return True
        if message.reply_to is not None and message.reply_to.from_bot:
            return True
        text = message.text or ""
        first = next(iter(message.entities), None)
        if first and first["type"] == "bot_command" and first["offset"] == 0:
            command = text[: first["length"]]
            target = command.partition("@")[2]
            return not target or target.lower() == (self.bot.username or "").lower()
        return False

    def deliver_message(self, message: Message) -> None:
        if self.bot_sees(message):
            self.push_update("message", message.to_json())

    def member_json(self, chat: Chat, user: User, status: str | None = None) -> JSON:
        if status is None:
            status = self.status_of(chat, user)
        data: JSON = {"user": user.to_json(), "status": status}
        if status == "creator":
            data["is_anonymous"] = False
        elif status == "administrator":
            data.update(_ADMIN_RIGHTS)
        elif status == "kicked":
            data["until_date"] = 0
        return data

    def status_of(self, chat: Chat, user: User) -> str:
        if user.id == self.bot.id:
            return chat.bot_status
        if chat.type == "private":
            return "member" if chat.user is user else "left"
        return chat.members.get(user.id, "left")

    def set_bot_status(self, chat: Chat, status: str, by: User) -> None:
        """Change the bot's membership and emit the my_chat_member update Telegram sends."""
        old = chat.bot_status
        if chat.type == "private":
            old = "kicked" if status == "member" else "member"
        else:
            chat.bot_status = status
        self.push_update(
            "my_chat_member",
            {
                "chat": chat.to_json(),
                "from": by.to_json(),
                "date": self.now(),
                "old_chat_member": self.member_json(chat, self.bot, old),
                "new_chat_member": self.member_json(chat, self.bot, status),
            },
        )

    def migrate_group(self, chat: Chat, by: User | None = None) -> Chat:
        """Upgrade a basic group; both service messages reach the bot, like Telegram's."""
        if chat.type != "group" or chat.migrated_to is not None:
            raise ValueError(f"{chat!r} is not a basic group")
        actor = by or self._creator(chat)
        new = self.add_group(chat.title or "", supergroup=True)
        new.members = dict(chat.members)
        new.bot_status = chat.bot_status
        new.migrated_from = chat.id
        old_note = self.store(chat, actor, service={"migrate_to_chat_id": new.id})
        new_note = self.store(new, actor, service={"migrate_from_chat_id": chat.id})
        chat.migrated_to = new.id
        if chat.bot_status in {"member", "administrator"}:
            self.push_update("message", old_note.to_json())
            self.push_update("message", new_note.to_json())
        return new

    def _creator(self, chat: Chat) -> User:
        for user_id, status in chat.members.items():
            if status == "creator":
                return self.users[user_id]
        return next(iter(self.users.values()), self.bot)

    def callback(self, user: User, message: Message, data: str) -> CallbackRecord:
        record = CallbackRecord(str(self.new_id() * 7919), user, message, data, self.clock.now())
        self.callbacks[record.id] = record
        payload = {
            "id": record.id,
            "from": user.to_json(),
            "message": message.to_json(),
            "chat_instance": str(abs(message.chat.id) * 31 + 7),
            "data": data,
        }
        self.push_update("callback_query", payload)
        return record

    def dumps(self, value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)


_ADMIN_RIGHTS: JSON = {
    "can_be_edited": False,
    "is_anonymous": False,
    "can_manage_chat": True,
    "can_delete_messages": True,
    "can_manage_video_chats": True,
    "can_restrict_members": True,
    "can_promote_members": False,
    "can_change_info": True,
    "can_invite_users": True,
    "can_post_stories": False,
    "can_edit_stories": False,
    "can_delete_stories": False,
    "can_pin_messages": True,
    "can_manage_topics": True,
}


def _u16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2
