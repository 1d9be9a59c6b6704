"""How many games one bot process hosts, measured as production runs it; the old code and
the new side by side.

    nice -n 10 .venv/bin/python bench/capacity.py [--games 16,256,1000] [--seconds 60]
        [--warmup 30] [--playing 0.9] [--think 3.0] [--repeat 1]
        [--transport tls|http|inprocess] [--mode polling|webhook] [--loop uvloop|asyncio]
        [--baseline REF | --baseline none]

(``--transport``, ``--mode``, ``--loop`` and ``--players`` take lists, e.g.
``--loop asyncio,uvloop``: every combination is a column, run in turn.)

For each size G, a fresh process (the bench's "world") runs the fake Telegram and the
simulated people, and hosts the real Application (built by ``bot.app.build_application``
with the production ``Settings`` defaults: real-time pacing, the production rate limiter,
the loop's clock) as ``--transport`` says:

* ``tls`` (the default): the bot in a process of its own, run by ``bot.hosting.run`` as
  ``python -m bot`` runs it (its event loop, ``tune_gc``, long polling or, with ``--mode
  webhook``, PTB's webhook server, the fake posting the updates to it as Telegram does:
  ``bot.fake_telegram.webhook``), with production's request class (``production_requests``;
  ``check_production_request`` holds it to ``build_application``'s default) talking to
  the fake's HTTP server over loopback TLS: a throwaway self-signed certificate
  (``make_certificate``, openssl) that the client trusts as its CA;
* ``http``: the same over plain HTTP (build_application's request objects untouched);
* ``inprocess``: the comparison, the old measurement: the bot in the world's process on
  the fake's ``FakeRequest`` (no HTTP client, no TLS, no sockets).

The bot runs on ``--loop`` (uvloop, production's default, or asyncio); the world on
uvloop (in-process: the bot's loop). It hosts G groups. In each group four simulated people sit
down as people do (``/newgame``, then each follows a seat's deep link), the creator
taps Start, and from then on they play by reading their own DM keyboards: a person
whose keyboard offers Hint waits a think time, taps Hint, and once the hinted cards
show as selected taps Play (or Bury); Pass in the overturn window or in chaodi after a
think time; Next hand in the group after a think time. Think times are drawn from an
exponential distribution (mean ``--think`` s), seeded per group (``--seed``); the deals
are seeded too. No computer players. A person reads the last 8 messages of a chat and
looks again when the bot touched one of the table's chats (2 s at the latest). The
bench touches nothing of the bot but ``build_application``, ``Settings`` and
``ALLOWED_UPDATES``: it reads buttons by the kind letter that starts their callback
data and the seat links by their URL.

Since whole hands at human pace take minutes (dealing alone ~15 s, then a 15 s
overturn window), each size is measured over a window that holds play: it opens
``--warmup`` s after ``--playing`` (0.9) of the tables had a card play accepted (or
900 s after the starts), and lasts ``--seconds`` s. Figures over the presses made in
the window (``CallbackRecord.created_at`` in it), counted by kind (Start, Pass, Hint,
Play/Bury, Next hand):

* press→answer p50/p99: the fake's ``answered_at - created_at`` (real time: the update
  fetched by getUpdates, PTB, the handler: lock, engine, save, publish; the
  answerCallbackQuery reaching the fake). Presses still unanswered 10 s after the
  window count as 10 s. "presses a full GC held": presses during which a full
  (generation 2) garbage collection of the process ran; "p99 of the other presses".
* CPU ms per press, bot: in its own process (tls, http), that process's CPU time
  (``time.process_time`` inside it, every thread: the store's too) over the window /
  presses (``BotProbe``, signalled by the world at the window's start and end).
  In-process: the process's CPU time minus the thread CPU time spent *inside* the fake's
  request handling (every step of ``TelegramCore.handle`` timed) and inside the
  simulated people's coroutines (with the fake's callback and message creation they
  call); what remains is the bot's, plus what no one owns: the event loop's scheduling,
  the garbage collector (whoever's objects), the in-process transport's JSON encoding
  of the fake's answers, and this bench's 10 ms stall probe.
* CPU ms per press, all: the bot's and the world's process together (in-process: the
  one process).
* CPU s per s: the same CPU times / window length (1.0 = one core busy).
* loop timer late: how late a 10 ms ``asyncio.sleep`` wakes in the bot's loop (busy or
  stopped); the world's loop, the same probe in the bench's process (a late world delays
  presses and answers too); GC pause ms per s, full GCs, the longest: the bot's process's
  ``gc.callbacks`` timings in the window.
* Telegram writes per s: sends, edits, deletes per second (the production rate
  limiter allows ~30 a second overall); calls per play: every Bot API call in the
  window but getUpdates, by method, / accepted plays (Play/Bury presses answered
  without an alert or "out of date").
* memory per game: the bot's RSS growth from before the groups were created to the end
  of the window, / G (in-process: the fake's stored messages included).
* seating s, starts→playing s: how long the seating and the way to the window took.

``--baseline REF`` checks REF out into a temporary ``git worktree add --detach``, runs
the same measurement there (over tls or http: REF's ``bot`` in the bot's process, this
checkout's fake and people; in-process: a subprocess with ``PYTHONPATH`` at that
checkout, using its own ``bot`` package and its own copy of the fake), and prints, per size,
figure | old | new | ratio (new / old). With ``--repeat N`` every cell is the median of
N runs (old and new alternate). The shared machine is noisy: read medians and ratios.

Figures since issue 34 (over TLS, and the comparison in-process): docs/scaling.md. The
figures below are all **in-process** (the only transport the bench had then).

Figures, 2026-11-30 (2 cores shared with other sessions' test runs and a two-process
duplicate_eval at nice 19, load ~2.5-3; nice -n 10; think 3 s, --playing 0.9,
warmup 30 s, window 60 s). old = bc12337 (before issue 8), new = cap2 at 3017b7f.

G=16, medians of 3 runs each (old and new alternating, 17:01-17:16 UTC):

    G=16                          old      new   ratio
    presses in window             524      617    1.18   (Hint and Play/Bury alike)
    accepted plays                262      307    1.17
    press→answer p50 ms          3.60     4.31    1.19
    press→answer p99 ms         17.03    17.03    1.00
    CPU ms per press: all       10.37     7.11    0.69
    CPU ms per press: bot        8.67     6.11    0.70
    CPU s per s: bot             0.08     0.06
    loop timer late p99 ms       5.03     3.96
    longest full GC ms             79       72   (one full GC in each window)
    memory KiB per game           844      664    0.79
    calls per play: all          8.90     5.54    0.62   (answers to presses: 2.00 both)
      writes                     6.90     3.53    0.51   edit 4.68→3.48, send 1.22→0.03,
                                                         delete 0.99→0.02
    (The same at 7051033, before a selection stopped waiting for the disk: CPU all
    10.71 → 7.44, bot 8.99 → 6.43 ms; p50 4.20 → 6.82 ms: half the presses are Hints,
    and every Hint then waited for an fsync.)

The bot's CPU per press is ×0.70, not the ×0.5 aimed at. What is left is mostly
python-telegram-bot's object model, paid per Bot API call: an update parsed with the
pressed message and its ~40-button keyboard, the keyboards built as PTB objects and
serialised (now once per rendered message), the request encoded; then the hand and
table rendering and one pydantic dump per change (0.1 ms).

G=16 again after the DM keyboards became plain data, presses were read without the
pressed message's keyboard and formatting (bot/edges/updates.py) and disarming a timer no
longer scans every job: main at a2688be, medians of 3 runs each, old and new
alternating, 18:03-18:18 UTC, the machine otherwise quiet (think 3 s, warmup 20 s,
window 40 s):

    G=16                          old      new   ratio
    presses in window             347      410    1.18
    press→answer p50 ms          3.82     3.82    1.00
    press→answer p99 ms         10.59     9.16    0.86
    CPU ms per press: all       14.45     8.16    0.56   (runs: 0.56, 0.50, 0.61)
    CPU ms per press: bot       12.15     6.70    0.55   (runs: 0.55, 0.49, 0.60)
    GC pause ms per s            1.82     0.53    0.29
    memory KiB per game           767      627    0.82
    calls per play: all          8.90     5.47    0.61
      writes                     6.90     3.47    0.50

G=256: old a single run (16:32-16:52, with 7051033's bench); new 3 runs (17:01-17:25),
each cell their median (the three in brackets):

    G=256                         old      new
    presses in window             232      398   (384 / 398 / 404)
      Pass / Hint / Play     26/199/7  0/337/62
    accepted plays                  2       50   (39 / 56 / 50)
    starts→playing s              900      260   (old: under 90% after 900 s)
    press→answer p50 ms          5.36     7.24   (5.72 / 7.24 / 8.06)
    press→answer p99 ms           226     36.9   (36.4 / 101 / 36.9)
      of Play/Bury, of Hint         -   26.1, 44.1 (third run only)
    presses a full GC held          -        0   (1 / 0 / 0)
    CPU ms per press: all       77.94     27.3   (26.5 / 32.0 / 27.3)
    CPU ms per press: bot       66.20     19.9   (18.2 / 22.8 / 19.9)
      (not like for like: the old window still held deals, Passes and few plays)
    CPU s per s: all / bot  0.30/0.26 0.18/0.13
    longest full GC ms            956      276   (304 / 276 / 239)
    memory KiB per game           602      352
    seating s                     110       76
    Telegram writes per s          30       30   (the overall limit: saturated)

At 256 games at this pace the bot is not CPU-bound (0.15 s of CPU a second) but
output-bound: Telegram's ~30 writes a second across all chats (the production rate
limiter) hold every table; a DM shows a hint's selection or a new turn seconds late,
players press Play on keyboards that changed meanwhile ("out of date": 50 of 62 Play
presses accepted), and a player who pressed nothing for 30 s gets their turn as a new
message (a send and a delete: 36 writes per accepted play instead of 3.5). One table
at this pace needs ~1 write a second: ~30 tables saturate the overall limit, whatever
the code. The answers are not held by it (they bypass the limiter).

What made a press wait at 256 (p99 165-226 ms before, CPU ~15-30% busy): (1) the
store: one fsync per commit (~4 ms here, more when other processes write) on one
thread, for every save of every game (deal steps, every Hint and card tapped) and
every message's shown-state; a press's commit queued behind the others'. Now commits
are grouped (a write returns once a commit started after it is done; the writes queued
meanwhile share its fsync), and a selection change (Hint, a card tapped, Clear) is
written at once but committed with the next commit without being waited for (an
accepted action still waits for its commit): at 7051033 (grouped commits, every Hint
still waiting) one run gave p99 102 ms. (2) The simulated people: re-reading every
transcript four times a second held the loop for tens of ms (loop timer p99 45 ms in a
diagnostic run before); they now read the last messages when woken (p99 ~5 ms). (3) Full
garbage collections of the process's heap (the fake's stored messages included):
0.25-1 s each, once or twice a minute at 256 games; a press overlapping one waits.
That remains (the "presses a full GC held" row). Three runs of the same code gave p99
36, 101 and 37 ms: single p99s at this size are noise.

G=1000, new only (7051033; --playing 0.05, warmup 0; 16:32-16:58): seating took 299 s;
900 s after the starts fewer than 5% of the tables had had a card play accepted (each
deal edits every DM and the group, all behind the overall 30 writes/s); in the 60 s
window 345 presses (342 Hint, 3 accepted plays), p50 16.8 ms, p99 595 ms, CPU s per s
0.44 (bot 0.28), full GCs up to 1.38 s (79 ms of GC a second), 348 KiB per game, ~29
writes/s. So 1,000 games are seated (5 minutes) and dealt, but at Telegram's overall
write rate, far slower than people play; the CPU is not the limit (0.44 s a second),
the full GCs are the latency's.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.util
import inspect
import itertools
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

REPO = Path(__file__).resolve().parent.parent
DEFAULT_BASELINE = "bc12337"  # the commit before issue 8's work
HAND_KINDS = frozenset("TPHDNOVA")  # the kind letters of a DM hand keyboard
ANSWER_GRACE = 10.0  # seconds an in-window press may still be answered after the window
DEPTH = 8  # how many of a chat's last messages a person reads
NAP = 2.0  # a person looks again after this long even if the bot did nothing (it wakes them)
PLAYING_FRACTION = 0.9  # the warm-up starts once this share of the tables played a card
PLAYING_TIMEOUT = 900.0  # ... or after this many seconds, whatever the share
MIN_PLAYS_TIMEOUT = 120.0  # how much longer a window may last to hold min_plays
RETRY = 3.0  # seconds a Mini App's event stream waits before it opens again (EventSource's)
KIND_NAMES = {"S": "Start", "N": "Pass", "H": "Hint", "P": "Play/Bury", "G": "Next hand"}


def kind_of(data: str | None) -> str | None:
    """The kind letter a button's callback data starts with (``P|game|hand|…``)."""
    if not data or "|" not in data:
        return None
    return data.split("|", 1)[0]


