"""Finished games stay on disk (issue 28): reading an ended game from the Mini App (its
view, its event stream, a stale action) or pressing an old DM button of it reads the
store and loads nothing into the games in memory, also when the answer is a refusal;
and an ended game's hands are nobody's private view any more."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.fake_telegram import FakeTelegram
from bot.i18n import t
from bot.views import codec
from tests.e2e.harness import hand_message, running_bot, wait_for
from tests.e2e.harness import service as service_of
from tests.webapp.client import session, started_game, webapp

READS = 60


def _for_game(data: str, game_id: int) -> str:
    """A button's callback data, but of another game (``kind|game|hand|version|arg``)."""
    kind, _, *rest = data.split("|")
    return "|".join([kind, codec.b36(game_id), *rest])


async def _first_event(response: Any) -> dict[str, Any]:
    import json

    while True:
        line = await asyncio.wait_for(response.content.readline(), 5)
        if line.startswith(b"data: "):
            return json.loads(line[6:])


async def test_reads_and_stale_presses_of_finished_games_leave_the_games_in_memory_alone(
    tmp_path,
):
    async with FakeTelegram() as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        stranger = world.user("Eve", started=True)
        async with (
            running_bot(world, tmp_path / "db", webapp_rate_per_minute=100_000) as app,
            webapp(app) as client,
        ):
            svc = service_of(app)
            ended_id = await started_game(world, group, people)
            await wait_for(world, lambda: hand_message(world, people[1], ended_id).buttons())
            old_dm = hand_message(world, people[1], ended_id)
            data = old_dm.buttons()[0][0].data
            held = list(svc.games[ended_id].match.hand.hands[1])
            assert held
            await people[0].send(group, "/endgame")
            await world.settle()
            question = next(
                m for m in reversed(world.transcript(group)) if "End the game" in (m.text or "")
            )
            await people[0].press(question, text="⏹ Yes, end it")
            await world.settle()
            await wait_for(world, lambda: ended_id not in svc.games)  # it left memory
            # more finished games on disk: copies of this one
            rec = await svc.store.load_game(ended_id)
            assert rec is not None and rec.status == "ended"
            ids = [ended_id]
            for _ in range(READS - 1):
                ids.append((await svc.store.create_game(rec.model_copy(update={"id": 0}))).id)
            live = await started_game(world, group, people)  # a game in play meanwhile
            before = set(svc.games)
            assert live in before and not before & set(ids)

            ben = session(client, app, people[1])
            eve = session(client, app, stranger)
            for game_id in ids:
                # a player's view: the final public table, not the cards Ben still held
                view = await ben.view(game_id)
                assert view["status"] == "ended" and view["me"] is None
                # a stranger is refused, and that loads nothing either
                status, _ = await eve.get(game_id)
                assert status == 403
                # a stale action from the app: out of date, as an old keyboard's press
                answer = await ben.act(game_id, "hint", view)
                assert answer["text"] == t("en", "stale") and answer["view"]["me"] is None
                # the event stream: the public view, then closed
                r = await client.get(
                    "/api/events", params={"game": str(game_id), "auth": ben.init_data}
                )
                assert r.status == 200 and (await _first_event(r))["me"] is None
                r.close()
                # an old DM button of the game
                press = world.core.callback(people[1].user, old_dm, _for_game(data, game_id))
                await world.settle()
                assert press.answered and "out of date" in press.text
                assert set(svc.games) == before, game_id
            await asyncio.sleep(1.5)  # the streams' sweeps and catch-ups have run
            await world.settle()
            assert set(svc.games) == before
