"""The Mini App's HTTP side (aiohttp): the page, its API and its live updates.

Every API request carries Telegram's signed launch data (``Authorization: tma
<initData>``; the event stream, which a browser opens without headers, as ``?auth=``),
checked by ``bot.edges.miniapp.auth``; the person it names is the only identity. A seated
player reads their seat's view and acts for their seat only; a member of the group who
does not play reads the public view (``Members.sees_table``: asked of Telegram, the
answer cached briefly); anyone else, or anyone Telegram does not vouch for, is refused
403 (the table names the group and its players).

    GET  /                 the page (``static/``, no build step)
    GET  /telegram-web-app.js  Telegram's WebApp script (a redirect; the sandbox: a stand-in)
    GET  /api/texts?lang=  the page's words (the i18n catalogs' ``webapp.*`` keys)
    GET  /api/view?game=   the reader's view of the game (``bot.views.miniapp``)
    GET  /api/tricks?game= the hand's tricks so far (the page's Tricks panel, when opened)
    GET  /api/history?game=  the match's finished hands and level chart (its History panel)
    POST /api/act          an action (``bot.edges.miniapp.actions``): a DM button's command
    GET  /api/events?game= server-sent events: the view, then the view after each change
    POST /api/here         the page is shown (every few seconds; ``bot.edges.miniapp.streams``)

Each person may make ``WEBAPP_RATE_PER_MINUTE`` requests a minute (a leaky bucket,
``aiolimiter``); more are answered 429. Launch data is accepted up to
``WEBAPP_AUTH_MAX_AGE_SECONDS`` old to read and ``WEBAPP_ACT_MAX_AGE_SECONDS`` to act
(``POST /api/act``); an address whose launch data proves nothing more than
``WEBAPP_BAD_AUTH_PER_MINUTE`` times a minute is answered 429 (``bot.edges.miniapp.net.client_address``: behind
a reverse proxy, the client the proxy names). Every answer carries ``HEADERS``: the page
may be framed by Telegram's web clients (and the sandbox, its own origin) only.

A request the page does not send (a body or a ``?game=`` that does not parse, a body
over ``MAX_BODY`` bytes) is answered 4xx, its reason in one line at most, never a
traceback. A change that did not happen (its save failed: a full disk) is answered 503
with the chat's own words for it (``error.undone``) and the game as it was saved.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal, NamedTuple, Protocol
from urllib.parse import urlsplit

from aiohttp import web
from aiolimiter import AsyncLimiter

from bot.edges.members import Busy, Members
from bot.edges.miniapp import actions, net
from bot.edges.miniapp.auth import InitDataError, Launch, validate
from bot.edges.miniapp.streams import Hub
from bot.i18n import LANGS, catalog, normalize, pick, t
from bot.infra.config import Settings
from bot.service.live import Game, StepFailed
from bot.table import Answer
from bot.table.commands import SeatCommand
from bot.views import codec
from bot.views.answers import reply_in

log = logging.getLogger(__name__)


class Service(Protocol):
    """What the Mini App asks of the games (``bot.service.game.GameService``)."""

    @property
    def settings(self) -> Settings: ...

    def wall(self) -> float: ...

    async def read(self, game_id: int) -> Game | None: ...


class Presses(Protocol):
    """A seat's buttons (``bot.edges.seat.HandInput``): an action is one of them."""

    async def press(self, game: Game, command: SeatCommand) -> Answer: ...


class Parts(Protocol):
    """The running bot's parts the Mini App uses (``bot.edges.context.Parts`` is one)."""

    @property
    def service(self) -> Service: ...

    @property
    def members(self) -> Members: ...

    @property
    def hands(self) -> Presses: ...

    @property
    def hub(self) -> Hub: ...


class Data(Protocol):
    """What the Mini App reads of the running bot's ``bot_data`` (``bot.edges.context.BotData``)."""

    @property
    def parts_or_none(self) -> Parts | None: ...


class Token(Protocol):
    @property
    def token(self) -> str: ...


class BotApp(Protocol):
    """The running bot as the Mini App needs it (``bot.edges.context.BotApp`` is one): the
    server is served by the bot, so it names what it uses rather than importing it."""

    @property
    def bot(self) -> Token: ...

    @property
    def bot_data(self) -> Data: ...