def button(msg: Any, kind: str) -> Any:
    for row in msg.buttons():
        for b in row:
            if kind_of(b.data) == kind:
                return b
    return None


@dataclass
class Person:
    sim: Any  # SimUser
    pressed: set[str] = field(default_factory=set)  # callback data already pressed
    # a Mini App player (--players app): their signed launch data and the newest view
    # their app's event stream brought
    init_data: str = ""
    view: dict[str, Any] | None = None


@dataclass
class AppPress:
    """A Mini App's action as the figures count presses (a CallbackRecord's fields):
    sent at ``created_at``, its HTTP answer received at ``answered_at``."""

    created_at: float
    answered: bool = False
    answered_at: float = 0.0
    show_alert: bool = False
    text: str | None = None


@dataclass
class Table:
    index: int
    group: Any  # Chat
    people: list[Person]
    rng: random.Random
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    presses: list[Any] = field(default_factory=list)  # (kind, CallbackRecord)


class Bench:
    def __init__(self, world: Any, think: float) -> None:
        self.world = world
        self.think = think

    # ----------------------------------------------------------------- reading
    def last_bot(self, chat: Any, pred, depth: int | None = None) -> Any:
        """The bot's latest message that ``pred`` accepts, among its last ``depth``
        (a person reads the bottom of a chat: a long transcript is not read again)."""
        for msg in itertools.islice(reversed(self.world.transcript(chat)), depth):
            if msg.from_bot and not msg.service and pred(msg):
                return msg
        return None

    def hand_message(self, person: Person) -> Any:
        return self.last_bot(
            person.sim,
            lambda m: any(kind_of(b.data) in HAND_KINDS for r in m.buttons() for b in r),
            DEPTH,
        )

    async def nap(self, t: Table, seconds: float = NAP) -> None:
        """Until the bot touched one of the table's chats (or ``seconds`` passed)."""
        with suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await t.wake.wait()

    async def until(self, t: Table, cond, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            t.wake.clear()
            if cond():
                return True
            if time.monotonic() > deadline:
                return False
            await self.nap(t)

    # ----------------------------------------------------------------- acting
    async def press(self, t: Table, person: Person, msg: Any, kind: str) -> Any:
        b = button(msg, kind)
        if b is None:
            return None
        try:
            rec = await person.sim.press(msg, data=b.data, settle=False)
        except AssertionError:  # the keyboard changed under the finger
            return None
        person.pressed.add(b.data)
        t.presses.append((kind, rec))
        return rec

    async def seat(self, t: Table) -> None:
        creator = t.people[0].sim
        await creator.send(t.group, "/newgame", settle=False)
        for i, person in enumerate(t.people):

            def link(m: Any, i: int = i) -> bool:
                return any(b.url and b.url.endswith(f"_{i}") for r in m.buttons() for b in r)

            assert await self.until(t, lambda: self.last_bot(t.group, link), 600), t.index
            lobby = self.last_bot(t.group, link)
            b = next(b for r in lobby.buttons() for b in r if b.url and b.url.endswith(f"_{i}"))
            await person.sim.press(lobby, text=b.text, settle=False)
            got = await self.until(t, lambda p=person: self.last_bot(p.sim, lambda m: True), 600)
            assert got, f"table {t.index}: no reply to seat {i}"

    async def start(self, t: Table) -> None:
        def lobby(m: Any) -> bool:
            return button(m, "S") is not None

        assert await self.until(t, lambda: self.last_bot(t.group, lobby), 600), t.index
        await self.press(t, t.people[0], self.last_bot(t.group, lobby), "S")

    def decide(self, t: Table) -> tuple[Person, Any, str] | None:
        for person in t.people:
            msg = self.hand_message(person)
            if msg is None:
                continue
            for kind in ("H", "N"):
                b = button(msg, kind)
                if b is not None and b.data not in person.pressed:
                    return person, msg, kind
        result = self.last_bot(t.group, lambda m: button(m, "G") is not None, DEPTH)
        if result is not None:
            b = button(result, "G")
            if b.data not in t.people[0].pressed:
                return t.people[0], result, "G"
        return None

    async def play(self, t: Table) -> None:
        await self.start(t)
        while True:
            t.wake.clear()
            choice = self.decide(t)
            if choice is None:
                await self.nap(t)
                continue
            person, msg, kind = choice
            await asyncio.sleep(t.rng.expovariate(1 / self.think))
            msg = self.hand_message(person) if kind != "G" else msg  # look again
            if msg is None:
                continue
            rec = await self.press(t, person, msg, kind)
            if rec is None:
                continue
            await self.until(t, lambda r=rec: r.answered, 60)
            if kind != "H":
                continue

            # the hinted cards show as selected (Clear appears), or the turn has passed
            def shown(p: Person = person) -> bool:
                m = self.hand_message(p)
                return m is None or button(m, "O") is not None or button(m, "H") is None

            await self.until(t, shown, 30)
            m = self.hand_message(person)
            if m is not None and button(m, "O") is not None:
                await self.press(t, person, m, "P")


class AppBench(Bench):
    """Mini App players (``--players app``): they sit down and Start through Telegram
    as everyone does, then each opens the table as the page does: it follows its event
    stream (``api/events``), says ``here`` every few seconds and acts over the API
    (``api/act``): Pass; on their turn Hint, then Play the hinted cards; Next hand. Same
    think times as the DM players. Their DMs wait while the apps are open."""

    def __init__(
        self, world: Any, think: float, http: Any, base: str, ping: float, meter: Meter
    ) -> None:
        super().__init__(world, think)
        self.http, self.base, self.ping, self.meter = http, base, ping, meter
        self.reopened = 0  # event streams that ended and were opened again

    def launch(self, person: Person) -> None:
        from bot.edges.miniapp.auth import sign

        sim = person.sim
        user = {"id": sim.id, "first_name": sim.name, "language_code": "en"}
        fields = {"user": json.dumps(user), "auth_date": str(int(time.time()))}
        person.init_data = sign(fields, self.world.token)

    async def call(self, person: Person, path: str, body: dict[str, Any]) -> Any:
        headers = {"Authorization": f"tma {person.init_data}"}
        async with self.http.post(self.base + path, json=body, headers=headers) as r:
            return await r.json() if r.status == 200 else None

    async def follow(self, t: Table, person: Person, game_id: int) -> None:
        """The page's event stream: the newest view, the table woken on each; opened
        again RETRY s after it ends (the bot let it go), as a browser's EventSource does."""
        query = {"game": str(game_id), "auth": person.init_data}
        while True:
            with suppress(aiohttp.ClientError):
                async with self.http.get(self.base + "api/events", params=query) as r:
                    async for line in r.content:
                        if line.startswith(b"data: "):
                            person.view = json.loads(line[6:])
                            t.wake.set()
            self.reopened += 1
            await asyncio.sleep(RETRY)

    async def shown(self, person: Person, game_id: int) -> None:
        while True:
            await asyncio.sleep(self.ping)
            await self.call(person, "api/here", {"game": game_id})

    async def act(self, t: Table, person: Person, kind: str, action: str, **body: Any) -> Any:
        view = person.view
        assert view is not None
        rec = AppPress(self.world.clock.now())
        t.presses.append((kind, rec))
        body = {"game": view["game"], "action": action, "hand": view["hand_no"], **body}
        answer = await self.call(person, "api/act", {"version": view["version"], **body})
        rec.answered_at, rec.answered = self.world.clock.now(), answer is not None
        if answer is not None:
            rec.show_alert, rec.text = answer["alert"], answer["text"]
            person.view = answer["view"]
        return answer

    def app_decide(self, t: Table) -> tuple[Person, str] | None:
        for person in t.people:
            v = person.view
            me = v.get("me") if v else None
            if not me:
                continue
            key = f"{v['hand_no']}.{v['version']}"
            if me["my_turn"] and v["phase"] in ("burying", "playing"):
                if f"H{key}" not in person.pressed:
                    return person, "H"
            elif me["can_pass"] and f"N{key}" not in person.pressed:
                return person, "N"
        v = t.people[0].view
        if v and v.get("result") and not v["result"]["match_over"] and v["status"] == "running":
            if f"G{v['hand_no']}" not in t.people[0].pressed:
                return t.people[0], "G"
        return None

    async def app_game(self, t: Table) -> int:
        """The game the creator's DM opens in the app (its hand message's 🃏 button),
        once it came. (``until`` clears the wake-up before it looks: napping on a wake-up
        already set returns at once, and a loop of such naps never yielded: the bot could
        not send the message, and each nap's cancelled timer stayed in the loop's heap,
        ~1 GiB a minute: the 12 GB of a 256-table run.)"""

        def opener() -> Any:
            return self.last_bot(
                t.people[0].sim, lambda m: any(b.web_app for r in m.buttons() for b in r)
            )

        assert await self.until(t, lambda: opener() is not None, 600), t.index
        url = next(b.web_app for r in opener().buttons() for b in r if b.web_app)
        return int(url.rsplit("game=", 1)[1])

    async def play(self, t: Table) -> None:
        await self.start(t)
        game_id = await self.app_game(t)
        tasks = []
        for person in t.people:
            self.launch(person)
            tasks += [  # the apps' own work is the people's, not the bot's
                asyncio.create_task(self.meter.run(self.follow(t, person, game_id))),
                asyncio.create_task(self.meter.run(self.shown(person, game_id))),
            ]
        try:
            while True:
                t.wake.clear()
                choice = self.app_decide(t)
                if choice is None:
                    await self.nap(t)
                    continue
                person, kind = choice
                v = person.view
                assert v is not None
                key = f"{v['hand_no']}" if kind == "G" else f"{v['hand_no']}.{v['version']}"
                await asyncio.sleep(t.rng.expovariate(1 / self.think))
                if self.app_decide(t) != choice:  # look again: the table moved meanwhile
                    continue
                person.pressed.add(f"{kind}{key}")
                action = {"H": "hint", "N": "pass", "G": "next"}[kind]
                answer = await self.act(t, person, kind, action)
                if kind == "H" and answer is not None and answer["view"].get("me"):
                    cards = answer["view"]["me"]["selection"]
                    if cards:
                        await self.act(t, person, "P", "play", cards=cards)
        finally:
            for task in tasks:
                task.cancel()


def wire_wakeups(world: Any, tables: list[Table], meter: Meter, calls: dict[str, int]) -> None:
    """Wake a group's players when the bot finishes a request to one of its chats; the
    fake's handling of every request is metered (``meter``) and counted by method
    (``calls``). The fake's request log is emptied as it goes: kept, it would grow in
    the bot's heap without bound and lengthen every full garbage collection."""
    core = world.core
    owner: dict[int, Table] = {}
    for t in tables:
        owner[t.group.id] = t
        for p in t.people:
            owner[p.sim.id] = t
    handle = core.handle

    async def watched(token: str, method: str, raw: Any, files: Any = None) -> Any:
        calls[method] = calls.get(method, 0) + 1
        if len(core.log) > 1000:
            del core.log[:]
        try:
            status, body = await meter.run(handle(token, method, raw, files))
            if status != 200:  # refused: a 429 (flood control), an identical edit, ...
                said = str(body.get("description", "")) if isinstance(body, dict) else ""
                what = f"refused {'not modified' if 'not modified' in said else status}"
                calls[what] = calls.get(what, 0) + 1
            return status, body
        finally:
            chat_id = raw.get("chat_id") if isinstance(raw, dict) else None
            if chat_id is None and isinstance(raw, dict) and "callback_query_id" in raw:
                rec = core.callbacks.get(str(raw["callback_query_id"]))
                chat_id = rec.user.id if rec is not None else None
            with suppress(ValueError, TypeError):
                if (t := owner.get(int(chat_id))) is not None:  # type: ignore[arg-type]
                    t.wake.set()

    core.handle = watched


class Meter:
    """CPU time (``time.thread_time``) spent inside some coroutines' own steps: every
    step of a metered coroutine is timed, so the time other tasks run while it waits
    is not counted, and a metered coroutine inside another is counted once."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._depth = 0

    async def run(self, coro: Any) -> Any:
        return await _Metered(self, coro)


class _Metered:
    def __init__(self, meter: Meter, coro: Any) -> None:
        self.meter, self.coro = meter, coro

    def __await__(self) -> Any:
        meter, coro = self.meter, self.coro
        value: Any = None
        error: BaseException | None = None
        while True:
            outer = meter._depth == 0
            meter._depth += 1
            t0 = time.thread_time()
            try:
                step = coro.send(value) if error is None else coro.throw(error)
            except StopIteration as stop:
                return stop.value
            finally:
                meter._depth -= 1
                if outer:
                    meter.seconds += time.thread_time() - t0
            try:
                value, error = (yield step), None
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as e:  # noqa: BLE001 (handed to the coroutine)
                value, error = None, e


class Stalls:
    """What holds the event loop: the garbage collector's pauses (``gc.callbacks``) and
    how late a 10 ms timer fires (the loop busy, or stopped, for that long)."""

    def __init__(self, now: Any = time.monotonic) -> None:
        self.now = now  # the clock the presses are timed on
        self.gc: list[tuple[int, float]] = []  # (generation, seconds)
        self.full: list[tuple[float, float]] = []  # full collections: (start, end) on now
        self.late: list[float] = []
        self._t0 = 0.0
        self._at = 0.0
        self._task: asyncio.Task[None] | None = None

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._t0, self._at = time.perf_counter(), self.now()
        else:
            self.gc.append((info["generation"], time.perf_counter() - self._t0))
            if info["generation"] == 2:
                self.full.append((self._at, self.now()))

    async def _tick(self) -> None:
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.01)
            self.late.append(time.perf_counter() - t - 0.01)

    def start(self) -> None:
        self.gc.clear()
        self.late.clear()
        gc.callbacks.append(self._on_gc)
        self._task = asyncio.get_running_loop().create_task(self._tick())

    def stop(self) -> dict[str, float]:
        gc.callbacks.remove(self._on_gc)
        if self._task is not None:
            self._task.cancel()
        full = [s for g, s in self.gc if g == 2]
        late = sorted(self.late) or [0.0]
        return {
            "gc_ms_per_s": sum(s for _, s in self.gc) * 1000,
            "gc_full": len(full),
            "gc_full_max_ms": max(full, default=0.0) * 1000,
            "loop_late_p99_ms": late[int(0.99 * (len(late) - 1))] * 1000,
            "loop_late_max_ms": late[-1] * 1000,
        }


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def build(world: Any, db: Path, overrides: dict[str, str]) -> Any:
    """``build_application`` with the fake's transport and seeded deals, whatever its
    signature (only parameters it has are passed; everything else its defaults)."""
    from bot.app import build_application
    from bot.infra.config import Settings

    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        bot_token=world.token,
        database_path=db,
        **{**trust_settings(None), **overrides},  # type: ignore[arg-type]
    )
    params = inspect.signature(build_application).parameters
    kwargs: dict[str, Any] = {}
    if "request" in params:
        kwargs["request"] = world.request()
    if "get_updates_request" in params:
        kwargs["get_updates_request"] = world.request()
    if "seed_source" in params:
        kwargs["seed_source"] = itertools.count(20240601).__next__
    return build_application(settings, **kwargs)


@dataclass
class WebApp:
    """The bot's Mini App server on a local port (as ``bot.edges.miniapp.server.serve`` runs
    it) and one HTTP client for every simulated app."""

    runner: Any
    http: Any
    base: str

    def bench(self, world: Any, think: float, meter: Meter) -> AppBench:
        from bot.edges.miniapp.streams import PING_SECONDS

        return AppBench(world, think, self.http, self.base, PING_SECONDS, meter)

    async def close(self) -> None:
        await self.http.close()
        await self.runner.cleanup()


async def serve_webapp(app: Any) -> WebApp:
    from aiohttp import web

    from bot.edges.miniapp.server import make_app

    runner = web.AppRunner(make_app(lambda: app), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    # no overall timeout: an event stream stays open as long as the table plays
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=30)
    http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), timeout=timeout)
    return WebApp(runner, http, f"http://127.0.0.1:{port}/")


def fake_telegram() -> Any:
    try:
        from bot.fake_telegram import FakeTelegram
    except ImportError:  # before the fake moved into the package
        from tests.fakes.telegram import FakeTelegram  # type: ignore[no-redef]
    return FakeTelegram


def stale_text() -> str | None:
    import bot

    path = Path(bot.__file__).parent / "i18n" / "en.json"
    with suppress(OSError, ValueError):
        return json.loads(path.read_text())["stale"]
    return None


def accepted(kind: str, rec: Any, stale: str | None) -> bool:
    """A press the bot took: answered, without an alert or "out of date"."""
    return rec.answered and not rec.show_alert and (stale is None or rec.text != stale)


# --------------------------------------------------------------------- the bot's hosts
TRANSPORTS = ("tls", "http", "inprocess")
MODES = ("polling", "webhook")
LOOPS = ("uvloop", "asyncio")
WEBHOOK_PATH = "/telegram/webhook"
WEBHOOK_SECRET = "capacity-bench-secret"


def loop_factory(name: str) -> Any:
    """The factory of the event loop ``name`` (uvloop's where it installs)."""
    if name == "uvloop":
        with suppress(ImportError):
            import uvloop

            return uvloop.new_event_loop
    return asyncio.new_event_loop


def make_certificate(directory: Path) -> tuple[Path, Path]:
    """A throwaway self-signed certificate for 127.0.0.1 and its key, made by ``openssl``
    in ``directory`` (valid a day; the venv has no ``cryptography`` package to make one
    in Python). The bot's client trusts it as its CA, as a host gives its client the CA of
    a Bot API server of its own (or of a TLS-inspecting proxy)."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-keyout", str(key), "-out", str(cert),
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


def production_requests(ca_file: str | None) -> dict[str, Any]:
    """The ``request`` and ``get_updates_request`` to give ``bot.app.build_application``
    so that its calls trust ``ca_file`` as a host configures its client. A bot that has
    ``TELEGRAM_CA_FILE`` (``bot.infra.request.AiohttpRequest`` and the httpx option alike) is
    given none: the setting is passed (``trust_settings``) and build_application makes
    production's own requests. An older bot (``--baseline``: PTB's ``HTTPXRequest``, 256
    connections for calls, 1 for getUpdates) gets those with the CA as httpx's ``verify``.
    Over plain HTTP (``ca_file`` None) nothing is passed either way.
    ``check_production_request`` stops a run whose request is not the class
    build_application makes by default."""
    from bot.infra.config import Settings

    if ca_file is None or "telegram_ca_file" in Settings.model_fields:
        return {}
    import ssl

    from telegram.request import HTTPXRequest

    trust = {"httpx_kwargs": {"verify": ssl.create_default_context(cafile=ca_file)}}
    return {
        "request": HTTPXRequest(256, **trust),
        "get_updates_request": HTTPXRequest(1, **trust),
    }


def trust_settings(ca_file: str | None) -> dict[str, Any]:
    """The bot's settings of a host that trusts ``ca_file`` (``TELEGRAM_CA_FILE``) and
    whose groups' people get their Hints from the heuristic in the bot's process
    (``COMPUTER_STRENGTH=easy``: at the default 普通 a Hint is searched in the worker
    processes, which this bench's bot CPU would not see, and which older bots did not
    do), where the bot has those settings."""
    from bot.infra.config import Settings

    out: dict[str, Any] = {}
    if ca_file is not None and "telegram_ca_file" in Settings.model_fields:
        out["telegram_ca_file"] = ca_file
    if "computer_strength" in Settings.model_fields:
        out["computer_strength"] = "easy"
    return out


def check_production_request(app: Any, settings: Any) -> str:
    """The name of the request class the bot's calls go through, once it is the one
    ``build_application`` makes when given none (else the run stops: the bench would
    measure another client than production's)."""
    from bot.app import build_application

    def request_class(application: Any) -> type:
        request = application.bot.request
        return type(getattr(request, "inner", request))  # (bot.edges.metrics counts it)

    used, default = request_class(app), request_class(build_application(settings))
    if used is not default:
        raise SystemExit(
            f"bench/capacity.py: the bot's request is {used.__name__}, production's"
            f" {default.__name__}: adapt production_requests()"
        )
    return used.__name__


class BotProbe:
    """In the bot's process: what only it can measure, over the window the bench's world
    process opens (SIGUSR1) and closes (SIGUSR2): its CPU time (``time.process_time``,
    every thread: the store's, the pool's), its loop's stalls (``Stalls``), its RSS. Each
    answer is a JSON line on stdout, for the world process to read."""

    def __init__(self) -> None:
        self.stalls = Stalls()
        self.cpu0 = 0.0

    @staticmethod
    def say(**fields: Any) -> None:
        sys.stdout.write(json.dumps(fields) + "\n")
        sys.stdout.flush()

    async def post_init(self, app: Any) -> None:
        import signal

        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGUSR1, self.start)
        loop.add_signal_handler(signal.SIGUSR2, self.stop)
        self.say(ready=True, rss=rss(), loop=type(loop).__module__.split(".")[0])

    def start(self) -> None:
        self.stalls.start()
        self.cpu0 = time.process_time()

    def stop(self) -> None:
        cpu = time.process_time() - self.cpu0
        stalled = self.stalls.stop()
        self.say(cpu=cpu, rss=rss(), full=self.stalls.full, **stalled)


