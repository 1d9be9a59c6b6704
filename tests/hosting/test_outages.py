"""Clear lines in outages (issue 28 item 7), as a host sees them: the real process
(``python -m bot --telegram``), its health endpoint and its log.

- ``/healthz`` listens from the first second, before Telegram is asked anything, and says
  why the bot is not ready while it starts (Telegram unreachable, for how long, why);
- with no network at start the bot stops after ``TELEGRAM_WAIT_SECONDS`` in two lines;
- Telegram lost while games run is one WARNING however many chats fail, and stopping
  during the outage adds one line, no traceback;
- a 500 with a Bot API answer (a method a local Bot API server does not support) is that
  method failing, not "Telegram unreachable"."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import time

import aiohttp
from telegram import Bot
from telegram.error import NetworkError
from telegram.request import BaseRequest

from bot.edges.metrics import Metrics
from bot.fake_telegram import FakeTelegram
from bot.infra.reach import MethodFailed
from tests.e2e.harness import build_bot, find
from tests.e2e.test_budget import link_of, lobby_of
from tests.hosting.test_faults import bot_env
from tests.hosting.test_webhook import free_port, wait_until


async def health(http: aiohttp.ClientSession, port: int) -> tuple[int, dict] | None:
    """``/healthz``'s status and JSON, or None while nothing listens."""
    try:
        async with http.get(f"http://127.0.0.1:{port}/healthz") as r:
            return r.status, await r.json()
    except aiohttp.ClientConnectionError:
        return None


def not_info(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip() and " INFO " not in line]


async def test_with_no_network_at_start_healthz_answers_at_once_and_the_bot_stops_in_two_lines(
    tmp_path,
):
    port, nothing = free_port(), free_port()  # nothing listens where Telegram should be
    env = bot_env(
        None,
        tmp_path / "db",
        BOT_TOKEN="123:secret-token",
        TELEGRAM_BASE_URL=f"http://127.0.0.1:{nothing}/bot",
        METRICS_PORT=str(port),
        TELEGRAM_WAIT_SECONDS="6",  # asked again after 2 and 4 s, then it stops
    )
    began = time.monotonic()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "--telegram", cwd=tmp_path, env=env,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    answers = []
    async with aiohttp.ClientSession() as http:
        while proc.returncode is None and time.monotonic() - began < 30:
            answer = await health(http, port)
            if answer is not None:
                answers.append((time.monotonic() - began, *answer))
            await asyncio.sleep(0.2)
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    stderr = err.decode()
    took = time.monotonic() - began
    assert proc.returncode == 1, stderr[-3000:]
    # the endpoint answered through the whole wait, from its start: 503, and why
    assert answers and answers[0][0] < 4.0 and len(answers) >= 10, answers[:3]
    assert {status for _, status, _ in answers} == {503}
    reason = answers[-1][2]["status"]
    assert reason.startswith("starting: Telegram unreachable for"), reason
    assert "ClientConnectorError" in reason  # bot.infra.request: nothing listens
    # two lines: the outage with what the bot does about it, and the exit
    assert "Traceback" not in stderr
    warning, error = not_info(stderr)
    assert " WARNING " in warning and "Telegram unreachable (" in warning
    assert "start-up: asking again after 2, 4 s, then stopping" in warning
    assert " ERROR " in error and "cannot start: Telegram unreachable at start-up for 6 s" in error
    assert "secret-token" not in stderr
    assert 6 <= took < 25


async def test_healthz_turns_200_when_telegram_answers_during_the_start(tmp_path):
    port = free_port()
    async with FakeTelegram() as world:
        world.core.unreachable = True
        env = bot_env(world, tmp_path / "db", METRICS_PORT=str(port))
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "--telegram", cwd=tmp_path, env=env,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        try:
            async with aiohttp.ClientSession() as http:
                answers: list = []

                async def answered(status, says=""):
                    answers.append(await health(http, port))
                    assert proc.returncode is None, "the bot exited"
                    last = answers[-1]
                    return last is not None and last[0] == status and says in last[1]["status"]

                unreachable = "starting: Telegram unreachable for"
                await wait_until(lambda: answered(503, unreachable), 20, "/healthz 503")
                world.core.unreachable = False
                await wait_until(lambda: answered(200), 30, "/healthz 200")
        finally:
            if proc.returncode is None:
                proc.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(proc.communicate(), 30)
    stderr = err.decode()
    assert proc.returncode == 0, stderr[-3000:]
    assert "Traceback" not in stderr
    warnings = not_info(stderr)
    assert len(warnings) == 2 and "reachable again" in warnings[1], warnings


