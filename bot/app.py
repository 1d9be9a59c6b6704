"""Build the Application: handlers, the per-game update processor, the store, the timers.

Faults explain themselves (issue 19): at start-up Telegram is asked (``getMe``) again after
``START_RETRIES`` before the bot gives up (:class:`TelegramUnreachable`; ``bot.hosting``
exits non-zero with one line, and systemd or Docker restart it later); while running, an
outage is logged once (``bot.infra.reach``); a handler that fails is logged once with its
update's chat and game (no names, no texts) and the person gets a short apology.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import logging
import ssl
from typing import Any

from telegram import BotCommand, Update
from telegram.error import InvalidToken, NetworkError, TelegramError
from telegram.ext import (
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    Updater,
    filters,
)
from telegram.request import BaseRequest, HTTPXRequest

from bot.data.store import Store, database_fault
from bot.delivery.outbox import Outboxes
from bot.delivery.publish import Publisher
from bot.delivery.ratelimit import ChatRateLimiter
from bot.edges.chats import ChatLifecycle
from bot.edges.computer import Computers
from bot.edges.context import CONTEXT_TYPES, BotApp, Context, Parts
from bot.edges.lobby import Lobby
from bot.edges.members import Members
from bot.edges.metrics import Metrics
from bot.edges.miniapp.streams import Hub, Readers
from bot.edges.processor import GameUpdateProcessor
from bot.edges.seat import HandInput
from bot.edges.telegram import chat_lang, describe, reply
from bot.edges.telegram.group import on_migrate, on_my_member
from bot.edges.telegram.help import dm_pointer, help_cmd
from bot.edges.telegram.joining import newgame, start
from bot.edges.telegram.manage import endgame_cmd, takeover_cmd
from bot.edges.telegram.play import on_callback
from bot.edges.telegram.rulebook import rules_cmd
from bot.edges.telegram.settings import settings_cmd, startlevel_cmd
from bot.edges.telegram.stats import last_cmd, stats_cmd
from bot.edges.timers import Deadlines, JobSchedule
from bot.edges.updates import UpdatesRequest
from bot.i18n import t
from bot.infra.config import Settings
from bot.infra.reach import POLLING_RETRIES, reason_of
from bot.infra.request import AiohttpRequest
from bot.service.game import GameService, SeedSource, system_seed
from bot.service.live import StepFailed
from bot.views.messages import Clock, LoopClock

log = logging.getLogger(__name__)

ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY, Update.MY_CHAT_MEMBER]
# the garbage collector's thresholds once the bot runs (``tune_gc``)
GC_THRESHOLDS = (10_000, 20, 20)


def tune_gc() -> None:
    """Before the bot runs: what exists now (modules, python-telegram-bot's and
    pydantic's classes and schemas, the Application) lives as long as the process,
    so it is frozen out of the garbage collector's reach (``gc.freeze``): a full
    collection then walks only what the games made since, not the whole heap. Young
    collections run every 10,000 allocations, not 700: a press allocates a few
    thousand objects that die with it, and fewer, larger young collections find the
    same garbage for less work; a full one comes after 400 of them at most.
    ``bench/capacity.py`` measures the pauses (docs/scaling.md)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


# start-up: pauses (seconds) before asking Telegram again, as far as TELEGRAM_WAIT_SECONDS
# allows (its default, 60: all of them); then the bot gives up (exit 1)
START_RETRIES = (2.0, 4.0, 8.0, 15.0, 30.0)


def start_retries_within(seconds: float) -> tuple[float, ...]:
    """The pauses of ``START_RETRIES`` (the last one repeated) that fit in ``seconds``."""
    pauses: list[float] = []
    for i in itertools.count():
        pause = START_RETRIES[min(i, len(START_RETRIES) - 1)]
        if sum(pauses) + pause > seconds:
            return tuple(pauses)
        pauses.append(pause)
    raise AssertionError("unreachable")  # pragma: no cover


class TelegramUnreachable(Exception):
    """Telegram did not answer at start-up, retries included: the bot cannot start."""


class TokenRefused(Exception):
    """Telegram refused the token (``getMe`` answered 401 or 404): the bot cannot start."""


def build_application(
    settings: Settings,
    *,
    request: BaseRequest | None = None,
    get_updates_request: BaseRequest | None = None,
    clock: Clock | None = None,
    seed_source: SeedSource | None = None,
) -> ShengjiApplication:
    """The one factory, for production and tests alike. Tests inject only the transport
    (``request``, ``get_updates_request``), the ``clock`` and the seeds of the deals; the
    database path comes with ``settings``. tests/e2e/test_wiring.py holds them to it."""
    clock = clock or LoopClock()
    metrics = Metrics()
    wiring = {"settings": settings, "clock": clock, "seed_source": seed_source, "metrics": metrics}
    builder = (
        ApplicationBuilder()
        .token(settings.bot_token)
        .base_url(settings.telegram_base_url)
        .context_types(CONTEXT_TYPES)
        .application_class(ShengjiApplication, kwargs=wiring)
        .concurrent_updates(GameUpdateProcessor())
        # per-chat limits behind the outboxes' own pacing; a 429 holds its chat only
        .rate_limiter(ChatRateLimiter(clock, overall_rate=settings.overall_writes_per_second))
    )
    # every Bot API call is counted (bot/infra/request.py's client by default)
    builder = builder.request(metrics.instrument(request or bot_api_client(settings, 256)))
    # updates read without the pressed message's keyboard (bot/edges/updates.py)
    builder = builder.get_updates_request(
        UpdatesRequest(get_updates_request or bot_api_client(settings, 1), metrics)
    )
    app = builder.build()
    assert isinstance(app, ShengjiApplication)
    app.updater = PromptUpdater(app.bot, app.update_queue)  # PTB's, stopping at once
    metrics.attach(app)
    app.add_handler(CommandHandler("newgame", newgame))
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CommandHandler("rules", rules_cmd))
    app.add_handler(CommandHandler(["settings", "lang"], settings_cmd))
    app.add_handler(CommandHandler("startlevel", startlevel_cmd))
    app.add_handler(CommandHandler("endgame", endgame_cmd))
    app.add_handler(CommandHandler("takeover", takeover_cmd))
    app.add_handler(CommandHandler("last", last_cmd))
    app.add_handler(CommandHandler("stats", stats_cmd))
    app.add_handler(CommandHandler("help", help_cmd))
    app.add_handler(CallbackQueryHandler(on_callback))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    app.add_handler(ChatMemberHandler(on_my_member, ChatMemberHandler.MY_CHAT_MEMBER))
    # last: anything else typed in the DM gets a pointer to /help
    app.add_handler(MessageHandler(filters.ChatType.PRIVATE & filters.TEXT, dm_pointer))
    app.add_error_handler(_on_error)
    return app


