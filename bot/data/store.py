"""Persistence (aiosqlite, WAL): games, per-chat settings, what bot messages show.

Every accepted action is saved before it is acknowledged; the schema is versioned
with ``PRAGMA user_version`` so later changes migrate in place.

Commits are grouped: a write returns once a commit that started after it finished
(one fsync), and the writes of other games queued meanwhile share that commit. One
fsync per write would queue every press behind all the games' saves and deals on the
store's one thread once hundreds of games run (~4 ms each on a plain disk).

What each bot message shows (``shown``) is noted in memory and written in one statement
with the next commit: a new message's id at once (:meth:`Store.save_shown` waits for
that commit: a restart must edit it, not post it again), an edited message's digest with
whichever commit comes next (:meth:`Store.note_shown`: a game's save, ``NOTE_DELAY`` s at
the latest), never a commit of its own. A digest lost at a crash costs one edit that
changes nothing after the restart.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import sqlite3
import time
from pathlib import Path

import aiosqlite

from bot.data.saved import RUNNING_STATES, ChatSettings, GameRecord

log = logging.getLogger(__name__)

# an edited message's note waits at most this long for a commit to ride along with (s)
NOTE_DELAY = 1.0

_MIGRATIONS: list[str] = [
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id INTEGER NOT NULL,
        thread_id INTEGER,
        status TEXT NOT NULL,
        record TEXT NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX games_open ON games(chat_id, thread_id, status);
    CREATE TABLE chats (
        chat_id INTEGER PRIMARY KEY,
        settings TEXT NOT NULL
    );
    CREATE TABLE users (
        user_id INTEGER PRIMARY KEY,
        lang TEXT,
        dm_ok INTEGER NOT NULL DEFAULT 0
    );
    """,
    # history (bot.data.history): every finished hand and match, written once each
    """
    CREATE TABLE hands (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id INTEGER NOT NULL,
        game_id INTEGER NOT NULL,
        hand_no INTEGER NOT NULL,
        finished_at REAL NOT NULL,
        attackers_points INTEGER NOT NULL,
        kitty_bonus INTEGER NOT NULL,
        record TEXT NOT NULL,
        UNIQUE (game_id, hand_no)
    );
    CREATE INDEX hands_chat ON hands(chat_id, id);
    CREATE TABLE hand_players (
        hand_id INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        chat_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        defended INTEGER NOT NULL,
        won INTEGER NOT NULL,
        levels_gained INTEGER NOT NULL,
        PRIMARY KEY (hand_id, seat)
    );
    CREATE INDEX hand_players_user ON hand_players(user_id, chat_id);
    CREATE INDEX hand_players_chat ON hand_players(chat_id);
    CREATE TABLE matches (
        game_id INTEGER PRIMARY KEY,
        chat_id INTEGER NOT NULL,
        finished_at REAL NOT NULL,
        winner INTEGER NOT NULL,
        record TEXT NOT NULL
    );
    CREATE INDEX matches_chat ON matches(chat_id, finished_at);
    CREATE TABLE match_players (
        game_id INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        chat_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        won INTEGER NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX match_players_user ON match_players(user_id, chat_id);
    """,
    # what each bot message shows (a digest of text + keyboard), so that a restart
    # edits nothing unchanged; the message ids that records kept before move here
    """
    CREATE TABLE shown (
        chat_id INTEGER NOT NULL,
        key TEXT NOT NULL,
        message_id INTEGER NOT NULL,
        digest TEXT,
        PRIMARY KEY (chat_id, key)
    );
    INSERT OR IGNORE INTO shown(chat_id, key, message_id, digest)
        SELECT g.chat_id, m.key, m.value, NULL
        FROM games g, json_each(g.record, '$.group_messages') m
        WHERE g.status IN ('lobby', 'running');
    INSERT OR IGNORE INTO shown(chat_id, key, message_id, digest)
        SELECT json_extract(g.record, '$.seats[' || m.key || '].user_id'),
               'g' || g.id || ':hand', m.value, NULL
        FROM games g, json_each(g.record, '$.dm_messages') m
        WHERE g.status IN ('lobby', 'running')
          AND json_extract(g.record, '$.seats[' || m.key || '].user_id') IS NOT NULL;
    """,
    # the users table of the first version was never read or written
    """
    DROP TABLE users;
    """,
    # the match (the engine's MatchState JSON) in a column of its own, written only when
    # it changed, not escaped again as a string inside every save of the record
    """
    ALTER TABLE games ADD COLUMN match TEXT;
    UPDATE games SET match = json_extract(record, '$.match_json'),
                     record = json_remove(record, '$.match_json');
    """,
]


