"""Settings read from the environment or `.env` (pydantic-settings).

Every field is documented in `.env.example`; the names below are the
environment variable names (case-insensitive).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    bot_token: str = ""
    database_path: Path = Path("shengji.sqlite3")
    log_level: str = "INFO"
    # Telegram Bot API endpoint; only tests and local Bot API servers change it.
    telegram_base_url: str = "https://api.telegram.org/bot"
    # Language used when neither the group nor the user has one: "zh" or "en".
    default_language: str = "zh"
    # Dealing: cards per player per step and seconds between steps (RULES.md section 5).
    deal_batch: int = Field(default=3, ge=1, le=25)
    deal_pace_seconds: float = Field(default=1.5, ge=0)
    # Overturn windows (sections 5 and 7): how long the group may still show after the deal.
    overturn_window_seconds: float = Field(default=15.0, ge=0)
    # A player who does not act within this time is played for by the computer (section 13).
    turn_timeout_seconds: float = Field(default=60.0, gt=0)
    # An open lobby that is not started within this time closes itself.
    lobby_expiry_minutes: float = Field(default=30.0, gt=0)
    # Pause between the end of a hand and the next deal (a button starts it sooner).
    next_hand_delay_seconds: float = Field(default=20.0, ge=0)
    # Minimum seconds between two bot calls in one group (Telegram allows ~20 a minute).
    group_interval_seconds: float = Field(default=3.2, ge=0)
    # Minimum seconds between two bot calls in one private chat.
    dm_interval_seconds: float = Field(default=0.4, ge=0)
    # Computer players think this long before acting (so humans can follow).
    computer_delay_seconds: float = Field(default=1.0, ge=0)


NO_TOKEN_MESSAGE = (
    "No Telegram bot token: set BOT_TOKEN in the environment or in .env "
    "(create a bot with @BotFather, see README)."
)
