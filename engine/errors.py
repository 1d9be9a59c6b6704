"""Typed domain errors. Each carries a ``reason`` code the bot translates.

The engine never formats user-facing text; ``details`` hold the facts a
message may quote (card lists are card ids).
"""

from __future__ import annotations

from typing import Any


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class IllegalAction(EngineError):
    """An action the rules refuse. The state it was applied to is unchanged."""

    def __init__(self, reason: str, **details: Any) -> None:
        super().__init__(f"{reason} {details}" if details else reason)
        self.reason = reason
        self.details = details


# Reason codes (the bot's i18n catalogue has one message per code).
NOT_YOUR_TURN = "not_your_turn"
WRONG_PHASE = "wrong_phase"
NOT_IN_HAND = "not_in_hand"
EMPTY_PLAY = "empty_play"
WRONG_COUNT = "wrong_count"
MIXED_SUITS = "mixed_suits"  # a lead of several suit classes
MUST_FOLLOW_SUIT = "must_follow_suit"
MUST_PLAY_PAIR = "must_play_pair"
MUST_PLAY_TRACTOR = "must_play_tractor"
INVALID_SHOW = "invalid_show"  # not a declaring/overturning combination
SHOW_TOO_WEAK = "show_too_weak"
CANNOT_OVERTURN_SELF = "cannot_overturn_self"
NOT_ALLOWED_TO_DECLARE = "not_allowed_to_declare"
DECLARING_CLOSED = "declaring_closed"
WRONG_BURY_COUNT = "wrong_bury_count"
REDEAL_NOT_ALLOWED = "redeal_not_allowed"
