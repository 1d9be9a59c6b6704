"""The hostile requests of ``test_requests`` against the real bot (``python -m bot
--telegram``, the Mini App at WEBAPP_URL's path, as a host runs it): every one a 4xx, and
the bot's log holds no traceback and barely a line for all of them (issue 28)."""

from __future__ import annotations

import time

import aiohttp

from tests.hostile.harness import hostile_bot
from tests.hostile.test_requests import ACT_BODIES, GAME_PARAMS, HERE_BODIES
from tests.hostile.test_strangers import Nobody
from tests.webapp.client import launch_data


async def test_the_running_bot_answers_every_hostile_request_4xx_and_logs_no_traceback(tmp_path):
    async with hostile_bot(tmp_path, nofile=None) as bot:
        ann = bot.init_data(bot.people[0])
        auth = {"Authorization": f"tma {ann}"}
        game = str(bot.game_id).encode()
        bot.mark()
        statuses: dict[str, int] = {}
        async with aiohttp.ClientSession() as http:

            async def ask(what: str, method: str, path: str, **kw: object) -> None:
                async with http.request(method, bot.base + path, **kw) as r:  # type: ignore[arg-type]
                    await r.read()
                    statuses[what] = r.status

            json = {"Content-Type": "application/json"}
            for raw in ACT_BODIES:
                body = raw.replace(b"GAME", game)
                await ask(
                    f"act {body[:40]!r}", "POST", "api/act", data=body, headers={**auth, **json}
                )
            for raw in HERE_BODIES:
                body = raw.replace(b"GAME", game)
                await ask(
                    f"here {body[:40]!r}", "POST", "api/here", data=body, headers={**auth, **json}
                )
            for param in GAME_PARAMS:
                await ask(
                    f"view {param[:30]}", "GET", "api/view", params={"game": param}, headers=auth
                )
                query = {"game": param, "auth": ann}
                await ask(f"events {param[:30]}", "GET", "api/events", params=query)
            big = b'{"game": 1, "action": "hint", "x": "' + b"a" * 200_000 + b'"}'
            await ask("act, 200 kB", "POST", "api/act", data=big, headers=auth)
            # someone Telegram does not know, with launch data signed for this bot
            nobody = launch_data(Nobody(77_000_002), bot.world.token, time.time())
            query = {"game": str(bot.game_id)}
            await ask(
                "a stranger",
                "GET",
                "api/view",
                params=query,
                headers={"Authorization": f"tma {nobody}"},
            )
            # a burst of forged launch data: 401, then 429
            forged = {"Authorization": "tma " + ann.rsplit("hash=", 1)[0] + "hash=" + "0" * 64}
            for i in range(40):
                await ask(f"forged {i}", "GET", "api/view", params=query, headers=forged)
            async with http.get(bot.base + "api/view", params=query, headers=auth) as r:
                assert r.status == 200  # and the real thing still works
                for header in (
                    "Content-Security-Policy",
                    "X-Content-Type-Options",
                    "Referrer-Policy",
                ):
                    assert header in r.headers
        wrong = {k: v for k, v in statuses.items() if not 400 <= v < 500}
        assert not wrong, wrong
        assert statuses["a stranger"] == 403
        assert statuses["act, 200 kB"] == 413
        assert statuses["forged 0"] == 401 and statuses["forged 39"] == 429
        lines = bot.since()
        assert not [ln for ln in lines if "Traceback" in ln or "ERROR" in ln], lines[-40:]
        assert len(lines) < 10, lines
        await bot.stop()