STATIC = Path(__file__).parent / "static"
Handler = Callable[[web.Request], Awaitable[web.Response]]
PTB: web.AppKey[Callable[[], BotApp | None]] = web.AppKey("ptb")
LIMITS: web.AppKey[OrderedDict[int, AsyncLimiter]] = web.AppKey("limits")
BAD_AUTH: web.AppKey[OrderedDict[str, AsyncLimiter]] = web.AppKey("bad_auth")
KEEPALIVE = 15.0
# a stream write that cannot go out this long (its app stopped reading, e.g. a phone that
# lost its network without closing the connection) ends the stream and its connection
WRITE_SECONDS = 10.0
TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js"
MAX_LIMITERS = 10_000  # people remembered by the rate limiter (the least recent forgotten)
MAX_BODY = 16 * 1024  # an action's body is a few dozen bytes: more is answered 413
# on every answer: the page runs its own scripts and Telegram's, talks to its own origin,
# and is framed only by Telegram's web clients (web.telegram.org) or its own origin (the
# sandbox); launch data travels in URLs: no referrer
HEADERS = {
    "Content-Security-Policy": "; ".join(
        (
            "default-src 'self'",
            "script-src 'self' https://telegram.org",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'self' https://web.telegram.org https://*.telegram.org",
        )
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
# at shutdown, what a request still being handled is given (the streams end at once)
SHUTDOWN_SECONDS = 1.0


def make_app(ptb: Callable[[], BotApp | None], stand_in: Path | None = None) -> web.Application:
    """The Mini App of the running bot ``ptb()`` (the bot's Application, whose
    ``bot_data`` holds the service once initialised; None before it is built). The page
    loads Telegram's own WebApp script; ``stand_in``: a file serving instead (the
    sandbox, no Telegram)."""
    app = web.Application(client_max_size=MAX_BODY)
    app[PTB] = ptb
    app[LIMITS] = OrderedDict()
    app[BAD_AUTH] = OrderedDict()
    app.on_response_prepare.append(_headers)
    app.router.add_get("/", index)
    app.router.add_get("/telegram-web-app.js", _script(stand_in))
    app.router.add_static("/static/", STATIC)
    app.router.add_get("/api/texts", texts)
    app.router.add_get("/api/view", view)
    app.router.add_get("/api/tricks", _panel("tricks"))
    app.router.add_get("/api/history", _panel("history"))
    app.router.add_post("/api/act", act)
    app.router.add_get("/api/events", events)
    app.router.add_post("/api/here", here)
    return app


async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})


def _script(stand_in: Path | None) -> Any:
    async def script(request: web.Request) -> web.StreamResponse:
        if stand_in is None:
            raise web.HTTPFound(TELEGRAM_SCRIPT)
        return web.FileResponse(stand_in, headers={"Cache-Control": "no-store"})

    return script


async def texts(request: web.Request) -> web.Response:
    lang = normalize(request.query.get("lang")) or "zh"
    words = catalog(lang if lang in LANGS else "zh")
    keep = {k: v for k, v in words.items() if k.startswith(("webapp.", "btn."))}
    return web.json_response(keep, dumps=_dumps)


# ---------------------------------------------------------------------- who is asking
class Running(NamedTuple):
    """The running bot as one request sees it: read once a request (``_running``)."""

    parts: Parts
    token: str


RUNNING: web.RequestKey[Running] = web.RequestKey("running", Running)  # read once a request


def _running(request: web.Request) -> Running:
    """The bot's parts while its service runs (503 before), read once a request."""
    running: Running | None = request.get(RUNNING)
    if running is None:
        ptb = request.app[PTB]()
        parts = None if ptb is None else ptb.bot_data.parts_or_none
        if ptb is None or parts is None:
            raise web.HTTPServiceUnavailable(text="starting")
        running = request[RUNNING] = Running(parts, ptb.bot.token)
    return running


def _service(request: web.Request) -> tuple[Service, Settings]:
    svc = _running(request).parts.service
    return svc, svc.settings


async def _launch(request: web.Request, init_data: str | None, acting: bool = False) -> Launch:
    svc, settings = _service(request)
    if acting:
        max_age = min(settings.webapp_act_max_age_seconds, settings.webapp_auth_max_age_seconds)
    else:
        max_age = settings.webapp_auth_max_age_seconds
    try:
        if not init_data:
            raise InitDataError("launch data expected")
        return validate(init_data, _running(request).token, max_age=max_age, now=svc.wall())
    except InitDataError as e:
        rate = settings.webapp_bad_auth_per_minute
        if not await _spend(request.app[BAD_AUTH], net.client_address(request), rate):
            raise web.HTTPTooManyRequests(text="slow down", headers={"Retry-After": "5"}) from None
        raise web.HTTPUnauthorized(text=e.reason) from None