async def test_an_outage_while_games_run_is_one_line_and_stopping_in_it_one_more(tmp_path):
    """Two people and two computers play (a turn left alone is auto-played after 2 s, so
    the group and both DMs keep changing); Telegram goes away for 12 s; the bot is
    stopped during the outage: one WARNING for the outage, one for the stop."""
    port = free_port()
    async with FakeTelegram(settle_timeout=30) as world:
        ann, bob = world.user("Ann", started=True), world.user("Bob", started=True)
        group = world.group("Table", members=[bob], admins=[ann])
        env = bot_env(
            world,
            tmp_path / "db",
            METRICS_PORT=str(port),
            TURN_TIMEOUT_SECONDS="2",
            COMPUTER_DELAY_SECONDS="0.2",
            DEAL_PACE_SECONDS="0.05",
            GROUP_INTERVAL_SECONDS="3.2",
        )
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "--telegram", cwd=tmp_path, env=env,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        try:
            async with aiohttp.ClientSession() as http:

                async def up():
                    answer = await health(http, port)
                    assert proc.returncode is None, "the bot exited"
                    return answer is not None and answer[0] == 200

                await wait_until(up, timeout=30, what="/healthz 200")
            await ann.send(group, "/newgame", settle=False)
            for who, seat in ((ann, 0), (bob, 1)):
                lobby = await eventually(
                    lambda s=seat: (lb := lobby_of(world, group)) and link_of(lb, s)
                )
                await who.press(lobby_of(world, group), text=lobby.text, settle=False)
                await eventually(lambda w=who: any("Table" in m.text for m in world.transcript(w)))
            for kind in ("C", "C", "S"):  # two computers, then Start
                lobby = await eventually(lambda k=kind: newest_with(world, group, k))
                await ann.press(lobby, data=find(lobby, kind).data, settle=False)
                await asyncio.sleep(3.5)  # the group's next slot
            await asyncio.sleep(3)  # dealt; the hand goes on
            world.core.unreachable = True
            await asyncio.sleep(12)
            chats = {str(chat) for _, chat in world.core.dropped if chat is not None}
        finally:
            proc.send_signal(signal.SIGTERM)
            stopping = time.monotonic()
            _, err = await asyncio.wait_for(proc.communicate(), 30)
            stopped = time.monotonic() - stopping
    stderr = err.decode()
    assert proc.returncode == 0, stderr[-3000:]
    assert len(chats) >= 2, chats  # messages to several chats failed meanwhile
    assert "Traceback" not in stderr, stderr[-3000:]
    warnings = not_info(stderr)
    assert len(warnings) == 2, warnings
    assert "Telegram unreachable (" in warnings[0] and "polling retries by itself" in warnings[0]
    assert "each chat's newest messages are tried again after 1, 2, 4, 8, 15, 30 s" in (warnings[0])
    assert "stopping: the updates fetched last could not be confirmed" in warnings[1]
    assert stopped < 10


async def eventually(value, timeout=30.0):
    """``value()`` once it is truthy (the bot working in another process meanwhile)."""
    deadline = time.monotonic() + timeout
    while not (found := value()):
        assert time.monotonic() < deadline, "not reached in time"
        await asyncio.sleep(0.1)
    return found


def newest_with(world, group, kind):
    """The group's newest message of the bot with a ``kind`` button (the lobby's)."""
    found = [m for m in world.transcript(group) if m.from_bot and find(m, kind)]
    return found[-1] if found else None


class Answers(BaseRequest):
    """A transport answering every call with ``status`` and ``body``."""

    def __init__(self, status: int, body: bytes) -> None:
        self.status, self.body = status, body

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass

    async def do_request(self, url, method, request_data=None, **timeouts):
        return self.status, self.body

    @property
    def read_timeout(self):
        return 1.0


async def test_a_500_from_one_method_is_that_method_failing_not_telegram_unreachable(caplog):
    metrics = Metrics()
    unsupported = json.dumps(
        {"ok": False, "error_code": 500, "description": "Internal Server Error"}
    ).encode()
    bot = Bot("123:abc", request=metrics.instrument(Answers(500, unsupported)))
    try:
        await bot.set_my_commands([("help", "help")])
    except MethodFailed as e:
        assert "Internal Server Error" in str(e) and "setMyCommands" in str(e)
    else:
        raise AssertionError("no error")
    assert metrics.reach.down_since is None and metrics.reach.last_ok is not None
    assert not [r for r in caplog.records if "unreachable" in r.getMessage()]
    # Telegram's front servers without the Bot API behind them: that is an outage
    gateway = Bot("123:abc", request=metrics.instrument(Answers(502, b"<html>Bad Gateway")))
    try:
        await gateway.get_me()
    except NetworkError as e:
        assert not isinstance(e, MethodFailed)
    else:
        raise AssertionError("no error")
    assert metrics.reach.down_since is not None
    [line] = [r.getMessage() for r in caplog.records if "unreachable" in r.getMessage()]
    assert line.startswith("Telegram unreachable (HTTP 502 from getMe)")


async def test_stopping_while_polling_sleeps_out_its_backoff_takes_a_second(tmp_path):
    """Telegram unreachable for a while: python-telegram-bot's polling loop sleeps longer
    after each failure (1 s, then 1.5 times longer); the bot asked to stop then stops at
    once, not after that sleep (up to 30 s: Docker kills a container after 10)."""
    async with FakeTelegram(http=False) as world:
        app = build_bot(world, tmp_path / "db")
        async with world.running(app, poll_timeout=0.2):
            world.core.unreachable = True

            def polls_failed():
                return sum(method == "getUpdates" for method, _ in world.core.dropped)

            await eventually(lambda: polls_failed() >= 4)  # it sleeps 5 s now
            stopping = time.monotonic()
        stopped = time.monotonic() - stopping
    assert stopped < 2.5, stopped
