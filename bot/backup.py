"""``python -m bot backup FILE``: an online copy of the bot's database.

sqlite3's backup API copies a consistent snapshot while the bot keeps running (the
store is in WAL mode: the copy reads one snapshot, the bot's writes go on meanwhile).
The copy is written next to FILE and renamed into place, so FILE is never half-written.
Restore: stop the bot, put the copy at ``DATABASE_PATH``, start the bot; it migrates
an older schema on opening and resumes every open game.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from bot.config import Settings


def backup(source: Path, target: Path) -> tuple[int, int]:
    """Copy ``source`` to ``target``; returns (schema version, number of games)."""
    if not source.exists():
        raise FileNotFoundError(f"no database at {source}")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    src = sqlite3.connect(source)
    dst = sqlite3.connect(partial)
    try:
        src.backup(dst)  # all pages in one step: one consistent snapshot
        if dst.execute("SELECT 1 FROM sqlite_master WHERE name='shown'").fetchone():
            # the bot goes on after the snapshot: what its messages show then is not
            # what the copy says; a bot restored from it edits each of them once
            dst.execute("UPDATE shown SET digest = NULL")
            dst.commit()
        check = dst.execute("PRAGMA integrity_check").fetchone()[0]
        if check != "ok":
            raise RuntimeError(f"the copy fails its integrity check: {check}")
        version = dst.execute("PRAGMA user_version").fetchone()[0]
        games = dst.execute("SELECT count(*) FROM games").fetchone()[0] if version else 0
    finally:
        dst.close()
        src.close()
    partial.replace(target)
    return version, games


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bot backup",
        description="Copy the bot's database (DATABASE_PATH) to FILE; safe while the bot runs.",
    )
    ap.add_argument("file", type=Path, help="where to write the copy (replaced if it exists)")
    args = ap.parse_args(argv)
    source = Settings().database_path
    try:
        version, games = backup(source, args.file)
    except (OSError, sqlite3.Error, RuntimeError) as e:
        print(f"backup failed: {e}", file=sys.stderr)
        return 1
    print(f"backed up {source} to {args.file} (schema version {version}, {games} games)")
    return 0
