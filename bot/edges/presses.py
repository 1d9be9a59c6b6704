"""Button presses read lean: python-telegram-bot's custom-update pattern (issue 34).

A press is the bot's most frequent update by far, and PTB's ``Update.de_json`` turns each
into five objects (the update, the callback query, its message, the message's chat, the
person) that the hand path never reads but for five values: ~0.3 ms of a press's CPU.
Long polling (:class:`PressBot`, PTB's ``ExtBot`` with its ``get_updates``) reads an
update that is only a press into a :class:`CallbackPress`; PTB's ``Updater`` puts it on
``Application.update_queue`` as any update, and a ``TypeHandler`` routes it
(``bot.edges.telegram.play.on_press``). Every other update, and every update of the webhook
(PTB's server), is PTB's ``Update`` as before; a press arriving as one is turned into a
``CallbackPress`` by its handler, so there is one press path.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from telegram import Bot, Update
from telegram._utils.defaultvalue import DEFAULT_NONE, DefaultValue
from telegram._utils.types import JSONDict, ODVInput, TimePeriod
from telegram.ext import ExtBot


@dataclass(slots=True, eq=False)
class CallbackPress:
    """A button press (a callback query) as the hot path reads it: who pressed what,
    where; python-telegram-bot's custom-update pattern (it reaches the handlers through
    ``Application.update_queue`` and a ``TypeHandler``).

    Long polling reads presses into these (:class:`PressBot`) instead of PTB's
    ``Update``, whose objects (the update, the query, its message, chat and person:
    ~0.3 ms a press, the most costly step of reading one) no hand press reads. A rare
    path that wants PTB's objects (settings, the /endgame question, the lobby's
    buttons, a log line) builds them from the update's JSON, once: :meth:`update`.
    Updates arriving as PTB's (the webhook) become one by :meth:`of_update`.
    """

    update_id: int
    query_id: str
    user_id: int
    language_code: str | None
    data: str | None
    chat_id: int | None  # of the pressed message (None: an inline message)
    chat_type: str | None
    message_id: int | None
    # the update's JSON (without the pressed message's keyboard), or PTB's Update
    source: dict[str, Any] | Update

    @classmethod
    def of_json(cls, raw: dict[str, Any]) -> CallbackPress | None:
        """The press of an update's JSON; None if it is not only a well-formed press
        (then PTB reads it, and rejects what it must)."""
        query = raw.get("callback_query")
        if len(raw) != 2 or not isinstance(query, dict):
            return None
        user: Any = query.get("from")
        msg: Any = query.get("message")
        chat: Any = msg.get("chat") if isinstance(msg, dict) else None
        try:
            update_id, query_id, user_id = raw["update_id"], query["id"], user["id"]
            lang, data = user.get("language_code"), query.get("data")
            if msg is not None:
                chat_id, chat_type, message_id = chat["id"], chat["type"], msg["message_id"]
            else:
                chat_id = chat_type = message_id = None
        except (KeyError, TypeError, AttributeError):
            return None
        ints = (update_id, user_id) + ((chat_id, message_id) if msg is not None else ())
        strs = (query_id,) + ((chat_type,) if msg is not None else ())
        if not all(type(v) is int for v in ints) or not all(type(v) is str for v in strs):
            return None
        if not (lang is None or type(lang) is str) or not (data is None or type(data) is str):
            return None
        return cls(update_id, query_id, user_id, lang, data, chat_id, chat_type, message_id, raw)

    @classmethod
    def of_update(cls, update: Update) -> CallbackPress:
        """A press that arrived as PTB's ``Update`` (it must hold a callback query)."""
        query = update.callback_query
        assert query is not None
        msg = query.message
        return cls(
            update.update_id,
            query.id,
            query.from_user.id,
            query.from_user.language_code,
            query.data,
            msg.chat.id if msg is not None else None,
            msg.chat.type if msg is not None else None,
            msg.message_id if msg is not None else None,
            update,
        )

    @property
    def private(self) -> bool:
        return self.chat_type == "private"

    def update(self, bot: Bot) -> Update:
        """PTB's ``Update`` of this press, built from its JSON (the first time only)."""
        if isinstance(self.source, Update):
            return self.source
        self.source = Update.de_json(self.source, bot)
        return self.source


class PressBot(ExtBot[Any]):
    """python-telegram-bot's ``ExtBot``, but ``get_updates`` (PTB's ``Updater`` polls
    with it) reads each update that is only a button press as a :class:`CallbackPress`,
    and every other update as PTB does (``Update.de_json``). The ``Updater`` reads
    nothing of them but ``update_id`` and puts them on ``Application.update_queue``
    (PTB's custom-update pattern: any object may travel there; ``TypeHandler`` routes
    it). The call itself is PTB's getUpdates, parameters and read time-out computed as
    ``Bot.get_updates`` computes them."""

    __slots__ = ()

    async def get_updates(  # type: ignore[override]  # presses are CallbackPress
        self,
        offset: int | None = None,
        limit: int | None = None,
        timeout: TimePeriod | None = None,
        allowed_updates: Sequence[str] | None = None,
        *,
        read_timeout: ODVInput[float] = DEFAULT_NONE,
        write_timeout: ODVInput[float] = DEFAULT_NONE,
        connect_timeout: ODVInput[float] = DEFAULT_NONE,
        pool_timeout: ODVInput[float] = DEFAULT_NONE,
        api_kwargs: JSONDict | None = None,
    ) -> tuple[Update | CallbackPress, ...]:
        data: JSONDict = {
            "timeout": timeout,
            "offset": offset,
            "limit": limit,
            "allowed_updates": allowed_updates,
        }
        if isinstance(read_timeout, DefaultValue):
            base = self._request[0].read_timeout or 0
        else:
            base = read_timeout or 0
        wait = timeout.total_seconds() if isinstance(timeout, dt.timedelta) else timeout or 0
        result = await self._post(
            "getUpdates",
            data,
            read_timeout=base + wait,
            write_timeout=write_timeout,
            connect_timeout=connect_timeout,
            pool_timeout=pool_timeout,
            api_kwargs=api_kwargs,
        )
        return tuple(self._read(raw) for raw in result or ())

    def _read(self, raw: dict[str, Any]) -> Update | CallbackPress:
        press = CallbackPress.of_json(raw)
        if press is not None:
            return press
        update = Update.de_json(raw, self)
        self.insert_callback_data(update)  # as ExtBot's get_updates (a no-op here)
        return update
