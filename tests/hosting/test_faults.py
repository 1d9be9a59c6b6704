"""A bot that cannot work says why in one line and exits non-zero (systemd or Docker
restart it and alert); Telegram lost while running is logged once and once found again,
and ``/readyz`` says whether Telegram answers (issue 19)."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import aiohttp
import pytest

from bot import hosting
from bot.app import TelegramUnreachable
from bot.edges import metrics
from bot.fake_telegram import FakeTelegram
from tests.e2e.harness import build_bot, running_bot, settings
from tests.hosting.test_webhook import free_port, wait_until

ROOT = Path(__file__).resolve().parents[2]


def bot_env(world: FakeTelegram | None, db: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "WEBHOOK_"))}
    env.update(PYTHONPATH=str(ROOT), DATABASE_PATH=str(db))
    if world is not None:
        env.update(BOT_TOKEN=world.token, TELEGRAM_BASE_URL=world.base_url)
    return env | extra


async def run_bot(env: dict[str, str], cwd: Path, timeout: float = 60) -> tuple[int, str]:
    """``python -m bot`` until it exits by itself (it must, within ``timeout``)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=cwd, env=env, stderr=asyncio.subprocess.PIPE
    )
    _, err = await asyncio.wait_for(proc.communicate(), timeout)
    assert proc.returncode is not None
    return proc.returncode, err.decode()


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr[-3000:]
    assert "Traceback" not in stderr
    return lines[0]


async def test_a_token_telegram_refuses_stops_the_bot_with_one_line(tmp_path):
    async with FakeTelegram() as world:
        env = bot_env(world, tmp_path / "db", BOT_TOKEN="123:not-the-token")
        code, err = await run_bot(env, tmp_path)
    assert code == 1
    line = one_line(err)
    assert "the token was refused by Telegram" in line and "not-the-token" not in line


async def test_a_database_that_is_not_sqlite_stops_the_bot_with_one_line(tmp_path):
    db = tmp_path / "db"
    db.write_bytes(os.urandom(8192))
    async with FakeTelegram() as world:
        code, err = await run_bot(bot_env(world, db), tmp_path)
    assert code == 1
    assert "file is not a database" in one_line(err)


