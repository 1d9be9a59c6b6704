"""Updates as the bot reads them: without the keyboard of the pressed message.

Every press (a callback query) arrives with the whole message it was pressed on,
keyboard included: in a DM that is up to ~40 card buttons, which python-telegram-bot
would turn into objects on every press, the costliest part of reading one. No handler
reads that keyboard, nor the formatting of the message's text (a press carries its own
data; what each message shows is known to its outbox), so both are dropped from the
JSON before PTB builds the update.
:class:`UpdatesRequest` does that for long polling (``getUpdates``), through PTB's
documented hook for reading answers, ``BaseRequest.parse_json_payload``.
"""

from __future__ import annotations

from typing import Any

from bot.edges.metrics import InstrumentedRequest

# what no handler reads of a pressed message: its keyboard and its text's formatting
UNREAD = ("reply_markup", "entities", "caption_entities")


def lean(update: Any) -> Any:
    """The update without the pressed message's keyboard and formatting (changed in
    place)."""
    if isinstance(update, dict):
        query = update.get("callback_query")
        if isinstance(query, dict) and isinstance(query.get("message"), dict):
            for key in UNREAD:
                query["message"].pop(key, None)
    return update


class UpdatesRequest(InstrumentedRequest):
    """The request that fetches updates: counted like every request, and lean."""

    @staticmethod
    def parse_json_payload(payload: bytes) -> dict[str, Any]:
        data = InstrumentedRequest.parse_json_payload(payload)
        result = data.get("result")
        if isinstance(result, list):
            for update in result:
                lean(update)
        return data