def bot_process(config: dict[str, Any]) -> int:
    """The bot's own process (``--bot-process``): ``bot.hosting.run`` as ``python -m bot``
    runs it (its event loop, ``tune_gc``, long polling or PTB's webhook server), on
    ``build_application`` with production's request class pointed at the world process's
    fake Telegram, plus a :class:`BotProbe`."""
    sys.path.insert(0, config["checkout"])
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if config["loop"] == "uvloop":  # (a checkout before bot.infra.eventloop makes asyncio's loop)
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    from bot import hosting
    from bot.app import build_application
    from bot.infra.config import Settings

    fields: dict[str, Any] = {
        "bot_token": config["token"],
        "database_path": Path(config["db"]),
        "telegram_base_url": config["base_url"],
        "event_loop": config["loop"],
    }
    if config["mode"] == "webhook":
        fields |= {
            "webhook_url": f"http://127.0.0.1:{config['webhook_port']}{WEBHOOK_PATH}",
            "webhook_secret": WEBHOOK_SECRET,
            "webhook_listen": "127.0.0.1",
            "webhook_port": config["webhook_port"],
        }
    fields |= trust_settings(config["ca_file"])
    settings = Settings(_env_file=None, **fields, **config["overrides"])  # type: ignore[call-arg]
    finish = None
    if config.get("hook"):  # another bench's timing inside the bot (bench/press_sections.py)
        spec = importlib.util.spec_from_file_location("capacity_hook", config["hook"]["file"])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        finish = module.in_bot(**config["hook"]["args"])
    params = inspect.signature(build_application).parameters
    kwargs = {k: v for k, v in production_requests(config["ca_file"]).items() if k in params}
    if "seed_source" in params:
        kwargs["seed_source"] = itertools.count(20240601).__next__
    app = build_application(settings, **kwargs)
    request = check_production_request(app, settings)
    probe = BotProbe()
    probe.say(request=request)
    app.post_init = probe.post_init
    code = hosting.run(app, settings)
    if finish is not None:
        finish()
    return code


