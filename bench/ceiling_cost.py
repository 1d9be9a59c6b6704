"""What the bot's wall-clock ceiling costs a computer, decision by decision.

    .venv/bin/python bench/ceiling_cost.py [--strength normal] [--hands 200] [--first 43000]
        [--clock cpu|wall] [--playouts 4] [--log decisions.txt] [--summarize decisions.txt]

Duplicate play of a player against itself with the ceiling (``bot:normal,wall0`` against
``bot:normal,fresh``) cannot show a small cost: one cut decision that chose otherwise
sends the rest of the hand elsewhere, so a pair differs by the whole spread of a hand
(±60 points) even when the changed choice was as good; showing ±1 point that way takes
some 14,000 pairs. The ceiling acts only through the decisions it changes, so this
bench looks at those alone. It plays hands with the bot's player of ``--strength``
(each decision with a random stream of its own, as the bot calls it, and the worker's
``settle`` after it) and decides every searched decision once, timed as the bot times
it (the ceiling: 1.5 times its budget, at most 2 s) on this thread's CPU clock
(``--clock cpu``: what the wall clock of an idle machine reads; the machine is shared)
or the wall clock, with a deadline that stops nothing but notes at which of the
search's looks at it the clock had passed the ceiling (:class:`Shadow`). Where it had,
the ceiling would have cut that decision there: it is decided again from the same
stream with a deadline that passes at that very look (:class:`AtLook`), which is the
decision the cut search makes (a test checks both against a clock's deadline). Where
the two choices differ, the hand is played on from each by the same players with the
same streams (and ``--playouts`` - 1 more times with other streams, the same for both
choices), and the mean difference in the deciding team's points is that change's cost.
A hand's cost is the sum over its changed decisions (every seat's); the mean over hands
estimates what the ceiling costs per deal pair (in a pair, each side makes about one
hand's decisions), with a 95% interval. (Until 2026-12-02 13:35 UTC the bench decided
every searched decision twice, with and without a real deadline, in alternating order,
and played each change on once: the figures below up to 804 hands.)

The hand goes on with the decision made without a ceiling, so every hand is the one the
uncut player would play. ``--log`` writes one line per hand (seed, searched decisions,
cut, changed, cost) and one per change (``  change phase seat cost``).

Figures, 2026-12-02 (普通, the CPU clock; bench/results/issue29-ceiling-cost-*.txt):

    each decision twice (until 13:35), alone on the 2-core machine, seeds 43800-44239
      cut 933 of 31,380 searched decisions (2.97%), choice changed 57 (440 hands)
      cost per deal pair  +0.27 ± 1.12 [-0.85, +1.39] points
    each decision once, as the bot decides (--playouts 4), alone, seeds 46000-46390
      cut 667 of 27,750 (2.40%), choice changed 45 (391 hands)
      cost per deal pair  +0.11 ± 0.67 [-0.56, +0.77] points
      of which on a quiet machine (seeds 46063-46390, 328 hands): cut 1.78%, changed 26,
      +0.18 ± 0.57 [-0.40, +0.75]; the first 63 hands' cores were shared outside this
      machine (half the speed, cut 5.66%): -0.26 ± 2.86
    both methods with other processes busy on the machine (more cuts), 511 hands
      cut 6.04%, changed 135;  +0.29 ± 1.35 [-1.06, +1.63] points

Shown below 1 point at 95% for decisions made once, as the bot makes them. Deciding
each decision twice met the engine's caches warm the second time (the walled run came
second in half the decisions); how often the ceiling cuts depends most on what else
shares the cores (1.8% on a quiet machine, 5.7% when the host was busy, 10-15% with
three busy processes on the two cores).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.edges.computer import WALL_FACTOR, WALL_MAX_SECONDS, ceiling, player_for
from engine.hand import Action, Deal, HandState, Show  # noqa: E402
from engine.players.deadline import Deadline, settle  # noqa: E402
from engine.players.search import SearchPlayer  # noqa: E402
from engine.rules import RuleSet  # noqa: E402
from engine.seats import team_of  # noqa: E402

CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.thread_time, "wall": time.monotonic}


def seat_to_act(state: HandState) -> int:
    if state.phase == "after_deal":
        return next(s for s in range(4) if state.can_pass(s))
    assert state.turn is not None
    return state.turn


def step(state: HandState, decide: Callable[[int], Action], batch: int) -> None:
    """One move of the hand (a deal batch and its shows, or one seat's action), as
    ``bench/duplicate_eval.py`` plays it."""
    if state.phase == "dealing":
        state.apply(Deal(n=4 * batch))
        for seat in range(4):
            if state.phase == "dealing" and state.observation(seat).show_options:
                action = decide(seat)
                if isinstance(action, Show):
                    state.apply(action)
        return
    state.apply(decide(seat_to_act(state)))


def finish(state: HandState, player: SearchPlayer, rngs: list[random.Random], batch: int) -> None:
    def decide(seat: int) -> Action:
        action = player(state.observation(seat), random.Random(rngs[seat].getrandbits(32)))
        settle()
        return action

    while state.phase != "done":
        step(state, decide, batch)


def points_for(state: HandState, seat: int) -> int:
    """The deciding seat's team's view of the hand: the attackers' points, or minus."""
    r = state.result
    assert r is not None
    return -r.attackers_points if team_of(seat) == r.defenders else r.attackers_points


def one_hand(
    seed: int,
    player: SearchPlayer,
    clock: Callable[[], float],
    batch: int,
    rules: RuleSet,
    playouts: int = 1,
) -> tuple[list[float], list[tuple[str, int, float]]]:
    """([searched, cut, changed, cost], [(phase, seat, cost) per change]). A change's cost
    is the mean over ``playouts`` continuations: the first with the hand's own streams,
    the others with streams of their own (the same for both choices)."""
    state = HandState.new(rules, seed, 2, 0, [3, 3])
    rngs = [random.Random(seed * 4 + s) for s in range(4)]
    counts: list[float] = [0, 0, 0, 0]
    changes: list[tuple[str, int, float]] = []

    def decide(seat: int) -> Action:
        obs = state.observation(seat)
        bits = rngs[seat].getrandbits(32)
        work = player.work_ms(obs)
        if not work:
            action = player(obs, random.Random(bits))
            settle()
            return action
        limit = ceiling(player, obs, WALL_FACTOR, WALL_MAX_SECONDS)
        shadow = Shadow(clock() + limit, clock)
        free = player(obs, random.Random(bits), shadow)
        settle()
        counts[0] += 1
        if shadow.crossed is None:
            return free
        counts[1] += 1  # the ceiling would have cut it: decide as the cut search would have
        walled = player(obs, random.Random(bits), AtLook(shadow.crossed))
        settle()
        if _key(free) != _key(walled):
            counts[2] += 1
            diffs = []
            for k in range(playouts):
                values = []
                for choice in (free, walled):
                    values.append(
                        play_on(
                            state, seat, choice, player, _streams(rngs, seed, counts[0], k), batch
                        )
                    )
                diffs.append(values[0] - values[1])
            cost = statistics.fmean(diffs)
            counts[3] += cost
            changes.append((obs.phase, seat, cost))
        return free

    while state.phase != "done":
        step(state, decide, batch)
    return counts, changes


class Shadow(Deadline):
    """A deadline that never stops a search but notes at which of the search's looks at
    it the clock had passed it (``crossed``, counting from 1; None: never)."""

    __slots__ = ("crossed", "looks")

    def __init__(self, at: float, clock: Callable[[], float]) -> None:
        super().__init__(at, clock)
        self.looks = 0
        self.crossed: int | None = None

    def passed(self) -> bool:
        self.looks += 1
        if self.crossed is None and self.clock() >= self.at:
            self.crossed = self.looks
        return False


class AtLook(Deadline):
    """A deadline that passes at the search's ``n``-th look at it (no clock): the same
    stream then makes the decision that a search cut at that look made."""

    __slots__ = ("looks", "n")

    def __init__(self, n: int) -> None:
        super().__init__(0.0)
        self.n = n
        self.looks = 0

    def passed(self) -> bool:
        self.looks += 1
        return self.looks >= self.n


def _streams(rngs: list[random.Random], seed: int, decision: float, k: int) -> list[random.Random]:
    """The seats' streams for continuation ``k``: copies of the hand's own for the first."""
    if k == 0:
        streams = [random.Random() for _ in range(4)]
        for s, r in zip(streams, rngs, strict=True):
            s.setstate(r.getstate())
        return streams
    return [random.Random(f"{seed}:{decision:g}:{k}:{s}") for s in range(4)]


def play_on(
    state: HandState,
    seat: int,
    choice: Action,
    player: SearchPlayer,
    streams: list[random.Random],
    batch: int,
) -> int:
    """The deciding team's points when the hand goes on from ``choice``."""
    branch = state.model_copy(deep=True)
    if isinstance(choice, Show) or state.phase != "dealing":
        branch.apply(choice)
    if state.phase == "dealing":
        # the rest of this batch's shows, then the hand
        for other in range(seat + 1, 4):
            if branch.phase == "dealing" and branch.observation(other).show_options:
                a = player(branch.observation(other), random.Random(streams[other].getrandbits(32)))
                if isinstance(a, Show):
                    branch.apply(a)
    finish(branch, player, streams, batch)
    return points_for(branch, seat)


def _key(action: Action) -> tuple[object, ...]:
    """An action without its reason (the reason's figures differ when fewer worlds were
    met, the choice may not)."""
    cards = getattr(action, "cards", None)
    return (type(action).__name__, tuple(sorted(cards)) if cards is not None else None)


def summarize(rows: list[list[float]], title: str) -> None:
    costs = [r[4] for r in rows]
    m = statistics.fmean(costs)
    half = 1.96 * statistics.stdev(costs) / len(costs) ** 0.5 if len(costs) > 1 else float("nan")
    searched, cut, changed = (int(sum(r[i] for r in rows)) for i in (1, 2, 3))
    print(f"{title}: {len(rows)} hands, {searched} searched decisions")
    print(
        f"  cut by the ceiling {cut} ({100 * cut / max(1, searched):.2f}%), choice changed {changed}"
    )
    print(
        f"  cost per hand (per deal pair): {m:+.2f} ± {half:.2f} [{m - half:+.2f}, {m + half:+.2f}] points"
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--strength", default="normal")
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--first", type=int, default=43000, help="seed of the first deal")
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    ap.add_argument("--deal-batch", type=int, default=3)
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--log", default=None)
    ap.add_argument(
        "--playouts",
        type=int,
        default=1,
        help="continuations averaged for a changed choice's cost (less noise a change)",
    )
    ap.add_argument("--summarize", default=None, metavar="LOG")
    args = ap.parse_args(argv)
    if args.summarize:
        with open(args.summarize) as f:
            rows = [[float(x) for x in line.split()] for line in f if line[:1].isdigit()]
        summarize(rows, args.summarize)
        return
    player = player_for(args.strength)
    assert isinstance(player, SearchPlayer), "a strength that searches"
    rules = RuleSet.from_preset(args.preset)
    rows = []
    log = open(args.log, "a") if args.log else None  # noqa: SIM115
    for seed in range(args.first, args.first + args.hands):
        counts, changes = one_hand(
            seed, player, CLOCKS[args.clock], args.deal_batch, rules, args.playouts
        )
        rows.append([seed, *counts])
        if log:
            seed_, searched, cut, changed, cost = rows[-1]
            log.write(f"{seed_:.0f} {searched:.0f} {cut:.0f} {changed:.0f} {cost:g}\n")
            for phase, seat, cost in changes:
                log.write(f"  change {phase} {seat} {cost:g}\n")
            log.flush()
    summarize(rows, f"{args.strength}, ceiling on the {args.clock} clock")


if __name__ == "__main__":
    main()