async def _from_header(request: web.Request, acting: bool = False) -> Launch:
    scheme, _, data = request.headers.get("Authorization", "").partition(" ")
    return await _launch(request, data if scheme.lower() == "tma" else None, acting)


async def _spend(limits: OrderedDict[Any, AsyncLimiter], key: Any, per_minute: float) -> bool:
    """Spend one of ``key``'s requests (``per_minute``, in a burst of as many); False
    when none is left. The least recent of more than MAX_LIMITERS keys is forgotten."""
    limiter = limits.get(key)
    if limiter is None:
        limiter = limits[key] = AsyncLimiter(per_minute, 60)
        while len(limits) > MAX_LIMITERS:
            limits.popitem(last=False)
    limits.move_to_end(key)
    if not limiter.has_capacity():
        return False
    await limiter.acquire()  # there is capacity: this does not wait
    return True


async def _limit(request: web.Request, user_id: int) -> None:
    """Spend one of the person's requests, or answer 429."""
    rate = _service(request)[1].webapp_rate_per_minute
    if not await _spend(request.app[LIMITS], user_id, rate):
        raise web.HTTPTooManyRequests(text="slow down", headers={"Retry-After": "1"})


async def _headers(request: web.Request, response: web.StreamResponse) -> None:
    response.headers.update(HEADERS)


async def _reader(
    request: web.Request, launch: Launch, game_id: int | None
) -> tuple[Game, int | None, str]:
    """The game, the reader's seat in it (None: a member of the group watching) and
    their language; 404 / 403 otherwise."""
    svc, _ = _service(request)
    # an ended game is read from the store and stays there, whatever the answer
    game = None if game_id is None else await svc.read(game_id)
    if game is None:
        raise web.HTTPNotFound(text="no such game")
    user = launch.user
    rec = game.table.rec
    seat = rec.seat_of(user.id)
    if seat is None:  # a spectator: only a member Telegram vouches for sees the table
        try:
            member = await _members(request).sees_table(rec.chat_id, user.id)
        except Busy:
            raise web.HTTPTooManyRequests(text="busy", headers={"Retry-After": "1"}) from None
        if not member:
            raise web.HTTPForbidden(text="not in this group")
    return game, seat, rec.user_lang(user.id, user.language_code)


def _members(request: web.Request) -> Members:
    return _running(request).parts.members


def _game_of(request: web.Request, launch: Launch) -> int | None:
    """The game asked for: ``?game=`` (400 if it is no game id), else the direct link's
    ``startapp`` (signed)."""
    asked = request.query.get("game")
    if asked is None:
        if not launch.start_param:
            return None
        try:
            link = codec.parse_link(launch.start_param)
        except codec.BadData:
            return None
        return link.game if isinstance(link, codec.OpenLink) else None
    try:
        return actions.game_param(asked)
    except actions.BadAction as e:
        raise web.HTTPBadRequest(text=str(e)) from None


# ---------------------------------------------------------------------- the API
async def view(request: web.Request) -> web.Response:
    launch = await _from_header(request)
    await _limit(request, launch.user.id)
    game, seat, lang = await _reader(request, launch, _game_of(request, launch))
    async with game.lock:
        doc = _running(request).parts.hub.view(game, seat, lang)
    return web.json_response(doc, dumps=_dumps)


def _panel(name: Literal["tricks", "history"]) -> Handler:
    """A panel's document: read as the view is (the same proof, limit and reader), asked
    for when the page opens the panel rather than sent with every change."""

    async def panel(request: web.Request) -> web.Response:
        launch = await _from_header(request)
        await _limit(request, launch.user.id)
        game, seat, lang = await _reader(request, launch, _game_of(request, launch))
        async with game.lock:
            doc = _running(request).parts.hub.panel(game, seat, lang, name)
        if doc is None:
            raise web.HTTPNotFound(text="no match yet")
        return web.json_response(doc, dumps=_dumps)

    return panel


async def act(request: web.Request) -> web.Response:
    launch = await _from_header(request, acting=True)
    await _limit(request, launch.user.id)
    user = launch.user
    try:
        action = actions.parse(await request.read())
    except actions.BadAction:  # not what the page sends: refused here, politely
        lang = pick(None, user.language_code, _service(request)[1].default_language)
        refused = {"text": t(lang, "bad_button"), "alert": True, "view": None}
        return web.json_response(refused, status=400, dumps=_dumps)
    game, seat, lang = await _reader(request, launch, action.game)
    # the same door as a tapped button: lock, engine, save once, publish once
    command = action.command(user.id, user.language_code)
    status = 200
    try:
        if game.detached:  # an ended game: nothing changes it, as an old keyboard's press
            answer = Answer("stale")
        else:
            answer = await _running(request).parts.hands.press(game, command)
    except StepFailed:  # logged once with the game's id; the game is as it was saved
        answer, status = Answer("error.undone", alert=True), 503
    async with game.lock:
        doc = _running(request).parts.hub.view(game, seat, lang)
    said = reply_in(lang, answer)  # in the reader's words, as the view is
    return web.json_response(
        {"text": said.text, "alert": said.alert, "view": doc}, status=status, dumps=_dumps
    )