class InProcessBot:
    """The bot in the world's process (``--transport inprocess``, the comparison): the
    fake's ``FakeRequest``, one event loop for all; the bot's CPU is the process's less
    what the meter saw spent in the fake and the people."""

    def __init__(self, world: Any, db: Path, overrides: dict[str, str], meter: Meter) -> None:
        self.world, self.db, self.overrides, self.meter = world, db, overrides, meter
        self.app: Any = None
        self.request = "FakeRequest"
        self.loop_name = ""
        self._running: Any = None

    async def __aenter__(self) -> InProcessBot:
        from bot.app import ALLOWED_UPDATES

        self.app = build(self.world, self.db, self.overrides)
        self._running = self.world.running(self.app, allowed_updates=ALLOWED_UPDATES)
        await self._running.__aenter__()
        tune = getattr(sys.modules["bot.app"], "tune_gc", None)
        if tune is not None:  # what ``python -m bot`` does before it runs
            tune()
        gc.collect()
        self.rss0 = rss()
        self.loop_name = type(asyncio.get_running_loop()).__module__.split(".")[0]
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._running.__aexit__(*exc)

    def window_start(self) -> None:
        self.stalls = Stalls(self.world.clock.now)
        self.stalls.start()
        self.cpu0, self.fake0 = time.process_time(), self.meter.seconds

    async def window_end(self) -> dict[str, Any]:
        cpu, fake = time.process_time() - self.cpu0, self.meter.seconds - self.fake0
        stalled = self.stalls.stop()
        gc.collect()
        return {"cpu": cpu - fake, "cpu_all": cpu, "full": self.stalls.full, "rss": rss()} | (
            stalled
        )