def bot_api_client(settings: Settings, connections: int) -> BaseRequest:
    """The production request class (``TELEGRAM_CLIENT``) with at most ``connections``
    connections (256 for the bot's calls, 1 for getUpdates, as PTB's defaults), trusting
    ``TELEGRAM_CA_FILE`` instead of the system's store if set."""
    ca_file = settings.telegram_ca_file or None
    if settings.telegram_client == "httpx":
        verify = {"verify": ssl.create_default_context(cafile=ca_file)} if ca_file else {}
        return HTTPXRequest(connections, httpx_kwargs=verify)
    return AiohttpRequest(connections, ca_file=ca_file)


# stopping: PTB's polling loop is given this long to end by itself, then cancelled
POLL_STOP_GRACE = 1.0


class PromptUpdater(Updater):
    """python-telegram-bot's Updater, but its stop takes a second while Telegram is
    unreachable, not up to 30 (past Docker's 10 s, SIGKILL): after a failed poll PTB's loop
    sleeps its backoff (1 s, then 1.5 times longer each time, at most 30 s) without looking
    at the stop asked meanwhile, and the stop waits for the loop. A poll under way ends at
    once on stop; a loop still running ``POLL_STOP_GRACE`` later can only be sleeping (no
    call in flight, no update lost), and is cancelled."""

    __slots__ = ()

    async def _stop_polling(self) -> None:
        # PTB's own (name-mangled) task and stop event; it offers no public way
        task = getattr(self, "_Updater__polling_task", None)
        stop = getattr(self, "_Updater__polling_task_stop_event", None)
        if isinstance(task, asyncio.Task) and isinstance(stop, asyncio.Event) and not task.done():
            stop.set()
            await asyncio.wait({task}, timeout=POLL_STOP_GRACE)
            if not task.done():
                task.cancel()
        await super()._stop_polling()


