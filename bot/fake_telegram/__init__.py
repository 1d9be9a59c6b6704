"""A faithful fake Telegram Bot API for offline end-to-end tests. See README.md."""

from .api_errors import ApiError
from .core import DEFAULT_TOKEN, TelegramCore
from .driver import FakeTelegram, SimUser
from .fake_clock import FakeClock
from .html import parse_html, utf16_len
from .limits import RateLimits
from .objects import Button, CallbackRecord, Chat, Message, RequestRecord, User
from .transport_http import HttpServer
from .transport_inprocess import FakeRequest

__all__ = [
    "DEFAULT_TOKEN",
    "ApiError",
    "Button",
    "CallbackRecord",
    "Chat",
    "FakeClock",
    "FakeRequest",
    "FakeTelegram",
    "HttpServer",
    "Message",
    "RateLimits",
    "RequestRecord",
    "SimUser",
    "TelegramCore",
    "User",
    "parse_html",
    "utf16_len",
]
