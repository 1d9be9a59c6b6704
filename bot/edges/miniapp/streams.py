"""Live tables: every open Mini App is told of every change of its game.

The open apps (:class:`Readers`) are told of the one change path (the publisher calls
``changed`` when a change is published, under the game's lock), which wakes each open
app's stream; the stream then gets its view once the change is done (a slow reader
skips states, never falls behind), from the reader's projection (``bot.views.projection``:
built once per change, the one the DM of that seat renders), built once for all the
streams of a seat and language (the game's lock taken once for them, not once a stream,
which would slow the game's next change down). While a person has an app
open their DM may wait (the publisher asks ``connected``); when their last app closes the
game is published again (:class:`Hub`), so the DM catches up at once, and they count as
away until they press again (a turn reaching them notifies). The countdown is the
projection's deadline: the turn's or the after-deal window's, as the table's clocks have
it (the DM shows the same).

An app is open while its event stream is and while its page says it is shown (the page
closes its stream when hidden, e.g. a locked phone, and says ``here`` every
``PING_SECONDS`` while shown). A stream whose connection closed, or whose page was not
heard from for ``PRESENCE_SECONDS`` (a phone that lost its network says nothing), is
ended within ``SWEEP_SECONDS``: the person's DM is then current again in seconds.
A person, and an address, hold a few streams at most (a new one ends their oldest), and
all end at once when the bot stops (issue 28).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from bot.data.saved import RUNNING_STATES
from bot.service.live import Game, Tables
from bot.views.messages import Clock
from bot.views.miniapp import history_view, table_view, tricks_view
from bot.views.projection import Projection, Projections, match_history, project

log = logging.getLogger(__name__)

PING_SECONDS = 4.0  # how often a shown page says it is (static/table.js: PING_MS)
PRESENCE_SECONDS = 10.0  # a page not heard from this long is gone
SWEEP_SECONDS = 1.0  # how often open streams are checked (real time)

SHARE_SECONDS = 1.0  # a document built this recently serves other readers of its seat

K = TypeVar("K")
Shared = tuple[float, "asyncio.Future[str]"]  # a document being built or built, and when


def _never() -> bool:
    return False


@dataclass(eq=False)
class Reader:
    """One open Mini App: who reads which game, in what language, and what it was sent."""

    game: Game  # as last changed
    user_id: int
    seat: int | None
    lang: str
    heard: float  # when its page last said it is shown (the service's clock)
    address: str = ""  # where its connection comes from (``bot.edges.miniapp.net``)
    gone: Callable[[], bool] = _never  # whether its connection closed
    dirty: bool = True  # the game changed since its last document was built
    sent: str | None = None
    ended: bool = False  # its stream is to end (closed, or not heard from)
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def game_id(self) -> int:
        return self.game.table.rec.id

    def touch(self, game: Game) -> None:
        self.game, self.dirty = game, True
        self.wake.set()

    def end(self) -> None:
        self.ended = True
        self.wake.set()

    async def wait(self, timeout: float) -> bool:
        """Until the game changed (True), ``timeout`` seconds passed or the stream is to
        end (False)."""
        if not self.dirty and not self.ended:
            self.wake.clear()
            try:
                await asyncio.wait_for(self.wake.wait(), timeout)
            except TimeoutError:
                return False
        return not self.ended


class Readers:
    """The open apps, by game, by person and by address: what the publisher reads
    (``connected``) and tells (``changed``) of every change. A person holds at most
    ``per_person`` apps open and an address ``per_address``: beyond, their oldest ends.
    The documents built since a game's last change are kept for its readers to share."""

    def __init__(self, per_person: int = 4, per_address: int = 64) -> None:
        self.per_person, self.per_address = per_person, per_address
        self.by_game: dict[int, set[Reader]] = defaultdict(set)  # game -> open apps
        # oldest first (dicts as ordered sets)
        self._by_user: dict[int, dict[Reader, None]] = defaultdict(dict)
        self._by_address: dict[str, dict[Reader, None]] = defaultdict(dict)
        # game -> (seat, language) -> its document since the game's last change (and when)
        self.documents: dict[int, dict[tuple[int | None, str], Shared]] = {}

    def add(self, reader: Reader) -> list[Reader]:
        """Count a new reader in; the readers it puts over a cap (to be ended)."""
        self.by_game[reader.game_id].add(reader)
        mine, here = self._by_user[reader.user_id], self._by_address[reader.address]
        mine[reader] = here[reader] = None
        over = list(mine)[: max(0, len(mine) - self.per_person)]
        over += [r for r in list(here)[: max(0, len(here) - self.per_address)] if r not in over]
        return over

    def remove(self, reader: Reader) -> bool:
        """Forget an ended reader; True if it was its person's last open app."""
        readers = self.by_game.get(reader.game_id)
        if readers is None or reader not in readers:
            return False
        readers.discard(reader)
        if not readers:
            del self.by_game[reader.game_id]
            self.documents.pop(reader.game_id, None)
        _discard(self._by_address, reader.address, reader)
        return _discard(self._by_user, reader.user_id, reader)

    def connected(self, user_id: int) -> bool:
        """Whether this person has the Mini App open now."""
        return user_id in self._by_user

    def open_of(self, user_id: int) -> int:
        return len(self._by_user.get(user_id, ()))

    def changed(self, game: Game) -> None:
        self.documents.pop(game.table.rec.id, None)  # built before this change
        for reader in self.by_game.get(game.table.rec.id, ()):
            reader.touch(game)

    def all(self) -> list[Reader]:
        return [reader for readers in self.by_game.values() for reader in readers]


