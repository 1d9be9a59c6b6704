"""The call budget, as four people at a table live it (bot/delivery/publish.py, bot/delivery/outbox.py).

A whole hand played at a human pace with Telegram's flood limits on: at most three
sends/edits/deletes per accepted play over all chats (answers to presses and the
selection feedback of taps aside), no private chat beyond its rate, the group within
20 calls a minute, every finished trick seen in the group. A restart
re-sends and re-edits nothing. A busy group still answers a settings press and a seat
join at once.
"""

import asyncio
import random
import time
from collections import Counter

from bot.app import ALLOWED_UPDATES, build_application
from bot.fake_telegram import FakeClock, FakeTelegram, RateLimits
from bot.fake_telegram.limits import COUNTED_METHODS
from bot.i18n import t
from bot.views.group_table import name_of
from tests.e2e.harness import (
    bot_busy,
    buttons,
    find,
    fixed_seeds,
    hand_message,
    running_bot,
    seat_players,
    service,
    settings,
)


class SharedTime:
    """One clock for the people and the bot: the fake's, frozen but for the people's
    pauses. A pause of the bot (pacing) ends when the people's time has come, so the
    two overlap as in life (FakeTime instead jumps the clock on every pause)."""

    def __init__(self, world):
        self.world = world

    def now(self):
        return self.world.clock.now()

    def wall(self):
        return self.world.clock.now()

    async def sleep(self, seconds):
        target = self.now() + seconds
        while self.now() < target:
            await asyncio.sleep(0.001)


async def pause(world, seconds, step=0.25):
    """A person's pause: time passes in small steps, the bot working in between."""
    while seconds > 0:
        world.clock.advance(min(step, seconds))
        seconds -= step
        await asyncio.sleep(0.003)


async def tap(world, user, game_id, kind):
    """Read the DM as it is now and press ``kind`` on it; wait for the answer."""
    msg = hand_message(world, user, game_id)
    button = find(msg, kind)
    if button is None:
        return None
    record = await user.press(msg, data=button.data, settle=False)
    for _ in range(2000):
        if record.answered:
            return record
        await asyncio.sleep(0.002)
    raise AssertionError(f"{kind} by {user.name} not answered")


def writes(records):
    return [r for r in records if r.method in COUNTED_METHODS and r.ok]


async def play_a_hand_at_a_human_pace(world, app, game_id, people, rng, think=(1.0, 3.0)):
    """Pass in the overturn window; on a turn, once the DM says so, think 1-3 s (or
    ``think``), press Hint, then Play (or Bury). Returns where each Hint's feedback may
    land."""
    svc = service(app)
    feedback = []
    for _ in range(5000):
        game = svc.games[game_id]
        if game.match is None:  # the Start press is on its way
            await pause(world, 0.25)
            continue
        hand = game.match.hand
        if hand.phase == "done":
            return feedback
        if hand.phase == "dealing":
            await pause(world, 0.25)
            continue
        if hand.phase == "after_deal":
            seat = next((i for i in range(4) if hand.can_pass(i)), None)
            if seat is not None:
                await pause(world, rng.uniform(*think))
                await tap(world, people[seat], game_id, "N")
            continue
        user = people[hand.turn]
        kind = "N" if hand.phase == "chaodi" else "H"
        if find(hand_message(world, user, game_id), kind) is None:
            await pause(world, 0.25)  # their DM does not say so yet
            continue
        await pause(world, rng.uniform(*think))
        if kind == "N":
            await tap(world, user, game_id, "N")
            continue
        start = len(world.core.log)
        await tap(world, user, game_id, "H")
        await pause(world, 0.5)
        feedback.append((user, start, len(world.core.log)))
        await tap(world, user, game_id, "P")
    raise AssertionError("the hand did not end")


def lobby_of(world, group):
    msgs = [m for m in world.transcript(group) if m.from_bot and any(b.url for b in buttons(m))]
    return msgs[-1] if msgs else None


def link_of(lobby, seat):
    return next((b for b in buttons(lobby) if b.url and b.url.endswith(f"_{seat}")), None)


