"""Webhook mode: `python -m bot` with WEBHOOK_URL serves python-telegram-bot's webhook on
127.0.0.1; Telegram's updates need the secret token, and the bot answers through the
(fake) Bot API. The same process serves /healthz and /metrics (METRICS_PORT)."""

import asyncio
import json
import os
import signal
import socket
import sys
from pathlib import Path

import aiohttp

from bot.fake_telegram import FakeTelegram
from tests.hosting.test_deploy import instructions

ROOT = Path(__file__).resolve().parents[2]
SECRET = "s3cret-Token_1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def wait_until(cond, timeout=60.0, what="condition"):
    deadline = asyncio.get_running_loop().time() + timeout
    while not await cond():
        assert asyncio.get_running_loop().time() < deadline, f"{what} not reached"
        await asyncio.sleep(0.1)


async def test_updates_without_the_secret_are_refused_and_with_it_answered(tmp_path):
    hook_port, metrics_port = free_port(), free_port()
    hook = f"http://127.0.0.1:{hook_port}/telegram/hook"
    async with FakeTelegram(settle_timeout=30) as world:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "WEBHOOK_"))}
        env.update(
            PYTHONPATH=str(ROOT),
            BOT_TOKEN=world.token,
            TELEGRAM_BASE_URL=world.base_url,
            DATABASE_PATH=str(tmp_path / "db.sqlite3"),
            WEBHOOK_URL=hook,
            WEBHOOK_SECRET=SECRET,
            WEBHOOK_LISTEN="127.0.0.1",
            WEBHOOK_PORT=str(hook_port),
            METRICS_PORT=str(metrics_port),
            GROUP_INTERVAL_SECONDS="1",
        )
        bot = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", cwd=tmp_path, env=env, stderr=asyncio.subprocess.PIPE
        )
        try:
            async with aiohttp.ClientSession() as http:

                async def healthy():
                    try:
                        async with http.get(f"http://127.0.0.1:{metrics_port}/healthz") as r:
                            return r.status == 200
                    except aiohttp.ClientConnectionError:
                        assert bot.returncode is None, "the bot exited"
                        return False

                await wait_until(healthy, what="/healthz answering 200")
                assert await docker_health_check(env) == 0  # the image's HEALTHCHECK passes
                assert world.core.webhook_url == hook  # the bot registered its webhook

                alice = world.user("Alice", started=True)
                await alice.send("/help", settle=False)
                update = world.core.updates.pop()  # what Telegram would post to the hook
                body = json.dumps(update)
                headers = {"Content-Type": "application/json"}

                for wrong in ({}, {"X-Telegram-Bot-Api-Secret-Token": "guess"}):
                    async with http.post(hook, data=body, headers={**headers, **wrong}) as r:
                        assert r.status == 403
                await asyncio.sleep(0.5)
                assert not [m for m in world.transcript(alice) if m.from_bot]

                right = {**headers, "X-Telegram-Bot-Api-Secret-Token": SECRET}
                async with http.post(hook, data=body, headers=right) as r:
                    assert r.status == 200

                async def answered():
                    return any(m.from_bot for m in world.transcript(alice))

                await wait_until(answered, what="the bot's answer to /help")

                # with the secret but not an update: 400, logged without the body
                private = '{"update_id": 9, "message": {"text": "Zhang Wei, room 12"}}'
                for body in (b"{not json", f"[{private}]".encode(), b'"Zhang Wei"'):
                    async with http.post(hook, data=body, headers=right) as r:
                        assert r.status == 400
                assert "/newgame" in world.last_message(alice, from_bot=True).text

                async with http.get(f"http://127.0.0.1:{metrics_port}/metrics") as r:
                    text = await r.text()
                assert 'shengji_updates_total{type="message"} 1.0' in text
        finally:
            if bot.returncode is None:
                bot.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(bot.communicate(), 60)
        assert bot.returncode == 0, err.decode()[-2000:]
        assert "GROUP_INTERVAL_SECONDS=1.0: the rate limiter still spaces" in err.decode()
        refused = [line for line in err.decode().splitlines() if "webhook: refused" in line]
        assert len(refused) == 3 and "Zhang Wei" not in err.decode(), err.decode()[-2000:]
        assert "Traceback" not in err.decode() and "CRITICAL" not in err.decode()
        assert await docker_health_check(env) != 0  # a stopped bot fails it


async def docker_health_check(env) -> int:
    """Run the Dockerfile's HEALTHCHECK command (exec form) as Docker would."""
    [args] = [
        a for name, a in instructions(ROOT / "deploy" / "Dockerfile") if name == "HEALTHCHECK"
    ]
    command = json.loads(args[args.index("CMD") + 3 :])
    command[0] = sys.executable if command[0] == "python" else command[0]
    proc = await asyncio.create_subprocess_exec(
        *command, env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
    )
    return await asyncio.wait_for(proc.wait(), 30)