def _discard(index: dict[K, dict[Reader, None]], key: K, reader: Reader) -> bool:
    """Take ``reader`` out of ``index[key]``; True if that was the key's last."""
    readers = index.get(key)
    if readers is None:
        return False
    readers.pop(reader, None)
    if readers:
        return False
    del index[key]
    return True


class Shown(Protocol):
    """What the hub asks of the publisher (``bot.delivery.publish.Publisher``): the readers'
    projections, and the DMs caught up when a person's last app closes."""

    @property
    def projections(self) -> Projections: ...

    def left_app(self, user_id: int) -> None: ...

    def publish(self, game: Game) -> None: ...


class Hub:
    def __init__(self, readers: Readers, publisher: Shown, tables: Tables, clock: Clock) -> None:
        self.readers, self.publisher, self.tables, self.clock = readers, publisher, tables, clock
        self._tasks: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self.stopping = False

    # ------------------------------------------------------------------ readers
    def open(
        self,
        game: Game,
        user_id: int,
        seat: int | None,
        lang: str,
        gone: Callable[[], bool] = _never,
        address: str = "",
    ) -> Reader:
        """A new event stream of ``user_id`` from ``address``; ``gone``: whether its
        connection closed. The person's, or the address's, oldest beyond their cap ends."""
        reader = Reader(game, user_id, seat, lang, self.clock.now(), address, gone)
        for old in self.readers.add(reader):
            self.close(old)
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep())
        return reader

    def here(self, user_id: int, game_id: int) -> bool:
        """The person's page of ``game_id`` is shown (it says so every PING_SECONDS);
        False if no stream of theirs is open there (the page then opens one)."""
        found = False
        for reader in self.readers.by_game.get(game_id, ()):
            if reader.user_id == user_id and not reader.ended:
                reader.heard = self.clock.now()
                found = True
        return found

    def close(self, reader: Reader) -> None:
        reader.end()
        if self.readers.remove(reader) and not self.stopping:
            # they may not be looking at their DM either: a turn reaching them notifies
            self.publisher.left_app(reader.user_id)
            if reader.game.detached:  # an ended game read from the store: no DM waited
                return
            # their DM waited while the app showed everything: bring it up to date now
            task = asyncio.get_running_loop().create_task(self._catch_up(reader.game_id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def stop(self) -> None:
        """End every stream at once (the bot stops): their DMs are not caught up."""
        self.stopping = True
        for reader in self.readers.all():
            self.close(reader)

    async def _sweep(self) -> None:
        """End the streams whose connection closed or whose page went silent (the
        server learns of a closed connection only when it writes to it otherwise)."""
        while self.readers.by_game:
            await asyncio.sleep(SWEEP_SECONDS)
            now = self.clock.now()
            for readers in list(self.readers.by_game.values()):
                for reader in list(readers):
                    if reader.gone() or now - reader.heard > PRESENCE_SECONDS:
                        self.close(reader)

    async def _catch_up(self, game_id: int) -> None:
        try:
            game = await self.tables.get(game_id)
            if game is not None:
                async with game.lock:  # as the change path publishes: under the game's lock
                    self.publisher.publish(game)
        except Exception:  # e.g. the bot stopping meanwhile: the next change publishes
            log.exception("catching up the DMs of game %s failed", game_id)

    def connected(self, user_id: int) -> bool:
        """Whether this person has the Mini App open now."""
        return self.readers.connected(user_id)

    # ------------------------------------------------------------------ changes
    async def next(self, reader: Reader, timeout: float) -> str | None:
        """The reader's next document: its view once the game changed and the change is
        done (built under the game's lock, after the change's save, publish and timers,
        not in the changing press's way; several changes meanwhile give one document);
        None if nothing new came within ``timeout`` seconds, or the stream is to end."""
        while await reader.wait(timeout):
            reader.dirty = False
            data = await self._shared(reader)
            if data != reader.sent:
                reader.sent = data
                return data
        return None

    async def _shared(self, reader: Reader) -> str:
        """The reader's document of the game's latest change, built once for all its
        readers of the same seat and language (the game's lock taken once for them)."""
        built = self.readers.documents.setdefault(reader.game_id, {})
        key, now = (reader.seat, reader.lang), asyncio.get_running_loop().time()
        at, document = built.get(key, (0.0, None))
        if document is None or now - at > SHARE_SECONDS:  # its countdown is counted from then
            document = asyncio.ensure_future(self._build(reader))
            built[key] = (now, document)
        # shielded: a reader that goes (cancelled) leaves it to the others
        return await asyncio.shield(document)

    async def _build(self, reader: Reader) -> str:
        game = reader.game
        async with game.lock:
            return self.document(game, reader.seat, reader.lang)

    def document(self, game: Game, seat: int | None, lang: str) -> str:
        return json.dumps(self.view(game, seat, lang), ensure_ascii=False)

    def view(self, game: Game, seat: int | None, lang: str) -> dict[str, Any]:
        """``seat``'s document of the game (None: the public's). An ended game shows
        everyone its final public table: what a hand still held when it ended is
        nobody's business any more (a player's app, or old launch data, reads the
        result, not the cards); one read from the store (``detached``) is projected
        afresh, nothing of it kept."""
        rec = game.table.rec
        projection = self.projection(game, seat)
        if projection is None:
            return {"game": rec.id, "status": rec.status, "group": rec.chat_title, "lang": lang}
        return table_view(rec, projection, lang, self.clock.now())

    def projection(self, game: Game, seat: int | None) -> Projection | None:
        """The projection ``seat``'s documents are built from (None: no match yet)."""
        rec, match = game.table.rec, game.table.match
        if match is None:
            return None
        if rec.status not in RUNNING_STATES:
            seat = None
        if game.detached:
            return project(rec, match, None)
        return self.publisher.projections.of(game.table, seat)

    def panel(
        self, game: Game, seat: int | None, lang: str, name: Literal["tricks", "history"]
    ) -> dict[str, Any] | None:
        """A panel of the page, asked for when it opens (not streamed): ``tricks`` (the
        hand's tricks) or ``history`` (the match's hands); None: no match yet."""
        projection = self.projection(game, seat)
        if projection is None or game.table.match is None:
            return None
        if name == "tricks":
            return tricks_view(game.table.rec, projection, lang)
        return history_view(game.table.rec, projection, match_history(game.table.match), lang)
