"""Computer players' decision times: median, p95, p99 and max per decision, by kind.

    .venv/bin/python bench/bench_players.py [--player heuristic] [--hands 200]
        [--budget-ms N] [--others heuristic] [--deal-batch 25]
        [--wall [--burn 1] [--factor 1.5] [--max-seconds 2] [--no-ceiling]]

By default the CPU time of this thread (the machine is shared: wall time would count
other processes), with the garbage collector paused during each timed call (``--gc`` lets
it run: its pauses come from the whole process's garbage, here the pydantic hand states,
not from the decision). Seats 0 and 2 use ``--player`` (timed), seats 1 and 3
``--others``; later hands of the classic preset at level 5: every decision of the deal
(``--deal-batch 3``: 3 cards a seat at a time, each seat offered a show after each batch,
as the bot does; 25: all at once), the after-deal window (show or pass), 炒底, the bury
and card play, in all and by kind (one core, this process).

``--cpu-ceiling`` gives each search decision the bot's ceiling on this thread's CPU clock
(what an idle machine's wall clock would read) and counts the decisions it cut ("cut")
and, of those, the ones it changed (decided again without the ceiling, from the same
random state).
``--wall`` times what a person waits for instead: wall-clock time, each search decision
given the bot's wall-clock ceiling (``bot.edges.computer.ceiling``: ``--factor`` times its
budget, at most ``--max-seconds``; ``--no-ceiling``: none), under the load of ``--burn``
CPU burner processes (``bench/burn.py``; it prints the machine's load while it ran, other
sessions' work included). "cut" counts the decisions the ceiling stopped. Issue 29's bar:
p95 ≤ 1 s and max ≤ 2 s of wall time by kind at a load of 4 on 2 cores.

Figures, 2026-12-02 (``bench/results/issue29-players-load4.txt``): see that file.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.burn import Burners  # noqa: E402
from bench.duplicate_eval import load  # noqa: E402
from bot.edges.computer import ceiling
from engine.hand import Deal, HandState, Show  # noqa: E402
from engine.players.deadline import Deadline  # noqa: E402
from engine.players.search import SearchPlayer  # noqa: E402
from engine.rules import RuleSet  # noqa: E402


class Watched(Deadline):
    """A deadline that remembers whether a decision found it passed."""

    __slots__ = ("hit",)

    def __init__(self, at: float, clock: Callable[[], float]) -> None:
        super().__init__(at, clock)
        self.hit = False

    def passed(self) -> bool:
        if super().passed():
            self.hit = True
        return self.hit


def kind_of(phase: str) -> str:
    return {"dealing": "declare", "after_deal": "declare", "chaodi": "declare"}.get(
        phase, {"burying": "bury", "playing": "play"}.get(phase, phase)
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--player", default="heuristic")
    ap.add_argument("--others", default="heuristic")
    ap.add_argument("--budget-ms", type=int, default=None)
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--first", type=int, default=90_000, help="seed of the first hand")
    ap.add_argument("--deal-batch", type=int, default=25)
    ap.add_argument("--gc", action="store_true", help="let the garbage collector run")
    ap.add_argument("--wall", action="store_true", help="wall time, with the bot's ceiling")
    ap.add_argument("--burn", type=int, default=0, help="CPU burner processes meanwhile")
    ap.add_argument("--factor", type=float, default=1.5)
    ap.add_argument("--max-seconds", type=float, default=2.0)
    ap.add_argument("--no-ceiling", action="store_true")
    ap.add_argument(
        "--cpu-ceiling",
        action="store_true",
        help="without --wall: the ceiling on this thread's CPU clock (an idle machine's wall)",
    )
    args = ap.parse_args()
    timed, others = load(args.player, args.budget_ms), load(args.others, args.budget_ms)
    rules = RuleSet.from_preset("classic")
    clock = time.perf_counter if args.wall else time.thread_time
    times: list[float] = []
    kinds: dict[str, list[float]] = {}
    cut: dict[str, int] = {}
    changed: dict[str, int] = {}
    with Burners(args.burn) as burners:
        for i in range(args.hands):
            state = HandState.new(rules, args.first + i, 2, i % 4, [3, 3])
            rng = random.Random(i)

            def decide(state: HandState, rng: random.Random, seat: int) -> object:
                obs = state.observation(seat)
                player = timed if seat % 2 == 0 else others
                deadline = None
                ceiled = args.wall and not args.no_ceiling or args.cpu_ceiling
                if ceiled and isinstance(player, SearchPlayer):
                    limit = ceiling(player, obs, args.factor, args.max_seconds)
                    deadline = Watched(clock() + limit, clock)
                if not args.gc:
                    gc.disable()
                before = rng.getstate()
                t0 = clock()
                if isinstance(player, SearchPlayer):
                    action = player(obs, rng, deadline)
                else:
                    action = player(obs, rng)  # type: ignore[operator]
                dt = clock() - t0
                gc.enable()
                if seat % 2 == 0:
                    kind = kind_of(state.phase)
                    times.append(dt * 1000)
                    kinds.setdefault(kind, []).append(dt * 1000)
                    if deadline is not None and deadline.hit:
                        cut[kind] = cut.get(kind, 0) + 1
                        # the same decision without the ceiling: did the cut change it?
                        again = random.Random()
                        again.setstate(before)
                        assert isinstance(player, SearchPlayer)
                        changed[kind] = changed.get(kind, 0) + (player(obs, again) != action)
                return action

            while state.phase != "done":
                if state.phase == "dealing":
                    state.apply(Deal(n=4 * args.deal_batch))
                    for seat in range(4):
                        if state.phase == "dealing" and state.observation(seat).show_options:
                            action = decide(state, rng, seat)
                            if isinstance(action, Show):
                                state.apply(action)
                    continue
                if state.phase == "after_deal":
                    seat = next(s for s in range(4) if state.can_pass(s))
                else:
                    assert state.turn is not None
                    seat = state.turn
                state.apply(decide(state, rng, seat))  # type: ignore[arg-type]
    what = "wall" if args.wall else "CPU"
    print(
        f"{args.player}: {len(times)} decisions in {args.hands} hands; ms of {what} per decision:"
    )
    for kind, xs in [("all", times), *sorted(kinds.items())]:
        ceiled = args.wall and not args.no_ceiling or args.cpu_ceiling
        extra = (
            f"  cut {cut.get(kind, 0)} (changed {changed.get(kind, 0)})"
            if ceiled and kind != "all"
            else ""
        )
        print(f"  {kind:9} {summary(xs)}{extra}")
    if args.wall:
        ceil = (
            "none" if args.no_ceiling else f"{args.factor} x budget, at most {args.max_seconds} s"
        )
        print(f"  ceiling: {ceil}; {burners.summary()}")


def summary(xs: list[float]) -> str:
    xs = sorted(xs)

    def q(p: float) -> float:
        return xs[min(len(xs) - 1, int(p * len(xs)))]

    return (
        f"n {len(xs):5}  median {statistics.median(xs):.3f}  p95 {q(0.95):.3f}"
        f"  p99 {q(0.99):.3f}  max {xs[-1]:.3f}"
    )


if __name__ == "__main__":
    main()