class BotProcess:
    """The bot in a process of its own (``--transport tls|http``): started with
    :func:`bot_process`'s configuration, talking to the world's fake Telegram over loopback
    HTTP or TLS, by long polling or its webhook (``mode``); what it measures of itself
    read from its stdout (:class:`BotProbe`). Its log goes to a file beside its
    database, shown when it fails (and copied to ``$CAPACITY_BOT_LOG`` if set)."""

    def __init__(self, world: Any, base_url: str, config: dict[str, Any], tmp: Path) -> None:
        self.world, self.tmp = world, tmp
        self.config = {"base_url": base_url, "token": world.token, **config}
        self.request = ""
        self.loop_name = ""
        self.proc: Any = None
        self.poster: Any = None  # webhook mode: the fake's WebhookPoster

    async def __aenter__(self) -> BotProcess:
        if self.config["mode"] == "webhook":
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            self.config["webhook_port"] = sock.getsockname()[1]
            sock.close()
        self.log = open(self.tmp / "bot.log", "wb")  # noqa: SIM115 (closed in __aexit__)
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            str(Path(__file__).resolve()),
            "--bot-process",
            json.dumps(self.config),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self.log,
        )
        self.request = (await self.read())["request"]
        ready = await self.read()
        self.rss0, self.loop_name = ready["rss"], ready["loop"]
        return self

    async def read(self) -> dict[str, Any]:
        line = await self.proc.stdout.readline()
        if not line:
            await self.proc.wait()
            log = (self.tmp / "bot.log").read_text(errors="replace")[-4000:]
            raise RuntimeError(f"the bot's process ended ({self.proc.returncode}):\n{log}")
        return dict(json.loads(line))

    async def __aexit__(self, *exc: object) -> None:
        if self.proc.returncode is None:
            self.proc.terminate()  # SIGTERM: python-telegram-bot stops cleanly
            try:
                await asyncio.wait_for(self.proc.wait(), 20)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        self.log.close()
        if os.environ.get("CAPACITY_BOT_LOG"):  # kept for a look: the bot's warnings
            Path(os.environ["CAPACITY_BOT_LOG"]).write_bytes((self.tmp / "bot.log").read_bytes())

    def window_start(self) -> None:
        import signal

        self.proc.send_signal(signal.SIGUSR1)
        self.world_cpu0 = time.process_time()

    async def window_end(self) -> dict[str, Any]:
        import signal

        world_cpu = time.process_time() - self.world_cpu0
        self.proc.send_signal(signal.SIGUSR2)
        out = await self.read()
        # its full collections on the presses' clock (the fake's ticks with CLOCK_MONOTONIC,
        # which every process shares)
        shift = self.world.clock.now() - time.monotonic()
        out["full"] = [(a + shift, b + shift) for a, b in out["full"]]
        out["cpu_all"] = out["cpu"] + world_cpu
        return out