class StoreError(Exception):
    """The database cannot be used at all (not SQLite, not writable): the bot cannot run."""


def _create_private(path: Path) -> None:
    """Create the database file readable by its owner only, whatever the umask: it holds
    hands, user ids and names. SQLite gives its -wal and -shm files the database's mode."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        pass  # an existing database keeps the mode its host gave it
    except OSError:
        pass  # e.g. a read-only directory: SQLite's own open reports it next


class Store:
    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self._db: aiosqlite.Connection | None = None
        self._commit_task: asyncio.Task[None] | None = None  # not started yet: joinable
        # what messages show, to be written with the next commit: (chat, key) -> (message
        # id, digest); a message id None forgets the message
        self._notes: dict[tuple[int, str], tuple[int | None, str | None]] = {}
        self._notes_timer: asyncio.TimerHandle | None = None
        self._committing = asyncio.Lock()

    async def open(self) -> Store:
        """Open (create, migrate) the database; :class:`StoreError` in one sentence if it
        cannot be used (its connection closed: a connection left open would keep the
        process alive)."""
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                _create_private(Path(self.path))
            self._db = await aiosqlite.connect(self.path)
            await self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: a saved action survives a power cut too, not only a crash of the bot
            # (one fsync per accepted action is cheap at the pace people play).
            await self._db.execute("PRAGMA synchronous=FULL")
            await self._migrate()
        except (sqlite3.Error, OSError) as e:
            await self.close()
            raise StoreError(
                f"cannot use the database {self.path}: {e} (it must be an SQLite database,"
                " or not exist yet, that the bot's user may read and write, in a directory"
                " it may write)"
            ) from None
        return self

    async def close(self) -> None:
        """Commit every write and note made until the store is closed (:meth:`flush`),
        then close; a write after that raises (``store is not open``): nothing is lost
        silently."""
        try:
            if self._db is not None:
                await self.flush()  # a write not committed yet, the notes of the last edits
        finally:  # the commit failing (a full disk) is raised; the connection closes anyway
            if self._notes_timer is not None:
                self._notes_timer.cancel()
                self._notes_timer = None
            # no await between the last commit and this: nothing can write in between, and
            # a write while the connection closes is refused, not queued behind its close
            db, self._db = self._db, None
            if db is not None:
                await db.close()

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("store is not open")
        return self._db

    async def _commit(self) -> None:
        """Commit what this task wrote (and whatever else was written until then)."""
        task = self._commit_task
        if task is None:
            task = self._commit_task = asyncio.get_running_loop().create_task(self._commit_now())
        await asyncio.shield(task)

    async def _commit_now(self) -> None:
        self._commit_task = None  # from here on, a write joins the next commit
        # one commit at a time: a later commit's notes are written after this one's
        # (its delete of a message's note must not run before this one's upsert of it)
        async with self._committing:
            notes, self._notes = self._notes, {}
            if notes:
                await self._write_notes(notes)
            await self.db.commit()

    async def _write_notes(
        self, notes: dict[tuple[int, str], tuple[int | None, str | None]]
    ) -> None:
        """The notes of what messages show, in two statements. The database failing (a full
        disk) is one line, not raised: the messages were delivered; what is lost is only
        the note, so after a restart the bot sends such a message anew (or edits it once
        more) instead of editing it."""
        gone = [(chat, key) for (chat, key), (mid, _) in notes.items() if mid is None]
        kept = [(chat, key, mid, d) for (chat, key), (mid, d) in notes.items() if mid is not None]
        try:
            if gone:
                await self.db.executemany("DELETE FROM shown WHERE chat_id=? AND key=?", gone)
            if kept:
                await self.db.executemany(
                    "INSERT INTO shown(chat_id, key, message_id, digest) VALUES (?,?,?,?)"
                    " ON CONFLICT(chat_id, key) DO UPDATE SET"
                    " message_id=excluded.message_id, digest=excluded.digest",
                    kept,
                )
        except sqlite3.OperationalError as e:
            # a warning: the database's failure itself is an error line of its own (the
            # commit's); this is only what it cost
            (chat, key), more = next(iter(notes)), len(notes) - 1
            log.warning(
                "chat %s: message %s%s not recorded (%s)",
                chat,
                key,
                f" and {more} more" if more else "",
                database_fault(e),
            )

    async def _migrate(self) -> None:
        async with self.db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        version = row[0] if row else 0
        for i, script in enumerate(_MIGRATIONS[version:], start=version + 1):
            await self.db.executescript(script)
            await self.db.execute(f"PRAGMA user_version = {i}")
            version = i
        # written even when nothing migrates: a database the bot may not write fails
        # here, at start-up, not at the first move of a game
        await self.db.execute(f"PRAGMA user_version = {version}")
        await self.db.commit()

    # games
    async def create_game(self, rec: GameRecord) -> GameRecord:
        cur = await self.db.execute(
            "INSERT INTO games(chat_id, thread_id, status, record, updated_at) VALUES (?,?,?,?,?)",
            (rec.chat_id, rec.thread_id, rec.status, "{}", time.time()),
        )
        rec.id = cur.lastrowid or 0
        await self.save_game(rec)
        return rec

    async def save_game(self, rec: GameRecord, wait: bool = True, match: bool = True) -> str:
        """Write the record; the record's JSON written (without the match). ``match``: the
        match changed (``rec.match_json``), write it too; else only the record is written.
        ``wait=False``: written now, committed by the next commit (soon) without waiting
        for it."""
        record = rec.record_json()
        if match:
            await self.db.execute(
                "UPDATE games SET status=?, record=?, match=?, updated_at=? WHERE id=?",
                (rec.status, record, rec.match_json, time.time(), rec.id),
            )
        else:
            await self.db.execute(
                "UPDATE games SET status=?, record=?, updated_at=? WHERE id=?",
                (rec.status, record, time.time(), rec.id),
            )
        if wait:
            await self._commit()
        elif self._commit_task is None:
            task = asyncio.get_running_loop().create_task(self._commit_now())
            task.add_done_callback(_report_unawaited)
            self._commit_task = task
        return record

    async def load_game(self, game_id: int) -> GameRecord | None:
        async with self.db.execute("SELECT record, match FROM games WHERE id=?", (game_id,)) as cur:
            row = await cur.fetchone()
        return GameRecord.restore(row[0], row[1]) if row else None

    async def open_game_in(self, chat_id: int, thread_id: int | None) -> GameRecord | None:
        marks = ",".join("?" * len(RUNNING_STATES))
        async with self.db.execute(
            "SELECT record, match FROM games"
            f" WHERE chat_id=? AND thread_id IS ? AND status IN ({marks})"
            " ORDER BY id DESC LIMIT 1",
            (chat_id, thread_id, *RUNNING_STATES),
        ) as cur:
            row = await cur.fetchone()
        return GameRecord.restore(row[0], row[1]) if row else None

    async def open_games(self) -> list[GameRecord]:
        marks = ",".join("?" * len(RUNNING_STATES))
        async with self.db.execute(
            f"SELECT record, match FROM games WHERE status IN ({marks}) ORDER BY id",
            RUNNING_STATES,
        ) as cur:
            rows = await cur.fetchall()
        return [GameRecord.restore(r[0], r[1]) for r in rows]

    async def games_in(self, chat_id: int) -> list[GameRecord]:
        async with self.db.execute(
            "SELECT record, match FROM games WHERE chat_id=? ORDER BY id", (chat_id,)
        ) as cur:
            rows = await cur.fetchall()
        return [GameRecord.restore(r[0], r[1]) for r in rows]

    async def migrate_chat(self, old: int, new: int) -> None:
        """A group became a supergroup: its games and settings move to the new id.
        Message ids of the old chat mean nothing in the new one: they are forgotten."""
        for rec in await self.games_in(old):
            rec.chat_id = new
            await self.db.execute("UPDATE games SET chat_id=? WHERE id=?", (new, rec.id))
            await self.save_game(rec)
        async with self.db.execute("SELECT 1 FROM chats WHERE chat_id=?", (new,)) as c:
            taken = await c.fetchone() is not None
        if not taken:
            settings = await self.chat_settings(old)
            settings.chat_id = new
            await self.save_chat_settings(settings)
        await self.db.execute("DELETE FROM chats WHERE chat_id=?", (old,))
        self._drop_notes(old)
        await self.db.execute("DELETE FROM shown WHERE chat_id=?", (old,))
        for table in ("hands", "hand_players", "matches", "match_players"):  # its history
            await self.db.execute(f"UPDATE {table} SET chat_id=? WHERE chat_id=?", (new, old))
        await self._commit()

    # chats
    async def chat_settings(self, chat_id: int) -> ChatSettings:
        async with self.db.execute("SELECT settings FROM chats WHERE chat_id=?", (chat_id,)) as c:
            row = await c.fetchone()
        return ChatSettings.model_validate_json(row[0]) if row else ChatSettings(chat_id=chat_id)

    async def save_chat_settings(self, s: ChatSettings) -> None:
        await self.db.execute(
            "INSERT INTO chats(chat_id, settings) VALUES (?,?)"
            " ON CONFLICT(chat_id) DO UPDATE SET settings=excluded.settings",
            (s.chat_id, s.model_dump_json()),
        )
        await self._commit()

    # what bot messages show
    async def save_shown(
        self, chat_id: int, key: str, message_id: int | None, digest: str | None
    ) -> None:
        """Message ``key`` of a chat has id ``message_id`` and shows ``digest``
        (``message_id`` None: forget it); returns once that is committed (with whatever
        else the commit holds). The database failing is one line (:meth:`_write_notes`)."""
        self._notes[(chat_id, key)] = (message_id, digest)
        try:
            await self._commit()
        except sqlite3.OperationalError as e:
            log.warning("chat %s: message %s not recorded (%s)", chat_id, key, database_fault(e))

    async def flush(self) -> None:
        """Commit every write and note made until it returns. A commit under way (its
        task started: no longer ``_commit_task``) may still be writing its notes or
        waiting for the one before it; the commit this starts goes after it (one commit
        at a time, in turn), and one more follows while anything came meanwhile."""
        await self._commit()
        while self._notes or self._commit_task is not None:
            await self._commit()

    def note_shown(self, chat_id: int, key: str, message_id: int, digest: str | None) -> None:
        """An edited message shows ``digest`` now: written with the next commit, within
        ``NOTE_DELAY`` s (a commit of its own only if no game saves meanwhile)."""
        if self._db is None:  # refused as every write is, not dropped unseen
            raise RuntimeError("store is not open")
        self._notes[(chat_id, key)] = (message_id, digest)
        if self._commit_task is None and self._notes_timer is None:
            self._notes_timer = asyncio.get_running_loop().call_later(
                NOTE_DELAY, self._commit_notes
            )

    def _commit_notes(self) -> None:
        self._notes_timer = None
        if self._notes and self._db is not None and self._commit_task is None:
            task = asyncio.get_running_loop().create_task(self._commit_now())
            task.add_done_callback(_report_unawaited)
            self._commit_task = task

    def _drop_notes(self, chat_id: int) -> None:
        for k in [k for k in self._notes if k[0] == chat_id]:
            del self._notes[k]

    async def forget_shown(self, chat_id: int) -> None:
        """The chat's messages cannot be edited any more (the bot left the group)."""
        self._drop_notes(chat_id)
        await self.db.execute("DELETE FROM shown WHERE chat_id=?", (chat_id,))
        await self._commit()

    async def forget_shown_of_ended_games(self) -> None:
        """Forget what the messages of games no longer in play show (``g<id>:…`` keys):
        nothing edits them again. (An ended game forgets its own as it leaves memory.)"""
        marks = ",".join("?" * len(RUNNING_STATES))
        await self.db.execute(
            "DELETE FROM shown WHERE key GLOB 'g[0-9]*:*' AND"
            " CAST(substr(key, 2, instr(key, ':') - 2) AS INTEGER) NOT IN"
            f" (SELECT id FROM games WHERE status IN ({marks}))",
            RUNNING_STATES,
        )
        await self._commit()

    async def all_shown(self) -> list[tuple[int, str, int, str | None]]:
        async with self.db.execute("SELECT chat_id, key, message_id, digest FROM shown") as c:
            rows = await c.fetchall()
        return [(r[0], r[1], r[2], r[3]) for r in rows]


# the disk under the database failing: no space, a read-only file system, an I/O error
_DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO})


def database_fault(error: BaseException | None) -> str | None:
    """What the database said, when ``error`` is the database failing (a full disk, a
    file made read-only, a lock held too long) rather than a bug: a line explains it,
    a traceback would not. None for anything else."""
    if isinstance(error, sqlite3.OperationalError):
        return f"the database: {error}"
    if isinstance(error, OSError) and error.errno in _DISK_ERRNOS:
        return f"the disk: {error}"
    return None


def _report_unawaited(task: asyncio.Task[None]) -> None:
    """A commit nobody waited for failed (a full disk): one line, not asyncio's "Task
    exception was never retrieved". A later write commits it again or fails itself."""
    if not task.cancelled() and (e := task.exception()) is not None:
        log.error("the database could not commit: %s", e)
