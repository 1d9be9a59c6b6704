"""Which of the project's files one change crosses: three walks, measured, old and new.

    .venv/bin/python bench/walks.py [--seed 20240601] [--ref bc428f3] [--json]

A newcomer changing the bot follows one input from the edge to Telegram and back. This
measures three such walks in a running game, in-process, through the real Application
against the fake Telegram (``tests/e2e/harness.py``: ``running_bot``, ``seat_players``,
``fire_timer``, ``hand_message``) and the real Mini App server
(``tests/webapp/client.py``: a signed session). One person (Ann, seat 0) and three
computers (the lobby's add-a-computer button, the group's default strength) play a game
dealt from a fixed seed; the computers' delay is long, so that a computer moves only
when the bench fires its timer. Once the cards are in play:

(a) a tapped card: on Ann's turn she taps the first card button (callback kind ``T``) of
    her DM's hand message; measured until the press is answered and the output settled
    (``SimUser.press(settle=True)``). She then plays the hinted cards (not measured).
(c) a computer move (measured next): the next computer's turn timer goes off
    (``fire_timer(..., "robot")``); its move is decided, applied and published, and the
    output settles.
(b) a Mini App action: on Ann's next turn she has her Mini App open (its event stream
    followed, as the page does: her DM then waits) and asks it for a hint (not
    measured), then plays the hinted cards by ``POST /api/act``; measured until the
    answer came back, her open app received the new view and the output settled.

Before the walks her Mini App read ``/api/view`` once, so the live-table hub exists in
both codes (at bc428f3 it was made on first use).

During each step ``sys.setprofile`` and ``threading.setprofile`` (and the store's
aiosqlite thread, which exists before the step, is given the same profile) record every
function call; a file counts if a function of it ran and it is under ``bot/`` or
``engine/`` of the checkout that was imported, except ``bot/fake_telegram/``. Not
counted: a module's top-level code (an import on first use is not part of a walk), and
whatever the harness's idleness probe (``bot_busy``: outbox, locks, timers) reads while
the fake Telegram settles. Setup before a step is not recorded. Printed per walk: the
number of distinct files and their list in first-seen order.

``--ref REF`` checks REF out into a temporary ``git worktree add --detach`` (as
``bench/capacity.py --baseline`` does), runs this same script there as a subprocess with
``PYTHONPATH`` at that checkout (its own ``bot`` package and its own test harness), runs
it on this checkout the same way, and prints both lists and old | new | ratio per walk.
The script only touches what both codes have: the harness, the Mini App test client,
the lobby's buttons by their kind letter, and the Mini App hub either as
``app.bot_data.hub`` (now) or ``bot.edges.miniapp.server.hub(app)`` (bc428f3).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import aiohttp

REPO = Path(__file__).resolve().parent.parent
WALKS = ("tapped card", "Mini App action", "computer move")
COMPUTER_DELAY = 600.0  # a computer moves only when the bench fires its timer
COUNTED = ("bot", "engine")
NOT_COUNTED = ("bot/fake_telegram/",)
# where the save is, in the folders by layer and before them
STORE_FILES = ("bot/data/store.py", "bot/store.py")
# WALKS_TRACE=1: every hop into a file before the save, on stderr (calls, not returns)
TRACE = bool(os.environ.get("WALKS_TRACE"))


class Recorder:
    """A profile function: the project files whose functions ran, in first-seen order,
    and the walk's hops: a call from a function of one project file into a function of
    another (the nearest project frame up the stack is the caller; a coroutine resumed by
    the event loop has none, and is no hop), and the return from it back into the
    caller's file. ``hops`` (calls and returns) and ``entries`` (per file, how many calls
    came into it from another file) count until the first save (``Store.save_game``) and
    stop there; ``hops_all`` counts the whole step."""

    def __init__(self, root: Path, suspend: set[CodeType]) -> None:
        self.root = str(root) + os.sep
        self.suspend = suspend  # inside these (the harness's probes) nothing counts
        self.files: dict[str, None] = {}
        self.hops = 0
        self.hops_all = 0
        self.entries: dict[str, int] = {}
        self.saved = False
        self._rel: dict[str, str | None] = {}
        self._suspended = 0

    def relative(self, filename: str) -> str | None:
        rel = self._rel.get(filename, "")
        if rel != "":
            return rel
        rel = None
        if filename.startswith(self.root):
            path = filename[len(self.root) :].replace(os.sep, "/")
            if path.split("/", 1)[0] in COUNTED and not path.startswith(NOT_COUNTED):
                rel = path
        self._rel[filename] = rel
        return rel

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            if code in self.suspend:
                self._suspended += 1
            elif not self._suspended and code.co_name != "<module>":
                rel = self.relative(code.co_filename)
                if rel is not None:
                    if rel not in self.files:
                        self.files[rel] = None
                    self._hop(frame, rel)
        elif event == "return":
            code = frame.f_code
            if code in self.suspend:
                self._suspended -= 1
            elif not self._suspended and code.co_name != "<module>":
                rel = self.relative(code.co_filename)
                if rel is not None:
                    self._back(frame, rel)

    def _caller(self, frame: FrameType) -> str | None:
        """The file of the nearest project frame up the stack (None: the loop's, or
        outside the project)."""
        caller, depth = frame.f_back, 0
        while caller is not None and depth < 64:
            rel = self.relative(caller.f_code.co_filename)
            if rel is not None:
                return rel
            caller, depth = caller.f_back, depth + 1
        return None

    def _back(self, frame: FrameType, rel: str) -> None:
        """A return into another project file is a hop too (back), but no entry."""
        back = self._caller(frame)
        if back is None or back == rel:
            return
        self.hops_all += 1
        if not self.saved:
            self.hops += 1

    def _hop(self, frame: FrameType, rel: str) -> None:
        from_rel = self._caller(frame)
        if from_rel is None or from_rel == rel:
            return  # resumed by the loop, called from outside, or within one file
        self.hops_all += 1
        if self.saved:
            return
        if rel in STORE_FILES and frame.f_code.co_name == "save_game":
            self.saved = True
            return
        if TRACE:
            print(
                f"  hop {self.hops + 1}: {from_rel} -> {rel}:{frame.f_code.co_name}",
                file=sys.stderr,
            )
        self.hops += 1
        self.entries[rel] = self.entries.get(rel, 0) + 1

    def reentries(self, engine: bool = True) -> int:
        """Hops into a file already entered before the save (``engine``: the engine's
        files too; its own functions calling each other across modules are its inside)."""
        return sum(
            n - 1
            for f, n in self.entries.items()
            if n > 1 and (engine or not f.startswith("engine/"))
        )


@asynccontextmanager
async def recording(recorder: Recorder, db: Any) -> AsyncIterator[Recorder]:
    """Profile this thread, new threads and the store's aiosqlite thread (``db``: its
    connection, whose thread runs what ``_execute`` queues) while the block runs."""
    await db._execute(sys.setprofile, recorder)
    threading.setprofile(recorder)
    sys.setprofile(recorder)
    try:
        yield recorder
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
        await db._execute(sys.setprofile, None)


def _hub(app: Any) -> Any:
    """The Mini App's live-table hub: made with the app now, on first use at bc428f3."""
    hub = getattr(app.bot_data, "hub", None)
    if hub is not None:
        return hub
    from bot.webapp import server  # type: ignore[import-not-found]  # bc428f3: on first use

    return server.hub(app)  # type: ignore[attr-defined]


