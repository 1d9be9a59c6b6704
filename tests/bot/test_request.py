"""The bot's Bot API client (bot/infra/request.py) over real sockets, plain HTTP and TLS, against
the fake Telegram's HTTP transport and a few servers that misbehave on purpose: calls go as
JSON (files as multipart), each failure is PTB's own error, ``bot.infra.reach`` says whether the
request may have reached Telegram (the outbox never posts twice, never drops a message
that surely did not arrive), and an outage is one log line."""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import logging
import socket
import ssl
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from aiohttp import web
from PIL import Image
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import NetworkError, RetryAfter, TimedOut

from bot.app import build_application
from bot.delivery.outbox import Outboxes
from bot.edges.metrics import Metrics
from bot.fake_telegram import FakeTelegram, HttpServer
from bot.infra.config import Settings
from bot.infra.reach import DELIVERY_RETRIES, surely_not_sent
from bot.infra.request import AiohttpRequest
from bot.views.messages import Content, LoopClock

TOKEN = "123456:TEST"


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A throwaway self-signed certificate for 127.0.0.1: (certificate, key), PEM."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def server_context(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*certificate)
    return context


class Recording(HttpServer):
    """The fake's HTTP transport, noting each call's method and body type."""

    def __init__(self, world: FakeTelegram) -> None:
        super().__init__(world.core)
        self.bodies: list[tuple[str, str]] = []

    async def _handle(self, request: web.Request) -> web.Response:
        self.bodies.append((request.match_info["method"], request.content_type))
        return await super()._handle(request)


@pytest.fixture(params=["http", "https"])
async def served(
    request: pytest.FixtureRequest, certificate: tuple[Path, Path]
) -> AsyncIterator[tuple[FakeTelegram, Recording, Callable[..., AiohttpRequest]]]:
    """The fake Telegram over HTTP or over TLS, and how to make a client that trusts it."""
    tls = request.param == "https"
    async with FakeTelegram(http=False) as world:
        server = Recording(world)
        await server.start(ssl_context=server_context(certificate) if tls else None)
        ca_file = certificate[0] if tls else None

        def client(pool: int = 256, read_timeout: float = 5.0) -> AiohttpRequest:
            return AiohttpRequest(pool, read_timeout, ca_file=ca_file)

        try:
            yield world, server, client
        finally:
            await server.stop()


def keyboard() -> InlineKeyboardMarkup:
    """A hand's worth of card buttons, ~2.5 KB of JSON as a DM's keyboard is."""
    labels = [f"♠{r}" for r in "23456789TJQKA"] * 3
    rows = [labels[i : i + 7] for i in range(0, len(labels), 7)]
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(x, callback_data=f"p:12345:{i}:{x}") for i, x in enumerate(row)]
         for row in rows]
    )  # fmt: skip


async def test_a_send_and_an_edit_with_a_keyboard_go_as_json_and_arrive_whole(served) -> None:
    world, server, client = served
    alice = world.user("Alice", started=True)
    markup = keyboard()
    assert len(markup.to_json()) > 2000
    async with Bot(world.token, base_url=server.base_url, request=client()) as bot:
        sent = await bot.send_message(alice.id, "<b>your hand</b>", parse_mode="HTML",
                                      reply_markup=markup)  # fmt: skip
        await bot.edit_message_text("your hand, 2", alice.id, sent.message_id, reply_markup=markup)
    [message] = world.transcript(alice)
    assert message.text == "your hand, 2"
    assert message.reply_markup == markup.to_dict()
    assert sent.entities[0].type == "bold"
    calls = [(m, t) for m, t in server.bodies if m in ("sendMessage", "editMessageText")]
    assert calls == [("sendMessage", "application/json"), ("editMessageText", "application/json")]


async def test_a_picture_is_uploaded_as_multipart_and_arrives_byte_for_byte(served) -> None:
    world, server, client = served
    alice = world.user("Alice", started=True)
    png = io.BytesIO()
    Image.new("RGB", (64, 32), "red").save(png, format="PNG")
    async with Bot(world.token, base_url=server.base_url, request=client()) as bot:
        sent = await bot.send_photo(alice.id, png.getvalue(), caption="levels", filename="c.png")
    assert world.core.files[sent.photo[-1].file_id] == png.getvalue()
    assert world.texts(alice) == ["levels"]
    assert ("sendPhoto", "multipart/form-data") in server.bodies


