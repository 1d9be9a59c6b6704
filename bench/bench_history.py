"""What history costs the press that ends a hand (issue 11: "history must not slow down a
press").

    .venv/bin/python bench/bench_history.py [--hands 40] [--rounds 5]

Computers play ``--hands`` whole hands (engine only). For each finished hand the game
is saved as the bot saves it (``Store.save_game``: one commit, synchronous=FULL), once
without and once with ``history.hand_over`` before the save (its INSERTs join that
commit). Printed: the median of each, their ratio, the median time of the level chart
(``render.chart.level_chart``, once per match), and the median of the save of an
ordinary press (no hand ended) for scale. The SQLite file lives in the system temp dir.
Machines here are shared and noisy: compare medians and ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from bot.data import history
from bot.data.saved import GameRecord, Seat
from bot.data.store import Store
from bot.views.chart import level_chart
from engine.hand import Deal
from engine.match import MatchState
from engine.players import choose_action
from engine.rules import RuleSet


def finished_hands(n: int) -> list[MatchState]:
    """``n`` matches, each with its first hand played to the end."""
    out = []
    for i in range(n):
        match = MatchState.new(RuleSet(), seed=1000 + i)
        rng = random.Random(i)
        match.apply(Deal(n=100))
        while (hand := match.hand).result is None:
            # after the deal, a seat that passed waits for the others (the bot's window)
            seat = hand.next_actor().seats[0]
            match.apply(choose_action(hand.observation(seat), rng))
        out.append(match)
    return out


async def run(hands: int, rounds: int) -> None:
    matches = finished_hands(hands)
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store(Path(tmp) / "bench.sqlite3").open()
        plain, with_history, ordinary = [], [], []
        for r in range(rounds):
            for i, match in enumerate(matches):
                rec = GameRecord(chat_id=-1, creator_id=1, chat_title="bench")
                rec.seats = [Seat(user_id=s + 1, name=f"P{s}") for s in range(4)]
                rec.match_json = match.model_dump_json()
                rec = await store.create_game(rec)
                t0 = time.perf_counter()
                await store.save_game(rec)
                ordinary.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                await store.save_game(rec)
                plain.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                await history.hand_over(store, rec, match, float(r * hands + i))
                await store.save_game(rec)
                with_history.append(time.perf_counter() - t0)
        await store.close()
    charts = []
    progression = [[0, 0], [0, 2], [1, 2], [4, 2], [4, 5], [7, 5], [12, 6], [12, 7]]
    level_chart(progression)  # the font loads once
    for _ in range(rounds * 4):
        t0 = time.perf_counter()
        level_chart(progression)
        charts.append(time.perf_counter() - t0)
    ms = lambda xs: statistics.median(xs) * 1000  # noqa: E731
    print(f"save of a press (median):          {ms(ordinary):7.2f} ms")
    print(f"hand end, save only (median):      {ms(plain):7.2f} ms")
    print(f"hand end, history + save (median): {ms(with_history):7.2f} ms")
    print(f"ratio history+save / save:         {ms(with_history) / ms(plain):7.2f}")
    print(f"level chart (median, per match):   {ms(charts):7.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(run(args.hands, args.rounds))


if __name__ == "__main__":
    main()
