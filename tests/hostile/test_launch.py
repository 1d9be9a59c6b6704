"""Launch data and the answers' headers (issue 28): old launch data still reads the table
but no longer acts, a burst of launch data that proves nothing from one address is
answered 429 (other addresses and good requests are not), and every answer carries the
security headers that let Telegram's web clients frame the page and nobody else."""

from __future__ import annotations

from typing import Any

from bot.edges.miniapp.server import HEADERS
from bot.fake_telegram import FakeTelegram
from tests.e2e.harness import running_bot
from tests.e2e.harness import service as service_of
from tests.webapp.client import Session, launch_data, session, started_game, webapp


def people_at(world: FakeTelegram) -> tuple[list[Any], Any]:
    people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
    group = world.group("Table", members=people[1:], admins=people[:1])
    return people, group


async def test_launch_data_old_enough_reads_the_table_but_no_longer_acts(tmp_path):
    async with FakeTelegram() as world:
        people, group = people_at(world)
        async with running_bot(world, tmp_path / "db") as app, webapp(app) as client:
            game_id = await started_game(world, group, people)
            settings = service_of(app).settings
            assert settings.webapp_act_max_age_seconds < settings.webapp_auth_max_age_seconds
            age = settings.webapp_act_max_age_seconds + 60
            old = Session(
                client, launch_data(people[1], app.bot.token, service_of(app).wall() - age)
            )
            view = await old.view(game_id)  # reading: still within its max age
            assert view["me"]["seat"] == 1
            body = {"game": game_id, "action": "hint", "hand": view["hand_no"]}
            r = await client.post("/api/act", json=body, headers=old.headers)
            assert r.status == 401
            fresh = session(client, app, people[1])
            assert (await fresh.act(game_id, "hint", view))["view"]["me"]["seat"] == 1


async def test_a_burst_of_bad_signatures_from_one_address_is_answered_429(tmp_path):
    async with FakeTelegram() as world:
        people, group = people_at(world)
        async with (
            running_bot(world, tmp_path / "db", webapp_rate_per_minute=10_000) as app,
            webapp(app) as client,
        ):
            game_id = await started_game(world, group, people)
            burst = int(service_of(app).settings.webapp_bad_auth_per_minute)
            good = session(client, app, people[0])
            forged = good.init_data.rsplit("hash=", 1)[0] + "hash=" + "0" * 64
            statuses = []
            for _ in range(burst + 30):
                r = await client.get(
                    "/api/view",
                    params={"game": str(game_id)},
                    headers={"Authorization": f"tma {forged}", "X-Forwarded-For": "203.0.113.5"},
                )
                statuses.append(r.status)
            assert statuses[:burst] == [401] * burst
            assert set(statuses[burst + 1 :]) == {429}, statuses
            # another client behind the same proxy is not held to that address's failures
            r = await client.get(
                "/api/view",
                params={"game": str(game_id)},
                headers={"Authorization": f"tma {forged}", "X-Forwarded-For": "203.0.113.6"},
            )
            assert r.status == 401
            # and good launch data from the address is served
            r = await client.get(
                "/api/view",
                params={"game": str(game_id)},
                headers={**good.headers, "X-Forwarded-For": "203.0.113.5"},
            )
            assert r.status == 200
            # the event stream's launch data (in its URL) counts as well
            r = await client.get(
                "/api/events",
                params={"game": str(game_id), "auth": forged},
                headers={"X-Forwarded-For": "203.0.113.5"},
            )
            assert r.status == 429


async def test_every_answer_carries_the_security_headers(tmp_path):
    async with FakeTelegram() as world:
        people, group = people_at(world)
        async with running_bot(world, tmp_path / "db") as app, webapp(app) as client:
            game_id = await started_game(world, group, people)
            ann = session(client, app, people[0])
            csp = HEADERS["Content-Security-Policy"]
            assert "frame-ancestors 'self' https://web.telegram.org https://*.telegram.org" in csp
            requests = [
                ("GET", "/", {}, None),
                ("GET", "/static/table.js", {}, None),
                ("GET", "/api/texts?lang=en", {}, None),
                ("GET", f"/api/view?game={game_id}", ann.headers, None),
                ("GET", f"/api/view?game={game_id}", {}, None),  # 401
                ("GET", "/api/view?game=x", ann.headers, None),  # 400
                ("GET", "/api/view?game=424242", ann.headers, None),  # 404
                ("POST", "/api/act", ann.headers, b"{"),  # 400
                ("POST", "/api/here", ann.headers, b'{"game": 1}'),  # 404: no stream
            ]
            seen = {}
            for method, path, headers, data in requests:
                r = await client.request(method, path, headers=headers, data=data)
                seen[(path, r.status)] = {k: r.headers.get(k) for k in HEADERS}
                await r.read()
            r = await client.get(
                "/api/events", params={"game": str(game_id), "auth": ann.init_data}
            )
            seen[("/api/events", r.status)] = {k: r.headers.get(k) for k in HEADERS}
            r.close()
            assert {s for _, s in seen} >= {200, 400, 401, 404}
            for where, headers in seen.items():
                assert headers == HEADERS, where
            assert HEADERS["X-Content-Type-Options"] == "nosniff"
            assert HEADERS["Referrer-Policy"] == "no-referrer"