async def test_the_long_poll_waits_past_the_read_timeout_as_ptb_asks(served) -> None:
    """getUpdates' read time-out is PTB's (the object's plus the poll's ``timeout``)."""
    world, server, client = served
    updates = client(1, read_timeout=0.5)
    bot = Bot(world.token, base_url=server.base_url, request=client(), get_updates_request=updates)
    async with bot:
        start = asyncio.get_running_loop().time()
        assert await bot.get_updates(timeout=1) == ()
        assert asyncio.get_running_loop().time() - start >= 0.9


# -------------------------------------------------------------------- failures


def reach_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "bot.infra.reach"]


async def fail_twice(base_url: str, request: AiohttpRequest) -> BaseException:
    """Two sends through the bot's counted request (as ``build_application`` wraps it),
    both failing the same way: the error of the first."""
    bot = Bot(TOKEN, base_url=base_url, request=Metrics().instrument(request))
    errors = []
    async with request:
        for _ in range(2):
            with pytest.raises(NetworkError) as caught:
                await bot.send_message(42, "hello")
            errors.append(caught.value)
    assert type(errors[0]) is type(errors[1])
    return errors[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_refused_connection_is_a_network_error_that_surely_sent_nothing(caplog) -> None:
    caplog.set_level(logging.WARNING, "bot.infra.reach")
    error = await fail_twice(f"http://127.0.0.1:{free_port()}/bot", AiohttpRequest())
    assert not isinstance(error, TimedOut)
    assert surely_not_sent(error)
    [line] = reach_lines(caplog)  # one line for the outage, not one per call
    assert line.startswith("Telegram unreachable (NetworkError: aiohttp.ClientConnectorError")


async def test_an_untrusted_certificate_is_a_network_error_that_surely_sent_nothing(
    certificate, caplog
) -> None:
    caplog.set_level(logging.WARNING, "bot.infra.reach")
    async with FakeTelegram(http=False) as world:
        server = HttpServer(world.core)
        await server.start(ssl_context=server_context(certificate))
        try:
            # the system's store, which does not know the throwaway certificate
            error = await fail_twice(server.base_url, AiohttpRequest())
        finally:
            await server.stop()
        assert world.requests() == []  # nothing reached the fake
    assert surely_not_sent(error)
    [line] = reach_lines(caplog)
    assert "aiohttp.ClientConnectorCertificateError" in line and "CERTIFICATE" in line


async def test_a_connection_dropped_after_the_request_may_have_sent_it(caplog) -> None:
    """The fake reads the whole request, then closes the socket without answering (its
    outage): the call may have reached Telegram, so the outbox will not post it again."""
    caplog.set_level(logging.WARNING, "bot.infra.reach")
    async with FakeTelegram() as world:
        alice = world.user("Alice", started=True)
        world.core.unreachable = True
        request = AiohttpRequest()
        bot = Bot(world.token, base_url=world.base_url, request=Metrics().instrument(request))
        async with request:
            for _ in range(2):
                with pytest.raises(NetworkError) as caught:
                    await bot.send_message(alice.id, "hello")
                assert not isinstance(caught.value, TimedOut)
                assert not surely_not_sent(caught.value)
        # the fake read both calls whole before it dropped them
        assert [method for method, _ in world.core.dropped] == ["sendMessage"] * 2
    [line] = reach_lines(caplog)
    assert line.startswith("Telegram unreachable (NetworkError: aiohttp.ServerDisconnectedError")


async def silent_server(
    answer: Callable[[asyncio.StreamReader, asyncio.StreamWriter], object],
) -> tuple[asyncio.Server, str]:
    """A server that reads one request's head and body, then does ``answer``."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        await reader.readexactly(length)
        result = answer(reader, writer)
        if asyncio.iscoroutine(result):
            await result

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/bot"


def reset(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.transport.abort()  # a TCP reset, no answer


async def half_an_answer(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 100\r\n\r\n{\"ok\": true, ")  # fmt: skip
    await writer.drain()
    writer.close()


@pytest.mark.parametrize("answer", [reset, half_an_answer])
async def test_a_connection_reset_after_the_request_may_have_sent_it(answer, caplog) -> None:
    caplog.set_level(logging.WARNING, "bot.infra.reach")
    server, url = await silent_server(answer)
    async with server:
        error = await fail_twice(url, AiohttpRequest())
    assert not isinstance(error, TimedOut)
    assert not surely_not_sent(error)
    [line] = reach_lines(caplog)
    assert line.startswith("Telegram unreachable (NetworkError: aiohttp.")


async def test_no_answer_within_the_read_timeout_is_timed_out_and_may_have_been_sent(
    caplog,
) -> None:
    caplog.set_level(logging.WARNING, "bot.infra.reach")
    server, url = await silent_server(lambda reader, _: reader.read())  # waits for ever
    async with server:
        start = asyncio.get_running_loop().time()
        error = await fail_twice(url, AiohttpRequest(read_timeout=0.3))
        took = asyncio.get_running_loop().time() - start
    assert isinstance(error, TimedOut)
    assert not surely_not_sent(error)
    assert took < 3  # two calls of 0.3 s each
    [line] = reach_lines(caplog)
    assert line.startswith(
        "Telegram unreachable (TimedOut: aiohttp.SocketTimeoutError: Timeout on reading data"
        " from socket): "
    )


async def test_no_free_connection_within_the_pool_timeout_is_timed_out_and_surely_not_sent():
    server, url = await silent_server(lambda reader, _: reader.read())
    async with server, AiohttpRequest(1, read_timeout=5, pool_timeout=0.2) as request:
        bot = Bot(TOKEN, base_url=url, request=request)
        first = asyncio.create_task(bot.send_message(42, "holds the only connection"))
        await asyncio.sleep(0.1)
        with pytest.raises(TimedOut) as caught:
            await bot.send_message(42, "waits for it")
        assert surely_not_sent(caught.value)
        first.cancel()


async def test_flood_control_is_ptbs_retry_after_with_telegrams_seconds(served) -> None:
    world, server, client = served
    alice = world.user("Alice", started=True)
    world.flood(alice, 7)
    async with Bot(world.token, base_url=server.base_url, request=client()) as bot:
        with pytest.raises(RetryAfter) as caught:
            await bot.send_message(alice.id, "too soon")
    assert caught.value.retry_after == dt.timedelta(seconds=7)
    assert world.texts(alice) == []


# -------------------------------------------------------- the outbox over the wire


async def forward(port: int, to: int) -> asyncio.Server:
    """From ``port`` on, connections are passed on to ``to`` (Telegram back up)."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", to)
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    return await asyncio.start_server(handle, "127.0.0.1", port)