async def start_a_table(world, app, group, people):
    """/newgame, each person follows their seat's link, the creator taps Start (game 1),
    at a person's pace; returns where the request log stood just before Start."""
    await people[0].send(group, "/newgame", settle=False)
    for i, user in enumerate(people):
        while not (lobby := lobby_of(world, group)) or not (link := link_of(lobby, i)):
            await pause(world, 0.5)
        await user.press(lobby, text=link.text, settle=False)
        await pause(world, 1.0)
    svc = service(app)
    while not svc.games or not svc.games[1].rec.full or not find(lobby_of(world, group), "S"):
        await pause(world, 0.5)
    first = len(world.core.log)
    await people[0].press(
        lobby_of(world, group), data=find(lobby_of(world, group), "S").data, settle=False
    )
    return first


async def test_a_whole_hand_costs_at_most_three_writes_a_play_and_every_trick_is_seen(tmp_path):
    rng = random.Random(8)
    clock = FakeClock(ticking=False)
    async with FakeTelegram(rate_limits=RateLimits(), clock=clock) as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        async with running_bot(
            world,
            tmp_path / "db",
            clock=SharedTime(world),
            group_interval_seconds=3.2,
            dm_interval_seconds=1.0,
            deal_pace_seconds=0.05,
            overturn_window_seconds=600.0,
        ) as app:
            svc = service(app)
            game_id = 1
            first = await start_a_table(world, app, group, people)
            feedback = await play_a_hand_at_a_human_pace(world, app, game_id, people, rng)
            while svc.publisher.outboxes.pending():  # the last states reach every chat
                await pause(world, 1.0)
            game = svc.games[game_id]
            hand = game.match.hand
            records = world.core.log[first:]

            # the budget: sends, edits and deletes per accepted play, over all chats
            plays = sum(len(trick.plays) for trick in hand.tricks)
            hints = sum(
                1
                for user, start, end in feedback
                for r in writes(world.core.log[start:end])
                if str(r.chat_id) == str(user.id)
            )
            spent = len(writes(records)) - hints
            by = Counter(
                ("group" if str(r.chat_id) == str(group.id) else "dm", r.method)
                for r in writes(records)
            )
            dm_1s = max(world.max_calls_in_window(u, 1.0) for u in people)
            dm_3s = max(world.max_calls_in_window(u, 3.0) for u in people)
            print(
                f"budget: {spent} writes / {plays} plays = {spent / plays:.2f} a play; "
                f"most to one DM: {dm_1s} in 1 s, {dm_3s} in 3 s; "
                f"group: {world.max_calls_in_window(group, 60)} calls in 60 s; {dict(by)}"
            )
            assert spent <= 3 * plays, (spent, plays, hints, by)
            # the group reads one live table a hand: few new messages (which notify and push
            # the group's own conversation up), the rest are edits in place
            assert by[("group", "sendMessage")] <= 6, by
            # no flood limit was hit: one write a second a DM (a burst of 3), the group
            # within 20 calls a minute
            assert not [r for r in world.core.log if r.error_code == 429]
            assert world.max_calls_in_window(group, 60) <= 20
            for user in people:
                assert world.max_calls_in_window(user, 1.0) <= 3

            # every finished trick was shown in the group, with its winner and points
            lang = game.rec.lang
            shown = [
                r.params.get("text", "") for r in writes(records) if str(r.chat_id) == str(group.id)
            ]
            for n, trick in enumerate(hand.tricks, start=1):
                name = name_of(game.rec, trick.winner, lang)
                won = t(lang, "table.trick_won", n=n, name=name, points=trick.points)
                assert any(won in text for text in shown), n


