"""How ``python -m bot`` runs the Application on Telegram: long polling, or a webhook
(``WEBHOOK_URL``) with its secret token checked, plus the health and metrics endpoint
(``METRICS_PORT``) and the Mini App (``WEBAPP_URL``). python-telegram-bot does the
serving; this only chooses and wires.

The health endpoint (``METRICS_PORT``) listens from the first second, before Telegram is
asked anything: ``/healthz`` and ``/readyz`` answer 503 with the reason while the bot
starts (Telegram not reached yet, or unreachable for how long and why), 200 once it runs.

A bot that cannot work stops with one line and exit code 1 (:func:`run`): a token
Telegram refuses, Telegram unreachable at start-up for ``TELEGRAM_WAIT_SECONDS``
(``bot.app.start_retries_within``), a database it cannot use, a port it cannot listen
on. Stopping while Telegram is unreachable logs no traceback (:class:`OneLineOutage`). systemd (``Restart=on-failure``) or
Docker restart it later. The webhook refuses a body that is not a JSON object with 400, and logs it in a line
without the body (:class:`WebhookHandler`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from http import HTTPStatus
from typing import Any, NoReturn
from urllib.parse import urlsplit

import tornado.web
from aiohttp import web
from telegram import Bot, Update
from telegram.ext import ExtBot, _updater
from telegram.ext._utils.webhookhandler import TelegramHandler, WebhookAppClass

from bot.app import ALLOWED_UPDATES, ShengjiApplication, TelegramUnreachable, TokenRefused, tune_gc
from bot.data.store import StoreError
from bot.edges import metrics
from bot.edges.context import BotApp
from bot.infra import eventloop
from bot.infra.config import Settings
from bot.infra.reach import WEBHOOK_RETRIES, reason_of, unreachable

log = logging.getLogger(__name__)

MAX_UPDATE_BYTES = 1 << 20  # an update is a few kB; Telegram's largest are far below this


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


def run(app: ShengjiApplication, settings: Settings) -> int:
    """Run until SIGINT/SIGTERM (python-telegram-bot stops cleanly on both): 0. A bot
    that cannot start: one line logged, 1."""
    try:
        _run(app, settings)
    except (TokenRefused, TelegramUnreachable, StoreError) as e:
        log.error("cannot start: %s", e)
        return 1
    except OSError as e:  # a port of its own (METRICS_PORT, WEBHOOK_PORT) taken, say
        log.error("cannot start: %s", e)
        return 1
    return 0


def _run(app: ShengjiApplication, settings: Settings) -> None:
    if settings.group_interval_seconds < 3:
        log.warning(
            "GROUP_INTERVAL_SECONDS=%s: the rate limiter still spaces a group's calls"
            " about 3 s apart after a burst of 20",
            settings.group_interval_seconds,
        )
    # the loop python-telegram-bot runs on, made here (uvloop unless EVENT_LOOP=asyncio,
    # bot.infra.eventloop): the health endpoint listens on it before the Application asks
    # Telegram anything, and stops after the Application
    loop = eventloop.new_event_loop(settings.event_loop)
    asyncio.set_event_loop(loop)
    log.debug("event loop: %s", type(loop).__module__.split(".")[0])
    health: web.AppRunner | None = None
    quiet = OneLineOutage()
    for name in PTB_LOGGERS:
        logging.getLogger(name).addFilter(quiet)
    try:
        if settings.metrics_port:
            health = loop.run_until_complete(
                metrics.serve(app, app.metrics, settings.metrics_listen, settings.metrics_port)
            )
        if settings.webapp_url:
            _serve_webapp(app, settings)
        tune_gc()  # all that is loaded lives as long as the process
        if settings.webhook_url:
            log.info("webhook mode: %s", settings.webhook_url)
            app.metrics.reach.retries = WEBHOOK_RETRIES
            # PTB's server, our handler (below); PTB offers no option for it, so the name
            # its Updater builds the server with is replaced (a name mypy sees as not
            # exported)
            _updater.WebhookAppClass = WebhookApp  # type: ignore[attr-defined]
            app.run_webhook(**webhook_options(settings), close_loop=False)
        else:
            app.run_polling(allowed_updates=ALLOWED_UPDATES, close_loop=False)
    finally:
        if health is not None:
            loop.run_until_complete(health.cleanup())
        for name in PTB_LOGGERS:
            logging.getLogger(name).removeFilter(quiet)
        loop.close()
        asyncio.set_event_loop(None)


# python-telegram-bot's loggers that log a network error with its traceback
PTB_LOGGERS = ("telegram.ext.Updater", "telegram.ext.Application", "telegram.ext")


class OneLineOutage(logging.Filter):
    """A record python-telegram-bot logs with the traceback of a network error (Telegram
    unreachable: ``bot.infra.reach`` and the outboxes said so already, once) is kept, in one
    line and as a WARNING: at shutdown during an outage, PTB's last ``getUpdates`` (to
    confirm the updates it fetched) fails and would log three chained tracebacks."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is None or not unreachable(error):
            return True
        text = record.getMessage()
        if "`get_updates` one more time" in text:
            text = (
                "stopping: the updates fetched last could not be confirmed to Telegram;"
                " it sends them again at the next start"
            )
        else:
            text = text.splitlines()[0] if text else "python-telegram-bot"
        record.msg, record.args = f"{text} ({reason_of(error)})", None
        record.exc_info, record.exc_text = None, None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def _serve_webapp(app: BotApp, settings: Settings) -> None:
    """The Mini App (``bot.edges.miniapp``) beside the bot, from start-up to shutdown."""
    from bot.edges.miniapp import server

    before_init, before_shutdown = app.post_init, app.post_shutdown
    runner: web.AppRunner | None = None

    async def post_init(app: BotApp) -> None:
        nonlocal runner
        if before_init is not None:
            await before_init(app)
        runner = await server.serve(app, settings)

    async def post_shutdown(app: BotApp) -> None:
        if runner is not None:
            await runner.cleanup()
        if before_shutdown is not None:
            await before_shutdown(app)

    app.post_init, app.post_shutdown = post_init, post_shutdown