async def wait_for(condition: Callable[[], bool], seconds: float = 10) -> None:
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("not within time")


async def test_a_reply_refused_by_a_dead_connection_goes_out_once_telegram_is_back(caplog):
    """Nothing listens where Telegram should be: the reply surely never left, so the
    chat's outbox sends it again once Telegram answers, and it arrives once."""
    caplog.set_level(logging.WARNING)
    async with FakeTelegram() as world:
        alice = world.user("Alice", started=True)
        port = free_port()
        request = AiohttpRequest()
        bot = Bot(world.token, base_url=f"http://127.0.0.1:{port}/bot",
                  request=Metrics().instrument(request))  # fmt: skip
        async with request:
            boxes = Outboxes(bot, LoopClock(), group_interval=0, dm_interval=0)
            boxes.get(alice.id).post(Content("your cards"))
            await wait_for(lambda: bool(reach_lines(caplog)))
            up = await forward(port, urlsplit(world.base_url).port or 0)
            async with up:
                await wait_for(lambda: world.texts(alice) == ["your cards"])
                await asyncio.sleep(0.3)
                await boxes.close()
        assert world.texts(alice) == ["your cards"]
        assert len(world.requests("sendMessage")) == 1
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 2, lines  # the outage, and its end
    assert lines[0].startswith("Telegram unreachable (NetworkError: aiohttp.ClientConnectorError")
    assert lines[1].startswith("Telegram reachable again after")


