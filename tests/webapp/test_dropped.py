"""A dropped phone (issue 17): when a player's Mini App goes, their DM takes over in seconds.

Four people play in their Mini Apps (open, shown, following their event streams); their
DMs wait. It is one player's turn when their app goes, either closed (its connection
closes: the app shut, the page hidden by a locked phone, which closes its stream) or
silent (the phone lost its network: the connection stays open, the page says nothing).
Their DM must then show their turn as a new message (it notifies) within seconds: the
connection's close is noticed within ``SWEEP_SECONDS``, a silent page within
``PRESENCE_SECONDS``. The times taken are printed.
"""

import asyncio
import random
import socket
import time
from urllib.parse import urlencode

import pytest

from bot.edges.miniapp import server
from bot.edges.miniapp import streams as live_module
from bot.edges.miniapp.streams import PRESENCE_SECONDS, SWEEP_SECONDS
from bot.fake_telegram import FakeClock, FakeTelegram, RateLimits
from tests.e2e.harness import running_bot, service
from tests.e2e.test_budget import SharedTime, pause, start_a_table
from tests.webapp.client import session, started_game, webapp
from tests.webapp.test_budget import PACE, _dm_text, open_apps, play_in_the_apps


def second_to_play(game) -> bool:
    """A trick's second play is due (its player played a few seconds ago)."""
    hand = game.match.hand
    trick = hand.tricks[-1] if hand.tricks else None
    return hand.phase == "playing" and trick is not None and len(trick.plays) == 1


@pytest.mark.parametrize("how", ["closed", "silent"])
async def test_a_dropped_app_gives_its_player_their_turn_in_the_dm_within_seconds(tmp_path, how):
    rng = random.Random(5)
    async with FakeTelegram(rate_limits=RateLimits(), clock=FakeClock(ticking=False)) as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        async with (
            running_bot(world, tmp_path / "db", clock=SharedTime(world), **PACE) as app,
            webapp(app) as client,
        ):
            svc = service(app)
            await start_a_table(world, app, group, people)
            while svc.games[1].match is None or svc.games[1].match.hand.phase == "dealing":
                await pause(world, 0.25)
            game = svc.games[1]
            sessions, streams, tasks = await open_apps(client, app, people, 1)
            await play_in_the_apps(world, app, 1, sessions, rng, stop=second_to_play)
            while svc.publisher.outboxes.pending():
                await pause(world, 0.25)
            seat = game.match.hand.turn
            user = people[seat]
            before = world.transcript(user)[-1]
            assert before.text != _dm_text(svc, game, seat)  # the DM waited: the app showed it
            # the app goes: its page says nothing more; closed, its connection closes too
            tasks[2 * seat + 1].cancel()
            if how == "closed":
                streams[seat].close()
            real, fake = time.monotonic(), svc.now()
            for _ in range(600):  # the bot's time passes as real time does
                await pause(world, 0.05)
                await asyncio.sleep(0.047)
                newest = world.transcript(user)[-1]
                if newest.message_id != before.message_id:
                    break
            real, fake = time.monotonic() - real, svc.now() - fake
            print(f"\napp {how}: the DM showed the turn after {real:.2f} s ({fake:.2f} s bot time)")
            assert newest.message_id != before.message_id  # a new message: it notifies
            assert newest.text == _dm_text(svc, game, seat)
            assert not app.bot_data.hub.connected(user.id)
            assert all(app.bot_data.hub.connected(p.id) for p in people if p is not user)
            limit = SWEEP_SECONDS + (PRESENCE_SECONDS if how == "silent" else 0) + 2
            assert fake <= limit and real <= limit + 2, (fake, real)
            for task in tasks:
                task.cancel()


async def test_an_app_that_stops_reading_its_stream_is_let_go(tmp_path, monkeypatch):
    """A phone that stops reading without closing (its network gone mid-stream): once a
    write cannot go out for WRITE_SECONDS, the bot ends the stream and drops the
    connection, instead of holding the handler and its buffers until TCP gives up."""
    monkeypatch.setattr(server, "WRITE_SECONDS", 0.5)
    monkeypatch.setattr(live_module, "PRESENCE_SECONDS", 1e9)  # only the write may end it
    async with FakeTelegram() as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        async with running_bot(world, tmp_path / "db") as app, webapp(app) as client:
            game_id = await started_game(world, group, people)
            live = app.bot_data.hub
            big = "x" * 256 * 1024

            async def documents(reader, timeout):  # a game changing fast, big views
                await asyncio.sleep(0)
                return None if reader.ended else big

            monkeypatch.setattr(live, "next", documents)
            init = session(client, app, people[0]).init_data
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect((client.server.host, client.server.port))
            query = urlencode({"game": game_id, "auth": init})
            sock.sendall(f"GET /api/events?{query} HTTP/1.1\r\nHost: t\r\n\r\n".encode())
            try:
                for _ in range(200):
                    if live.connected(people[0].id):
                        break
                    await asyncio.sleep(0.01)
                assert live.connected(people[0].id)  # streaming, into a socket nobody reads
                started = time.monotonic()
                while live.connected(people[0].id) and time.monotonic() - started < 10:
                    await asyncio.sleep(0.05)
                assert not live.connected(people[0].id)  # the stream ended by itself
                assert time.monotonic() - started < 5
                # and the connection is gone: what was buffered, then its end
                assert await asyncio.to_thread(_read_to_end, sock) > 0
            finally:
                sock.close()


def _read_to_end(sock: socket.socket) -> int:
    sock.settimeout(5)
    total = 0
    try:
        while chunk := sock.recv(1 << 16):
            total += len(chunk)
    except ConnectionResetError:  # dropped outright (RST)
        pass
    return total
