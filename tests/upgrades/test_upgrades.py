"""Upgrades: the games saved by every earlier schema version load after migrating, and play on.

Generic over ``bot.data.store._MIGRATIONS``: each version N has a database of real saved games
written by that version's code (``v<N>.sql``, see ``saved_games``); the bot of today opens
it, migrates it to the newest version, resumes every open game, and the people play on.
"""

import sqlite3

import pytest

from bot.data.store import _MIGRATIONS, Store
from bot.fake_telegram import FakeTelegram
from tests.e2e.harness import buttons, find, hand_message, play_out, running_bot, service
from tests.upgrades.saved_games import PEOPLE, fixture_path, populate, restore

VERSIONS = range(1, len(_MIGRATIONS) + 1)


def user_version(db):
    con = sqlite3.connect(db)
    try:
        return con.execute("PRAGMA user_version").fetchone()[0]
    finally:
        con.close()


def forget_what_messages_show(db):
    """This fake Telegram holds none of the saved messages: what they showed is forgotten
    (versions that remember it), so the bot edits them, learns they are gone and posts
    them anew, as after older versions (which kept only their ids)."""
    con = sqlite3.connect(db)
    try:
        if con.execute("SELECT 1 FROM sqlite_master WHERE name='shown'").fetchone():
            con.execute("UPDATE shown SET digest = NULL")
            con.commit()
    finally:
        con.close()


def test_every_schema_version_has_saved_games():
    missing = [v for v in VERSIONS if not fixture_path(v).exists()]
    assert not missing, (
        f"no saved games of schema version(s) {missing}: "
        "run `python -m tests.upgrades.saved_games` on the code of that version"
    )


def schema(db):
    con = sqlite3.connect(db)
    try:
        rows = con.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
        )
        return sorted(rows)
    finally:
        con.close()


@pytest.mark.parametrize("version", [v for v in VERSIONS if fixture_path(v).exists()])
async def test_a_migrated_database_has_the_schema_of_a_new_one(version, tmp_path):
    new, old = tmp_path / "new.sqlite3", tmp_path / "old.sqlite3"
    restore(fixture_path(version), old)
    for db in (new, old):
        await (await Store(db).open()).close()
    assert schema(old) == schema(new)
    assert "users" not in {name for _, name, _ in schema(new)}  # never used: dropped


@pytest.mark.parametrize("version", [v for v in VERSIONS if fixture_path(v).exists()])
async def test_saved_games_of_an_earlier_version_migrate_resume_and_finish(version, tmp_path):
    db = tmp_path / "upgraded.sqlite3"
    restore(fixture_path(version), db)
    assert user_version(db) == version
    forget_what_messages_show(db)
    async with FakeTelegram() as world:
        w = populate(world)
        alice, bob, carol, dan = (w.people[n] for n in PEOPLE)
        # the lobby was saved long ago (when the file was written): it must not expire
        async with running_bot(
            world, db, next_hand_delay_seconds=0.01, lobby_expiry_minutes=10**8
        ) as app:
            await world.settle()
            assert user_version(db) == len(_MIGRATIONS)
            svc = service(app)
            by_title = {g.rec.chat_title: g for g in svc.games.values()}
            assert set(by_title) == set(w.groups)

            # the hand in play: resumed four tricks in, English, started at level A
            mid = by_title["Mid-hand"]
            assert mid.match.hand.phase == "playing" and len(mid.match.hand.tricks) >= 5
            assert mid.rec.lang == "en" and mid.match.rules.start_level == 12
            assert "🀄" in hand_message(world, alice, mid.rec.id).text  # hands shown again
            await play_out(world, app, mid.rec.id, {0: alice, 1: bob}, group=w.groups["Mid-hand"])
            assert mid.rec.status == "finished" and mid.match.winner is not None

            # the deal that had just ended: the overturn window, then the hand is played out
            over = by_title["Overturn"]
            hand_no = over.match.hand_number
            await play_out(
                world,
                app,
                over.rec.id,
                {0: carol, 1: dan},
                stop=lambda g: g.match.hand_number > hand_no or g.match.finished,
            )

            # the open lobby: shown again, two more people sit down, its creator starts it
            lobby = by_title["Lobby"]
            assert lobby.rec.status == "lobby"
            assert [s.name for s in lobby.rec.seats[:2]] == ["Bob", "Alice"]
            for seat, person in ((2, carol), (3, dan)):
                msg = world.last_message(w.groups["Lobby"], from_bot=True)
                link = next(b for b in buttons(msg) if b.url and b.url.endswith(f"_{seat}"))
                await person.press(msg, text=link.text)
                await world.settle()
            msg = world.last_message(w.groups["Lobby"], from_bot=True)
            await bob.press(msg, data=find(msg, "S").data)
            await world.settle()
            assert lobby.rec.status == "running"
            assert [s.name for s in lobby.rec.seats] == ["Bob", "Alice", "Carol", "Dan"]