Walk = dict[str, Any]  # files, hops, reentries, reentries_outside_engine, entries, hops_all


async def measure(seed: int | None = None) -> dict[str, Walk]:
    """The three walks on the checkout whose ``bot`` package is imported: walk -> its
    files (first-seen order), hops and re-entries before the save (see :class:`Recorder`)."""
    import bot
    from bot.fake_telegram import FakeTelegram
    from tests.e2e import harness as h
    from tests.webapp.client import session, webapp

    root = Path(bot.__file__).resolve().parent.parent
    suspend = {h.bot_busy.__code__, h.db_calls.__code__}
    seed = h.DEFAULT_SEED if seed is None else seed
    walks: dict[str, Walk] = {}
    with tempfile.TemporaryDirectory(prefix="walks-") as tmp:
        async with FakeTelegram() as world:
            ann = world.user("Ann")
            group = world.group("Table", admins=[ann])
            async with (
                h.running_bot(
                    world, Path(tmp) / "db", seed=seed, computer_delay_seconds=COMPUTER_DELAY
                ) as app,
                webapp(app) as client,
            ):
                svc = h.service(app)
                game_id, _ = await h.seat_players(world, group, [ann])
                for kind in ("C", "C", "C", "S"):  # three computers, then Start
                    lobby = world.last_message(group, from_bot=True)
                    button = h.find(lobby, kind)
                    assert button is not None, f"no {kind} button in {lobby.keyboard()}"
                    await ann.press(lobby, data=button.data)
                    await world.settle()
                _hub(app)
                app_of_ann = session(client, app, ann)
                await app_of_ann.view(game_id)  # her Mini App is open before the walks

                async def walk(name: str, step: Callable[[], Any]) -> None:
                    recorder = Recorder(root, suspend)
                    async with recording(recorder, svc.store.db):
                        await step()
                    walks[name] = {
                        "files": list(recorder.files),
                        "hops": recorder.hops,
                        "reentries": recorder.reentries(),
                        "reentries_outside_engine": recorder.reentries(engine=False),
                        "entries": dict(sorted(recorder.entries.items(), key=lambda kv: -kv[1])),
                        "hops_all": recorder.hops_all,
                    }

                await until_ann_plays(world, app, game_id, ann)
                msg = h.hand_message(world, ann, game_id)
                tap = h.find(msg, "T")
                assert tap is not None, msg.keyboard()
                await walk("tapped card", lambda: ann.press(msg, data=tap.data, settle=True))
                await h.press(ann, h.hand_message(world, ann, game_id), "H")
                await h.press(ann, h.hand_message(world, ann, game_id), "P")

                token = h.pending_timer(app, game_id)
                assert token is not None and str(token[2]) == "robot", token
                await walk("computer move", lambda: h.fire_timer(world, app, game_id, "robot"))

                await until_ann_plays(world, app, game_id, ann)
                async with following(client, app_of_ann, game_id) as stream:
                    while not _hub(app).connected(ann.id):
                        await asyncio.sleep(0.001)
                    await stream.next_document()
                    view = await app_of_ann.view(game_id)
                    hinted = (await app_of_ann.act(game_id, "hint", view))["view"]
                    await stream.next_document()
                    await world.settle()

                    async def play() -> None:
                        cards = hinted["me"]["selection"]
                        answer = await app_of_ann.act(game_id, "play", hinted, cards=cards)
                        assert not answer["alert"], answer
                        await stream.next_document()  # her open app shows the change
                        await world.settle()

                    await walk("Mini App action", play)
    return {name: walks[name] for name in WALKS}


