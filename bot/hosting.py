"""How ``python -m bot`` runs the Application on Telegram: long polling, or a webhook
(``WEBHOOK_URL``) with its secret token checked, plus the health and metrics endpoint
(``METRICS_PORT``) and the Mini App (``WEBAPP_URL``). python-telegram-bot does the serving; this only chooses and wires."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from bot import metrics
from bot.app import ALLOWED_UPDATES
from bot.config import Settings

log = logging.getLogger(__name__)

App = Any  # telegram.ext.Application


def webhook_options(settings: Settings) -> dict[str, Any]:
    """The arguments of ``run_webhook`` / ``Updater.start_webhook`` for these settings:
    the bot listens at the path of WEBHOOK_URL (what the reverse proxy forwards)."""
    return dict(
        listen=settings.webhook_listen,
        port=settings.webhook_port,
        url_path=urlsplit(settings.webhook_url).path.lstrip("/"),
        webhook_url=settings.webhook_url,
        secret_token=settings.webhook_secret,
        allowed_updates=ALLOWED_UPDATES,
    )


def run(app: App, settings: Settings) -> None:
    """Run until SIGINT/SIGTERM (python-telegram-bot stops cleanly on both)."""
    if settings.group_interval_seconds < 3:
        log.warning(
            "GROUP_INTERVAL_SECONDS=%s: the rate limiter still spaces a group's calls"
            " about 3 s apart after a burst of 20",
            settings.group_interval_seconds,
        )
    if settings.metrics_port:
        _serve_metrics(app, settings.metrics_listen, settings.metrics_port)
    if settings.webapp_url:
        _serve_webapp(app, settings)
    if settings.webhook_url:
        log.info("webhook mode: %s", settings.webhook_url)
        app.run_webhook(**webhook_options(settings))
    else:
        app.run_polling(allowed_updates=ALLOWED_UPDATES)


def _serve_metrics(app: App, host: str, port: int) -> None:
    """Start the endpoint after the Application is initialised, stop it at shutdown."""
    before_init, before_shutdown = app.post_init, app.post_shutdown
    runner: web.AppRunner | None = None

    async def post_init(app: App) -> None:
        nonlocal runner
        if before_init is not None:
            await before_init(app)
        runner = await metrics.serve(app, host, port)

    async def post_shutdown(app: App) -> None:
        if runner is not None:
            await runner.cleanup()
        if before_shutdown is not None:
            await before_shutdown(app)

    app.post_init, app.post_shutdown = post_init, post_shutdown


def _serve_webapp(app: App, settings: Settings) -> None:
    """The Mini App (``bot.webapp``) beside the bot, from start-up to shutdown."""
    from bot.webapp import server

    before_init, before_shutdown = app.post_init, app.post_shutdown
    runner: web.AppRunner | None = None

    async def post_init(app: App) -> None:
        nonlocal runner
        if before_init is not None:
            await before_init(app)
        runner = await server.serve(app, settings)

    async def post_shutdown(app: App) -> None:
        if runner is not None:
            await runner.cleanup()
        if before_shutdown is not None:
            await before_shutdown(app)

    app.post_init, app.post_shutdown = post_init, post_shutdown