async def events(request: web.Request) -> web.StreamResponse:
    launch = await _launch(request, request.query.get("auth"))
    await _limit(request, launch.user.id)
    game, seat, lang = await _reader(request, launch, _game_of(request, launch))
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",  # nginx: pass each event on at once
        }
    )
    response.force_close()  # a stream's connection ends with it (no keep-alive after)
    await response.prepare(request)
    live = _running(request).parts.hub
    address = net.client_address(request)
    reader = live.open(game, launch.user.id, seat, lang, lambda: _closed(request), address)
    try:
        while True:
            data = await live.next(reader, KEEPALIVE)
            if reader.ended:
                break
            chunk = b": keep-alive\n\n" if data is None else f"data: {data}\n\n".encode()
            await asyncio.wait_for(response.write(chunk), WRITE_SECONDS)
    except TimeoutError:
        # what it was sent is held in buffers it does not empty: let the connection go
        log.info("Mini App stream of game %s stopped reading; closed", reader.game_id)
        if request.transport is not None:
            request.transport.abort()
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    finally:
        live.close(reader)
    return response


def _closed(request: web.Request) -> bool:
    transport = request.transport
    return transport is None or transport.is_closing()


async def here(request: web.Request) -> web.Response:
    """The page is shown: its event streams of ``game`` stay open (else they end within
    seconds, and the person's DM takes over again). 404: no stream of theirs is open."""
    launch = await _from_header(request)
    await _limit(request, launch.user.id)
    try:
        game_id = actions.parse_here(await request.read())
    except actions.BadAction as e:
        raise web.HTTPBadRequest(text=str(e)) from None
    if not _running(request).parts.hub.here(launch.user.id, game_id):
        raise web.HTTPNotFound(text="no open stream")
    return web.Response(status=204)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


async def serve(ptb: BotApp, settings: Settings) -> web.AppRunner:
    """Serve the Mini App at WEBAPP_URL's path on WEBAPP_LISTEN:WEBAPP_PORT (behind the
    host's TLS-terminating reverse proxy); ``await runner.cleanup()`` stops it, its event
    streams at once. Connections are capped, and silent ones closed (``bot.edges.miniapp.net``)."""
    path = prefix(settings.webapp_url)
    root = make_app(lambda: ptb)
    if path != "/":  # (the root reads the bodies: it bounds them, not the sub-app)
        root = web.Application(client_max_size=MAX_BODY)
        root.add_subapp(path, make_app(lambda: ptb))
    gate = net.Gate(lambda: _cap(settings), settings.webapp_idle_seconds)
    root.middlewares.append(gate.middleware)
    parts = ptb.bot_data.parts_or_none
    assert parts is not None, "the Mini App is served by a running bot"
    hub = parts.hub

    async def end_streams(app: web.Application) -> None:
        hub.stop()

    root.on_shutdown.append(end_streams)
    runner = web.AppRunner(
        root,
        access_log=None,  # launch data travels in URLs: no log
        keepalive_timeout=settings.webapp_idle_seconds,  # also before the first request
        lingering_time=net.LINGER_SECONDS,
        shutdown_timeout=SHUTDOWN_SECONDS,
    )
    await runner.setup()
    await net.Site(runner, gate, settings.webapp_listen, settings.webapp_port).start()
    log.info(
        "Mini App on http://%s:%d%s (public: %s), at most %d connections",
        settings.webapp_listen,
        settings.webapp_port,
        path,
        settings.webapp_url,
        _cap(settings),
    )
    return runner


def _cap(settings: Settings) -> int:
    """The connections held at most: WEBAPP_MAX_CONNECTIONS, never more than the
    descriptor limit allows (read again at every connection: it may change)."""
    most = net.derived_cap(net.descriptor_limit())
    return min(settings.webapp_max_connections or most, most)


def prefix(url: str) -> str:
    """The path the app is served at: WEBAPP_URL's, ending with a slash."""
    path = urlsplit(url).path.rstrip("/")
    return f"{path}/" if path else "/"
