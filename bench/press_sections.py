"""Where a press's CPU goes: ``bench/capacity.py``'s measurement, with the synchronous
steps of the change path timed (thread CPU time) while tables play.

    nice -n 10 .venv/bin/python bench/press_sections.py [--games 64] [--seconds 30]
        [--transport tls|http|inprocess] [--mode polling|webhook] [--loop uvloop|asyncio]

As capacity.py does by default, the bot runs in its own process, production's request
class talking to the fake Telegram over loopback TLS (``--transport``): the steps are
timed there (:func:`in_bot`, capacity.py's hook) and the report comes back in a file;
``--transport inprocess`` times them in the one process of the fake's FakeRequest.
Each step's time is summed over the Hint and Play presses made once 90% of the tables
played a card (and ``--warmup`` s more), and printed in ms per such press beside the
bench's own CPU figures. Nested steps are counted in their parents too (``publish``
holds the renders). No profiler runs: the figures are the code's own cost, plus a
microsecond of timing a step.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench import capacity  # noqa: E402

spent: dict[str, float] = defaultdict(float)
calls: dict[str, int] = defaultdict(int)
sizes: dict[str, int] = defaultdict(int)
kinds: dict[str, int] = defaultdict(int)
state = {"on": False, "plays": 0, "presses": 0}


def timed(owner: Any, name: str, label: str) -> None:
    """Wrap ``owner.name`` (a plain function or method) to add its thread CPU time."""
    fn = getattr(owner, name)

    @functools.wraps(fn)
    def wrapper(*a: Any, **kw: Any) -> Any:
        if not state["on"]:
            return fn(*a, **kw)
        t0 = time.thread_time()
        try:
            out = fn(*a, **kw)
            if isinstance(out, str):
                sizes[label] += len(out)
            return out
        finally:
            spent[label] += time.thread_time() - t0
            calls[label] += 1

    setattr(owner, name, wrapper)


threads_cpu: dict[str, float] = defaultdict(float)


def thread_times() -> dict[str, float]:
    out = {}
    for th in threading.enumerate():
        if th.ident is None:
            continue
        try:
            out[f"{th.name}"] = time.clock_gettime(time.pthread_getcpuclockid(th.ident))
        except OSError:
            pass
    return out


_t0: dict[str, float] = {}


PROFILE: list[Any] = []


def switch(on: bool) -> None:
    state["on"] = on
    if PROFILE:
        prof = PROFILE[0]
        if hasattr(prof, "enable"):
            (prof.enable if on else prof.disable)()
        else:
            (prof.start if on else prof.stop)()
    now = thread_times()
    if on:
        _t0.update(now)
    else:
        for k, v in now.items():
            threads_cpu[k] += v - _t0.get(k, 0.0)


def counted_async(owner: Any, name: str, label: str) -> None:
    """Count the calls of ``owner.name`` (a coroutine function) while tables play."""
    fn = getattr(owner, name)

    @functools.wraps(fn)
    async def wrapper(*a: Any, **kw: Any) -> Any:
        if state["on"]:
            calls[label] += 1
        return await fn(*a, **kw)

    setattr(owner, name, wrapper)


def wire(games: int, warmup: float, seconds: float) -> None:
    from telegram import Update

    import bot.data.saved as models
    import bot.delivery.publish as publish
    import bot.edges.timers as timers
    import bot.service.game as game_mod
    import bot.views.messages as messages
    from bot.table import commands
    from bot.views import dm_hand as render_hand
    from bot.views import group_table as render_table
    from bot.views import projection
    from engine.match import MatchState

    timed(game_mod.table, "apply", "apply")
    timed(game_mod.table, "due", "due")
    timed(publish.Publisher, "publish", "publish")
    timed(publish.Publisher, "_dm", "publish/_dm")
    timed(publish.Publisher, "_group", "publish/_group")
    timed(render_hand, "hand_message", "render: DM")
    timed(render_table, "group_messages", "render: group")
    timed(projection.Projections, "of", "projection")
    timed(timers.Deadlines, "arm", "arm")
    timed(MatchState, "model_dump_json", "save: match json")
    timed(models.GameRecord, "model_dump_json", "save: record json")
    timed(Update, "de_json", "ptb: Update.de_json")
    orig_digest = messages.Content.__dict__["digest"].func

    def digest(self: Any) -> str:
        t0 = time.thread_time()
        try:
            return orig_digest(self)
        finally:
            if state["on"]:
                spent["outbox: digest"] += time.thread_time() - t0

    messages.Content.digest = functools.cached_property(digest)  # type: ignore[assignment]
    messages.Content.digest.__set_name__(messages.Content, "digest")

    from bot.data.store import Store

    for name in ("_commit_now", "save_game", "save_shown"):
        counted_async(Store, name, f"store.{name} (count)")

    orig_change = game_mod.GameService.change

    async def change(self: Any, game: Any, command: Any) -> Any:
        counted = isinstance(command, (commands.Hint, commands.Play))
        if isinstance(command, commands.Play):
            state["plays"] += 1
            if state["plays"] == int(0.9 * games):
                loop = asyncio.get_running_loop()
                loop.call_later(warmup, switch, True)
                loop.call_later(warmup + seconds, switch, False)
        if counted and state["on"]:
            state["presses"] += 1
        if state["on"]:
            kinds[type(command).__name__] += 1
        return await orig_change(self, game, command)

    game_mod.GameService.change = change  # type: ignore[method-assign]


def in_bot(
    games: int, warmup: float, seconds: float, out: str, profile: str = "", sample: str = ""
) -> Any:
    """In the bot's process (capacity.py's hook): the steps wired before the bot is
    built; what to call once it stopped (it writes the report to ``out``)."""
    start_profile(profile, sample)
    wire(games, warmup, seconds)

    def finish() -> None:
        dump_profile(profile, sample)
        Path(out).write_text(json.dumps(summary()))

    return finish


def start_profile(profile: str, sample: str) -> None:
    if sample:
        from pyinstrument import Profiler

        PROFILE.append(Profiler(interval=0.0005, async_mode="disabled"))
    elif profile:
        import cProfile

        PROFILE.append(cProfile.Profile())


def dump_profile(profile: str, sample: str) -> None:
    if PROFILE and sample:
        text = PROFILE[0].output_text(show_all=True, color=False, unicode=True)
        Path(sample).write_text(text)
    elif PROFILE:
        PROFILE[0].dump_stats(profile)


def summary() -> dict[str, Any]:
    return {
        "spent": spent,
        "calls": calls,
        "sizes": sizes,
        "kinds": kinds,
        "state": state,
        "threads_cpu": threads_cpu,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--warmup", type=float, default=5.0)
    ap.add_argument("--think", type=float, default=3.0)
    ap.add_argument("--transport", choices=capacity.TRANSPORTS, default="tls")
    ap.add_argument("--mode", choices=capacity.MODES, default="polling")
    ap.add_argument("--loop", choices=capacity.LOOPS, default="uvloop")
    ap.add_argument("--profile", help="write a cProfile of the window's main thread here")
    ap.add_argument("--sample", help="write a pyinstrument tree of the window here")
    args = ap.parse_args()
    profile, sample = os.path.abspath(args.profile or ""), os.path.abspath(args.sample or "")
    profile, sample = profile if args.profile else "", sample if args.sample else ""
    run = functools.partial(
        capacity.measure,
        args.games,
        args.seconds,
        args.warmup,
        args.think,
        1,
        {},
        playing=0.9,
        transport=args.transport,
        mode=args.mode,
        loop=args.loop,
    )
    if args.transport == "inprocess":
        start_profile(profile, sample)
        wire(args.games, args.warmup, args.seconds)
        with asyncio.Runner(loop_factory=capacity.loop_factory(args.loop)) as runner:
            result = runner.run(run())
        dump_profile(profile, sample)
        got = summary()
    else:
        with tempfile.TemporaryDirectory() as tmp:
            out = str(Path(tmp) / "sections.json")
            hook_args = dict(
                games=args.games, warmup=args.warmup, seconds=args.seconds, out=out,
                profile=profile, sample=sample,
            )  # fmt: skip
            hook = {"file": str(Path(__file__).resolve()), "args": hook_args}
            with asyncio.Runner(loop_factory=capacity.loop_factory("uvloop")) as runner:
                result = runner.run(run(hook=hook))
            got = json.loads(Path(out).read_text())
    show(got, result)


def show(got: dict[str, Any], result: dict[str, Any]) -> None:
    spent, calls, sizes, kinds = got["spent"], got["calls"], got["sizes"], got["kinds"]
    n = max(1, got["state"]["presses"])
    print(
        f"transport {result['transport']}, {result['mode']}, bot's loop {result['loop']},"
        f" request {result['request']}"
    )
    print(f"presses timed {got['state']['presses']} (bench window: {result['presses']})")
    print("changes in the window:", dict(kinds))
    print(
        f"bench CPU ms per press: all {result['cpu_ms_per_press']:.2f}"
        f" / bot {result['bot_cpu_ms_per_press']:.2f}"
    )
    for name, cpu in sorted(got["threads_cpu"].items(), key=lambda kv: -kv[1]):
        print(f"  thread {name:21s} {cpu * 1000 / n:6.3f} ms per press")
    for label in sorted(k for k in calls if k not in spent):
        print(f"  {label:28s} {calls[label] / n:6.2f} per press")
    for label in sorted(spent, key=lambda k: -spent[k]):
        ms = spent[label] * 1000 / n
        size = f", {sizes[label] // calls[label]:,} chars each" if sizes.get(label) else ""
        print(f"  {label:28s} {ms:6.3f} ms per press  ({calls.get(label, 0)} calls{size})")


if __name__ == "__main__":
    main()
