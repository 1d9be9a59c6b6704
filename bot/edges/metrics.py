"""Prometheus metrics of one running bot, and the HTTP endpoint serving them with liveness.

``METRICS_PORT`` (0: off) starts an aiohttp server, before the bot asks Telegram anything
(``bot.hosting``), with ``/healthz`` (200 while the bot runs and its database answers,
else 503 with the reason: starting, and how Telegram answers meanwhile; stopping; the
database's error), ``/readyz`` (200 while Telegram answers: it
its last call was answered, within the last ``READY_SECONDS``, or a ``getMe`` is answered
now; else 503 with the reason, ``bot.infra.reach``) and ``/metrics`` (Prometheus text format):

- ``shengji_build_info{version}``: always 1; the label is the running bot's version
- ``shengji_games_running``: games in play (open lobbies not counted)
- ``shengji_updates_total{type}``: updates received (``rate()`` gives updates per second)
- ``shengji_press_answer_seconds``: from a button press reaching the bot to its answer
- ``shengji_telegram_requests_total{method}``: Bot API calls made
- ``shengji_telegram_errors_total{method,code}``: failed calls (HTTP status, or ``network``)
- ``shengji_telegram_429_total{method}``: calls Telegram refused with 429 (flood control)
- ``shengji_outbox_backlog{chat_type}``: message states waiting to be delivered, summed
  over chats; ``shengji_outbox_backlog_max{chat_type}``: the longest backlog of one chat

The Bot API calls are counted by wrapping the Application's ``BaseRequest`` (what
python-telegram-bot sends through), the updates as the Application processes them; games and
backlogs are read from the running service when Prometheus scrapes.
"""

from __future__ import annotations

import json
import logging
import time
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from aiohttp import web
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    Info,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from telegram import Update
from telegram._utils.defaultvalue import DEFAULT_NONE
from telegram._utils.types import ODVInput
from telegram.request import BaseRequest, RequestData

from bot.edges.context import BotApp
from bot.edges.presses import CallbackPress
from bot.infra.reach import GATEWAY_ERRORS, MethodFailed, Reach, reason_of
from bot.infra.version import __version__

log = logging.getLogger(__name__)

# press → answer: presses are answered within tens of milliseconds unless something waits
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# presses remembered until answered; an unanswered one is forgotten after this many
_PENDING_LIMIT = 10_000
# /readyz: Telegram answered within this many seconds (long polling asks every 10 s)
READY_SECONDS = 60.0