class ShengjiApplication(BotApp):
    """Reaches Telegram, opens the store and resumes every open game on ``initialize``
    (whether run by ``run_polling`` or by ``async with app``), and closes them on
    ``shutdown``. Built by :func:`build_application` with its wiring: the settings, the
    clock, the seeds of the deals (None: the system's randomness) and the metrics."""

    start_retries: tuple[float, ...] = START_RETRIES

    def __init__(
        self,
        *,
        settings: Settings,
        clock: Clock,
        seed_source: SeedSource | None,
        metrics: Metrics,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.settings, self.clock, self.seed_source = settings, clock, seed_source
        self.metrics = metrics
        self.start_retries = start_retries_within(settings.telegram_wait_seconds)

    async def initialize(self) -> None:
        await self._reach_telegram()
        await super().initialize()
        if not self.bot_data.running:
            await _setup(self)

    async def _reach_telegram(self) -> None:
        """``getMe`` (what ``Bot.initialize`` asks) until Telegram answers, after each of
        ``start_retries``; :class:`TelegramUnreachable` after the last. The outage is
        logged once, with this schedule, by ``bot.infra.reach``."""
        reach = self.metrics.reach
        waits = ", ".join(f"{s:g}" for s in self.start_retries)
        reach.retries = (
            f"start-up: asking again after {waits} s, then stopping"
            if waits
            else "start-up: stopping (TELEGRAM_WAIT_SECONDS=0)"
        )
        try:
            for pause in (*self.start_retries, None):
                try:
                    await self.bot.initialize()
                    return
                except InvalidToken:  # not PTB's error: its message holds the token
                    raise TokenRefused(
                        "the token was refused by Telegram (getMe answered 401/404):"
                        " check BOT_TOKEN"
                    ) from None
                except NetworkError as e:  # TimedOut too
                    if pause is None:
                        total = sum(self.start_retries)
                        raise TelegramUnreachable(
                            f"Telegram unreachable at start-up for {total:g} s"
                            f" ({reason_of(e)}) at {self.bot.base_url.split('/bot')[0]}"
                        ) from None
                    await asyncio.sleep(pause)
        finally:
            reach.retries = POLLING_RETRIES

    async def stop(self) -> None:
        self.metrics.stopping = True
        await super().stop()

    async def shutdown(self) -> None:
        self.metrics.stopping = True
        await _teardown(self)
        await super().shutdown()

    async def process_update(self, update: object) -> None:
        self.metrics.received(update)
        await super().process_update(update)

    def _mark_for_persistence_update(self, *, update: object = None, job: Any = None) -> None:
        # PTB notes the chat and user of every update for its persistence, and only a
        # persistence's flush forgets them: without one (the store is ours) that set
        # would hold every chat and person the bot ever saw
        if self.persistence is not None:
            super()._mark_for_persistence_update(update=update, job=job)


async def _setup(app: ShengjiApplication) -> None:
    """The bot's parts, each given what it works with, from the store up to the parts
    that start changes; then every open game resumed."""
    settings, clock = app.settings, app.clock
    assert app.job_queue is not None, "python-telegram-bot[job-queue] is required"
    store = await Store(settings.database_path).open()
    outboxes = Outboxes(
        app.bot,
        clock,
        settings.group_interval_seconds,
        settings.dm_interval_seconds,
        on_shown=store.save_shown,
        on_edited=store.note_shown,
    )
    readers = Readers(settings.webapp_streams_per_person, settings.webapp_streams_per_address)
    publisher = Publisher(settings, outboxes, clock, readers, app.bot.username)
    computers = Computers(
        wall_factor=settings.computer_wall_factor,
        wall_max_seconds=settings.computer_wall_max_seconds,
        default_strength=settings.computer_strength,
    )
    deadlines = Deadlines(JobSchedule(app.job_queue), publisher, computers, settings, clock)
    service = GameService(settings, store, clock, publisher, deadlines)
    chats = ChatLifecycle(service, service.games, store, outboxes)
    # The one loop of calls between the parts, closed here by name: a chat's delivery
    # that fails (a DM blocked, a group migrated) changes its games through the chats'
    # lifecycle, which changes them through the service, which delivers through the
    # outboxes. The outboxes are told who handles their failures once it exists.
    outboxes.on_forbidden, outboxes.on_migrated = chats.on_forbidden, chats.on_migrated
    parts = Parts(
        service=service,
        members=Members(app.bot, clock),
        lobby=Lobby(service, store, publisher, clock, app.seed_source or system_seed),
        hands=HandInput(service, publisher, computers),
        chats=chats,
        computers=computers,
        hub=Hub(readers, publisher, service, clock),
        outboxes=outboxes,
    )
    app.bot_data.start(parts)
    n = await service.resume_all()
    log.info("resumed %d open games", n)
    try:
        await app.bot.set_my_commands(
            [
                BotCommand("newgame", "new game / 开新局"),
                BotCommand("rules", "rules / 规则"),
                BotCommand("settings", "language, rules / 语言、规则"),
                BotCommand("last", "the previous hand / 上一局"),
                BotCommand("stats", "stats (/stats me) / 战绩"),
                BotCommand("takeover", "take an absent player's seat / 接替座位"),
                BotCommand("endgame", "end the game (creator, admins) / 结束本局"),
                BotCommand("help", "how to play / 玩法"),
            ]
        )
    except Exception as e:  # cosmetic: never block start-up on it
        log.info("set_my_commands failed: %s", e)


async def _teardown(app: ShengjiApplication) -> None:
    parts = app.bot_data.stop()
    if parts is not None:
        service = parts.service
        await parts.hands.close()  # hints still thinking: dropped before the pool goes
        service.close()
        parts.computers.close()
        await parts.outboxes.close()
        await service.store.close()


async def _on_error(update: object, context: Context) -> None:
    """What reaches PTB's error handler: an update whose handler raised (logged once,
    where it happened but no personal data; a failed change of a game was already, with
    its id), and a command is answered with an apology (a press is answered by
    ``on_callback`` itself); or polling that failed (``update`` None: the outage is
    logged once by ``bot.infra.reach``)."""
    error = context.error
    if update is None and isinstance(error, NetworkError):
        return
    if update is None and isinstance(error, TelegramError):  # polling, answered: say why
        log.error("polling for updates failed (PTB asks again, at most every 30 s): %s", error)
        return
    if not isinstance(update, Update):
        log.error("%s failed", type(update).__name__, exc_info=error)
        return
    fault = database_fault(error)  # a full disk: one line, no traceback
    if fault is not None:
        log.error("%s failed (%s)", describe(update, context), fault)
    elif not isinstance(error, StepFailed):
        log.error("%s failed", describe(update, context), exc_info=error)
    msg = update.effective_message
    if update.callback_query is not None or msg is None or not context.bot_data.running:
        return
    key = "error.undone" if isinstance(error, StepFailed) else "error.command"
    try:
        await reply(context, msg, t(await chat_lang(context, update), key))
    except Exception:
        log.exception("could not answer update %s after its error", update.update_id)
