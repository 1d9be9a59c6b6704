"""`python -m bot backup FILE` while games run; the copy restored into a fresh bot plays on."""

import asyncio
import os
import sqlite3
import stat
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.data.store import _MIGRATIONS
from bot.fake_telegram import FakeTelegram
from bot.infra.backup import dated_name, prune
from tests.e2e.harness import find, game_of, play_out, running_bot, seat_players, service

ROOT = Path(__file__).resolve().parents[2]


async def backup_command(
    db: Path, target: Path | None, cwd: Path, **settings: str
) -> tuple[int, str, str]:
    """``python -m bot backup [target]`` with ``settings`` as environment variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_TOKEN", "BACKUP_"))}
    env.update(PYTHONPATH=str(ROOT), DATABASE_PATH=str(db), **settings)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "backup",
        *([str(target)] if target else []),
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    return proc.returncode or 0, out.decode(), err.decode()


async def start_with_computers(world, group, humans):
    game_id, _ = await seat_players(world, group, humans)
    for _ in range(4 - len(humans)):
        lobby = world.last_message(group, from_bot=True)
        await humans[0].press(lobby, data=find(lobby, "C").data)
        await world.settle()
    lobby = world.last_message(group, from_bot=True)
    await humans[0].press(lobby, data=find(lobby, "S").data)
    await world.settle()
    return game_id


def halfway(hand) -> bool:
    return hand.phase == "playing" and len(hand.hands[0]) <= 12


async def test_a_backup_taken_while_games_run_restores_into_a_fresh_bot_that_finishes_them(
    tmp_path,
):
    db, copy = tmp_path / "live.sqlite3", tmp_path / "backups" / "copy.sqlite3"
    async with FakeTelegram() as world:
        alice, bob, carol = world.user("Alice"), world.user("Bob"), world.user("Carol")
        one = world.group("One", members=[bob], admins=[alice])
        two = world.group("Two", admins=[carol])
        async with running_bot(world, db, next_hand_delay_seconds=0.01) as app:
            await alice.send(one, "/startlevel A")
            await carol.send(two, "/startlevel A")
            first = await start_with_computers(world, one, [alice, bob])
            second = await start_with_computers(world, two, [carol])
            await play_out(
                world, app, first, {0: alice, 1: bob}, stop=lambda g: len(g.match.hand.tricks) >= 3
            )
            # the copy is taken while both games keep being played (and saved); the second
            # waits halfway through its hand if the copy takes longer (at level A the end of
            # the hand may end the match, and a finished game is not resumed)
            command = asyncio.create_task(backup_command(db, copy, tmp_path))
            playing = asyncio.create_task(
                play_out(
                    world,
                    app,
                    second,
                    {0: carol},
                    stop=lambda g: command.done() or halfway(g.match.hand),
                )
            )
            code, out, err = await command
            await playing
            assert code == 0, err
            assert "schema version" in out and "2 games" in out
            # (hand, version): a hand may end and the next begin while the copy is taken
            hand = service(app).games[second].match.hand
            live = (hand.hand_number, hand.version)

        con = sqlite3.connect(copy)
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert con.execute("PRAGMA user_version").fetchone()[0] == len(_MIGRATIONS)
        con.close()

        # a fresh bot on the restored copy: both games resume where the copy saw them
        async with running_bot(world, copy, next_hand_delay_seconds=0.01) as app:
            await world.settle()
            games = service(app).games
            assert set(games) == {first, second}
            assert len(games[first].match.hand.tricks) >= 3
            restored = games[second].match.hand
            assert (restored.hand_number, restored.version) <= live
            await play_out(world, app, first, {0: alice, 1: bob}, group=one)
            done = await game_of(app, first)
            assert done.rec.status == "finished" and done.match.winner is not None
            await play_out(world, app, second, {0: carol}, group=two)
            assert (await game_of(app, second)).rec.status == "finished"


def test_backup_of_a_missing_database_fails_with_one_sentence(tmp_path):
    code, out, err = asyncio.run(
        backup_command(tmp_path / "nothing.sqlite3", tmp_path / "copy", tmp_path)
    )
    assert code == 1 and "no database at" in err and err.count("\n") == 1
    assert not (tmp_path / "copy").exists()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_the_database_its_wal_and_shm_files_and_backups_are_readable_by_the_bot_only(
    tmp_path,
):
    old_umask = os.umask(0o022)  # the common default: files 0644, readable by everyone
    try:
        db = tmp_path / "live.sqlite3"
        async with FakeTelegram() as world:
            alice, bob = world.user("Alice"), world.user("Bob")
            group = world.group("One", members=[bob], admins=[alice])
            async with running_bot(world, db):
                await start_with_computers(world, group, [alice, bob])  # a game is saved
                live = [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]
                assert {p.name: mode(p) for p in live} == {p.name: 0o600 for p in live}
                code, out, err = await backup_command(db, None, tmp_path)
                assert code == 0, err
        [copy] = (tmp_path / "backups").iterdir()
        assert mode(copy) == 0o600 and mode(copy.parent) == 0o700
        assert f"to {copy} (schema version" in out and "1 games" in out
    finally:
        os.umask(old_umask)


async def test_dated_backups_keep_the_newest_backup_keep_and_touch_no_other_file(tmp_path):
    db, series = tmp_path / "shengji.sqlite3", tmp_path / "kept"
    sqlite3.connect(db).close()
    series.mkdir()
    start = datetime(2026, 11, 20, 3, 0, tzinfo=UTC)
    days = [series / dated_name(db, start + timedelta(days=d)) for d in range(4)]
    others = [series / "shengji-before-upgrade.sqlite3", series / "notes.txt"]
    for path in days + others:
        path.write_bytes(b"")
    assert [p.name for p in days[:2]] == [
        "shengji-20261120-030000.sqlite3",
        "shengji-20261121-030000.sqlite3",
    ]

    code, out, err = await backup_command(
        db, None, tmp_path, BACKUP_DIR=str(series), BACKUP_KEEP="3"
    )
    assert code == 0, err
    [new] = set(series.iterdir()) - set(days + others)
    assert new.name.startswith(f"shengji-{datetime.now(UTC):%Y%m%d}-")
    assert sorted(series.iterdir()) == sorted([*days[2:], new, *others])
    assert "removed 2 older backups" in out

    assert prune(series, db, 0) == []  # BACKUP_KEEP=0: every copy is kept
    assert prune(series, db, 1) == days[2:]
    assert sorted(series.iterdir()) == sorted([new, *others])
