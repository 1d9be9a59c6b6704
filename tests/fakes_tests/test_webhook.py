"""Webhook delivery as Telegram's Bot API server does it (bot/fake_telegram/webhook.py):
a chat's messages one at a time and in order, presses per user so that one table's
players press in parallel, Telegram's secret header on each, a failed post posted again."""

from __future__ import annotations

import asyncio
import json
import socket

from aiohttp import web

from bot.fake_telegram import FakeTelegram
from bot.fake_telegram.webhook import SECRET_HEADER, WebhookPoster


async def test_a_chats_messages_wait_their_turn_while_each_players_press_arrives_at_once() -> None:
    arrived: list[tuple[str, dict]] = []  # (secret header, update) in arrival order
    release = asyncio.Event()
    refused_once: set[int] = set()

    async def hook(request: web.Request) -> web.Response:
        update = json.loads(await request.read())
        arrived.append((request.headers.get(SECRET_HEADER, ""), update))
        text = update.get("message", {}).get("text")
        if text == "/newgame":  # the bot takes its time over the first message
            await release.wait()
        if text == "/rules" and update["update_id"] not in refused_once:
            refused_once.add(update["update_id"])
            return web.Response(status=500)  # a fault: Telegram posts it again later
        return web.Response()

    app = web.Application()
    app.router.add_post("/hook", hook)
    runner = web.AppRunner(app)
    await runner.setup()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    await web.SockSite(runner, sock).start()
    port = sock.getsockname()[1]
    async with FakeTelegram(http=False) as world:
        core = world.core
        alice, bob = world.user("Alice", started=True), world.user("Bob", started=True)
        group = world.group("Table", members=[bob], admins=[alice])
        table = core.store(group, core.bot, text="the table")
        status, _ = await core.handle(
            world.token,
            "setWebhook",
            {"url": f"http://127.0.0.1:{port}/hook", "secret_token": "s3cret"},
        )
        assert status == 200
        poster = WebhookPoster(core, retry=0.05)
        task = asyncio.create_task(poster.run())
        try:
            await alice.send(group, "/newgame")
            await alice.send(group, "/rules")
            core.callback(alice.user, table, "P|1")  # (no keyboard needed to press)
            core.callback(bob.user, table, "P|2")

            async def until(n: int) -> None:
                async with asyncio.timeout(5):
                    while len(arrived) < n:
                        await asyncio.sleep(0.01)

            await until(3)  # /newgame held; both presses arrived meanwhile
            await asyncio.sleep(0.1)
            texts = [u.get("message", {}).get("text") for _, u in arrived]
            presses = [u["callback_query"]["from"]["id"] for _, u in arrived[1:]]
            assert texts[0] == "/newgame" and "/rules" not in texts, texts
            assert sorted(presses) == sorted([alice.id, bob.id])
            release.set()
            await until(5)  # /rules refused once, then posted again
            later = [u["message"]["text"] for _, u in arrived[3:]]
            assert later == ["/rules", "/rules"]
            assert {secret for secret, _ in arrived} == {"s3cret"}
            assert poster.posted == 4 and poster.failed == 1
            assert not core.updates  # every update was taken for delivery
        finally:
            core.close()
            await task
    await runner.cleanup()
