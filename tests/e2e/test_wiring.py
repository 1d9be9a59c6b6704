"""The end-to-end tests run the bot as production runs it: the Application that
``python -m bot`` (./run) builds and the one the harness builds differ only in what
the harness injects (the transport, the clock, the database path; and the seeds of the
deals), so a handler, rate limiter, update processor, job queue or allowed update that
production has and the tests lack (or the reverse) fails here."""

from typing import Any

import pytest
from telegram.ext import Application, SimpleUpdateProcessor

import bot.__main__
from bot.edges.context import BotData
from bot.fake_telegram import FakeTelegram
from bot.fake_telegram.limits import COUNTED_METHODS
from tests.e2e.harness import (
    FakeTime,
    build_bot,
    find,
    play_out,
    running_bot,
    seat_players,
)

# Attributes that carry the injected transport, or run-time state, not wiring.
INJECTED = {"_request", "_token", "_base_url", "_base_file_url"}


def described(obj: Any, skip: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Every slot of a PTB object: plain values as they are, others by their type."""
    out: dict[str, Any] = {}
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if name.startswith("__") or name in skip or name in INJECTED:
                continue
            value = getattr(obj, name, "<unset>")
            plain = value is None or isinstance(value, bool | int | float | str)
            out[name] = value if plain else type(value)
    return out


def handler(h: Any) -> dict[str, Any]:
    return {
        "type": type(h),
        "callback": h.callback.__qualname__,
        "module": h.callback.__module__,
        "block": h.block,
        "commands": sorted(getattr(h, "commands", ())),
        "filters": repr(getattr(h, "filters", None)),
        "pattern": repr(getattr(h, "pattern", None)),
        "chat_member_types": getattr(h, "chat_member_types", None),
    }


def limiter(rl: Any) -> dict[str, Any]:
    if rl is None:
        return {"type": None}
    return {
        "type": type(rl),
        "overall": rl.overall_rate,
        "group": (rl.group_rate, rl.group_period),
    }


def wiring(app: Application) -> dict[str, Any]:  # type: ignore[type-arg]
    """The Application as built, minus the transport, the clock and the database path."""
    bot, jq, up, ct = app.bot, app.job_queue, app.update_processor, app.context_types
    return {
        "application": described(app),
        "handlers": {group: [handler(h) for h in hs] for group, hs in app.handlers.items()},
        "error_handlers": {cb.__qualname__: block for cb, block in app.error_handlers.items()},
        "update_processor": (type(up), up.max_concurrent_updates),
        "bot": described(bot, frozenset({"_rate_limiter"})),
        "base_url": bot.base_url.replace(bot.token, "<token>"),
        "rate_limiter": limiter(bot.rate_limiter),
        "limiter_runs_on_the_bot_clock": getattr(bot.rate_limiter, "clock", None) is app.clock,
        "job_queue": jq and (type(jq), type(jq.scheduler), jq.scheduler.timezone),
        "updater": app.updater and (type(app.updater), app.updater.bot is bot),
        "bot_data": described(app.bot_data),
        "context_types": (ct.context, ct.bot_data, ct.chat_data, ct.user_data),
        "settings": type(app.settings),
    }


def production_app(
    monkeypatch, world: FakeTelegram, db, webhook: bool = False
) -> tuple[Application, dict[str, Any]]:  # type: ignore[type-arg]
    """What ``python -m bot`` builds and how it starts it (captured, not run)."""
    started: list[tuple[Application, dict[str, Any]]] = []  # type: ignore[type-arg]
    env = {"BOT_TOKEN": world.token, "DATABASE_PATH": str(db), "METRICS_PORT": "0"}
    env["WEBHOOK_URL"] = "https://bot.example/hook" if webhook else ""
    env["WEBHOOK_SECRET"] = "s3cret" if webhook else ""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for run in ("run_polling", "run_webhook"):
        monkeypatch.setattr(Application, run, lambda app, **kw: started.append((app, kw)))
    assert bot.__main__.main([]) == 0
    [(app, how)] = started
    return app, how


@pytest.mark.parametrize("webhook", [False, True], ids=["polling", "webhook"])
async def test_the_tests_build_the_bot_exactly_as_production_does(tmp_path, monkeypatch, webhook):
    async with FakeTelegram() as world:
        prod, how = production_app(monkeypatch, world, tmp_path / "prod.sqlite3", webhook)
        tested = build_bot(world, tmp_path / "e2e.sqlite3")
        assert wiring(tested) == wiring(prod)
        assert type(prod.clock).__name__ == "LoopClock"
        assert isinstance(tested.clock, FakeTime)
        # what the tests' bot asks Telegram for is what production asks for
        async with running_bot(world, tmp_path / "e2e.sqlite3"):
            await world.settle()
        assert world.core.allowed_updates == frozenset(how["allowed_updates"])
        assert not how.get("drop_pending_updates")


async def test_the_comparison_sees_a_wiring_difference(tmp_path, monkeypatch):
    """The check above cannot pass by accident: switching off the rate limiter, adding
    a handler or building another update processor each makes the two differ."""
    async with FakeTelegram() as world:
        prod, _ = production_app(monkeypatch, world, tmp_path / "prod.sqlite3")
        for change in ("limiter", "handler", "processor"):
            tested = build_bot(world, tmp_path / "e2e.sqlite3")
            if change == "limiter":
                object.__setattr__(tested.bot, "_rate_limiter", None)
            elif change == "handler":
                tested.add_handler(prod.handlers[0][0], group=1)
            else:
                tested._update_processor = SimpleUpdateProcessor(1)
            assert wiring(tested) != wiring(prod), change


async def test_a_hand_in_a_group_goes_through_the_rate_limiter_on_the_virtual_clock(tmp_path):
    """With no pacing of its own (GROUP_INTERVAL_SECONDS=0), the group still gets what
    the rate limiter lets through, as Telegram's clock sees it: a burst of 20 calls,
    then one every 3 s; the waits cost the test no real time. (Questions such as
    getChatMember go straight out: Telegram's flood limits count messages, and a seat
    join must not wait behind the group's table, issue 8.)"""
    async with FakeTelegram() as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        async with running_bot(world, tmp_path / "db", group_interval_seconds=0.0) as app:
            game_id, lobby = await seat_players(world, group, people)
            lobby = world.last_message(group, from_bot=True)
            await people[0].press(lobby, data=find(lobby, "S").data)
            await play_out(
                world,
                app,
                game_id,
                dict(enumerate(people)),
                stop=lambda g: g.match.hand.phase == "done",
            )
            await app.bot_data.outboxes.drain()
            await world.settle()
        times = [r.time for r in world.requests(chat=group) if r.method in COUNTED_METHODS]
        assert len(times) > 40
        # a leaky bucket of 20 draining one call per 3 s: never more than 20 + w/3 calls
        # in w s (give or take the real time a call takes from the limiter to Telegram)
        for i, start in enumerate(times):
            for j in range(i + 20, len(times)):
                assert j - i + 1 <= 20 + (times[j] - start + 0.5) / 3.0, (i, j)


async def test_python_telegram_bot_keeps_nothing_per_chat_or_person(tmp_path):
    """The handlers' context is typed (bot/edges/context.py): the bot's data is one BotData,
    and python-telegram-bot's dicts per chat and per person, which nothing would ever
    empty, stay empty while four people join, declare, bury and play (the store keeps
    what a chat or a person needs)."""
    async with FakeTelegram() as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        async with running_bot(world, tmp_path / "db") as app:
            game_id, lobby = await seat_players(world, group, people)
            lobby = world.last_message(group, from_bot=True)
            await people[0].press(lobby, data=find(lobby, "S").data)
            await play_out(
                world,
                app,
                game_id,
                dict(enumerate(people)),
                stop=lambda g: len(g.match.hand.tricks) > 1,
            )
            await people[1].send(group, "/rules")
            await people[2].send(people[2].private_chat, "hello")
            await world.settle()
            assert isinstance(app.bot_data, BotData) and app.bot_data.running
            assert dict(app.chat_data) == {} and dict(app.user_data) == {}