async def test_a_restart_sends_and_edits_nothing_that_did_not_change(tmp_path):
    db = tmp_path / "db"
    async with FakeTelegram() as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        async with running_bot(world, db) as app:
            game_id, _ = await seat_players(world, group, people)
            lobby = world.last_message(group, from_bot=True)
            await people[0].press(lobby, data=find(lobby, "S").data)
            await play_until_tricks(world, app, game_id, people, 3)
            await app.bot_data.outboxes.drain()
            await world.settle()
        before = len(world.core.log)
        async with running_bot(world, db) as app:
            await world.settle()
            after = world.core.log[before:]
            # nothing is posted again, and no edit finds its message unchanged (a DM
            # that was left behind on purpose may catch up: that edit changes it)
            assert not [r for r in after if "not modified" in (r.description or "")]
            assert not [r for r in writes(after) if r.method != "editMessageText"]
            assert not [r for r in writes(after) if str(r.chat_id) == str(group.id)]
            # and the game goes on from the messages as they are
            game = service(app).games[game_id]
            user = people[game.match.hand.turn]
            msg = hand_message(world, user, game_id)
            await user.press(msg, data=find(msg, "H").data)
            await world.settle()
            assert "✓" in hand_message(world, user, game_id).keyboard()[0][0][0] or any(
                "✓" in b.text for b in buttons(hand_message(world, user, game_id))
            )


async def play_until_tricks(world, app, game_id, people, tricks):
    svc = service(app)
    for _ in range(500):
        await world.settle()
        hand = svc.games[game_id].match.hand
        if hand.phase == "playing" and len(hand.tricks) > tricks:
            return
        if hand.phase == "dealing":
            await asyncio.sleep(0.01)
        elif hand.phase == "after_deal":
            for seat, user in enumerate(people):
                if hand.can_pass(seat):
                    msg = hand_message(world, user, game_id)
                    await user.press(msg, data=find(msg, "N").data)
        else:
            user = people[hand.turn]
            msg = hand_message(world, user, game_id)
            if hand.phase == "chaodi":
                await user.press(msg, data=find(msg, "N").data)
                continue
            await user.press(msg, data=find(msg, "H").data)
            await world.settle()
            msg = hand_message(world, user, game_id)
            await user.press(msg, data=find(msg, "P").data)
    raise AssertionError("not that far")


async def test_a_busy_group_answers_a_settings_press_and_a_seat_join_at_once(tmp_path):
    """The group's output is far behind (a /settings and five /rules queued behind
    Telegram's 20 a minute), the rate limiter is on: a settings button is answered
    within a second (Telegram refuses answers after 15 s), and so is a seat join."""
    async with FakeTelegram(rate_limits=RateLimits(), http=False) as world:
        alice, bob = world.user("Alice", started=True), world.user("Bob", started=True)
        group = world.group("Busy", members=[bob], admins=[alice])
        s = settings(world, tmp_path / "db", group_interval_seconds=3.2, dm_interval_seconds=1.0)
        app = build_application(
            s,
            request=world.request(),
            get_updates_request=world.request(),
            seed_source=fixed_seeds(),
        )
        async with world.running(app, allowed_updates=ALLOWED_UPDATES, busy=lambda: False):
            await alice.send(group, "/newgame")
            await until(lambda: any(b.url for m in world.transcript(group) for b in buttons(m)))
            await alice.send(group, "/settings")
            await until(lambda: settings_message(world, group) is not None)
            for _ in range(5):
                await alice.send(group, "/rules", settle=False)
            backlog = app.bot_data.outboxes.backlog
            await until(lambda: backlog().get(group.id, 0) >= 4)  # far behind

            menu = settings_message(world, group)
            press = await alice.press(menu, data=next(b.data for b in buttons(menu) if b.data))
            await until(lambda: press.answered, timeout=2.0)
            assert press.answered_at - press.created_at < 1.0

            lobby = next(m for m in world.transcript(group) if any(b.url for b in buttons(m)))
            link = next(b for b in buttons(lobby) if b.url and b.url.endswith("_1"))
            sent = time.monotonic()
            await bob.press(lobby, text=link.text, settle=False)
            await until(lambda: any("Busy" in m.text for m in world.transcript(bob)), 2.0)
            assert time.monotonic() - sent < 1.0
            assert service(app).games[1].rec.seats[1].user_id == bob.id
            assert not [r for r in world.core.log if r.error_code == 429]
            assert not bot_busy(app) or app.bot_data.outboxes.pending()


def settings_message(world, group):
    for m in world.transcript(group):
        if m.from_bot and any(b.data and b.data.startswith("cfg|") for b in buttons(m)):
            return m
    return None


async def until(cond, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("not reached in time")
        await asyncio.sleep(0.01)
