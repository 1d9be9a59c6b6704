"""Settings read from the environment or `.env` (pydantic-settings).

Every field is documented in `.env.example`; the names below are the
environment variable names (case-insensitive).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import ssl
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    # hide_input_in_errors: an error never repeats a value (it may be the token) into a log
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", hide_input_in_errors=True
    )

    bot_token: str = ""
    # The token, or the webhook secret, read from a file instead (Docker secrets, systemd
    # credentials), so that it is not in the environment (`docker inspect` shows that).
    # Setting both a secret and its file is an error: neither silently wins.
    bot_token_file: str = ""
    webhook_secret_file: str = ""
    database_path: Path = Path("shengji.sqlite3")
    log_level: str = "INFO"
    # Telegram Bot API endpoint; only tests and local Bot API servers change it.
    telegram_base_url: str = "https://api.telegram.org/bot"
    # At start, how long Telegram may stay unreachable (asked again after 2, 4, 8, 15, 30 s
    # as far as this allows) before the bot stops with exit code 1 (systemd or Docker start
    # it again later); /healthz answers meanwhile. 0: stop at the first failure.
    telegram_wait_seconds: float = Field(default=60.0, ge=0)
    # The Bot API client: "aiohttp" (bot/infra/request.py: JSON bodies, a fraction of httpx's CPU
    # a call) or "httpx" (python-telegram-bot's own HTTPXRequest), kept for comparison.
    telegram_client: Literal["aiohttp", "httpx"] = "aiohttp"
    # A CA certificate file (PEM) trusted for TELEGRAM_BASE_URL instead of the system's
    # store, e.g. for a local Bot API server behind a private CA. Empty: the system's store.
    telegram_ca_file: str = ""
    # The host's domain (the bare name, e.g. cards.example.org) when the bot is served behind
    # deploy/'s Caddy (HTTPS for it from Let's Encrypt): WEBHOOK_URL and WEBAPP_URL default
    # to https://DOMAIN/telegram/webhook and https://DOMAIN/app/, and WEBHOOK_SECRET to one
    # derived from the token (what is set explicitly wins). Empty: neither is derived.
    domain: str = ""
    # Webhook mode (for a host behind a reverse proxy): Telegram posts updates to
    # WEBHOOK_URL and the bot listens on WEBHOOK_LISTEN:WEBHOOK_PORT at that URL's path.
    # Empty: long polling (the bot asks Telegram for updates; nothing listens).
    webhook_url: str = ""
    # Sent by Telegram with every update (X-Telegram-Bot-Api-Secret-Token); requests
    # without it are refused with 403. Required with WEBHOOK_URL: 1-256 of A-Z a-z 0-9 _ -.
    webhook_secret: str = Field(
        default="", pattern=r"^[A-Za-z0-9_-]{0,256}$", validate_default=True
    )
    webhook_listen: str = "127.0.0.1"
    webhook_port: int = Field(default=8443, ge=1, le=65535)
    # Health and metrics endpoint: GET /healthz (liveness) and /metrics (Prometheus). 0: off.
    metrics_port: int = Field(default=0, ge=0, le=65535)
    metrics_listen: str = "127.0.0.1"
    # The table as a Telegram Mini App (bot/edges/miniapp): its public HTTPS address, what the DM's
    # "Table" button opens. Empty: no Mini App, DM buttons only. The bot serves it on
    # WEBAPP_LISTEN:WEBAPP_PORT; a reverse proxy terminating TLS forwards WEBAPP_URL there.
    webapp_url: str = Field(default="", pattern=r"^(https://\S+)?$")
    webapp_listen: str = "127.0.0.1"
    webapp_port: int = Field(default=8081, ge=1, le=65535)
    # The Mini App's short name registered with @BotFather (/newapp): the group's table then
    # links a spectator view, t.me/<bot>/<short name>?startapp=... Empty: no link.
    webapp_short_name: str = Field(default="", pattern=r"^[A-Za-z0-9_]{0,64}$")
    # A Mini App's signed launch data (initData) is accepted this long after Telegram made it
    # to read the table (its view, its live updates), and this long to act (a replayed
    # launch data acts for its person: a shorter window); past it the app is reopened.
    webapp_auth_max_age_seconds: float = Field(default=86400.0, gt=0)
    webapp_act_max_age_seconds: float = Field(default=21600.0, gt=0)
    # Requests whose launch data proves nothing (a bad signature, expired) one address may
    # make a minute, in a burst of as many; more are answered 429.
    webapp_bad_auth_per_minute: float = Field(default=20.0, gt=0)
    # Requests one person may make of the Mini App's API per minute (more: 429).
    webapp_rate_per_minute: float = Field(default=120.0, gt=0)
    # Connections the Mini App holds at most (each holds a file descriptor). 0: the process's
    # descriptor limit (RLIMIT_NOFILE; systemd's LimitNOFILE) less 384 kept for the bot's
    # own, which is also the most a setting gets. At the cap a new connection takes the
    # place of the oldest idle one, or is answered 503 when all are busy.
    webapp_max_connections: int = Field(default=0, ge=0)
    # A Mini App connection silent this long is closed: no request (or no complete header)
    # since it opened, or none since its last answer (keep-alive); a request's body that
    # takes longer is answered 408.
    webapp_idle_seconds: float = Field(default=5.0, gt=0)
    # Live tables (event streams) one person, and one address, may hold open: a new one
    # ends their oldest. Behind a reverse proxy the address is X-Forwarded-For's last.
    webapp_streams_per_person: int = Field(default=4, ge=1)
    webapp_streams_per_address: int = Field(default=64, ge=1)
    # `python -m bot backup` without a file name: a dated copy in BACKUP_DIR (empty: the
    # directory `backups` beside DATABASE_PATH), keeping the newest BACKUP_KEEP (0: all).
    backup_dir: str = ""
    backup_keep: int = Field(default=14, ge=0)
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
    # The bot's own pause between two calls (messages, edits) in one group. Telegram
    # allows about 20 a minute per group, and the bot's rate limiter (bot/delivery/ratelimit.py),
    # always on, enforces that: after a burst of 20 it spaces a group's calls 3 s apart
    # whatever this says. So values below 3 only let short bursts through faster; above 3
    # they slow the table down further.
    group_interval_seconds: float = Field(default=3.2, ge=0)
    # A private chat gets one bot call per this many seconds (a burst of 3), as Telegram allows.
    dm_interval_seconds: float = Field(default=1.0, ge=0)
    # A cap on the bot's writes (messages, edits, deletes) a second across all chats;
    # 0: none. Telegram's "about 30 a second" is its figure for bulk notifications
    # (messages a bot starts to many users); replies and edits in chats where people
    # play are not documented as held to it, while the per-chat limits above always
    # apply. With a cap of 30 some 26 busy tables fill it and every game waits
    # (docs/scaling.md): set one only for a bot that broadcasts.
    overall_writes_per_second: float = Field(default=0.0, ge=0)
    # Computer players think this long before acting (so humans can follow).
    computer_delay_seconds: float = Field(default=1.0, ge=0)
    # How well the computers (and 托管) of a group that chose nothing in /settings play:
    # easy (简单: the heuristic, no worker processes), normal (普通: a short search in worker
    # processes, the default) or hard (困难). The CPU each costs a hand: README, "Computer
    # players".
    computer_strength: Literal["easy", "normal", "hard"] = "normal"
    # A computer's decision at 普通/困难 (card play, declaring, the bury) stops at its budget
    # of work or, on a busy host, at this many times that budget in wall time, at most
    # COMPUTER_WALL_MAX_SECONDS, whichever comes first (waiting for a free worker counts).
    computer_wall_factor: float = Field(default=1.5, gt=0)
    computer_wall_max_seconds: float = Field(default=2.0, gt=0, le=2.0)
    # The event loop the bot runs on: "asyncio" (Python's own, the default) or "uvloop"
    # (where it is installed; else asyncio's, said once in the log): 3-9% less CPU a press
    # (docs/scaling.md), but the Mini App's connection cap (bot/edges/miniapp/net.py) does not
    # hold on it yet: past the cap uvloop drops connections instead of answering 503, and
    # a process out of descriptors logs a traceback a connection. Opt in where the Mini
    # App is off or behind a proxy that caps connections itself.
    event_loop: Literal["uvloop", "asyncio"] = "asyncio"

    @model_validator(mode="before")
    @classmethod
    def _read_secret_files(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        for name in ("bot_token", "webhook_secret"):
            path = data.get(f"{name}_file")
            if not path:
                continue
            env = name.upper()
            if data.get(name):
                raise ValueError(f"both {env} and {env}_FILE are set: keep one of them")
            try:
                secret = Path(path).read_text(encoding="utf-8").strip()
            except OSError as e:
                raise ValueError(f"{env}_FILE: cannot read {path} ({e.strerror})") from None
            except UnicodeDecodeError:
                raise ValueError(f"{env}_FILE: {path} is not UTF-8 text") from None
            if not secret:
                raise ValueError(f"{env}_FILE: {path} is empty")
            data = {**data, name: secret}
        return data

    @field_validator("telegram_ca_file")
    @classmethod
    def _a_readable_certificate(cls, path: str) -> str:
        if path:
            try:
                ssl.create_default_context(cafile=path)
            except (OSError, ssl.SSLError) as e:
                reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
                raise ValueError(f"{path} is not a readable PEM certificate ({reason})") from None
        return path

    @field_validator("domain")
    @classmethod
    def _a_bare_host_name(cls, domain: str) -> str:
        domain = domain.strip().lower().rstrip(".")
        if domain and not _HOST_NAME.fullmatch(domain):
            raise ValueError(
                "DOMAIN is the bare host name, e.g. cards.example.org (no https://, no path)"
            )
        return domain

    @model_validator(mode="after")
    def _derive_from_the_domain(self) -> Settings:
        if not self.domain or not self.bot_token:
            return self
        if not self.webapp_url:
            self.webapp_url = f"https://{self.domain}{WEBAPP_PATH}"
        if not self.webhook_url:
            self.webhook_url = f"https://{self.domain}{WEBHOOK_PATH}"
            if not self.webhook_secret:
                self.webhook_secret = derived_webhook_secret(self.bot_token)
        return self

    @field_validator("webhook_secret")
    @classmethod
    def _webhook_needs_a_secret(cls, secret: str, info: ValidationInfo) -> str:
        # a field validator: an error shows this field's value only, never the token
        if info.data.get("webhook_url") and not secret:
            raise ValueError(
                "WEBHOOK_URL is set but WEBHOOK_SECRET is empty: choose a secret"
                " (1-256 of A-Z a-z 0-9 _ -) so that only Telegram can post updates"
            )
        return secret


# where deploy/Caddyfile routes the webhook and the Mini App on DOMAIN
WEBHOOK_PATH = "/telegram/webhook"
WEBAPP_PATH = "/app/"
_HOST_NAME = re.compile(r"(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}")


def derived_webhook_secret(token: str) -> str:
    """The webhook's secret when DOMAIN sets the webhook and WEBHOOK_SECRET is empty: an
    HMAC of the token (only who holds the token can compute it; it does not reveal the
    token), the same at every start, in the characters Telegram allows."""
    return hmac.new(token.encode(), b"shengji webhook secret", hashlib.sha256).hexdigest()


NO_TOKEN_MESSAGE = (
    "No Telegram bot token: set BOT_TOKEN (or BOT_TOKEN_FILE) in the environment or in .env "
    "(create a bot with @BotFather, see README)."
)