@asynccontextmanager
async def hosted(
    world: Any,
    tmp: Path,
    overrides: dict[str, str],
    meter: Meter,
    transport: str,
    mode: str,
    loop: str,
    checkout: Path,
    hook: dict[str, Any] | None = None,
) -> AsyncIterator[InProcessBot | BotProcess]:
    """The bot as ``transport`` hosts it, running against ``world`` for the block."""
    db = tmp / "capacity.sqlite3"
    if transport == "inprocess":
        if mode != "polling":
            raise SystemExit("--transport inprocess polls: --mode webhook needs tls or http")
        async with InProcessBot(world, db, overrides, meter) as host:
            yield host
        return
    from bot.fake_telegram import HttpServer

    server_ssl, ca_file = None, None
    if transport == "tls":
        import ssl

        cert, key = make_certificate(tmp)
        server_ssl = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        server_ssl.load_cert_chain(cert, key)
        ca_file = str(cert)
    server = HttpServer(world.core)
    await server.start(ssl_context=server_ssl)
    poster_task = None
    if mode == "webhook":  # Telegram posts the updates to the bot's own server
        from bot.fake_telegram.webhook import WebhookPoster

        poster = WebhookPoster(world.core)
        poster_task = asyncio.create_task(poster.run())
    config = {
        "checkout": str(checkout),
        "db": str(db),
        "ca_file": ca_file,
        "mode": mode,
        "loop": loop,
        "overrides": overrides,
        "hook": hook,
    }
    try:
        async with BotProcess(world, server.base_url, config, tmp) as host:
            host.poster = poster if mode == "webhook" else None
            yield host
    finally:
        world.core.close()  # long polls and the poster end
        if poster_task is not None:
            await asyncio.gather(poster_task, return_exceptions=True)
        await server.stop()


