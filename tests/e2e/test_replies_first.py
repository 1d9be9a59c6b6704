"""A reply to a person is never queued behind the group's table (issue 28 item 9,
bot/delivery/outbox.py): with the group's output far behind Telegram's 20 calls a minute, a
command's answer (here a refusal, /takeover with an odd argument) reaches the group
within a second, before the pending table edits; those wait, and the group stays within
its budget. Real time, the rate limiter on, as a host runs it."""

import time

from bot.app import ALLOWED_UPDATES, build_application
from bot.fake_telegram import FakeTelegram, RateLimits
from bot.i18n import t
from bot.views.messages import Content
from tests.e2e.harness import fixed_seeds, settings
from tests.e2e.test_budget import until


async def test_a_commands_answer_goes_before_the_groups_backlog_of_table_edits(tmp_path):
    async with FakeTelegram(rate_limits=RateLimits(), http=False) as world:
        alice = world.user("Alice", started=True)
        group = world.group("Busy", admins=[alice])
        s = settings(world, tmp_path / "db", group_interval_seconds=3.2, dm_interval_seconds=1.0)
        app = build_application(
            s,
            request=world.request(),
            get_updates_request=world.request(),
            seed_source=fixed_seeds(),
        )
        async with world.running(app, allowed_updates=ALLOWED_UPDATES, busy=lambda: False):
            box = app.bot_data.outboxes.get(group.id)
            for i in range(8):  # the group's tables, 8 calls behind (25 s at 20 a minute)
                box.put(f"g{i}:table", Content(f"table {i}"))
            await until(lambda: app.bot_data.outboxes.backlog().get(group.id, 0) >= 7)

            refusal = t("en", "endgame.none")
            delays = []
            for odd in ("²", "seven"):
                sent = time.monotonic()
                start = len(world.core.log)
                await alice.send(group, f"/takeover {odd}", settle=False)

                def answered(start=start):
                    return any(
                        r.method == "sendMessage" and r.params.get("text") == refusal
                        for r in world.core.log[start:]
                    )

                await until(answered, timeout=10.0)
                delays.append(time.monotonic() - sent)
            # the first at once; the second in the group's next slot (3.2 s: the first
            # borrowed it), not behind the 8 tables
            assert delays[0] < 1.0 and delays[1] < 4.0, delays
            # the tables waited: most of them are still to be sent
            assert app.bot_data.outboxes.backlog().get(group.id, 0) >= 5
            assert world.max_calls_in_window(group, 60) <= 20
            assert not [r for r in world.core.log if r.error_code == 429]
