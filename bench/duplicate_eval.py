"""Duplicate evaluation of two computer players (../shared/notes/computer-players.md).

    .venv/bin/python bench/duplicate_eval.py [--pairs 200] [--a search] [--b heuristic]
        [--budget-ms 50] [--jobs 1] [--deal-batch 25] [--log pairs.txt] [--summarize pairs.txt]

A player is a name for ``engine.players.get`` (``random``, ``simple``, ``heuristic``,
``search``), optionally with options: ``search,budget_ms=50``; ``--budget-ms`` sets the
budget of every search player that names none. ``bot:normal`` and ``bot:hard`` are the
bot's own players of those strengths (``bot.edges.computer.player_for``: 普通 and 困难, every
part as it ships); ``bot:normal,fresh`` called as the bot calls it (a random stream of
its own each decision, seeded from the seat's), ``bot:normal,wall`` the same with the
bot's wall-clock ceiling on each decision (1.5 times its budget from the call: no longer
reproducible), ``bot:normal,wall0`` with the ceiling on the thread's CPU clock (the wall
clock of an idle machine: the ceiling at a load of 0 though the machine is shared). ``old:<commit>:<player>`` is that player
of an earlier commit (``bench/old_player.py``: its own process, the commit's engine), e.g.
``--a search --b old:b2b9bb8:search`` for today's search against issue 20's. One part of the search alone:
``search,cardplay=0,bury=1`` is the heuristic with only the bury searched (against
``heuristic``); ``search,bury=1`` against ``search`` is the bury with search card play
(``bury_ms=300``: the bury's own budget, when ``--budget-ms`` is smaller);
``search,declare=1,cardplay=0`` is the heuristic with only declaring, overturning and
炒底 searched. ``--deal-batch 3`` deals 3 cards a seat at a time and offers the seats a
show after each batch in seat order, as the bot does (the default deals all at once, so
shows wait for the after-deal window).

Each deal is played twice with the teams swapped; the unit is the deal pair. Prints the
mean paired difference in the attackers' points and in levels per deal pair with a 95%
interval, and the same split by role: A's result when defending and when attacking (their
sum is the paired difference). A player against itself scores exactly zero. ``--log``
writes one line per finished pair (so a run cut short still counts); ``--summarize``
prints the figures of such a file. Hands won: the share of hands A's team won (by the
engine's verdict), over both roles.

Figures, 2026-11-30 (commit 99b7096, ``--jobs 2`` on the 2-core machine, one run each):

    --a search --b heuristic --pairs 500 (default budget, 300 ms of work a decision; 77 min)
      points per deal pair  +27.31 ± 2.96 [+24.35, +30.27]  (defending -69.97, attacking +97.28)
      levels per deal pair   +0.64 ± 0.08  [+0.56, +0.73]   (defending  +0.66, attacking  -0.02)
      hands won by search    62.5% ± 3.0% of 1000 (defending 60.6%, attacking 64.4%)
    --a search --b heuristic --budget-ms 50 --pairs 500
      points +11.61 ± 2.96 [+8.65, +14.57]; levels +0.31 ± 0.08 [+0.23, +0.39]; hands 56.6%
    --a heuristic --b simple --pairs 500
      points +93.88 ± 3.03 [+90.85, +96.91]; levels +2.38 ± 0.09; hands 89.8%
    a player against itself: +0.00 ± 0.00 exactly

Today's search against issue 20's, 2026-12-01 (the combined bar: commit 89b2a23, where the
search player declares, overturns, 炒底s and buries by search by default, against the
search player of b2b9bb8, the commit that filed issue 20; both at the default budget, 300 ms
of work a decision; seeds 0-499; ``--jobs 2`` on the 2-core machine, the run's process group
given the cores by autogroup priority; 127 min; every pair in
``bench/results/issue20-search-vs-b2b9bb8.txt``, ``--summarize`` prints the figures):

    --a search --b old:b2b9bb8:search --deal-batch 3 --pairs 500
      points per deal pair  +19.11 ± 4.52 [+14.59, +23.63]  (A defending -72.08 ± 3.71,
                                                            attacking +91.19 ± 4.74)
      levels per deal pair   +0.51 ± 0.12 [+0.39, +0.63]    (A defending +0.67 ± 0.10,
                                                            attacking -0.16 ± 0.12)
      hands won by A        57.1% ± 3.1% of 1000 (defending 60.0%, attacking 54.2%)
    The role columns are A's own results (their sum is the paired difference). The new side
    used more CPU than the old at the same budget: its workers ran at about 57% of a core
    against 39% for the old player's processes (each side's share includes its engine work).

Two options measured at 50 ms, 2026-12-01 (commits aae22f5 and cb99ff5, seeds 0-199,
``--deal-batch 3 --jobs 2``; pairs in ``bench/results/issue20-{withheld,halving}-50ms.txt``):

    --a search,halving=1 --b search --budget-ms 50 (successive halving of the candidates)
      points per deal pair  +7.15 ± 5.32 [+1.83, +12.47];  levels +0.14 ± 0.14 [-0.00, +0.28]
      hands won by A 55.2% ± 4.9% of 400 (off by default until confirmed at 300 ms)
    --a search,withheld=50 --b search --budget-ms 50 (the point-signal inference)
      points per deal pair  +1.15 ± 2.27 [-1.12, +3.42];  levels +0.04 ± 0.06: neutral, off

Exact endgames alone, 2026-12-01 (commit c136614, ``--jobs 1`` at nice 19 on the 2-core
machine under a load of 5-10 from other work; the playouts were identical before the
endgame, so the pairs differ only from there; seeds 1000-1126 and 1400-1452):

    --a search --b search,endgame=0 --budget-ms 100 (180 pairs)
      points per deal pair  +1.11 ± 0.85 [+0.26, +1.97]  (defending -78.42, attacking +79.53)
      levels per deal pair  +0.02 ± 0.02 [-0.01, +0.04]

The declaring search alone, 2026-12-01 (commit 0a5ff15, ``--jobs 2`` at nice 15 under a
load of 10-14; default budget: 300 ms of work a decision; seeds 0-399 and 0-299, tuning
seeds from 10000; heuristic card play and bury on both sides). "Gain" by role: A's result
in that role minus the heuristic's own on the same deals (``--a heuristic --b heuristic``):

    --a search,declare=1,cardplay=0 --b heuristic --deal-batch 3 (the bot's pace; 400 pairs)
      points per deal pair  +7.39 ± 2.72 [+4.66, +10.11]  (gain defending +2.66 ± 2.11,
                                                          attacking +4.72 ± 2.13)
      levels per deal pair  +0.19 ± 0.07 [+0.12, +0.26]   (defending +0.08, attacking +0.11)
      hands won by A        52.2% ± 3.5% of 800
    --a search,declare=1,cardplay=0 --b heuristic (all dealt at once; 300 pairs)
      points per deal pair  +10.17 ± 3.31 [+6.86, +13.48]  (gain defending +3.88 ± 2.64,
                                                           attacking +6.28 ± 2.53)
      levels per deal pair  +0.26 ± 0.09 [+0.17, +0.34]    (defending +0.10, attacking +0.15)
      hands won by A        54.5% ± 4.0% of 600
    decisions (bench/bench_declare.py, 60 moments): median 284 ms, p95 317 ms, max 338 ms
      of CPU, 44 worlds an option (median)

The search bury alone, 2026-12-01 (commit 4c3bb26, ``--jobs 2`` at nice 15 under a load of
10-16 from other work; seeds 0-599, tuning on seeds from 50000 kept apart). The games of a
pair differ from heuristic play only where the search buried otherwise: the dealer's bury,
and an attacker's who overturned in 炒底 and picked the kitty up (the dealer stays, so that
bury is the attackers': points in it count for them). "Gain" by role as above (A's result
minus the heuristic's own on the same deals); a different result in 254 of 600 pairs.

    --a search,cardplay=0,bury=1 --b heuristic (600 pairs; card play by the heuristic)
      points per deal pair  +4.00 ± 1.86 [+2.14, +5.86]  (gain defending +2.03 ± 1.59,
                                                          attacking +1.97 ± 1.05)
      levels per deal pair  +0.10 ± 0.05 [+0.05, +0.15]  (defending +0.05 ± 0.04,
                                                          attacking +0.05 ± 0.03)
      hands won by A        51.2% ± 2.8% of 1200
    --a search,bury=1,bury_ms=300 --b search --budget-ms 50 (180 pairs, seeds 0-111 and
    1000-1067; search card play at 50 ms on both sides, commit ff5af6a; a different
    result in 81 pairs)
      points per deal pair  +4.53 ± 5.99 [-1.46, +10.51]
      levels per deal pair  +0.09 ± 0.14 [-0.05, +0.23]
      hands won by A        49.2% ± 5.2% of 360
    decisions (60 buries at 300 ms, seeds 9000+): median 752 ms, p95 952 ms, max 1011 ms of
      CPU under a load of 12-14 (30 buries earlier, load 10: 688, 806, 810 ms); about 200
      full playouts a bury. Tuning was only a first look (confidence 0 against 1 standard
      error on 40 and 100 pairs of seeds from 50000: no difference to see); the constants
      of ``engine/players/bury.py`` are untuned.

Inference, 2026-12-01 (commit after 66cc32c, ``--jobs 1`` at nice 15 under a load of 8-15,
two runs side by side, each cut off at the deadline; card play at ``--budget-ms 50``, about
5 worlds a decision: a reduced budget, not confirmed at the default one). Role columns are
A's own results (their sum is the paired difference), not gains over B in that role:

    --a search,ducked=50 --b search (the ducking inference alone, seeds 0-84; 85 pairs,
      37 of them differing)
      points per deal pair  +2.00 ± 3.46 [-1.46, +5.46]  (A defending -85.59, attacking +87.59)
      levels per deal pair  +0.07 ± 0.11 [-0.04, +0.18]  (A defending +0.29, attacking -0.22)
      neutral: kept as an option (``ducked=50``), off by default. Against heuristic play
      it is a fact (tests/engine/test_players_search.py), but for the last two tricks the
      policy weighting already discounts the same worlds, and a person may duck on purpose.
    --a search,mismatch=25 --b search (MISMATCH 0.25 against 0.5; tuning seeds 20000-20082,
      83 pairs, 64 differing)
      points per deal pair  -1.99 ± 5.99 [-7.98, +4.00]  (A defending -77.41, attacking +75.42)
      levels per deal pair  -0.10 ± 0.16 [-0.26, +0.07]
      no gain to see: MISMATCH stays 0.5 (200 pairs since: "Tuning" below).
    decisions with every inference on (bench/bench_search.py --positions 40, default budget):
      median 235 ms, p95 310 ms, max 323 ms of CPU, 42 worlds (median)

Successive halving at the default budget and tuning, 2026-12-01 (commits 2ea4c38 and
ea2334f, ``--jobs 2`` on the 2-core machine, cards dealt all at once, 200 pairs a run; the
halving run on seeds 0-199, the tunings on seeds 20000-20199 kept apart from those reported
above; every pair in ``bench/results/issue20-halving-300ms.txt`` and
``bench/results/issue20-tune-*-50ms.txt``):

    --a search,halving=1 --b search (default budget, 300 ms; 75 min)
      points per deal pair  +1.27 ± 7.22 [-5.94, +8.49];  levels +0.06 ± 0.18 [-0.12, +0.24]
      hands won by A 50.5% ± 4.9% of 400: neutral at the default budget, so the search
      keeps one round (80 worlds a decision instead of 36 bought nothing to see)
    --a search,halving=1 --b search --budget-ms 50 (seeds 20000-20099; stopped at 100 pairs
    to give the cores to the tunings once it stood at zero)
      points per deal pair  +0.00 ± 7.38 [-7.38, +7.38];  levels +0.06 ± 0.19
      the +7.15 ± 5.32 on seeds 0-199 (dealt 3 at a time) does not repeat on other seeds:
      halving stays off at 50 ms (普通) too (the runs below with halving=1 have it on
      both sides)
    --a search,halving=1,confidence=50 --b search,halving=1 --budget-ms 50 (CONFIDENCE 0.5)
      points per deal pair  -3.02 ± 3.61 [-6.63, +0.58];  levels -0.07 ± 0.10
    --a search,confidence=200 --b search --budget-ms 50 (CONFIDENCE 2)
      points per deal pair  +1.85 ± 4.85 [-3.00, +6.70];  levels +0.04 ± 0.13
      neither way pays: CONFIDENCE stays 1
    --a search,halving=1,tricks=4 --b search,halving=1 --budget-ms 50 (4 weighted tricks)
      points per deal pair  -1.18 ± 2.45 [-3.62, +1.27];  levels -0.03 ± 0.08
      no gain: WEIGHTED_TRICKS stays 2 (weighing older tricks costs CPU and adds nothing)
    --a search,mismatch=25 --b search --budget-ms 50 (MISMATCH 0.25)
      points per deal pair  +0.75 ± 4.05 [-3.30, +4.80];  levels +0.03 ± 0.11
      no gain: MISMATCH stays 0.5
    --a search,halving=2 --b search,halving=1 --budget-ms 50 (the number of worlds: at
    50 ms halving=1 leaves 41% of the choices to the heuristic, as it cannot give every
    candidate 2 worlds in each round; halving=2 takes fewer rounds there instead)
      points per deal pair  -1.00 ± 5.14 [-6.14, +4.14];  levels -0.04 ± 0.14
      no gain: searching those choices with 2-3 worlds a candidate adds nothing to see
    The cap ``max_worlds`` (200; ``bench/bench_search.py`` counts where it binds): at
    50 ms it binds in 0 of 90 searched middle-game choices and 5 of 39 endgames; at 300 ms
    in 8 of 90 and 18 of 39. Elsewhere the budget alone sets the worlds, so the cap can
    change only late choices, where the whole exact endgame was worth +1.11 ± 0.85; a run
    at 300 ms (75 min of both cores) was not made, and it stays 200.

Issue 29: 普通 as the bot ships it, 2026-12-02 (commits 04ae838 and later: declaring and
the bury at 4 card-play budgets, the endgame within its budget of positions; one process
at nice 10 on the 2-core machine shared with five other sessions, 07:17-08:59 UTC, cut off
at the deadline, not at 500; the bot's dealing pace ``--deal-batch 3``; seeds kept apart:
tuning on 30000+, evaluation on 40000+, 41000+ and 42000+, none used before):

    --a bot:normal --b heuristic (普通 against 简单; 500 pairs, seeds 40000-40499, the last
    124 on 2026-12-02 ~10:10 UTC at 084933f, whose changes leave every decision as it was;
    every pair in bench/results/issue29-normal-vs-heuristic-50ms.txt)
      points per deal pair  +28.07 ± 4.11 [+23.96, +32.18]  (A defending -73.32,
                                                            attacking +101.39)
      levels per deal pair   +0.73 ± 0.11 [+0.62, +0.84]
      hands won by A        61.9% ± 3.0% of 1000
      (before: +18.0 ± 6.1 over 150 pairs; the bar: >= +25 with a 95% lower bound > +15;
      the first 376 pairs alone: +27.46 ± 4.73)
    --a bot:normal --b bot:hard (普通 against 困难, 300 ms; 500 pairs, seeds 41000-41499:
    the first 52 one pair after every 6-12 above, 111 on 2026-12-02 11:42-12:07 UTC and
    337 on 13:19-15:16 UTC with --jobs 1-2, at 7970854 and after (no decision changed);
    every pair in bench/results/issue29-normal-vs-hard.txt)
      points per deal pair  -19.24 ± 3.63 [-22.87, -15.61]  (A defending -89.82,
                                                            attacking +70.58)
      levels per deal pair   -0.48 ± 0.10 [-0.58, -0.38]
      hands won by A        42.0% ± 3.1% of 1000
      (the first 163 pairs alone: -18.19 ± 6.39)
      (the first 52 pairs alone: -18.17 ± 10.73)
    --a bot:normal,wall0 --b bot:normal,fresh (the wall-clock ceiling at a load of 0: on
    the thread's CPU clock; 70 pairs, seeds 42000-42069, 27 of them differing;
    bench/results/issue29-ceiling-load0-normal.txt)
      points per deal pair   -6.29 ± 7.29 [-13.58, +1.01]
      levels per deal pair   -0.21 ± 0.21 [-0.43, +0.00]
      not shown below 1 point: too few pairs, and the CPU clock of a shared machine runs
      slow while other processes share the core's caches (at a load of 1, bench_players
      --cpu-ceiling cut none of 305 decisions; at a load of 8, 5 to 14 card plays of 256,
      none of whose choices changed in the run that checked). 12 earlier pairs
      (``-seatstream.txt``) gave the walled player the seat's own stream, so any cut
      shifted every later decision's random numbers: +23.75 ± 45.78, noise, dropped.
    --a search,declare_ms=200,bury_ms=200 --b search --budget-ms 50 (the split alone against
    the old 普通, tuning seeds 30000-30011, stopped at 12 pairs for the evaluation above):
      points per deal pair  +20.42 ± 22.09 [-1.68, +42.51]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.old_player import OldPlayer  # noqa: E402
from bot.edges.computer import WALL_FACTOR, WALL_MAX_SECONDS, ceiling, player_for
from engine.hand import Action, Deal, HandState, Observation, Show  # noqa: E402
from engine.players import Player, get  # noqa: E402
from engine.players.deadline import Deadline, settle  # noqa: E402
from engine.players.search import SearchPlayer  # noqa: E402
from engine.rules import RuleSet  # noqa: E402

_OLD: dict[tuple[str, int | None], OldPlayer] = {}  # one old-engine subprocess per spec a worker


class AsInBot:
    """A search player called as the bot calls it (``bot.edges.computer.Computers.act``): each
    decision with a random stream of its own, seeded from the seat's, so that a decision
    that samples fewer worlds leaves the next ones alone; with ``clock``, also the bot's
    wall-clock ceiling (1.5 times the decision's budget, at most 2 s, from the call) on
    that clock: the wall clock, or this thread's CPU time (what the wall clock of an idle
    machine would read: the ceiling at a load of 0 on a shared machine)."""

    def __init__(self, player: SearchPlayer, clock: Callable[[], float] | None) -> None:
        self.player, self.clock = player, clock

    def __call__(self, obs: Observation, rng: random.Random) -> Action:
        own = random.Random(rng.getrandbits(32))
        if self.clock is None:
            action = self.player(obs, own)
        else:
            limit = ceiling(self.player, obs, WALL_FACTOR, WALL_MAX_SECONDS)
            action = self.player(obs, own, Deadline.after(limit, self.clock))
        settle()  # as the bot's worker does after each decision
        return action


def load(spec: str, budget_ms: int | None = None) -> Player | OldPlayer:
    if spec.startswith("bot:"):  # bot:<strength>[,wall], the bot's own player of a strength
        strength, *flags = spec[4:].split(",")
        player = player_for(strength)
        clocks = {"fresh": None, "wall": time.monotonic, "wall0": time.thread_time}
        if flags:
            assert isinstance(player, SearchPlayer)
            return AsInBot(player, clocks[flags[0]])
        return player
    if spec.startswith("old:"):  # old:<commit>:<spec>, a player of an earlier commit
        _, commit, inner = spec.split(":", 2)
        key = (spec, budget_ms)
        if key not in _OLD:
            _OLD[key] = OldPlayer(commit, inner, budget_ms)
        return _OLD[key]
    name, *opts = spec.split(",")
    options: dict[str, Any] = {}
    for opt in opts:
        key, value = opt.split("=")
        options[key] = int(value)
    if name == "search" and budget_ms is not None:
        options.setdefault("budget_ms", budget_ms)
    return get(name, **options)


def play(
    rules: RuleSet, seed: int, players: list[Player | OldPlayer], batch: int = 25, preset: str = ""
) -> HandState:
    """One hand (a later hand, dealer seat 0, both teams at level 5); seats 0/2 use players[0].

    The deal goes out ``batch`` cards a seat at a time; after each batch the seats are
    offered a show in seat order (as the bot does), a ``Pass`` meaning "not now"."""
    new_hand = {"preset": preset, "seed": seed, "hand_number": 2, "dealer": 0, "levels": [3, 3]}
    state = HandState.new(rules, seed, 2, 0, [3, 3])
    rngs = [random.Random(seed * 4 + s) for s in range(4)]  # one stream per seat

    def decide(seat: int) -> Action:
        player = players[seat % 2]
        if isinstance(player, OldPlayer):
            return player.decide(state, seat, rngs[seat], new_hand)  # type: ignore[no-any-return]
        return player(state.observation(seat), rngs[seat])

    while state.phase != "done":
        if state.phase == "dealing":
            state.apply(Deal(n=4 * batch))
            for seat in range(4):
                obs = state.observation(seat)
                if state.phase == "dealing" and obs.show_options:
                    action = decide(seat)
                    if isinstance(action, Show):
                        state.apply(action)
            continue
        if state.phase == "after_deal":
            seat = next(s for s in range(4) if state.can_pass(s))
        else:
            seat = state.turn
        state.apply(decide(seat))
    return state


def value(state: HandState, team: int) -> tuple[int, int, int]:
    """(points, levels, won) from ``team``'s side: attackers' points if it attacked, else
    minus; the levels gained over the other team's; 1 if the engine says it won the hand."""
    r = state.result
    assert r is not None
    defending = r.defenders == team
    sign = -1 if defending else 1
    gained = [b - a for a, b in zip(r.levels_before, r.levels_after, strict=True)]
    won = r.winner == ("defenders" if defending else "attackers")
    return sign * r.attackers_points, gained[team] - gained[1 - team], int(won)