class Stream:
    """An open Mini App's event stream (``GET /api/events``), read as the page reads it."""

    def __init__(self, response: Any) -> None:
        self.response = response
        self.documents = 0
        self.seen = 0
        self.arrived = asyncio.Event()

    async def read(self) -> None:
        with suppress(aiohttp.ClientConnectionError):  # closed by the bench
            while line := await self.response.content.readline():
                if line.startswith(b"data: "):
                    self.documents += 1
                    self.arrived.set()

    async def next_document(self, timeout: float = 10.0) -> None:
        """Wait for a document the stream had not brought yet."""
        async with asyncio.timeout(timeout):
            while self.documents <= self.seen:
                self.arrived.clear()
                await self.arrived.wait()
        self.seen = self.documents


@asynccontextmanager
async def following(client: Any, app_session: Any, game_id: int) -> AsyncIterator[Stream]:
    """The person's Mini App open on ``game_id``, following its event stream."""
    params = {"game": str(game_id), "auth": app_session.init_data}
    response = await client.get("/api/events", params=params)
    assert response.status == 200, await response.text()
    stream = Stream(response)
    task = asyncio.create_task(stream.read())
    try:
        yield stream
    finally:
        response.close()
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


async def until_ann_plays(world: Any, app: Any, game_id: int, ann: Any) -> None:
    """Drive the game (not measured) until it is Ann's turn to play a card: she passes
    in the after-deal window and in 炒底, buries the hinted cards; every computer's and
    window's timer is fired at once."""
    from tests.e2e import harness as h

    for _ in range(500):
        await world.settle()
        hand = (await h.game_of(app, game_id)).match.hand
        if hand.phase == "playing" and hand.turn == 0:
            msg = h.hand_message(world, ann, game_id)
            if h.find(msg, "T") is not None and h.find(msg, "H") is not None:
                return
        elif hand.phase in ("after_deal", "chaodi") and hand.can_pass(0):
            await h.press(ann, h.hand_message(world, ann, game_id), "N")
            continue
        elif hand.phase == "burying" and hand.turn == 0:
            await h.press(ann, h.hand_message(world, ann, game_id), "H")
            await h.press(ann, h.hand_message(world, ann, game_id), "P")
            continue
        token = h.pending_timer(app, game_id)
        if token is not None and str(token[2]) not in ("warn", "timeout"):
            await h.fire_timer(world, app, game_id, str(token[2]))
        else:
            await asyncio.sleep(0.01)
    raise AssertionError("Ann's turn to play did not come")


