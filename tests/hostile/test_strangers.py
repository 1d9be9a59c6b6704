"""Only members see a group's table (issue 28): a person Telegram does not vouch for as
a member (unknown to it, left, or the call failed) is refused 403 and loads nothing;
the answer is remembered briefly (a second request costs no getChatMember), and a crowd
of strangers costs Telegram a bounded number of calls a second (the rest: 429)."""

from __future__ import annotations

import time
from typing import Any

from aiolimiter import AsyncLimiter

from bot.edges.members import NEGATIVE_TTL
from bot.fake_telegram import FakeTelegram
from tests.e2e.harness import running_bot
from tests.e2e.harness import service as service_of
from tests.webapp.client import Session, launch_data, started_game, webapp


class Nobody:
    """Someone Telegram's getChatMember does not know (a made-up id, signed launch data:
    a bot's own test user, or a leaked token's owner)."""

    def __init__(self, user_id: int) -> None:
        self.id, self.name = user_id, f"x{user_id}"
        self.user = type("U", (), {"language_code": "en"})()


def people_at(world: FakeTelegram) -> tuple[list[Any], Any]:
    people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
    group = world.group("Table", members=people[1:], admins=people[:1])
    return people, group


def as_person(client: Any, app: Any, person: Any, **extra: str) -> Session:
    return Session(client, launch_data(person, app.bot.token, service_of(app).wall(), **extra))


async def test_an_unknown_user_is_refused_and_asked_about_once_within_the_ttl(tmp_path):
    async with FakeTelegram() as world:
        people, group = people_at(world)
        async with running_bot(world, tmp_path / "db") as app, webapp(app) as client:
            game_id = await started_game(world, group, people)
            nobody = as_person(client, app, Nobody(77_000_001))
            asked = len(world.requests("getChatMember"))
            status, body = await nobody.get(game_id)
            assert status == 403, body
            assert len(world.requests("getChatMember")) == asked + 1
            status, _ = await nobody.get(game_id)  # remembered: Telegram is not asked again
            assert status == 403
            assert len(world.requests("getChatMember")) == asked + 1
            # the same through the group's direct link (a spectator link)
            from bot.views import codec

            link = as_person(
                client, app, Nobody(77_000_001), start_param=codec.open_payload(game_id)
            )
            status, _ = await link.get(None)
            assert status == 403
            assert len(world.requests("getChatMember")) == asked + 1
            # and the event stream
            r = await client.get(
                "/api/events", params={"game": str(game_id), "auth": nobody.init_data}
            )
            assert r.status == 403
            r.close()


async def test_a_member_is_served_and_one_who_left_is_refused_after_the_short_ttl(tmp_path):
    async with FakeTelegram() as world:
        people, group = people_at(world)
        fay = world.user("Fay", started=True)
        world.core.chat(group.id).members[fay.id] = "member"
        async with running_bot(world, tmp_path / "db") as app, webapp(app) as client:
            game_id = await started_game(world, group, people)
            watcher = as_person(client, app, fay)
            assert (await watcher.view(game_id))["me"] is None
            outsider = world.user("Gus", started=True)  # known to Telegram, not in the group
            status, _ = await as_person(client, app, outsider).get(game_id)
            assert status == 403
            world.core.chat(group.id).members[outsider.id] = "member"  # Gus joins
            status, _ = await as_person(client, app, outsider).get(game_id)
            assert status == 403  # still what Telegram said a moment ago
            world.clock.advance(NEGATIVE_TTL + 1)
            status, _ = await as_person(client, app, outsider).get(game_id)
            assert status == 200


async def test_a_crowd_of_strangers_costs_a_bounded_number_of_calls_a_second(tmp_path, monkeypatch):
    async with FakeTelegram() as world:
        people, group = people_at(world)
        async with (
            running_bot(world, tmp_path / "db", webapp_rate_per_minute=1000) as app,
            webapp(app) as client,
        ):
            game_id = await started_game(world, group, people)
            # Telegram asked in a burst of 5 at most, then once every 2 s (the bot's own
            # bound: CALLS_PER_SECOND; a slow one here, so that a loaded machine's slowness
            # does not refill it)
            monkeypatch.setattr(app.bot_data.members, "_calls", AsyncLimiter(5, 10))
            asked = len(world.requests("getChatMember"))
            statuses = []
            start = time.monotonic()
            for i in range(30):
                status, _ = await as_person(client, app, Nobody(78_000_000 + i)).get(game_id)
                statuses.append(status)
            refilled = int((time.monotonic() - start) / 2)
            calls = len(world.requests("getChatMember")) - asked
            assert calls <= 5 + refilled and statuses.count(403) == calls, (calls, statuses)
            assert set(statuses) == {403, 429}
