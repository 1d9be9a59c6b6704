"""``python -m bot backup [FILE]``: an online copy of the bot's database.

sqlite3's backup API copies a consistent snapshot while the bot keeps running (the
store is in WAL mode: the copy reads one snapshot, the bot's writes go on meanwhile).
The copy is written next to its name and renamed into place, so it is never half-written,
and it is readable by its owner only (it holds hands, user ids and names).

Without FILE the copy is one of a dated series: ``BACKUP_DIR`` (default: ``backups`` beside
the database) gets ``<name>-YYYYMMDD-HHMMSS<suffix>`` (UTC), and of the copies named so only
the newest ``BACKUP_KEEP`` are kept (0: all); other files there are never touched.
Restore: stop the bot, put the copy at ``DATABASE_PATH``, start the bot; it migrates
an older schema on opening and resumes every open game.
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path

from bot.infra.config import Settings


def backup(source: Path, target: Path) -> tuple[int, int]:
    """Copy ``source`` to ``target``; returns (schema version, number of games)."""
    if not source.exists():
        raise FileNotFoundError(f"no database at {source}")
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    # created 0600 whatever the umask; SQLite keeps the mode of the (empty) file it opens
    os.close(os.open(partial, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
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


def dated_name(source: Path, when: datetime) -> str:
    """The name of the copy of ``source`` taken at ``when`` in a dated series."""
    return f"{source.stem}-{when.astimezone(UTC):%Y%m%d-%H%M%S}{source.suffix}"


def prune(directory: Path, source: Path, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` dated copies of ``source`` in ``directory``
    (0: keep all); returns what was deleted. Files not named as copies are left alone."""
    pattern = re.compile(rf"{re.escape(source.stem)}-\d{{8}}-\d{{6}}{re.escape(source.suffix)}")
    series = sorted(p for p in directory.iterdir() if pattern.fullmatch(p.name))
    old = series[:-keep] if keep else []
    for path in old:
        path.unlink()
    return old


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bot backup",
        description="Copy the bot's database (DATABASE_PATH); safe while the bot runs.",
    )
    ap.add_argument(
        "file",
        type=Path,
        nargs="?",
        help="where to write the copy (replaced if it exists); without it, a dated copy in"
        " BACKUP_DIR, keeping the newest BACKUP_KEEP",
    )
    args = ap.parse_args(argv)
    settings = Settings()
    source = settings.database_path
    directory = Path(settings.backup_dir) if settings.backup_dir else source.parent / "backups"
    target = args.file or directory / dated_name(source, datetime.now(UTC))
    try:
        version, games = backup(source, target)
        removed = [] if args.file else prune(directory, source, settings.backup_keep)
    except (OSError, sqlite3.Error, RuntimeError) as e:
        print(f"backup failed: {e}", file=sys.stderr)
        return 1
    print(f"backed up {source} to {target} (schema version {version}, {games} games)")
    if removed:
        print(f"removed {len(removed)} older backups: {', '.join(p.name for p in removed)}")
    return 0