def run_worker(root: Path, seed: int | None) -> dict[str, Walk]:
    """This script on the checkout at ``root`` (its own bot/ and tests/), in a subprocess."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker"]
    if seed is not None:
        cmd += ["--seed", str(seed)]
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr[-4000:])
        raise SystemExit(f"the measurement in {root} failed ({out.returncode})")
    result: dict[str, Walk] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def listing(title: str, walks: dict[str, Walk]) -> str:
    lines = []
    for name, w in walks.items():
        files = w["files"]
        lines.append(
            f"{title}{name}: {len(files)} files; before the save {w['hops']} hops,"
            f" {w['reentries']} re-entries ({w['reentries_outside_engine']} outside engine/);"
            f" {w['hops_all']} hops in all"
        )
        lines.extend(f"  {i:2}. {f}" for i, f in enumerate(files, 1))
        twice = {f: n for f, n in w["entries"].items() if n > 1}
        if twice:
            lines.append(
                "  entered more than once before the save: "
                + ", ".join(f"{f} {n}" for f, n in twice.items())
            )
    return "\n".join(lines)


FIGURES = (("files", "files"), ("hops", "hops before the save"), ("reentries", "re-entries"))


def comparison(old: dict[str, Walk], new: dict[str, Walk], ref: str) -> str:
    lines = [f"{'walk':<18}{'figure':<22}{'old':>6}{'new':>6}{'ratio':>8}   (old = {ref})"]
    for name in WALKS:
        for key, label in FIGURES:
            a, b = (len(w[name][key]) if key == "files" else w[name][key] for w in (old, new))
            ratio = f"{b / a:8.2f}" if a else f"{'-':>8}"
            lines.append(f"{name:<18}{label:<22}{a:>6}{b:>6}{ratio}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument(
        "--seed", type=int, default=None, help="the game's deal (the harness's default)"
    )
    ap.add_argument("--ref", default=None, help="a git ref to compare with (old | new | ratio)")
    ap.add_argument("--json", action="store_true", help="print the walks as JSON")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(asyncio.run(measure(args.seed))), flush=True)
        return
    if args.ref is None:
        sys.path.insert(0, str(REPO))  # this checkout's bot/ and tests/
        new = asyncio.run(measure(args.seed))
        print(json.dumps(new) if args.json else listing("", new))
        return
    tmp = Path(tempfile.mkdtemp(prefix="walks-"))
    checkout = tmp / "old"
    subprocess.run(
        ["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(checkout), args.ref],
        check=True,
    )
    try:
        old = run_worker(checkout, args.seed)
    finally:
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "remove", "--force", str(checkout)], check=False
        )
        shutil.rmtree(tmp, ignore_errors=True)
    new = run_worker(REPO, args.seed)
    if args.json:
        print(json.dumps({"old": old, "new": new}))
        return
    print(listing(f"old ({args.ref}) ", old))
    print()
    print(listing("new ", new))
    print()
    print(comparison(old, new, args.ref))


if __name__ == "__main__":
    main()
