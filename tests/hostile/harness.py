"""The real bot (``python -m bot --telegram``) as a host runs it, in a process of its own
with a descriptor limit, against the fake Telegram, with the Mini App on a local port;
and hostile clients: silent sockets and event streams by the thousand (issue 28)."""

from __future__ import annotations

import asyncio
import os
import resource
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp

from bot.fake_telegram import Chat, FakeTelegram, Message, SimUser
from bot.views import codec
from tests.e2e.harness import buttons, find, hand_message
from tests.hosting.test_webhook import free_port, wait_until
from tests.webapp.client import launch_data

ROOT = Path(__file__).resolve().parents[2]
PATH = "/table/"  # WEBAPP_URL's path, as behind a proxy
ATTACKER = "127.0.0.2"  # hostile clients connect from here (loopback: Linux routes 127/8)
QUICK = dict(
    DEAL_BATCH="25",
    DEAL_PACE_SECONDS="0.05",
    OVERTURN_WINDOW_SECONDS="30",
    TURN_TIMEOUT_SECONDS="600",
    GROUP_INTERVAL_SECONDS="0",
    DM_INTERVAL_SECONDS="0",
    COMPUTER_DELAY_SECONDS="0",
    COMPUTER_STRENGTH="easy",  # the heuristic: quick, in the loop
    WEBAPP_RATE_PER_MINUTE="1000000",  # the caps under test, not the rate limiter
)


def enough_descriptors(n: int) -> None:
    """This process (the clients) may open ``n`` files."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(n, hard), hard))


@dataclass
class Bot:
    world: FakeTelegram
    proc: asyncio.subprocess.Process
    log: Path
    port: int
    metrics_port: int
    group: Chat
    people: list[SimUser]
    game_id: int = 0
    marks: list[int] = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}{PATH}"

    def init_data(self, person: SimUser) -> str:
        return launch_data(person, self.world.token, time.time())

    def lines(self) -> list[str]:
        return self.log.read_text(errors="replace").splitlines()

    def mark(self) -> None:
        """From here on, count the log's lines (:meth:`since`)."""
        self.marks.append(len(self.lines()))

    def since(self) -> list[str]:
        return self.lines()[self.marks[-1] :]

    async def view(self, http: aiohttp.ClientSession, person: SimUser) -> tuple[int, float]:
        """``GET api/view`` of the game as ``person``: the status and the seconds taken."""
        start = time.monotonic()
        headers = {"Authorization": f"tma {self.init_data(person)}"}
        async with http.get(f"{self.base}api/view?game={self.game_id}", headers=headers) as r:
            await r.read()
            return r.status, time.monotonic() - start

    async def healthz(self, http: aiohttp.ClientSession) -> tuple[int, float]:
        start = time.monotonic()
        async with http.get(f"http://127.0.0.1:{self.metrics_port}/healthz") as r:
            await r.read()
            return r.status, time.monotonic() - start

    async def dm_press(self, person: SimUser) -> float:
        """A button of ``person``'s hand in their DM pressed: seconds until answered."""
        for _ in range(1000):  # its keyboard, once the deal is done
            msg = hand_message(self.world, person, self.game_id)
            button = next((b for row in msg.buttons() for b in row if b.data), None)
            if button is not None:
                break
            await asyncio.sleep(0.01)
        assert button is not None and button.data is not None
        start = time.monotonic()
        record = await person.press(msg, data=button.data, settle=False)
        assert not isinstance(record, type(msg))
        while not record.answered:
            assert time.monotonic() - start < 10, "the press was not answered"
            await asyncio.sleep(0.005)
        return time.monotonic() - start

    async def here(self, http: aiohttp.ClientSession) -> None:
        """Every player's page says it is shown (their streams stay open)."""
        for person in self.people:
            headers = {"Authorization": f"tma {self.init_data(person)}"}
            body = {"game": self.game_id}
            async with http.post(f"{self.base}api/here", json=body, headers=headers) as r:
                await r.read()

    async def keep_shown(self, http: aiohttp.ClientSession) -> None:
        while True:
            with suppress(aiohttp.ClientError):
                await self.here(http)
            await asyncio.sleep(2)

    async def stop(self, timeout: float = 30) -> float:
        """SIGTERM; the seconds until the process ended (it must, with 0)."""
        start = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(self.proc.wait(), timeout)
        took = time.monotonic() - start
        assert self.proc.returncode == 0, "\n".join(self.lines()[-30:])
        return took


@asynccontextmanager
async def hostile_bot(tmp_path: Path, nofile: int | None = 1024, **env: str) -> AsyncIterator[Bot]:
    """The bot with a game of four started (``nofile``: its descriptor limit, soft and
    hard, as ``prlimit --nofile=N:N`` sets it)."""
    port, metrics_port = free_port(), free_port()
    async with FakeTelegram(settle_timeout=30) as world:
        environ = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "WEBHOOK_"))}
        environ.update(
            PYTHONPATH=str(ROOT),
            BOT_TOKEN=world.token,
            TELEGRAM_BASE_URL=world.base_url,
            DATABASE_PATH=str(tmp_path / "db.sqlite3"),
            WEBAPP_URL=f"https://cards.example.org{PATH}",
            WEBAPP_PORT=str(port),
            METRICS_PORT=str(metrics_port),
            **QUICK,
            **env,
        )

        def limit() -> None:
            if nofile is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        log = tmp_path / "bot.log"
        with log.open("wb") as out:
            proc = await asyncio.create_subprocess_exec(
                *(sys.executable, "-m", "bot", "--telegram"),
                cwd=tmp_path,
                env=environ,
                stdout=out,
                stderr=out,
                preexec_fn=limit,
            )
        people = [world.user(name, started=True) for name in ("Ann", "Bo", "Cy", "Di")]
        group = world.group("Table", members=people)
        bot = Bot(world, proc, log, port, metrics_port, group, people)
        try:
            async with aiohttp.ClientSession() as http:

                async def healthy() -> bool:
                    assert proc.returncode is None, "\n".join(bot.lines()[-30:])
                    try:
                        return (await bot.healthz(http))[0] == 200
                    except aiohttp.ClientConnectionError:
                        return False

                await wait_until(healthy, timeout=30, what="/healthz answering 200")
            await start_game(bot)
            yield bot
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()


