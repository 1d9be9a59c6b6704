"""/healthz and /metrics scraped while games run through the fake Telegram."""

import asyncio
from collections import Counter
from contextlib import AsyncExitStack

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from bot.edges import metrics
from bot.fake_telegram import FakeTelegram, RateLimits
from bot.infra.version import __version__
from bot.views.messages import LoopClock
from tests.e2e.harness import FakeTime, find, play_out, running_bot, seat_players
from tests.hosting.test_backup import start_with_computers


class Endpoint:
    def __init__(self, runner):
        self.runner = runner
        host, port = runner.addresses[0][:2]
        self.base = f"http://{host}:{port}"

    async def get(self, path):
        async with aiohttp.ClientSession() as http, http.get(self.base + path) as r:
            return r.status, await r.text()

    async def scrape(self) -> dict[tuple[str, tuple], float]:
        status, text = await self.get("/metrics")
        assert status == 200
        return {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text)
            for s in family.samples
        }


def total(samples, name, **labels):
    """Sum of the samples called ``name`` whose labels include ``labels``."""
    return sum(
        v
        for (n, ls), v in samples.items()
        if n == name and all(dict(ls).get(k) == w for k, w in labels.items())
    )


async def test_metrics_follow_a_game_as_the_fake_telegram_sees_it(tmp_path):
    async with FakeTelegram(rate_limits=RateLimits()) as world, AsyncExitStack() as stack:
        alice, bob = world.user("Alice"), world.user("Bob")
        group = world.group("Table", members=[bob], admins=[alice])
        async with running_bot(
            world, tmp_path / "db", clock=FakeTime(world), dm_interval_seconds=1.0
        ) as app:
            endpoint = Endpoint(await metrics.serve(app, app.metrics, "127.0.0.1", 0))
            stack.push_async_callback(endpoint.runner.cleanup)
            assert await endpoint.get("/healthz") == (200, '{"status": "ok"}')
            before = await endpoint.scrape()
            assert total(before, "shengji_build_info", version=__version__) == 1
            assert total(before, "shengji_games_running") == 0
            assert total(before, "shengji_press_answer_seconds_count") == 0

            game_id = await start_with_computers(world, group, [alice, bob])
            await play_out(
                world,
                app,
                game_id,
                {0: alice, 1: bob},
                stop=lambda g: len(g.match.hand.tricks) >= 4,
            )
            during = await endpoint.scrape()
        final = await endpoint.scrape()  # the bot stopped: the counts are final

        assert total(during, "shengji_games_running") == 1
        assert total(final, "shengji_games_running") == 0
        presses = [c for c in world.callbacks() if c.answered]
        assert len(presses) > 10
        assert total(final, "shengji_updates_total", type="callback_query") == len(presses)
        assert total(final, "shengji_updates_total", type="message") >= 3  # /newgame, /start
        # every press answered is timed, from reaching the bot to its answer
        assert total(final, "shengji_press_answer_seconds_count") == len(presses)
        assert 0 < total(final, "shengji_press_answer_seconds_sum") < 5 * len(presses)
        # calls and refusals by method, as Telegram (the fake) counted them
        calls = Counter(r.method for r in world.requests() if r.method != "getUpdates")
        for method, n in calls.items():
            assert total(final, "shengji_telegram_requests_total", method=method) == n, method
        refused = Counter(r.method for r in world.requests() if r.error_code == 429)
        assert refused, "the group's burst at the deal should meet Telegram's flood limit"
        for method, n in refused.items():
            assert total(final, "shengji_telegram_429_total", method=method) == n
            assert total(final, "shengji_telegram_errors_total", method=method, code="429") == n
        assert total(final, "shengji_telegram_429_total") == sum(refused.values())


async def test_the_outbox_backlog_shows_while_a_group_waits_for_its_turn(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice")
        group = world.group("Table", admins=[alice])
        # on the event loop's clock: the group's pacing takes real time, long enough to
        # scrape the backlog (on the fake's clock it would be gone at once)
        clock = LoopClock()
        async with running_bot(
            world, tmp_path / "db", clock=clock, group_interval_seconds=0.5
        ) as app:
            endpoint = Endpoint(await metrics.serve(app, app.metrics, "127.0.0.1", 0))
            try:
                await seat_players(world, group, [alice])
                for _ in range(3):
                    lobby = world.last_message(group, from_bot=True)
                    await alice.press(lobby, data=find(lobby, "C").data)
                    await world.settle()
                lobby = world.last_message(group, from_bot=True)
                await alice.press(lobby, data=find(lobby, "S").data, settle=False)  # deal!
                seen = []
                for _ in range(200):
                    seen.append(total(await endpoint.scrape(), "shengji_outbox_backlog"))
                    if seen[-1] > 0:
                        break
                    await asyncio.sleep(0.005)
                assert max(seen) > 0
                longest = total(await endpoint.scrape(), "shengji_outbox_backlog_max")
                assert longest >= 1
                await world.settle(timeout=30)
                after = await endpoint.scrape()
                assert total(after, "shengji_outbox_backlog") == 0
                assert total(after, "shengji_outbox_backlog_max", chat_type="group") == 0
            finally:
                await endpoint.runner.cleanup()


async def test_health_is_refused_once_the_bot_stopped(tmp_path):
    async with FakeTelegram() as world:
        async with running_bot(world, tmp_path / "db") as app:
            endpoint = Endpoint(await metrics.serve(app, app.metrics, "127.0.0.1", 0))
            assert (await endpoint.get("/healthz"))[0] == 200
        try:
            status, body = await endpoint.get("/healthz")
            assert status == 503 and "stopping" in body
        finally:
            await endpoint.runner.cleanup()
