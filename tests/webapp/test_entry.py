"""Where the Mini App opens: the DM's "Table" button when the host set WEBAPP_URL (and
nothing new without it), and the server at WEBAPP_URL's path behind the proxy."""

import socket

import aiohttp
import pytest
from pydantic import ValidationError

from bot.edges.miniapp import server
from bot.fake_telegram import FakeTelegram
from bot.i18n import t
from bot.infra.config import Settings
from bot.views import codec
from tests.e2e.harness import buttons, hand_message, running_bot
from tests.webapp.client import started_game
from tests.webapp.test_api import people_at

URL = "https://cards.example.org/table/"


def web_apps(msg):
    return [b for b in buttons(msg) if b.web_app]


async def test_the_dm_hand_opens_the_table_of_its_game_when_the_host_set_a_url(tmp_path):
    async with FakeTelegram() as world:
        people, group = people_at(world)
        async with running_bot(world, tmp_path / "db", webapp_url=URL):
            game_id = await started_game(world, group, people)
            for user in people:
                (button,) = web_apps(hand_message(world, user, game_id))
                assert button.web_app == f"{URL}?game={game_id}"
                assert button.text == "🃏 Table"
            # nothing of the kind in the group (web_app buttons are for private chats)
            for msg in world.transcript(group):
                assert not web_apps(msg)


async def test_without_a_url_the_dm_has_no_table_button(tmp_path):
    async with FakeTelegram() as world:
        people, group = people_at(world)
        async with running_bot(world, tmp_path / "db"):
            game_id = await started_game(world, group, people)
            for user in people:
                assert not web_apps(hand_message(world, user, game_id))


def test_the_url_must_be_https():
    with pytest.raises(ValidationError):
        Settings(_env_file=None, webapp_url="http://cards.example.org/")  # type: ignore[call-arg]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_the_bot_serves_the_app_at_the_path_of_its_public_url(tmp_path):
    async with FakeTelegram() as world:
        async with running_bot(world, tmp_path / "db", webapp_url=URL) as app:
            port = _free_port()
            settings = app.settings.model_copy(update={"webapp_port": port})
            runner = await server.serve(app, settings)
            try:
                base = f"http://127.0.0.1:{port}"
                async with aiohttp.ClientSession() as http:
                    async with http.get(f"{base}/table/") as r:
                        assert r.status == 200 and "<!doctype html>" in (await r.text()).lower()
                    async with http.get(f"{base}/table/api/texts?lang=zh-hans") as r:
                        assert (await r.json())["btn.table"] == "🃏 牌桌"
                    async with http.get(f"{base}/table/api/view?game=1") as r:
                        assert r.status == 401  # no launch data, no table
            finally:
                await runner.cleanup()


async def test_with_a_short_name_the_groups_table_links_a_spectator_view(tmp_path):
    async with FakeTelegram() as world:
        people, group = people_at(world)
        async with running_bot(world, tmp_path / "db", webapp_short_name="table") as app:
            game_id = await started_game(world, group, people)
            link = f"https://t.me/{app.bot.username}/table?startapp={codec.open_payload(game_id)}"
            tables = [m for m in world.transcript(group) if any(b.url == link for b in buttons(m))]
            assert len(tables) == 1
            assert t("en", "btn.watch") in [b.text for b in buttons(tables[0])]
            # the DMs stay as they were: no WEBAPP_URL, no Table button
            assert not web_apps(hand_message(world, people[0], game_id))