class Metrics:
    """The metrics of one Application (its own registry: several bots in one process,
    as in the tests, do not mix their figures)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        Info("shengji_build", "The running bot", registry=self.registry).info(
            {"version": __version__}
        )
        self.updates = Counter(
            "shengji_updates", "Updates received", ["type"], registry=self.registry
        )
        self._requests: dict[str, Any] = {}  # api -> its child of ``requests``
        self.press_answer = Histogram(
            "shengji_press_answer_seconds",
            "From a button press reaching the bot to its answerCallbackQuery",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.requests = Counter(
            "shengji_telegram_requests", "Bot API calls", ["method"], registry=self.registry
        )
        self.errors = Counter(
            "shengji_telegram_errors",
            "Failed Bot API calls by HTTP status (or network)",
            ["method", "code"],
            registry=self.registry,
        )
        self.flood = Counter(
            "shengji_telegram_429",
            "Bot API calls refused with 429 Too Many Requests",
            ["method"],
            registry=self.registry,
        )
        self._pressed: OrderedDict[str, float] = OrderedDict()
        self.reach = Reach()
        self.stopping = False  # set when the Application stops (/healthz says so)

    def instrument(self, request: BaseRequest) -> BaseRequest:
        """``request`` counted: pass the result to ``ApplicationBuilder.request``."""
        return InstrumentedRequest(request, self)

    def attach(self, app: BotApp) -> None:
        """Read ``app``'s games and outboxes when scraped (its ``process_update`` calls
        :meth:`received`)."""
        self.registry.register(_ServiceCollector(app))

    def request_counter(self, api: str) -> Any:
        """The counter of calls of ``api`` (prometheus' child, looked up once a method)."""
        counter = self._requests.get(api)
        if counter is None:
            counter = self._requests[api] = self.requests.labels(api)
        return counter

    def received(self, update: object) -> None:
        """An update reaches the Application (called by its ``process_update``): PTB's
        ``Update``, or a press read lean (``bot.edges.presses``)."""
        if isinstance(update, CallbackPress):
            self._received(Update.CALLBACK_QUERY, update.query_id)
        elif isinstance(update, Update):
            kind = next(
                (k for k in Update.ALL_TYPES if getattr(update, k, None) is not None), "other"
            )
            query = update.callback_query
            self._received(kind, query.id if query is not None else None)

    def _received(self, kind: str, query_id: str | None) -> None:
        self.updates.labels(kind).inc()
        if query_id is not None:
            self._pressed[query_id] = time.monotonic()
            while len(self._pressed) > _PENDING_LIMIT:
                self._pressed.popitem(last=False)

    def answered(self, callback_query_id: object) -> None:
        pressed = self._pressed.pop(str(callback_query_id), None)
        if pressed is not None:
            self.press_answer.observe(time.monotonic() - pressed)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


def bot_api_failure(code: int, payload: bytes) -> str | None:
    """The description of a Bot API error answer (``{"ok": false, ...}``) with HTTP
    status ``code``, if that is what ``payload`` is and ``code`` is not a gateway's;
    None: not an answer of the Bot API (Telegram's front servers answered)."""
    if code in GATEWAY_ERRORS:
        return None
    try:
        data = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("ok") is not False:
        return None
    description = data.get("description")
    return description if isinstance(description, str) and description else "no description"


class InstrumentedRequest(BaseRequest):
    """A ``BaseRequest`` that forwards to another and counts each call's outcome."""

    def __init__(self, inner: BaseRequest, metrics: Metrics) -> None:
        self.inner = inner
        self.metrics = metrics

    @property
    def read_timeout(self) -> float | None:
        return self.inner.read_timeout

    async def initialize(self) -> None:
        await self.inner.initialize()

    async def shutdown(self) -> None:
        await self.inner.shutdown()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = DEFAULT_NONE,
        write_timeout: ODVInput[float] = DEFAULT_NONE,
        connect_timeout: ODVInput[float] = DEFAULT_NONE,
        pool_timeout: ODVInput[float] = DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        api = url.rstrip("/").rsplit("/", 1)[-1]
        m = self.metrics
        m.request_counter(api).inc()
        try:
            code, payload = await self.inner.do_request(  # as BaseRequest calls it
                url=url,
                method=method,
                request_data=request_data,
                read_timeout=read_timeout,
                write_timeout=write_timeout,
                connect_timeout=connect_timeout,
                pool_timeout=pool_timeout,
            )
        except Exception as e:
            m.errors.labels(api, "network").inc()
            m.reach.failed(reason_of(e))
            raise
        failure = bot_api_failure(code, payload) if code >= 500 else None
        if code >= 500 and failure is None:  # Telegram's front servers, not the Bot API
            m.reach.failed(f"HTTP {code} from {api}")
        else:
            m.reach.ok()
        if failure is not None:  # the Bot API answered: this method failed, no outage
            m.errors.labels(api, str(code)).inc()
            raise MethodFailed(f"{failure} ({code} from {api})")
        if code >= 300:
            m.errors.labels(api, str(code)).inc()
            if code == 429:
                m.flood.labels(api).inc()
        elif api == "answerCallbackQuery" and request_data is not None:
            m.answered(request_data.parameters.get("callback_query_id"))
        return code, payload


class _ServiceCollector(Collector):
    """Figures read from the running service at scrape time."""

    def __init__(self, app: BotApp) -> None:
        self.app = app

    def collect(self) -> Iterator[GaugeMetricFamily]:
        data = self.app.bot_data
        service = data.service if data.running else None
        running = GaugeMetricFamily("shengji_games_running", "Games in play")
        backlog = GaugeMetricFamily(
            "shengji_outbox_backlog",
            "Message states not yet delivered, summed over chats",
            labels=["chat_type"],
        )
        longest = GaugeMetricFamily(
            "shengji_outbox_backlog_max",
            "Message states not yet delivered in the chat with the most",
            labels=["chat_type"],
        )
        games = service.games.values() if service is not None else ()
        running.add_metric([], sum(g.table.rec.status == "running" for g in games))
        per_chat = data.outboxes.backlog() if service is not None else {}
        for chat_type, chats in (
            ("group", [n for c, n in per_chat.items() if c < 0]),
            ("private", [n for c, n in per_chat.items() if c > 0]),
        ):
            backlog.add_metric([chat_type], sum(chats))
            longest.add_metric([chat_type], max(chats, default=0))
        yield from (running, backlog, longest)


def http_app(app: BotApp, counted: Metrics) -> web.Application:
    """``/healthz``, ``/readyz`` and ``/metrics`` of the running bot ``app`` whose
    figures are ``counted``."""

    def not_running() -> web.Response:
        """503 and why: starting (and how Telegram answers meanwhile), or stopping."""
        if counted.stopping:
            return web.json_response({"status": "stopping"}, status=503)
        return web.json_response({"status": f"starting: {counted.reach.status()}"}, status=503)

    async def healthz(request: web.Request) -> web.Response:
        if not app.running or not app.bot_data.running:
            return not_running()
        try:
            async with app.bot_data.service.store.db.execute("SELECT 1") as cur:
                await cur.fetchone()
        except Exception as e:  # the database is what the bot cannot run without
            return web.json_response({"status": f"database: {e}"}, status=503)
        return web.json_response({"status": "ok"})

    async def readyz(request: web.Request) -> web.Response:
        if not app.running:
            return not_running()
        reach = counted.reach

        def ready() -> bool:
            since = reach.since_ok()
            return reach.down_since is None and since is not None and since <= READY_SECONDS

        if not ready():  # idle (a webhook without updates), or failing: ask now
            try:
                await app.bot.get_me()
            except Exception:  # counted and logged by the request (bot.infra.reach)
                pass
        if not ready():
            return web.json_response({"status": reach.status()}, status=503)
        return web.json_response({"status": "ok"})

    async def metrics(request: web.Request) -> web.Response:
        body = counted.exposition()
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    web_app = web.Application()
    web_app.router.add_get("/healthz", healthz)
    web_app.router.add_get("/readyz", readyz)
    web_app.router.add_get("/metrics", metrics)
    return web_app


async def serve(app: BotApp, counted: Metrics, host: str, port: int) -> web.AppRunner:
    """Start the endpoint; ``await runner.cleanup()`` stops it."""
    runner = web.AppRunner(http_app(app, counted), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    log.info("health and metrics on http://%s:%d/healthz, /readyz and /metrics", host, port)
    return runner