async def test_a_reply_whose_connection_dropped_after_sending_is_never_posted_twice(caplog):
    """The fake reads the send, then drops the connection unanswered: it may have been
    posted, so the outbox gives it up (at most once) and delivers the next state."""
    caplog.set_level(logging.WARNING)
    async with FakeTelegram() as world:
        alice = world.user("Alice", started=True)
        request = AiohttpRequest()
        bot = Bot(world.token, base_url=world.base_url, request=Metrics().instrument(request))
        async with request:
            boxes = Outboxes(bot, LoopClock(), group_interval=0, dm_interval=0)
            world.core.unreachable = True
            boxes.get(alice.id).post(Content("did it arrive?"))
            await wait_for(lambda: len(world.core.dropped) == 1)
            world.core.unreachable = False
            await asyncio.sleep(DELIVERY_RETRIES[0] + 0.5)  # past the outbox's first retry
            assert len(world.core.dropped) == 1 and world.requests("sendMessage") == []
            boxes.get(alice.id).post(Content("the next one"))
            await wait_for(lambda: world.texts(alice) == ["the next one"])
            await boxes.close()
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 2, lines
    assert lines[0].startswith("Telegram unreachable (NetworkError: aiohttp.ServerDisconnected")
    assert lines[1].startswith("Telegram reachable again after")


async def test_a_host_behind_a_proxy_reaches_telegram_through_it(monkeypatch) -> None:
    """``HTTP_PROXY``/``HTTPS_PROXY`` in the environment are used, as httpx uses them."""
    heads: list[bytes] = []

    async def proxy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        heads.append(head.split(b"\r\n")[0])
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        await reader.readexactly(length)
        body = b'{"ok": true, "result": true}'
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(body), body))  # fmt: skip
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(proxy, "127.0.0.1", 0)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    async with server, AiohttpRequest() as request:
        bot = Bot(TOKEN, base_url="http://api.telegram.example/bot", request=request)
        assert await bot.delete_message(42, 7) is True
    assert heads == [f"POST http://api.telegram.example/bot{TOKEN}/deleteMessage HTTP/1.1".encode()]


@pytest.mark.parametrize(
    ("client", "body"),
    [("aiohttp", "application/json"), ("httpx", "application/x-www-form-urlencoded")],
)
async def test_the_production_bot_trusts_telegram_ca_file_and_telegram_client_picks_the_body(
    certificate, tmp_path, client, body
) -> None:
    """``build_application`` without an injected transport: TELEGRAM_CLIENT's request
    class, trusting TELEGRAM_CA_FILE for a Bot API server behind a private CA."""
    async with FakeTelegram(http=False) as world:
        alice = world.user("Alice", started=True)
        server = Recording(world)
        await server.start(ssl_context=server_context(certificate))
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            bot_token=world.token,
            database_path=tmp_path / "db",
            telegram_base_url=server.base_url,
            telegram_client=client,
            telegram_ca_file=str(certificate[0]),
        )
        try:
            app = build_application(settings)
            async with app.bot:
                await app.bot.send_message(alice.id, "hello", reply_markup=keyboard())
        finally:
            await server.stop()
    assert world.texts(alice) == ["hello"]
    assert ("sendMessage", body) in server.bodies


async def test_no_connection_within_the_connect_timeout_is_timed_out_and_surely_not_sent(
    caplog,
) -> None:
    """The server takes the TCP connection but never answers TLS's hello: the
    connection is never made, so nothing was sent."""
    caplog.set_level(logging.WARNING, "bot.infra.reach")

    async def mute(reader: asyncio.StreamReader, _: asyncio.StreamWriter) -> None:
        await reader.read()

    server = await asyncio.start_server(mute, "127.0.0.1", 0)
    url = f"https://127.0.0.1:{server.sockets[0].getsockname()[1]}/bot"
    async with server:
        error = await fail_twice(url, AiohttpRequest(connect_timeout=0.3))
    assert isinstance(error, TimedOut)
    assert surely_not_sent(error)
    [line] = reach_lines(caplog)
    assert line.startswith("Telegram unreachable (TimedOut: aiohttp.ConnectionTimeoutError")


@pytest.mark.parametrize("content", [None, "not a certificate"])
def test_a_ca_file_that_cannot_be_read_is_a_configuration_error(tmp_path, content) -> None:
    path = tmp_path / "ca.pem"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ValueError, match=f"{path} is not a readable PEM certificate"):
        Settings(_env_file=None, telegram_ca_file=str(path))  # type: ignore[call-arg]
