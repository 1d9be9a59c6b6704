"""A monkey at a table whose four players all have the Mini App open (issue 28: "the
monkey run's figures, 0 unanswered and 0 tracebacks, hold with the Mini App's streams
open").

The real bot in its own process with 1,024 descriptors (``python -m bot --telegram``);
each player holds the cap of event streams (4) with their pages shown, and for a bounded
time the four of them, picked at random, do what a crowd does: Hint then Play through
the Mini App (the game plays_asked on), a random action of the Mini App with a stale or
current version, a random button of their DM hand (a card, Hint, Play, Why…), garbage
callback data, and odd JSON. Every press is answered, every request gets an answer
below 500, the game plays_asked, the streams stay open and hear the changes, the log holds
no traceback and no ERROR, and the bot stops at once.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import aiohttp

from bot.fake_telegram import SimUser
from tests.e2e.harness import hand_message
from tests.hostile.harness import Bot, enough_descriptors, hostile_bot, open_stream

SECONDS = 40  # the monkey's time (bounded: CI)
ACTIONS = ("play", "show", "hint", "clear", "pass", "redeal", "back", "next")
GARBAGE = ("", "x", "D|1|1|0|Z", "T|99999999999999999999|1|1|1", "|" * 63, "é" * 20, "P|1")
ODD_BODIES = (b"{", b"[]", b'{"game": Infinity}', b"null", b'{"game": 1e400}', b"[" * 5000)


async def act(
    bot: Bot, http: aiohttp.ClientSession, person: SimUser, body: Any
) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": f"tma {bot.init_data(person)}"}
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers["Content-Type"] = "application/json"
    async with http.post(f"{bot.base}api/act", data=data, headers=headers) as r:
        text = await r.text()
        try:
            answer = json.loads(text)
        except ValueError:
            answer = {}
        return r.status, answer if isinstance(answer, dict) else {}


async def view(bot: Bot, http: aiohttp.ClientSession, person: SimUser) -> dict[str, Any]:
    headers = {"Authorization": f"tma {bot.init_data(person)}"}
    async with http.get(f"{bot.base}api/view?game={bot.game_id}", headers=headers) as r:
        assert r.status == 200, r.status
        return dict(await r.json())


async def test_a_monkey_at_a_table_of_open_mini_apps_leaves_no_press_unanswered(tmp_path):
    enough_descriptors(4096)
    rng = random.Random(28)
    async with hostile_bot(tmp_path, nofile=1024) as bot:
        world = bot.world
        streams = [
            await open_stream(bot, p, source="127.0.0.1") for p in bot.people for _ in range(4)
        ]
        assert all(s.status == 200 for s in streams)
        bot.mark()
        presses: list[float] = []
        statuses: list[int] = []
        plays_asked = 0
        async with aiohttp.ClientSession() as http:
            shown = asyncio.create_task(bot.keep_shown(http))
            first = await view(bot, http, bot.people[0])
            try:
                deadline = time.monotonic() + SECONDS
                while time.monotonic() < deadline:
                    person = rng.choice(bot.people)
                    roll = rng.random()
                    if roll < 0.45:  # the one whose move it is plays_asked, through the app
                        for p in bot.people:
                            v = await view(bot, http, p)
                            me, where = v["me"], {"hand": v["hand_no"], "version": v["version"]}
                            game = {"game": bot.game_id, **where}
                            if v["result"] is not None:
                                statuses.append(
                                    (await act(bot, http, p, {**game, "action": "next"}))[0]
                                )
                            elif me.get("can_pass") and not me.get("my_turn"):
                                statuses.append(
                                    (await act(bot, http, p, {**game, "action": "pass"}))[0]
                                )
                            elif me.get("my_turn"):
                                status, answer = await act(bot, http, p, {**game, "action": "hint"})
                                statuses.append(status)
                                after = answer.get("view") or await view(bot, http, p)
                                game["version"] = after.get("version", game["version"])
                                status, _ = await act(bot, http, p, {**game, "action": "play"})
                                statuses.append(status)
                                plays_asked += status == 200
                            else:
                                continue
                            break
                    elif roll < 0.6:  # any action of the app, its version now or stale
                        v = await view(bot, http, person)
                        body: dict[str, Any] = {
                            "game": bot.game_id,
                            "action": rng.choice(ACTIONS),
                            "hand": v["hand_no"],
                            "version": v["version"] - rng.choice((0, 0, 1, 5)),
                        }
                        if body["action"] in ("play", "show"):
                            body["cards"] = rng.sample(range(54), rng.randint(1, 4))
                        statuses.append((await act(bot, http, person, body))[0])
                    elif roll < 0.7:  # odd JSON
                        statuses.append((await act(bot, http, person, rng.choice(ODD_BODIES)))[0])
                    else:  # a button of the DM (a card, Hint, Play, Why…) or garbage
                        msg = hand_message(world, person, bot.game_id)
                        data = [b.data for row in msg.buttons() for b in row if b.data]
                        if not data or roll > 0.95:
                            data = [rng.choice(GARBAGE)]
                        start = time.monotonic()
                        record = world.core.callback(person.user, msg, rng.choice(data))
                        while not record.answered:
                            assert time.monotonic() - start < 10, "a press was not answered"
                            await asyncio.sleep(0.005)
                        presses.append(time.monotonic() - start)
                    await asyncio.sleep(rng.uniform(0, 0.05))
                last = await view(bot, http, bot.people[0])
            finally:
                shown.cancel()
        bad = [s for s in statuses if s >= 500]
        assert not bad, f"{len(bad)} answers of 5xx: {bad[:5]}"
        assert presses and max(presses) < 10
        assert plays_asked >= 20, f"the monkey hardly played: {plays_asked} plays asked"
        assert (last["hand_no"], last["tricks_done"]) != (first["hand_no"], first["tricks_done"])
        assert all(s.open for s in streams), "a stream within the cap was ended"
        assert all(s.events > 1 for s in streams), "a stream did not hear the changes"
        lines = bot.since()
        troubles = [x for x in lines if "Traceback" in x or " ERROR " in x or "CRITICAL" in x]
        assert not troubles, "\n".join(lines[-40:])
        assert await bot.stop() < 2
        print(
            f"\nmonkey: {len(presses)} DM presses (max {max(presses) * 1000:.0f} ms), "
            f"{len(statuses)} app requests, {plays_asked} plays asked, {len(lines)} log lines"
        )