@tornado.web.stream_request_body
class WebhookHandler(TelegramHandler):
    """PTB's webhook handler, but a body that is not a JSON object (a list, malformed
    JSON, JSON nested deeper than Python's recursion limit) or not an update is refused
    with 400 and logged in one line without the body (it is personal data), where PTB
    answers 500 or logs the whole payload. A body is kept only when the headers show
    Telegram's secret (else 403; a large one is not even read) and up to
    ``MAX_UPDATE_BYTES`` (413; the server would buffer 100 MB)."""

    def prepare(self) -> None:
        self._body = bytearray()
        self._size = 0
        self._forbidden: tornado.web.HTTPError | None = None
        try:
            self._validate_post()  # the content type and the secret: 403, the body not kept
        except tornado.web.HTTPError as e:
            self._forbidden = e
        length = self.request.headers.get("Content-Length", "")
        if length.isdigit() and (len(length) > 9 or int(length) > MAX_UPDATE_BYTES):
            if self._forbidden is not None:  # answered before the body: not read at all
                raise self._forbidden
            self._refuse(f"{length[:12]} bytes announced", HTTPStatus.REQUEST_ENTITY_TOO_LARGE)

    def data_received(self, chunk: bytes) -> None:
        # (a body sent without its length: what is over the bound is counted, not kept)
        self._size += len(chunk)
        if self._forbidden is None and self._size <= MAX_UPDATE_BYTES:
            self._body += chunk

    async def post(self) -> None:
        if self._forbidden is not None:
            raise self._forbidden
        if self._size > MAX_UPDATE_BYTES:
            self._refuse("too large", HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
        try:
            data = json.loads(self._body)
        except ValueError:
            self._refuse("not JSON")
        except RecursionError:  # the C parser's guard: nothing was harmed
            self._refuse("JSON nested too deep")
        if not isinstance(data, dict):
            self._refuse("JSON but not an object")
        try:
            update = Update.de_json(data, self.bot)
        except Exception as e:
            self._refuse(f"not an update: {type(e).__name__}")
        self.set_status(HTTPStatus.OK)
        if isinstance(self.bot, ExtBot):
            self.bot.insert_callback_data(update)
        await self.update_queue.put(update)

    def _refuse(self, why: str, status: HTTPStatus = HTTPStatus.BAD_REQUEST) -> NoReturn:
        size = self._size
        log.warning("webhook: refused a request of %d bytes (%s): %d", size, why, status)
        raise tornado.web.HTTPError(status)


class WebhookApp(WebhookAppClass):
    """PTB's webhook application with :class:`WebhookHandler` at the webhook's path."""

    def __init__(
        self,
        webhook_path: str,
        bot: Bot,
        update_queue: asyncio.Queue[object],
        secret_token: str | None = None,
    ) -> None:
        self.shared_objects = {
            "bot": bot,
            "update_queue": update_queue,
            "secret_token": secret_token,
        }
        handlers = [(rf"{webhook_path}/?", WebhookHandler, self.shared_objects)]
        tornado.web.Application.__init__(self, handlers)  # what PTB's does, our handler