async def measure(
    games: int,
    seconds: float,
    warmup: float,
    think: float,
    seed: int,
    overrides: dict[str, str],
    playing: float = PLAYING_FRACTION,
    min_plays: int = 0,
    players: str = "dm",
    transport: str = "tls",
    mode: str = "polling",
    loop: str = "uvloop",
    checkout: Path = REPO,
    hook: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One size: the figures as a dict. The simulated people and the fake Telegram run in
    this process; the bot in its own (``transport`` tls or http: production's request
    class over loopback TLS or HTTP, ``mode`` polling or webhook, on the event loop
    ``loop``, from ``checkout``) or in this one (``inprocess``: the fake's FakeRequest;
    this process's loop). The window lasts ``seconds``, and longer if it holds fewer
    than ``min_plays`` accepted plays by then. ``players``: ``dm`` (they tap DM
    keyboards) or ``app`` (Mini App players; in-process only). ``hook``: ``{"file":
    path, "args": {...}}``, a module whose ``in_bot(**args)`` runs in the bot's process
    before the bot is built and returns what to call once it stopped."""
    if players == "app":
        if transport != "inprocess":
            raise SystemExit("--players app runs with --transport inprocess only")
        overrides = {"webapp_url": "https://capacity.invalid/app/", **overrides}

    world_cls = fake_telegram()
    stale = stale_text()
    meter = Meter()  # the fake's request handling and the simulated people
    async with world_cls(http=False) as world:
        with tempfile.TemporaryDirectory() as tmpdir:
            tmp = Path(tmpdir)
            async with hosted(
                world, tmp, overrides, meter, transport, mode, loop, checkout, hook
            ) as host:
                bench = Bench(world, think)
                if players == "app":
                    assert isinstance(host, InProcessBot)
                    web = await serve_webapp(host.app)
                    bench = web.bench(world, think, meter)
                tables = []
                for i in range(games):
                    people = [world.user(f"P{i}.{s}", started=True) for s in range(4)]
                    group = world.group(f"Table {i}", members=people[1:], admins=people[:1])
                    rng = random.Random(seed * 1_000_003 + i)
                    tables.append(Table(i, group, [Person(p) for p in people], rng))
                counted: dict[str, int] = {}
                wire_wakeups(world, tables, meter, counted)
                t_setup = time.monotonic()
                await asyncio.gather(*(meter.run(bench.seat(t)) for t in tables))
                setup_s = time.monotonic() - t_setup
                tasks = [asyncio.create_task(meter.run(bench.play(t))) for t in tables]
                # the window opens --warmup s after most tables play cards
                t_start = time.monotonic()

                def tables_playing() -> int:
                    return sum(
                        any(k == "P" and accepted(k, r, stale) for k, r in t.presses)
                        for t in tables
                    )

                while tables_playing() < playing * games:
                    if time.monotonic() - t_start > PLAYING_TIMEOUT:
                        break
                    if any(task.done() for task in tasks):
                        break
                    await asyncio.sleep(0.5)
                to_play_s = time.monotonic() - t_start
                await asyncio.sleep(warmup)
                calls0, clock0, real0 = dict(counted), world.clock.now(), time.monotonic()
                host.window_start()
                # this process's own stalls: a late world delays presses and answers too
                world_stalls = Stalls(world.clock.now)
                world_stalls.start()
                load0 = os.getloadavg()[0]
                await asyncio.sleep(seconds)

                def plays_since(start: float) -> int:
                    return sum(
                        1
                        for t in tables
                        for k, r in t.presses
                        if k == "P" and r.created_at >= start and accepted(k, r, stale)
                    )

                # a slow machine: the window goes on until it holds min_plays plays
                limit = time.monotonic() + MIN_PLAYS_TIMEOUT
                while plays_since(clock0) < min_plays and time.monotonic() < limit:
                    await asyncio.sleep(0.1)
                bot = await host.window_end()
                world_stalled = world_stalls.stop()
                load1 = os.getloadavg()[0]
                calls1, clock1 = dict(counted), world.clock.now()
                seconds = time.monotonic() - real0
                window = [
                    (kind, rec)
                    for t in tables
                    for kind, rec in t.presses
                    if clock0 <= rec.created_at < clock1
                ]
                deadline = time.monotonic() + ANSWER_GRACE
                while time.monotonic() < deadline and not all(r.answered for _, r in window):
                    await asyncio.sleep(0.1)
                crashed = [t.exception() for t in tasks if t.done() and not t.cancelled()]
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                reopened = None
                if players == "app":
                    reopened = bench.reopened  # type: ignore[attr-defined]
                    await web.close()
                calls = {
                    m: n - calls0.get(m, 0)
                    for m, n in calls1.items()
                    if m != "getUpdates" and n > calls0.get(m, 0)
                }
                refused = {m: calls.pop(m) for m in list(calls) if m.startswith("refused ")}
    if crashed and crashed[0] is not None:
        raise crashed[0]
    latencies = sorted(
        ((r.answered_at - r.created_at) if r.answered else ANSWER_GRACE) * 1000 for _, r in window
    )
    kinds: dict[str, int] = {}
    for kind, _ in window:
        kinds[kind] = kinds.get(kind, 0) + 1
    plays = sum(1 for kind, r in window if kind == "P" and accepted(kind, r, stale))
    presses = len(window)
    cpu, cpu_all = bot["cpu"], bot["cpu_all"]

    def pct(q: float, values: list[float] = latencies) -> float | None:
        return values[min(len(values) - 1, int(q * len(values)))] if values else None

    def ms(r: Any) -> float:
        return ((r.answered_at - r.created_at) if r.answered else ANSWER_GRACE) * 1000

    def in_gc(r: Any) -> bool:
        end = r.answered_at if r.answered else float("inf")
        return any(r.created_at < b and end > a for a, b in bot["full"])

    clear = sorted(
        ((r.answered_at - r.created_at) if r.answered else ANSWER_GRACE) * 1000
        for _, r in window
        if not in_gc(r)
    )
    stalled = {k: bot[k] for k in ("gc_full", "gc_full_max_ms")} | {
        "loop_late_p99_ms": bot["loop_late_p99_ms"],
        "loop_late_max_ms": bot["loop_late_max_ms"],
    }

    return {
        "games": games,
        "players": players,
        "transport": transport,
        "mode": mode,
        # the bot's event loop and request class, as its process reported them
        "loop": host.loop_name,
        "request": host.request,
        "streams_reopened": reopened,
        "window_s": seconds,
        "setup_s": setup_s,
        "to_play_s": to_play_s,
        "presses": presses,
        "by_kind": kinds,
        "unanswered": sum(1 for _, r in window if not r.answered),
        # (the rest were answered after the window: their answers are not in "calls")
        "answered_in_window": sum(1 for _, r in window if r.answered and r.answered_at < clock1),
        "plays": plays,
        "p50_ms": pct(0.5),
        "p99_ms": pct(0.99),
        # the presses during which no full garbage collection of the bot ran
        "p99_no_gc_ms": pct(0.99, clear),
        # by kind: a card play waits for the disk (its save is committed first), a Hint not
        "p99_play_ms": pct(0.99, sorted(ms(r) for k, r in window if k == "P")),
        "p99_hint_ms": pct(0.99, sorted(ms(r) for k, r in window if k == "H")),
        "in_gc": len(window) - len(clear),
        # all: the bot's and the fake's and the people's (both processes, or the one)
        "cpu_ms_per_press": cpu_all * 1000 / presses if presses else None,
        "bot_cpu_ms_per_press": cpu * 1000 / presses if presses else None,
        "cpu_share": cpu_all / seconds,
        "bot_cpu_share": cpu / seconds,
        "calls": calls,
        # the fake's refusals of the window's calls: flood control's 429s, the rest
        "refused_429": refused.get("refused 429", 0),
        "refused_same": refused.get("refused not modified", 0),
        "refused_other": sum(
            n for m, n in refused.items() if m not in ("refused 429", "refused not modified")
        ),
        "calls_per_play": {m: n / plays for m, n in calls.items()} if plays else {},
        # the bot's RSS growth from before the groups were made (in-process: the fake's
        # stored messages too)
        "mem_kb_per_game": (bot["rss"] - host.rss0) / 1024 / games,
        # the machine's 1-minute load average at the start and the end of the window
        "load": (load0, load1),
        **stalled,
        "gc_ms_per_s": bot["gc_ms_per_s"] / seconds,
        "world_loop_late_p99_ms": world_stalled["loop_late_p99_ms"],
        # getUpdates calls in the window (none in webhook mode)
        "polls": calls1.get("getUpdates", 0) - calls0.get("getUpdates", 0),
        # webhook mode: the updates the fake posted to the bot's webhook (answered 2xx)
        "webhook_posted": getattr(getattr(host, "poster", None), "posted", None),
    }


# --------------------------------------------------------------------- orchestration
@dataclass(frozen=True)
class Column:
    """One way of running the bot: its checkout, transport, mode, loop, players."""

    name: str
    root: Path
    transport: str
    mode: str
    loop: str
    players: str


def run_worker(args: argparse.Namespace, games: int, col: Column) -> dict[str, Any]:
    """One size in a fresh world process (and, over tls or http, a fresh bot process)."""
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        "--games",
        str(games),
        "--seconds",
        str(args.seconds),
        "--warmup",
        str(args.warmup),
        "--think",
        str(args.think),
        "--playing",
        str(args.playing),
        "--seed",
        str(args.seed),
        "--players",
        col.players,
        "--transport",
        col.transport,
        "--mode",
        col.mode,
        "--loop",
        col.loop,
        "--bot-checkout",
        str(col.root),
        *(x for kv in args.set for x in ("--set", kv)),
    ]
    # in-process, the world is the checkout's own fake; else this checkout's fake serves
    # the checkout's bot in its process
    world = col.root if col.transport == "inprocess" else REPO
    env = {**os.environ, "PYTHONPATH": str(world), "CAPACITY_CHECKOUT": str(world)}
    out = subprocess.run(cmd, env=env, cwd=world, capture_output=True, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr[-4000:])
        raise SystemExit(f"the measurement {col.name} in {col.root} failed ({out.returncode})")
    return json.loads(out.stdout.strip().splitlines()[-1])


def median_of(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def figures(runs: list[dict[str, Any]]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for key, label in (
        ("presses", "presses in window"),
        ("plays", "accepted plays"),
        ("unanswered", "unanswered presses"),
        ("p50_ms", "press→answer p50 ms"),
        ("p99_ms", "press→answer p99 ms"),
        ("p99_play_ms", "p99 ms of Play/Bury presses"),
        ("p99_hint_ms", "p99 ms of Hint presses"),
        ("in_gc", "presses a full GC held"),
        ("p99_no_gc_ms", "p99 ms of the other presses"),
        ("bot_cpu_ms_per_press", "CPU ms per press: bot"),
        ("cpu_ms_per_press", "CPU ms per press: all"),
        ("bot_cpu_share", "CPU s per s: bot"),
        ("cpu_share", "CPU s per s: all"),
        ("loop_late_p99_ms", "loop timer late p99 ms"),
        ("loop_late_max_ms", "loop timer late max ms"),
        ("world_loop_late_p99_ms", "world's loop late p99 ms"),
        ("gc_ms_per_s", "GC pause ms per s"),
        ("gc_full", "full GCs in window"),
        ("gc_full_max_ms", "longest full GC ms"),
        ("refused_429", "calls refused 429 (flood)"),
        ("refused_same", "edits refused: not modified"),
        ("refused_other", "calls refused otherwise"),
        ("mem_kb_per_game", "memory KiB per game"),
        ("streams_reopened", "app streams reopened"),
        ("setup_s", "seating s (not measured)"),
        ("to_play_s", "starts→playing s (--playing)"),
    ):
        out[label] = median_of(runs, key)
    loads = [r["load"] for r in runs if "load" in r]
    if loads:
        out["load average, window start"] = statistics.median(a for a, _ in loads)
        out["load average, window end"] = statistics.median(b for _, b in loads)
    for kind, name in KIND_NAMES.items():
        vals = [r.get("by_kind", {}).get(kind, 0) for r in runs]
        out[f"  presses: {name}"] = statistics.median(vals)
    methods = sorted({m for r in runs for m in r["calls_per_play"]})
    writes = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "deleteMessage")
    rates = [sum(r["calls"].get(m, 0) for m in writes) / r["window_s"] for r in runs]
    out["Telegram writes per s"] = statistics.median(rates)
    totals = [sum(r["calls_per_play"].values()) for r in runs if r["calls_per_play"]]
    out["calls per play: all"] = statistics.median(totals) if totals else None
    w = [sum(v for m, v in r["calls_per_play"].items() if m in writes) for r in runs]
    out["calls per play: writes"] = statistics.median(w) if any(r["plays"] for r in runs) else None
    for m in methods:
        vals = [r["calls_per_play"].get(m, 0.0) for r in runs if r["calls_per_play"]]
        out[f"  {m}"] = statistics.median(vals) if vals else None
    return out


def fmt(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.2f}"


def table(games: int, columns: dict[str, dict[str, float | None]]) -> str:
    names = list(columns)
    rows = list(dict.fromkeys(k for c in columns.values() for k in c))
    width = max(10, *(len(n) + 2 for n in names))
    lines = [f"G={games}", f"{'figure':<30}" + "".join(f"{n:>{width}}" for n in names)]
    if len(names) == 2:
        lines[-1] += f"{'ratio':>8}"
    for row in rows:
        cells = [columns[n].get(row) for n in names]
        line = f"{row:<30}" + "".join(f"{fmt(c):>{width}}" for c in cells)
        if len(names) == 2:
            old, new = cells
            line += f"{new / old:>8.2f}" if old and new is not None else f"{'-':>8}"
        lines.append(line)
    return "\n".join(lines)


def columns_of(args: argparse.Namespace, baseline: Path | None) -> list[Column]:
    """Every combination asked for (``--transport``, ``--mode``, ``--loop``,
    ``--players``, and old/new with ``--baseline``), each named by what sets it apart."""
    roots = ([("old", baseline)] if baseline is not None else []) + [("new", REPO)]
    combos = [
        (name, root, transport, mode, loop, players)
        for name, root in roots
        for transport in args.transport
        for mode in (args.mode if transport != "inprocess" else ["polling"])
        for loop in args.loop
        for players in args.players
    ]
    varies = [len({c[i] for c in combos}) > 1 for i in range(6)]
    varies[0] = varies[0] or False
    columns = []
    for name, root, transport, mode, loop, players in combos:
        parts = [name, None, transport, mode, loop, players]
        label = "/".join(str(p) for p, v in zip(parts, varies, strict=True) if v and p) or "new"
        columns.append(Column(label, root, transport, mode, loop, players))
    return columns


def orchestrate(args: argparse.Namespace) -> None:
    tmp = None
    baseline = None
    if args.baseline.lower() != "none":
        tmp = Path(tempfile.mkdtemp(prefix="capacity-"))
        baseline = tmp / "old"
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(baseline)]
            + [args.baseline],
            check=True,
        )
    columns = columns_of(args, baseline)
    try:
        for games in args.games:
            runs: dict[str, list[dict[str, Any]]] = {c.name: [] for c in columns}
            for i in range(args.repeat):  # the columns alternate, run after run
                for col in columns:
                    r = run_worker(args, games, col)
                    runs[col.name].append(r)
                    print(
                        f"G={games} {col.name} #{i + 1} ({r['transport']}, {r['mode']},"
                        f" {r['loop']}, {r['request']}): {r['presses']} presses,"
                        f" {r['plays']} plays, p50 {fmt(r['p50_ms'])} p99 {fmt(r['p99_ms'])} ms,"
                        f" bot CPU ms/press {fmt(r['bot_cpu_ms_per_press'])},"
                        f" loop late p99 {fmt(r['loop_late_p99_ms'])} ms,"
                        f" load {r['load'][0]:.1f}-{r['load'][1]:.1f}",
                        file=sys.stderr,
                        flush=True,
                    )
            print(table(games, {name: figures(rs) for name, rs in runs.items()}), flush=True)
            for col in columns:
                r = runs[col.name][0]
                print(
                    f"  {col.name}: transport {r['transport']}, {r['mode']}, bot's loop"
                    f" {r['loop']}, request {r['request']}",
                    flush=True,
                )
            print(flush=True)
    finally:
        if tmp is not None:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "remove", "--force", str(tmp / "old")],
                check=False,
            )


def choices(allowed: tuple[str, ...]) -> Any:
    def parse_list(s: str) -> list[str]:
        values = s.split(",")
        for v in values:
            if v not in allowed:
                raise argparse.ArgumentTypeError(f"{v!r}: one of {', '.join(allowed)}")
        return values

    return parse_list


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument(
        "--games", type=lambda s: [int(x) for x in s.split(",")], default=[16, 256, 1000]
    )
    ap.add_argument("--seconds", type=float, default=60.0, help="measured window per size")
    ap.add_argument("--warmup", type=float, default=30.0, help="seconds after the starts")
    ap.add_argument("--think", type=float, default=3.0, help="mean think time, seconds")
    ap.add_argument(
        "--playing",
        type=float,
        default=PLAYING_FRACTION,
        help="the warm-up starts once this share of the tables played a card",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1, help="runs per cell (median)")
    ap.add_argument("--baseline", default="none", help="git ref of the old code, or none")
    ap.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a Settings override"
    )
    ap.add_argument(
        "--players",
        type=choices(("dm", "app")),
        default=["dm"],
        help="dm (tapping DM keyboards), app (Mini App players; --transport inprocess), "
        "or dm,app side by side",
    )
    ap.add_argument(
        "--transport",
        type=choices(TRANSPORTS),
        default=["tls"],
        help="tls (default: the bot in its own process, production's request class over "
        "loopback TLS), http (the same without TLS), inprocess (the comparison: the fake's "
        "FakeRequest in one process); a list side by side",
    )
    ap.add_argument(
        "--mode",
        type=choices(MODES),
        default=["polling"],
        help="polling (getUpdates) or webhook (PTB's webhook server, the fake posting "
        "the updates as Telegram does); tls and http only; a list side by side",
    )
    ap.add_argument(
        "--loop",
        type=choices(LOOPS),
        default=["asyncio"],
        help="the bot's event loop: asyncio (production's default) or uvloop; a list side by side",
    )
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--bot-checkout", default=str(REPO), help=argparse.SUPPRESS)
    ap.add_argument("--bot-process", help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def overrides_of(args: argparse.Namespace) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in args.set)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    if args.bot_process:
        sys.exit(bot_process(json.loads(args.bot_process)))
    if args.worker:
        sys.path.insert(0, os.environ.get("CAPACITY_CHECKOUT", str(REPO)))
        (games,) = args.games
        (transport,), (mode,), (loop,) = args.transport, args.mode, args.loop
        # in-process the bot runs on this process's loop; else the world runs on uvloop
        world_loop = loop if transport == "inprocess" else "uvloop"
        with asyncio.Runner(loop_factory=loop_factory(world_loop)) as runner:
            result = runner.run(
                measure(
                    games,
                    args.seconds,
                    args.warmup,
                    args.think,
                    args.seed,
                    overrides_of(args),
                    playing=args.playing,
                    players=args.players[0],
                    transport=transport,
                    mode=mode,
                    loop=loop,
                    checkout=Path(args.bot_checkout),
                )
            )
        print(json.dumps(result))
        return
    orchestrate(args)


if __name__ == "__main__":
    main()
