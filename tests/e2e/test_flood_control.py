"""Flood control (bot/delivery/ratelimit.py, bot/delivery/outbox.py): Telegram's 429 in one chat delays
that chat only. Its outbox waits ``retry_after`` and then delivers its newest state;
every other chat of the bot (groups and DMs) goes on writing meanwhile."""

from bot.fake_telegram import FakeClock, FakeTelegram, RateLimits
from tests.e2e.harness import buttons, running_bot, wait_for
from tests.e2e.test_budget import SharedTime, pause

FLOOD = 60.0


def lobby_in(world, group):
    msgs = [m for m in world.transcript(group) if m.from_bot and m.buttons()]
    return msgs[-1] if msgs else None


async def test_a_429_in_one_group_delays_no_other_chats_writes(tmp_path):
    clock = FakeClock(ticking=False)  # time moves only when the test says so
    async with FakeTelegram(rate_limits=RateLimits(), clock=clock) as world:
        noisy_people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        quiet_people = [world.user(n, started=True) for n in ("Eve", "Fay", "Gus", "Hal")]
        noisy = world.group("Noisy", members=noisy_people[1:], admins=noisy_people[:1])
        quiet = world.group("Quiet", members=quiet_people[1:], admins=quiet_people[:1])
        async with running_bot(
            world,
            tmp_path / "db",
            clock=SharedTime(world),
            group_interval_seconds=3.2,
            dm_interval_seconds=1.0,
        ):
            t0 = world.clock.now()
            world.flood(noisy, FLOOD)
            await noisy_people[0].send(noisy, "/newgame", settle=False)
            refused = lambda: [r for r in world.requests(chat=noisy) if r.error_code == 429]  # noqa: E731
            await wait_for(world, lambda: refused())
            # the noisy group is held; the quiet group opens its lobby at once
            await quiet_people[0].send(quiet, "/newgame", settle=False)
            await wait_for(world, lambda: lobby_in(world, quiet) is not None)
            lobby = lobby_in(world, quiet)
            # and its people sit down: each gets the bot's reply in their DM at once
            for i, person in enumerate(quiet_people):
                link = next(b for b in buttons(lobby) if b.url and b.url.endswith(f"_{i}"))
                await person.press(lobby, text=link.text, settle=False)
            for person in quiet_people:
                await wait_for(world, lambda p=person: any(m.from_bot for m in world.transcript(p)))
            quiet_writes = [
                r
                for chat in [quiet, *(p.private_chat for p in quiet_people)]
                for r in world.requests(chat=chat)
                if r.method == "sendMessage"
            ]
            assert len(quiet_writes) == 5 and all(r.error_code is None for r in quiet_writes)
            assert {r.time for r in quiet_writes} == {t0}  # no one waited for the noisy group
            assert lobby_in(world, noisy) is None

            # once Telegram's wait is over, the noisy group gets its lobby (after one
            # refusal: the bot waited instead of asking again and again)
            await pause(world, FLOOD + 1)
            await wait_for(world, lambda: lobby_in(world, noisy) is not None)
            assert len(refused()) == 1
            sent = [r for r in world.requests("sendMessage", chat=noisy) if r.error_code is None]
            assert sent and sent[0].time >= t0 + FLOOD
