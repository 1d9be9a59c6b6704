"""Who is asking: Telegram's signed Mini App launch data (``initData``).

As the Bot API documents ("Validating data received via the Mini App"): the
data-check-string is every received field but ``hash`` as ``key=value``, sorted by key
and joined with ``\\n``; the secret key is HMAC-SHA256 of the bot token keyed with
``"WebAppData"``; the data is genuine when the hex HMAC-SHA256 of the data-check-string
under that key equals ``hash`` (compared in constant time). ``auth_date`` must be recent.
The ``user`` field (JSON) identifies the person; nothing else does.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import parse_qsl, urlencode

from pydantic import BaseModel, ValidationError

# launch data "from the future" beyond this much clock skew is refused too
FUTURE_SKEW = 60.0


class InitDataError(Exception):
    """Launch data that does not prove who is asking (``reason``: why, for logs and tests)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class WebAppUser(BaseModel):
    """The ``user`` field as Telegram sends it (the fields the bot reads)."""

    id: int
    first_name: str = ""
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = None


class Launch(BaseModel):
    """Launch data proven to come from Telegram for this bot."""

    user: WebAppUser
    auth_date: int
    start_param: str | None = None


def _secret(token: str) -> bytes:
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def _check_string(fields: dict[str, str]) -> bytes:
    return "\n".join(f"{k}={v}" for k, v in sorted(fields.items()) if k != "hash").encode()


def sign(fields: dict[str, str], token: str) -> str:
    """``fields`` as a query string with the ``hash`` Telegram would give them (the
    sandbox's stand-in for Telegram, and tests)."""
    digest = hmac.new(_secret(token), _check_string(fields), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest})


def validate(init_data: str, token: str, *, max_age: float, now: float) -> Launch:
    """The launch data's person, if Telegram signed it for ``token`` within ``max_age``
    seconds of ``now`` (wall-clock); else :class:`InitDataError`."""
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InitDataError("malformed") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise InitDataError("duplicate field")
    received = fields.get("hash", "")
    expected = hmac.new(_secret(token), _check_string(fields), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, received):
        raise InitDataError("bad signature")
    try:
        auth_date = int(fields.get("auth_date", ""))
    except ValueError:
        raise InitDataError("no auth_date") from None
    if now - auth_date > max_age:
        raise InitDataError("expired")
    if auth_date - now > FUTURE_SKEW:
        raise InitDataError("from the future")
    if "user" not in fields:
        raise InitDataError("no user")
    try:
        user = WebAppUser.model_validate_json(fields["user"])
    except ValidationError:
        raise InitDataError("bad user") from None
    return Launch(user=user, auth_date=auth_date, start_param=fields.get("start_param"))
