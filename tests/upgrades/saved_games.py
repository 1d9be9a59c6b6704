"""Real saved games of each schema version, written by that version's own code.

``python -m tests.upgrades.saved_games`` plays a few games through the fake Telegram
with the bot as it is now and writes the database as ``v<N>.sql`` (N = the current
schema version, ``len(_MIGRATIONS)``). Run it whenever a migration is added, so the
next one is tested from this version too; keep the older files as they are.

The saved state: an open lobby (two seats taken), a hand in play four tricks in
(group settings changed: start level A, English), a hand whose deal just ended
(the overturn window open), and people who opened the bot's DM.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path

from bot.data.store import _MIGRATIONS
from bot.fake_telegram import Chat, FakeTelegram, SimUser
from tests.e2e.harness import find, play_out, running_bot, seat_players

HERE = Path(__file__).parent
PEOPLE = {"Alice": 7001, "Bob": 7002, "Carol": 7003, "Dan": 7004}
GROUPS = ("Lobby", "Mid-hand", "Overturn")


def fixture_path(version: int) -> Path:
    return HERE / f"v{version}.sql"


@dataclass
class World:
    """The people and groups the saved games belong to (same ids in every run)."""

    people: dict[str, SimUser]
    groups: dict[str, Chat]


def populate(world: FakeTelegram) -> World:
    people = {
        name: SimUser(world, world.core.add_user(name, id=uid, language_code="en", started=True))
        for name, uid in PEOPLE.items()
    }
    alice = people["Alice"]
    others = [p for n, p in people.items() if n != "Alice"]
    groups = {title: world.group(title, members=others, admins=[alice]) for title in GROUPS}
    return World(people, groups)


async def start_with_computers(world: FakeTelegram, group: Chat, humans: list[SimUser]) -> int:
    game_id, _ = await seat_players(world, group, humans)
    for _ in range(4 - len(humans)):
        lobby = world.last_message(group, from_bot=True)
        await humans[0].press(lobby, data=find(lobby, "C").data)
        await world.settle()
    lobby = world.last_message(group, from_bot=True)
    await humans[0].press(lobby, data=find(lobby, "S").data)
    await world.settle()
    return game_id


async def write(db: Path) -> None:
    """Play the scenario against the bot on ``db`` (a new file)."""
    async with FakeTelegram() as world:
        w = populate(world)
        alice, bob, carol, dan = (w.people[n] for n in PEOPLE)
        async with running_bot(world, db) as app:
            mid = w.groups["Mid-hand"]
            await alice.send(mid, "/startlevel A")
            await alice.send(mid, "/settings")
            await world.settle()
            await alice.press(world.last_message(mid, from_bot=True), data="cfg|lang|en")
            await world.settle()
            game_id = await start_with_computers(world, mid, [alice, bob])
            await play_out(
                world,
                app,
                game_id,
                {0: alice, 1: bob},
                stop=lambda g: g.match.hand.phase == "playing" and len(g.match.hand.tricks) >= 5,
            )
            over = w.groups["Overturn"]
            game_id = await start_with_computers(world, over, [carol, dan])
            await play_out(
                world,
                app,
                game_id,
                {0: carol, 1: dan},
                stop=lambda g: g.match.hand.phase != "dealing",
            )
            await seat_players(world, w.groups["Lobby"], [bob, alice])
            await world.settle()


def dump(db: Path) -> str:
    con = sqlite3.connect(db)
    try:
        version = con.execute("PRAGMA user_version").fetchone()[0]
        lines = [f"PRAGMA user_version = {version};", *con.iterdump()]
    finally:
        con.close()
    return "\n".join(lines) + "\n"


def restore(sql: Path, db: Path) -> None:
    con = sqlite3.connect(db)
    try:
        con.executescript(sql.read_text(encoding="utf-8"))
    finally:
        con.close()


async def _main() -> int:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "saved.sqlite3"
        await write(db)
        out = fixture_path(len(_MIGRATIONS))
        out.write_text(dump(db), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(_main()))
