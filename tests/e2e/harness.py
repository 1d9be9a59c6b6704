"""Drive the real Application against the fake Telegram: build, run, restart, play via the UI."""

from __future__ import annotations

import asyncio
import itertools
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.app import ALLOWED_UPDATES, build_application
from bot.data.store import Store
from bot.fake_telegram import Button, FakeTelegram, Message, SimUser
from bot.infra.config import Settings
from bot.service.game import GameService
from bot.service.live import Game
from bot.views import codec

FAST = dict(
    deal_batch=5,
    deal_pace_seconds=0.01,
    overturn_window_seconds=30.0,
    turn_timeout_seconds=60.0,
    lobby_expiry_minutes=30.0,
    next_hand_delay_seconds=60.0,
    group_interval_seconds=0.0,
    dm_interval_seconds=0.0,
    computer_delay_seconds=0.0,
    # the heuristic unless a test chooses a strength: quick and in the loop (the host's
    # default, 普通, is tested on its own)
    computer_strength="easy",
)


class FakeTime:
    """The bot's pacing clock = the fake's clock; a pause advances it (no real waiting)."""

    def __init__(self, world: FakeTelegram) -> None:
        self.world = world

    def now(self) -> float:
        return self.world.clock.now()

    def wall(self) -> float:
        return self.world.clock.now()

    async def sleep(self, seconds: float) -> None:
        self.world.clock.advance(seconds)
        await asyncio.sleep(0)


def settings(world: FakeTelegram, db: Path, **overrides: Any) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        bot_token=world.token,
        database_path=db,
        **{**FAST, **overrides},
    )


# Settling waits for the fake Telegram to be done (every update taken, no request in
# flight, the event loop with nothing to run) and for the bot to be idle (bot_busy): no
# update in a handler, no game mutating, no database call in its thread, no message
# state undelivered, no timer due within SOON seconds. bot_busy sees the work the loop
# cannot see: no quiet period is needed (the fake's default is 0.05 s).
SETTLE_QUIET = 0.0
SOON = 0.05


def bot_busy(app: Any) -> bool:
    if not app.bot_data.running:
        return False
    svc: GameService = app.bot_data.service
    if len(app.update_processor.locks) or any(g.lock.locked() for g in svc.games.values()):
        return True
    if svc.deadlines.computers.thinking:  # a computer's move is being decided in the process pool
        return True
    if db_calls(svc.store):  # the loop cannot see the database's thread at work
        return True
    if svc.publisher.outboxes.pending():
        return True
    now = datetime.now(UTC)
    jobs = app.job_queue.jobs() if app.job_queue is not None else ()
    return any(j.next_t is not None and (j.next_t - now).total_seconds() < SOON for j in jobs)


def db_calls(store: Store) -> int:
    """Calls in flight on the store's connection (counted from the first look on):
    aiosqlite runs each in its own thread and wakes the loop when it is done."""
    try:
        conn = store.db
    except RuntimeError:  # closed
        return 0
    counter: list[int] | None = conn.__dict__.get("_calls_in_flight")
    if counter is None:
        counter = conn.__dict__["_calls_in_flight"] = [0]
        execute = conn._execute  # every call of the connection and its cursors

        async def counted(fn: Any, *args: Any, **kwargs: Any) -> Any:
            counter[0] += 1
            try:
                return await execute(fn, *args, **kwargs)
            finally:
                counter[0] -= 1

        conn._execute = counted  # type: ignore[method-assign]
    return counter[0]


# Every e2e game is dealt from a fixed seed: the n-th game a bot opens gets
# DEFAULT_SEED + n - 1 (a test that needs particular cards passes ``seed``).
DEFAULT_SEED = 20240601


def fixed_seeds(first: int = DEFAULT_SEED):
    """A seed source for ``build_application``: first, first + 1, ..."""
    return itertools.count(first).__next__


def build_bot(
    world: FakeTelegram, db: Path, clock: Any = None, seed: int = DEFAULT_SEED, **overrides: Any
) -> Any:
    """The production factory, injected with the fake's transport, a virtual clock (the
    fake's: pacing and the rate limiter's waits cost no real time), the database path
    and fixed seeds; nothing else differs (tests/e2e/test_wiring.py)."""
    return build_application(
        settings(world, db, **overrides),
        request=world.request(),
        get_updates_request=world.request(),
        clock=clock or FakeTime(world),
        seed_source=fixed_seeds(seed),
    )


@asynccontextmanager
async def running_bot(
    world: FakeTelegram, db: Path, clock: Any = None, seed: int = DEFAULT_SEED, **overrides: Any
):
    app = build_bot(world, db, clock, seed, **overrides)
    world.settle_quiet = min(world.settle_quiet, SETTLE_QUIET)
    # settle() also waits for the bot's own idleness (queued sends, locks, due timers)
    async with world.running(app, allowed_updates=ALLOWED_UPDATES, busy=lambda: bot_busy(app)):
        db_calls(service(app).store)  # counts the database's calls from now on
        yield app


def service(app: Any) -> GameService:
    return app.bot_data.service


