"""What one whole hand costs in Telegram calls, with four people pressing at a human pace.

    .venv/bin/python bench/bench_hand.py [--think 0.8,1.6] [--seed 1] [--limits]

The real Application (production factory: the rate limiter on) runs against the fake
Telegram in real time with the default pacing (group and DM intervals, computer delay;
only the deal is quick, ``--deal-pace``). Four people sit down, start, pass in the
overturn window and play one hand through their DM keyboards: when their DM says it is
their turn each thinks a while (uniform in ``--think`` seconds), presses Hint, then Play
(or Bury). ``--limits`` switches on the fake's strict flood limits (20/min a group,
1/s with a burst of 3 a private chat).

Figures, from the Start press to the result shown in every chat:
* writes per accepted play by method (send/edit/delete), over all chats; the selection
  feedback of taps (one DM edit per Hint) and answers to presses are excluded;
* the most writes to one DM in any 3 s, and to the group in any 60 s;
* the slowest press answer (press → answerCallbackQuery) and the count of 429s.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.app import ALLOWED_UPDATES, build_application  # noqa: E402
from bot.fake_telegram import CallbackRecord, FakeTelegram, RateLimits, SimUser  # noqa: E402
from bot.fake_telegram.limits import COUNTED_METHODS  # noqa: E402
from tests.e2e.harness import (  # noqa: E402
    bot_busy,
    find,
    fixed_seeds,
    hand_message,
    seat_players,
    service,
    settings,
)


async def tap(user: SimUser, msg, kind: str, log) -> bool:
    """Press ``kind`` on the message as it is now (False: the message moved meanwhile)."""
    b = find(msg, kind)
    if b is None:
        return False
    try:
        log.append(await user.press(msg, data=b.data, settle=False))
    except AssertionError:  # deleted or changed since it was read: look again
        return False
    return True


async def person(world, app, game_id: int, seat: int, user: SimUser, think, rng, log) -> None:
    svc = service(app)
    while True:
        game = svc.games[game_id]
        if game.rec.status == "lobby" or game.match is None:
            await asyncio.sleep(0.05)
            continue
        if game.rec.status != "running":
            return
        hand = game.match.hand
        if hand.phase == "done":
            return
        try:
            msg = hand_message(world, user, game_id)
        except AssertionError:
            await asyncio.sleep(0.05)
            continue
        if hand.phase == "after_deal" and hand.can_pass(seat) and find(msg, "N"):
            await asyncio.sleep(rng.uniform(*think))
            await tap(user, hand_message(world, user, game_id), "N", log)
            await asyncio.sleep(0.5)
            continue
        if hand.turn == seat and hand.phase == "chaodi" and find(msg, "N"):
            await asyncio.sleep(rng.uniform(*think))
            await tap(user, hand_message(world, user, game_id), "N", log)
            await asyncio.sleep(0.5)
            continue
        if hand.turn == seat and hand.phase in ("burying", "playing") and find(msg, "H"):
            await asyncio.sleep(rng.uniform(*think))
            if not await tap(user, hand_message(world, user, game_id), "H", log):
                continue
            await asyncio.sleep(0.3)
            if not await tap(user, hand_message(world, user, game_id), "P", log):
                continue
            version = hand.version
            for _ in range(100):  # until the play is taken (or refused)
                await asyncio.sleep(0.05)
                if svc.games[game_id].match.hand.version != version or log[-1].answered:
                    break
            continue
        await asyncio.sleep(0.05)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    limits = RateLimits() if args.limits else None
    async with FakeTelegram(http=False, rate_limits=limits) as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        with tempfile.TemporaryDirectory() as tmp:
            s = settings(world, Path(tmp) / "db")
            s = s.model_copy(
                update=dict(
                    deal_pace_seconds=args.deal_pace,
                    group_interval_seconds=type(s).model_fields["group_interval_seconds"].default,
                    dm_interval_seconds=type(s).model_fields["dm_interval_seconds"].default,
                    computer_delay_seconds=type(s).model_fields["computer_delay_seconds"].default,
                    overturn_window_seconds=type(s).model_fields["overturn_window_seconds"].default,
                    deal_batch=type(s).model_fields["deal_batch"].default,
                )
            )
            app = build_application(
                s,
                request=world.request(),
                get_updates_request=world.request(),
                seed_source=fixed_seeds(args.seed),
            )
            async with world.running(
                app, allowed_updates=ALLOWED_UPDATES, busy=lambda: bot_busy(app)
            ):
                game_id, _ = await seat_players(world, group, people)
                await world.settle()
                lobby = world.last_message(group, from_bot=True)
                first = len(world.core.log)
                t0 = time.monotonic()
                log: list[CallbackRecord] = [
                    await people[0].press(lobby, data=find(lobby, "S").data, settle=False)
                ]
                rng = random.Random(args.seed)
                await asyncio.gather(
                    *(
                        person(world, app, game_id, i, u, args.think, rng, log)
                        for i, u in enumerate(people)
                    )
                )
                svc = service(app)
                game = svc.games[game_id]
                # the result reaches every chat
                for _ in range(600):
                    await asyncio.sleep(0.1)
                    if not svc.publisher.outboxes.pending():
                        break
                await asyncio.sleep(1.0)
                seconds = time.monotonic() - t0
                hand = game.match.hand
                plays = sum(len(t.plays) for t in hand.tricks)
                records = world.core.log[first:]
                writes = Counter(r.method for r in records if r.method in COUNTED_METHODS and r.ok)
                hints = sum(1 for r in log if r.data.startswith("H|"))
                answered = [r for r in log if r.answered_at is not None]
                slowest = max(r.answered_at - r.created_at for r in answered)
                return dict(
                    seconds=seconds,
                    phase=hand.phase,
                    plays=plays,
                    tricks=len(hand.tricks),
                    writes=dict(writes),
                    hints=hints,
                    per_play=(sum(writes.values()) - hints) / plays,
                    per_play_method={m: n / plays for m, n in writes.items()},
                    dm_3s=max(world.max_calls_in_window(u, 3.0) for u in people),
                    dm_1s=max(world.max_calls_in_window(u, 1.0) for u in people),
                    group_60s=world.max_calls_in_window(group, 60.0),
                    group_sends=writes_to(records, group.id, "sendMessage"),
                    slowest_answer=slowest,
                    unanswered=len(log) - len(answered),
                    e429=sum(1 for r in records if r.error_code == 429),
                    not_modified=sum(1 for r in records if "not modified" in (r.description or "")),
                )


def writes_to(records, chat_id: int, method: str) -> int:
    return sum(1 for r in records if r.method == method and str(r.chat_id) == str(chat_id) and r.ok)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--think", type=lambda s: tuple(float(x) for x in s.split(",")), default=(0.8, 1.6)
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--deal-pace", type=float, default=0.1)
    ap.add_argument("--limits", action="store_true")
    args = ap.parse_args()
    out = asyncio.run(run(args))
    for k, v in out.items():
        print(f"{k:>16}: {v:.2f}" if isinstance(v, float) else f"{k:>16}: {v}")


if __name__ == "__main__":
    main()
