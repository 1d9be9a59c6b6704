"""Decoding Bot API parameters the way Telegram does.

PTB sends form fields where strings are raw and everything else is JSON text;
JSON bodies carry native values. Both arrive here as one mapping.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Mapping
from typing import Any

from .api_errors import bad_request


class Params:
    # the methods str, int, float and bool shadow the builtins in this class body, so its
    # annotations name the builtins as builtins.str etc.

    def __init__(
        self, raw: Mapping[builtins.str, Any], files: Mapping[builtins.str, bytes] | None = None
    ) -> None:
        self.raw = dict(raw)
        self.files = dict(files or {})

    def has(self, name: builtins.str) -> builtins.bool:
        return self.raw.get(name) not in (None, "")

    def str(self, name: builtins.str, default: builtins.str | None = None) -> builtins.str | None:
        value = self.raw.get(name)
        if value is None:
            return default
        return value if isinstance(value, str) else json.dumps(value)

    def int(self, name: builtins.str, default: builtins.int | None = None) -> builtins.int | None:
        value = self.raw.get(name)
        if value is None or value == "":
            return default
        try:
            return int(value)
        except (TypeError, ValueError):
            raise bad_request(f"invalid {name} specified") from None

    def float(
        self, name: builtins.str, default: builtins.float | None = None
    ) -> builtins.float | None:
        value = self.raw.get(name)
        if value is None or value == "":
            return default
        try:
            return float(value)
        except (TypeError, ValueError):
            raise bad_request(f"invalid {name} specified") from None

    def bool(self, name: builtins.str, default: builtins.bool = False) -> builtins.bool:
        value = self.raw.get(name)
        if value is None:
            return default
        if isinstance(value, str):
            return value.strip().lower() in {"true", "1"}
        return bool(value)

    def json(self, name: builtins.str, what: builtins.str = "JSON object") -> Any:
        value = self.raw.get(name)
        if not isinstance(value, str):
            return value
        try:
            return json.loads(value)
        except ValueError:
            raise bad_request(f"can't parse {what}") from None

    def chat_id(self, name: builtins.str = "chat_id") -> builtins.int | builtins.str:
        value = self.raw.get(name)
        if value is None or value == "":
            raise bad_request(f"{name} is empty")
        if isinstance(value, str) and value.startswith("@"):
            return value
        try:
            return int(value)
        except (TypeError, ValueError):
            raise bad_request("chat not found") from None
