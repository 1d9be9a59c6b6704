"""bench/capacity.py cannot rot: two games of four people play for a few seconds
(quick dealing so that cards are played) and every figure comes out: in one process
(the comparison), and with the bot in its own process over loopback TLS with
production's request class, by long polling and by its webhook."""

from __future__ import annotations

import asyncio
import importlib.util
import math
import random
import sys
from pathlib import Path

import pytest

from bot.app import build_application
from bot.infra.config import Settings

BENCH = Path(__file__).resolve().parents[2] / "bench" / "capacity.py"


def load():  # noqa: ANN201
    spec = importlib.util.spec_from_file_location("capacity_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


async def test_two_games_play_and_every_figure_is_measured() -> None:
    capacity = load()
    quick = {"deal_pace_seconds": "0", "overturn_window_seconds": "0.5"}
    r = await capacity.measure(
        2, seconds=4, warmup=0, think=0.05, seed=1, overrides=quick, min_plays=4,
        transport="inprocess",
    )  # fmt: skip
    assert r["games"] == 2 and r["request"] == "FakeRequest"
    assert r["plays"] >= 4  # both tables got past the deal and played cards (a slow
    # machine: the window lasts until it holds four plays, or two minutes more)
    assert 4 <= r["window_s"] < 130
    assert sum(r["by_kind"].values()) == r["presses"] and r["by_kind"]["P"] >= r["plays"]
    assert 0 < r["bot_cpu_ms_per_press"] < r["cpu_ms_per_press"]
    assert r["presses"] > r["plays"]  # Start, Pass and Hint presses too
    assert r["unanswered"] == 0
    assert 0 < r["p50_ms"] <= r["p99_ms"] < 10_000
    assert r["cpu_ms_per_press"] > 0
    # every press answered by the bot's answerCallbackQuery; those answered after the
    # window are not counted in its calls (at most one pending press a person)
    assert r["calls"]["answerCallbackQuery"] >= r["answered_in_window"] >= r["presses"] - 8
    assert r["calls_per_play"]["answerCallbackQuery"] > 0
    assert "getUpdates" not in r["calls"]
    # RSS growth: positive in the fresh process the bench runs each size in; here the
    # process ran other tests first (after test_lifecycle.py it was -1,148 KiB)
    assert math.isfinite(r["mem_kb_per_game"])
    table = capacity.table(2, {"old": capacity.figures([r]), "new": capacity.figures([r])})
    assert "press→answer p99 ms" in table and "CPU ms per press: bot" in table
    assert "ratio" in table


async def test_mini_app_players_play_over_the_api_and_spend_only_the_groups_writes() -> None:
    capacity = load()
    quick = {"deal_pace_seconds": "0", "overturn_window_seconds": "0.5"}
    r = await capacity.measure(
        2, seconds=4, warmup=0, think=0.05, seed=1, overrides=quick, min_plays=4, players="app",
        transport="inprocess",
    )  # fmt: skip
    assert r["players"] == "app" and r["plays"] >= 4
    # each table's player presses Hint, then Play: only a Hint pressed before the window
    # opened and answered after (one a table at most) leaves a Play in it without its Hint
    assert r["by_kind"]["H"] + r["games"] >= r["by_kind"]["P"] >= r["plays"]
    assert r["unanswered"] == 0 and 0 < r["p50_ms"] <= r["p99_ms"] < 10_000
    # no press went through Telegram: the apps act over the bot's own HTTP API; what
    # Telegram got is the group's table (and a turn notice for someone away)
    assert "answerCallbackQuery" not in r["calls"]
    assert sum(r["calls_per_play"].values()) < 1.0, r["calls"]
    table = capacity.table(2, {"dm": capacity.figures([r]), "app": capacity.figures([r])})
    assert "Telegram writes per s" in table and "calls per play: writes" in table


@pytest.mark.parametrize("mode", ["polling", "webhook"])
async def test_the_bot_in_its_own_process_plays_over_tls_with_productions_request(mode) -> None:
    capacity = load()
    quick = {"deal_pace_seconds": "0", "overturn_window_seconds": "0.5"}
    r = await capacity.measure(
        2, seconds=4, warmup=0, think=0.05, seed=1, overrides=quick, min_plays=4,
        transport="tls", mode=mode, loop="uvloop",
    )  # fmt: skip
    assert (r["transport"], r["mode"], r["loop"]) == ("tls", mode, "uvloop")
    # the bot's calls went through the class build_application makes when given none
    default = build_application(Settings(_env_file=None, bot_token="1:x")).bot.request
    assert r["request"] == type(getattr(default, "inner", default)).__name__
    assert r["plays"] >= 4 and r["unanswered"] == 0
    assert 0 < r["p50_ms"] <= r["p99_ms"] < 10_000
    # the bot's CPU is its own process's; "all" adds the fake's and the people's
    assert 0 < r["bot_cpu_ms_per_press"] < r["cpu_ms_per_press"]
    assert r["loop_late_p99_ms"] >= 0 and r["world_loop_late_p99_ms"] >= 0
    assert r["calls"]["answerCallbackQuery"] >= r["answered_in_window"] >= r["presses"] - 8
    if mode == "webhook":  # every press reached the bot through its webhook
        assert r["webhook_posted"] >= r["presses"] and r["polls"] == 0
    else:
        assert r["webhook_posted"] is None and r["polls"] > 0


def test_a_bot_given_another_request_class_than_productions_is_not_measured() -> None:
    capacity = load()
    from bot.fake_telegram import FakeTelegram

    settings = Settings(_env_file=None, bot_token="1:x")
    other = build_application(settings, request=FakeTelegram(http=False).request())
    with pytest.raises(SystemExit, match="adapt production_requests"):
        capacity.check_production_request(other, settings)


async def test_an_app_player_waiting_for_the_table_lets_the_bot_run() -> None:
    """A wake-up already set when the player starts waiting for the app's button (the
    Start press's answer set it) must not make them look again without yielding: the bot
    then never sends the button and the loop's timer heap grows (12 GB at 256 tables)."""
    capacity = load()
    looks = 0

    class Button:
        data, url, web_app = None, None, "https://capacity.invalid/app/?game=42"

    class Msg:
        from_bot, service = True, False

        def buttons(self) -> list[list[Button]]:
            return [[Button()]]

    class World:
        messages: list[Msg] = []

        def transcript(self, chat: object) -> list[Msg]:
            nonlocal looks
            looks += 1
            assert looks < 1000, "looked again and again without yielding"
            return self.messages

    world = World()
    bench = capacity.AppBench(world, 3.0, None, "", 4.0, capacity.Meter())
    table = capacity.Table(0, None, [capacity.Person(object())], random.Random(0))
    table.wake.set()  # as the bot's answer to the Start press left it

    def send() -> None:  # the bot's hand message, once the loop lets it run
        world.messages.append(Msg())
        table.wake.set()

    asyncio.get_running_loop().call_later(0.05, send)
    assert await bench.app_game(table) == 42
    assert looks < 10