Job = tuple[str, str, int | None, str, int] | tuple[str, str, int | None, str, int, int]


def deal_pair(job: Job) -> tuple[int, ...]:
    """(seed, A's points defending, attacking, A's levels defending, attacking, A's hands
    won defending, attacking). A job is (A, B, budget, preset, seed[, deal batch])."""
    spec_a, spec_b, budget, preset, seed = job[:5]
    batch = job[5] if len(job) > 5 else 25
    a, b = load(spec_a, budget), load(spec_b, budget)
    rules = RuleSet.from_preset(preset)
    first = value(play(rules, seed, [a, b], batch, preset), 0)  # A defends (seat 0 deals)
    second = value(play(rules, seed, [b, a], batch, preset), 1)  # A attacks the same deal
    return seed, first[0], second[0], first[1], second[1], first[2], second[2]


def interval(xs: list[float]) -> str:
    m = statistics.fmean(xs)
    half = 1.96 * statistics.stdev(xs) / len(xs) ** 0.5 if len(xs) > 1 else float("nan")
    return f"{m:+.2f} ± {half:.2f} [{m - half:+.2f}, {m + half:+.2f}]"


def summarize(rows: list[tuple[int, ...]], title: str) -> None:
    print(f"{title}: {len(rows)} deal pairs (95% intervals)")
    for name, d, a in (("points", 1, 2), ("levels", 3, 4)):
        print(f"  {name} per deal pair: {interval([r[d] + r[a] for r in rows])}")
        print(f"    A defending: {interval([r[d] for r in rows])}")
        print(f"    A attacking: {interval([r[a] for r in rows])}")
    won = [r for r in rows if len(r) >= 7]  # logs before hand wins had 5 columns
    if won:
        hands = [x for r in won for x in (r[5], r[6])]
        rate = statistics.fmean(hands)
        half = 1.96 * (rate * (1 - rate) / len(hands)) ** 0.5
        print(
            f"  hands won by A: {rate:.1%} ± {half:.1%} of {len(hands)}"
            f" (defending {statistics.fmean(r[5] for r in won):.1%},"
            f" attacking {statistics.fmean(r[6] for r in won):.1%})"
        )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--first", type=int, default=0, help="seed of the first deal")
    ap.add_argument("--a", default="heuristic")
    ap.add_argument("--b", default="random")
    ap.add_argument("--budget-ms", type=int, default=None)
    ap.add_argument("--preset", default="classic")
    ap.add_argument(
        "--deal-batch",
        type=int,
        default=25,
        help="cards a seat between chances to show while dealing (25: all at once; the bot: 3)",
    )
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--log", default=None)
    ap.add_argument("--summarize", default=None, metavar="LOG")
    args = ap.parse_args(argv)
    if args.summarize:
        with open(args.summarize) as f:
            rows = [tuple(int(x) for x in line.split()) for line in f if line.strip()]
        summarize(rows, args.summarize)
        return
    jobs = [
        (args.a, args.b, args.budget_ms, args.preset, s, args.deal_batch)
        for s in range(args.first, args.first + args.pairs)
    ]
    log = open(args.log, "a") if args.log else None  # noqa: SIM115
    rows = []
    with ProcessPoolExecutor(args.jobs) if args.jobs > 1 else _Inline() as pool:
        for row in pool.map(deal_pair, jobs):
            rows.append(row)
            if log:
                print(*row, file=log, flush=True)
    if log:
        log.close()
    summarize(rows, f"{args.a} vs {args.b}")
    sys.stdout.flush()


class _Inline:
    """``map`` in this process (deterministic, easy to profile)."""

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, fn, items):  # type: ignore[no-untyped-def]
        return map(fn, items)


if __name__ == "__main__":
    main()