@contextmanager
def read_only(path: Path):
    """``path`` (a file or a directory) cannot be written, even by root (immutable)."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(path)]).returncode != 0:
        pytest.skip("running as root where files cannot be made immutable (chattr +i)")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(path)], check=True)


@pytest.mark.parametrize("what", ["file", "directory"])
async def test_a_read_only_database_stops_the_bot_with_one_line(tmp_path, what):
    folder = tmp_path / "data"
    folder.mkdir()
    db = folder / "db"
    async with FakeTelegram() as world:
        # a database the bot made before, now read-only
        async with running_bot(world, db):
            pass
        for extra in (Path(f"{db}-wal"), Path(f"{db}-shm")):
            extra.unlink(missing_ok=True)
        with read_only(db if what == "file" else folder):
            code, err = await run_bot(bot_env(world, db), tmp_path)
    assert code == 1
    line = one_line(err)
    assert f"cannot use the database {db}" in line
    assert "readonly database" in line or "unable to open" in line


async def test_a_port_already_taken_stops_the_bot_with_one_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        async with FakeTelegram() as world:
            code, err = await run_bot(
                bot_env(world, tmp_path / "db", METRICS_PORT=str(port)), tmp_path
            )
    assert code == 1
    [line] = [line for line in err.splitlines() if " INFO " not in line]  # started, then:
    assert "Traceback" not in err
    assert "cannot start" in line and str(port) in line and "address already in use" in line


def test_a_webhook_without_a_secret_is_a_configuration_error_in_one_line(tmp_path):
    env = bot_env(None, tmp_path / "db", BOT_TOKEN="1:x", WEBHOOK_URL="https://h.example/hook")
    done = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert line.startswith("Configuration error") and "WEBHOOK_SECRET" in line


async def test_telegram_unreachable_at_start_up_is_asked_again_then_given_up(tmp_path, caplog):
    async with FakeTelegram() as world:
        world.core.unreachable = True
        app = build_bot(world, tmp_path / "db")
        app.start_retries = (0.01, 0.02)
        with pytest.raises(TelegramUnreachable, match="unreachable at start-up"):
            await app.initialize()
        [warning] = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert "asking again after 0.01, 0.02 s, then stopping" in warning.getMessage()
        assert not any(r.exc_info for r in caplog.records)

        caplog.clear()  # Telegram comes back during the retries: the bot starts
        app = build_bot(world, tmp_path / "db")
        app.start_retries = (0.2, 5.0)
        loop = asyncio.get_running_loop()
        loop.call_later(0.1, setattr, world.core, "unreachable", False)
        async with app:
            assert app.bot_data.running
        messages = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(messages) == 2 and "reachable again" in messages[1]


def test_the_process_exits_1_when_telegram_stays_unreachable(tmp_path, caplog, monkeypatch):
    world = FakeTelegram(http=False)
    world.core.unreachable = True
    app = build_bot(world, tmp_path / "db")
    app.start_retries = (0.01,)
    assert hosting.run(app, settings(world, tmp_path / "db")) == 1
    [error] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    line = error.getMessage()
    assert line.startswith("cannot start: Telegram unreachable at start-up for 0.01 s (")
    assert "ConnectionRefusedError" in line
    assert not any(r.exc_info for r in caplog.records)


async def test_readyz_answers_503_while_telegram_is_unreachable(tmp_path):
    async with FakeTelegram() as world:
        async with running_bot(world, tmp_path / "db") as app:
            runner = await metrics.serve(app, app.metrics, "127.0.0.1", 0)
            host, port = runner.addresses[0][:2]
            try:
                async with aiohttp.ClientSession() as http:

                    async def get(path):
                        async with http.get(f"http://{host}:{port}{path}") as r:
                            return r.status, await r.json()

                    assert await get("/readyz") == (200, {"status": "ok"})
                    world.core.unreachable = True  # noticed at the next call (a poll)

                    async def not_ready():
                        return (await get("/readyz"))[0] == 503

                    await wait_until(not_ready, timeout=10, what="/readyz 503")
                    status, body = await get("/readyz")
                    assert body["status"].startswith("Telegram unreachable for")
                    assert "ConnectionRefusedError" in body["status"]
                    assert (await get("/healthz"))[0] == 200  # alive: only Telegram is gone
                    world.core.unreachable = False
                    assert await get("/readyz") == (200, {"status": "ok"})
            finally:
                await runner.cleanup()


async def test_an_outage_while_polling_is_logged_once_and_its_end_once(tmp_path):
    """The real process (``run_polling``) loses Telegram for a few retries and finds
    it again: two lines, no traceback; /readyz follows. Then Telegram refuses polling
    for a moment (409): a line per refusal, no traceback."""
    port = free_port()
    async with FakeTelegram() as world:
        env = bot_env(world, tmp_path / "db", METRICS_PORT=str(port))
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", cwd=tmp_path, env=env, stderr=asyncio.subprocess.PIPE
        )
        try:
            async with aiohttp.ClientSession() as http:

                async def ready(expected):
                    try:
                        async with http.get(f"http://127.0.0.1:{port}/readyz") as r:
                            return r.status == expected
                    except aiohttp.ClientConnectionError:
                        assert proc.returncode is None, "the bot exited"
                        return False

                await wait_until(lambda: ready(200), what="/readyz 200")
                world.core.unreachable = True
                await wait_until(lambda: ready(503), what="/readyz 503")
                await asyncio.sleep(2.7)  # polling retries after 1, then 1.5 s
                world.core.unreachable = False
                await wait_until(lambda: ready(200), what="/readyz 200 again")
                alice = world.user("Alice", started=True)
                await alice.send("/help", settle=False)

                async def answered():
                    return any(m.from_bot for m in world.transcript(alice))

                await wait_until(answered, what="an answer after the outage")
                # Telegram answers but refuses polling (a webhook set elsewhere): said
                async with world.bot() as other:
                    await other.set_webhook("https://elsewhere.example/hook")
                    await asyncio.sleep(1.5)
                    await other.delete_webhook()
        finally:
            if proc.returncode is None:
                proc.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(proc.communicate(), 60)
        stderr = err.decode()
        assert proc.returncode == 0, stderr[-3000:]
        assert stderr.count("Telegram unreachable (") == 1, stderr[-3000:]
        assert stderr.count("Telegram reachable again after") == 1, stderr[-3000:]
        assert "polling retries by itself" in stderr
        errors = [line for line in stderr.splitlines() if " ERROR " in line]
        assert errors and all("polling for updates failed" in e for e in errors), stderr[-3000:]
        assert "Conflict: can't use getUpdates method while webhook is active" in errors[0]
        assert "Traceback" not in stderr, stderr[-3000:]