async def start_game(bot: Bot) -> None:
    """/newgame, the four take their seats and start: as :func:`seat_players` does, but
    waiting for what the bot (another process, perhaps slowed by a busy machine) shows
    rather than for the fake Telegram to settle."""
    world, group, people = bot.world, bot.group, bot.people

    async def shown(what: str, check: Callable[[], object]) -> Any:
        async def ready() -> bool:
            assert bot.proc.returncode is None, "\n".join(bot.lines()[-30:])
            try:
                return bool(check())
            except AssertionError:  # a message not there yet
                return False

        await wait_until(ready, timeout=30, what=what)
        return check()

    def lobby() -> Message | None:
        msg = world.last_message(group, from_bot=True)
        return msg if find(msg, "S") is not None else None

    await people[0].send(group, "/newgame", settle=False)
    msg = await shown("the lobby", lobby)
    bot.game_id = codec.decode(find(msg, "S").data).game  # type: ignore[union-attr]
    for i, person in enumerate(people):
        current = world.core.message(group, msg.message_id)
        assert current is not None
        link = next(b for b in buttons(current) if b.url and b.url.endswith(f"_{i}"))
        await person.press(current, text=link.text, settle=False)
        await shown(f"{person.name} seated", lambda p=person: p.name in _text(world, msg))
    current = world.core.message(group, msg.message_id)
    assert current is not None
    await people[0].press(current, data=find(current, "S").data, settle=False)  # type: ignore[union-attr]
    for person in people:  # each holds a hand with buttons: the game runs
        await shown(
            f"{person.name}'s hand",
            lambda p=person: any(b.data for b in buttons(hand_message(world, p, bot.game_id))),
        )


def _text(world: FakeTelegram, msg: Message) -> str:
    current = world.core.message(msg.chat, msg.message_id)
    return "" if current is None else current.text or ""


# ---------------------------------------------------------------------- hostile clients
Socket = tuple[asyncio.StreamReader, asyncio.StreamWriter]  # the writer kept: it closes


async def idle_socket(port: int, sent: bytes = b"") -> Socket:
    """A connection from ATTACKER that sends ``sent`` (nothing: says nothing at all)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(ATTACKER, 0))
    if sent:
        writer.write(sent)
    return reader, writer


async def idle_sockets(port: int, n: int, sent: bytes = b"") -> list[Socket]:
    """``n`` of :func:`idle_socket`, a hundred at a time (more at once overflow the
    listening socket's queue on a busy machine: the kernel then drops some unseen)."""
    sockets: list[Socket] = []
    while len(sockets) < n:
        batch = min(100, n - len(sockets))
        sockets += await asyncio.gather(*(idle_socket(port, sent) for _ in range(batch)))
        await asyncio.sleep(0.05)
    return sockets


async def closed_within(sockets: list[Socket], seconds: float) -> int:
    """How many of these connections the server closed within ``seconds``."""

    async def closed(socket: Socket) -> bool:
        reader = socket[0]
        try:
            async with asyncio.timeout(seconds):
                while await reader.read(65536):
                    pass
            return True
        except TimeoutError:
            return False
        except ConnectionError:
            return True

    return sum(await asyncio.gather(*(closed(s) for s in sockets)))


@dataclass(eq=False)
class Stream:
    """An event stream of the Mini App opened by hand (as a browser's EventSource)."""

    status: int = 0
    events: int = 0
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    writer: asyncio.StreamWriter | None = None

    @property
    def open(self) -> bool:
        return self.status == 200 and not self.ended.is_set()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.transport.abort()


async def open_stream(bot: Bot, person: SimUser, source: str = ATTACKER) -> Stream:
    """``GET api/events`` as ``person`` from ``source``; returns once the answer's status
    is in (the stream is then read in the background until the server ends it)."""
    stream = Stream()
    reader, stream.writer = await asyncio.open_connection(
        "127.0.0.1", bot.port, local_addr=(source, 0)
    )
    auth = quote(bot.init_data(person), safe="")
    stream.writer.write(
        f"GET {PATH}api/events?game={bot.game_id}&auth={auth} HTTP/1.1\r\n"
        f"Host: cards.example.org\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        stream.ended.set()
        return stream
    stream.status = int(head.split(b" ", 2)[1])

    async def read() -> None:
        try:
            while chunk := await reader.read(65536):
                stream.events += chunk.count(b"data: ")
        except ConnectionError:
            pass
        stream.ended.set()

    _readers.add(task := asyncio.create_task(read()))
    task.add_done_callback(_readers.discard)
    return stream


_readers: set[asyncio.Task[None]] = set()