async def game_of(app: Any, game_id: int) -> Game:
    """The game as the bot has it: in memory while in play, else as stored (an ended
    game leaves memory once its last messages are delivered)."""
    game = await service(app).get(game_id)
    assert game is not None, game_id
    return game


def press_of(button: Button) -> codec.Press | None:
    try:
        return codec.decode(button.data)
    except codec.BadData:
        return None


def buttons(msg: Message) -> list[Button]:
    return [b for row in msg.buttons() for b in row]


def find(msg: Message, kind: str) -> Button | None:
    for b in buttons(msg):
        p = press_of(b) if b.data else None
        if p is not None and p.kind == kind:
            return b
    return None


def hand_message(world: FakeTelegram, user: SimUser, game_id: int) -> Message:
    """The user's live hand message of a game (the newest with this game's buttons)."""
    for msg in reversed(world.transcript(user)):
        if msg.from_bot and any(
            (p := press_of(b) if b.data else None) is not None and p.game == game_id
            for b in buttons(msg)
        ):
            return msg
    for msg in reversed(world.transcript(user)):
        if msg.from_bot and "🀄" in (msg.text or ""):
            return msg
    raise AssertionError(f"no hand message for {user.name}")


async def press(user: SimUser, msg: Message, kind: str, settle: bool = True):
    b = find(msg, kind)
    assert b is not None, f"{user.name}: no {kind} button in {msg.keyboard()}"
    return await user.press(msg, data=b.data, settle=settle)


async def wait_for(world: FakeTelegram, cond, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not cond():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.01)


async def seat_players(world: FakeTelegram, group, users: list[SimUser]) -> tuple[int, Message]:
    """/newgame by the first user, everyone follows a seat's deep link in order."""
    await users[0].send(group, "/newgame")
    await world.settle()
    lobby = world.last_message(group, from_bot=True)
    for i, user in enumerate(users):
        lobby = world.last_message(group, from_bot=True)
        link = next(b for b in buttons(lobby) if b.url and b.url.endswith(f"_{i}"))
        await user.press(lobby, text=link.text)
        await world.settle()
    game_id = codec.decode(find(lobby, "S").data).game  # type: ignore[union-attr]
    return game_id, lobby


async def play_out(
    world, app, game_id: int, users: dict[int, SimUser], stop=None, group=None
) -> None:
    """Play through the UI: Pass in overturn windows, Hint then Bury/Play on a turn."""
    for _ in range(5000):
        await world.settle()
        game = await game_of(app, game_id)
        if stop is not None and stop(game):
            return
        if game.rec.status != "running":
            return
        hand = game.match.hand
        if hand.phase == "dealing":
            await asyncio.sleep(0.02)
            continue
        if hand.phase == "done":
            result = world.last_message(group, from_bot=True) if group is not None else None
            if result is None or find(result, "G") is None:
                await asyncio.sleep(0.02)
                continue
            await users[next(iter(users))].press(result, data=find(result, "G").data)
            continue
        if hand.phase == "after_deal":
            for seat, user in users.items():
                if hand.can_pass(seat):
                    await press(user, hand_message(world, user, game_id), "N")
            await asyncio.sleep(0.01)
            continue
        seat = hand.turn
        if seat not in users:
            await asyncio.sleep(0.01)
            continue
        user = users[seat]
        if hand.phase == "chaodi":
            await press(user, hand_message(world, user, game_id), "N")
            continue
        msg = hand_message(world, user, game_id)
        if find(msg, "H") is None:
            await asyncio.sleep(0.01)
            continue
        await press(user, msg, "H")  # (settles)
        # 托管 or a timer may have played for this seat meanwhile (the DM then shows no
        # Play button): look again at the game instead of pressing a stale message
        msg = hand_message(world, user, game_id)
        if (await game_of(app, game_id)).match.hand.turn != seat or find(msg, "P") is None:
            continue
        await press(user, msg, "P")
    raise AssertionError("the match did not end")


def pending_timer(app: Any, game_id: int) -> tuple[int, int, str] | None:
    """The token of the game's armed timer (hand, version, kind), if any."""
    assert app.job_queue is not None
    jobs = [j for j in app.job_queue.get_jobs_by_name(f"game:{game_id}") if not j.removed]
    assert len(jobs) <= 1, jobs
    return jobs[0].data[1] if jobs else None


async def fire_timer(world: FakeTelegram, app: Any, game_id: int, kind: str) -> None:
    """Run the game's armed timer now (it must be of ``kind``) instead of waiting for it.
    A turn's time-out comes after its warning: for ``timeout`` the warning runs first."""
    assert app.job_queue is not None
    jobs = [j for j in app.job_queue.get_jobs_by_name(f"game:{game_id}") if not j.removed]
    if kind == "timeout" and len(jobs) == 1 and jobs[0].data[1][2] == "warn":
        await fire_timer(world, app, game_id, "warn")
        jobs = [j for j in app.job_queue.get_jobs_by_name(f"game:{game_id}") if not j.removed]
    assert len(jobs) == 1 and jobs[0].data[1][2] == kind, [j.data for j in jobs]
    job = jobs[0]
    job.schedule_removal()
    await job.run(app)
    await world.settle()
