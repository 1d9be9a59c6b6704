"""Bot API errors with Telegram's exact wording."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """Raised inside the core; becomes ``{"ok": false, ...}`` on the wire."""

    def __init__(self, code: int, description: str, **parameters: Any) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.code,
            "description": self.description,
        }
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def bad_request(text: str, **parameters: Any) -> ApiError:
    return ApiError(400, f"Bad Request: {text}", **parameters)


def forbidden(text: str) -> ApiError:
    return ApiError(403, f"Forbidden: {text}")


NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup of the message "
    "are exactly the same as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
