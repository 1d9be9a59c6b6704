"""Faults that explain themselves (issue 19), inside a running bot: every command with
any argument gets a reply, a failing handler an apology and one log line without
personal data, forged callback data a polite answer and no traceback, a full disk one
line, /start after unblocking the hand back, an edit answered ``true`` counts as done,
and every HTML text the bot sends is strictly escaped."""

from __future__ import annotations

import gc
import logging
import sqlite3

from telegram.ext import CommandHandler

from bot.fake_telegram import FakeTelegram
from bot.fake_telegram.html import unescaped
from tests.e2e.harness import (
    hand_message,
    play_out,
    press,
    running_bot,
    seat_players,
    service,
    wait_for,
)
from tests.e2e.test_resilience import start_with_computers

# Unicode digits ("²" and "⑦" pass str.isdigit(), not int()), huge and negative numbers,
# nothing, and an argument as long as a message may be
ARGUMENTS = ["", "²", "⑦", "٣", "9" * 40, "-1", "0x10", "x" * 4000]


def problems(caplog, level=logging.ERROR):
    return [r for r in caplog.records if r.levelno >= level]


def registered_commands(app) -> list[str]:
    return sorted(
        {
            c
            for group in app.handlers.values()
            for h in group
            if isinstance(h, CommandHandler)
            for c in h.commands
        }
    )


async def test_every_command_with_any_argument_gets_a_reply_in_a_group_and_in_a_dm(
    tmp_path, caplog
):
    async with FakeTelegram() as world:
        alice = world.user("Alice")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            game_id = await start_with_computers(world, group, [alice])
            await play_out(world, app, game_id, {0: alice}, stop=lambda g: g.match.hand.turn == 0)
            commands = registered_commands(app)
            assert {"takeover", "startlevel", "start", "newgame", "rules"} <= set(commands)
            silent = []
            for chat in (group, alice):
                for command in commands:
                    for arg in ARGUMENTS:
                        text = f"/{command} {arg}".strip()[:4096]
                        before = sum(m.from_bot for m in world.transcript(chat))
                        await alice.send(chat, text) if chat is group else await alice.send(text)
                        await world.settle()
                        if sum(m.from_bot for m in world.transcript(chat)) == before:
                            silent.append((chat.__class__.__name__, text[:20]))
            assert not silent
            assert not problems(caplog), [r.getMessage() for r in problems(caplog)]
            assert service(app).games[game_id].rec.status == "running"  # nothing ended it


async def test_a_command_that_fails_gets_an_apology_and_one_log_line_without_personal_data(
    tmp_path, caplog, monkeypatch
):
    async with FakeTelegram(auto_settle=True) as world:
        alice = world.user("Alice", last_name="Secretname")
        group = world.group("Table", admins=[alice])

        async def broken(*args):
            raise RuntimeError("a bug")

        monkeypatch.setattr("bot.data.history.group_stats", broken)
        monkeypatch.setattr("bot.data.history.player_stats", broken)
        async with running_bot(world, tmp_path / "db"):
            game_id, _ = await seat_players(world, group, [alice])  # a lobby, Alice seated
            for chat in (group, alice):
                await alice.send(chat, "/stats private words")
                reply = world.last_message(chat, from_bot=True)
                assert "Sorry" in reply.text and "try again" in reply.text
        group_line, dm_line = [r.getMessage() for r in problems(caplog)]
        assert f"in chat {group.id} game {game_id} command /stats" in group_line
        assert f"in chat {alice.id} game {game_id} command /stats" in dm_line
        for personal in ("Alice", "Secretname", "private words"):
            assert personal not in group_line + dm_line


async def test_forged_callback_data_is_answered_without_a_traceback(tmp_path, caplog):
    async with FakeTelegram() as world:
        alice = world.user("Alice")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            game_id = await start_with_computers(world, group, [alice])
            await play_out(world, app, game_id, {0: alice}, stop=lambda g: g.match.hand.turn == 0)
            msg = hand_message(world, alice, game_id)
            table = world.last_message(group, from_bot=True)
            forged = [
                "P|\udcff|1|1|",  # not valid Unicode (invalid UTF-8 on the wire)
                "\udcff\udcfe",
                "cfg|lang|\udcff",
                "cfg|\udcff",
                "P|1|1|1|\x00\x01",
                "|||||||",
                "T|" + "z" * 13 + "|1|1|a",
            ]
            records = [world.core.callback(alice.user, msg, d) for d in forged]
            records += [world.core.callback(alice.user, table, d) for d in forged]
            await world.settle()
        assert all(r.answered for r in records)
        assert all(r.text == "Unknown button." for r in records), {r.text for r in records}
        assert not problems(caplog, logging.WARNING)
        assert not any(r.exc_info for r in caplog.records)


async def test_a_full_disk_is_one_clear_line_not_an_unretrieved_task(tmp_path, caplog, monkeypatch):
    async with FakeTelegram() as world:
        alice = world.user("Alice")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            game_id = await start_with_computers(world, group, [alice])
            await play_out(world, app, game_id, {0: alice}, stop=lambda g: g.match.hand.turn == 0)
            db = service(app).store.db

            async def full():
                raise sqlite3.OperationalError("database or disk is full")

            monkeypatch.setattr(db, "commit", full)
            msg = hand_message(world, alice, game_id)
            card = next(b for row in msg.buttons() for b in row if b.data.startswith("T|"))
            answer = await alice.press(msg, data=card.data)  # a selection: saved, not waited for
            await world.settle()
            monkeypatch.undo()
        gc.collect()
        assert answer.answered
        store_lines = [r.getMessage() for r in problems(caplog) if r.name == "bot.data.store"]
        assert store_lines == ["the database could not commit: database or disk is full"]
        assert not any("never retrieved" in r.getMessage() for r in caplog.records)


async def test_a_database_that_cannot_grow_is_one_line_a_try_and_the_game_goes_on_after(
    tmp_path, caplog
):
    """No room for the database (SQLite's own limit, as a full disk): the moves that
    cannot be saved fail with a line each, no traceback; with room again, play goes on."""
    async with FakeTelegram() as world:
        alice = world.user("Alice")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            game_id = await start_with_computers(world, group, [alice])
            await play_out(world, app, game_id, {0: alice}, stop=lambda g: g.match.hand.turn == 0)
            game, db = service(app).games[game_id], service(app).store.db
            async with db.execute("PRAGMA page_count") as cur:
                (pages,) = await cur.fetchone()
            await db.execute(f"PRAGMA max_page_count = {pages}")
            await press(alice, hand_message(world, alice, game_id), "H")
            # the computers then try their moves on and on (they take no pause here): the
            # bot is never idle, so nothing settles until there is room again
            answer = await press(alice, hand_message(world, alice, game_id), "P", settle=False)
            await wait_for(world, lambda: answer.answered and problems(caplog))
            errors = problems(caplog)
            assert errors and not any(r.exc_info for r in caplog.records)
            assert all("database or disk is full" in r.getMessage() for r in errors)
            await db.execute("PRAGMA max_page_count = 1073741823")
            tricks = len(game.match.hand.tricks)
            await play_out(
                world, app, game_id, {0: alice}, stop=lambda g: len(g.match.hand.tricks) > tricks
            )


async def test_start_after_unblocking_brings_the_hand_back_and_resumes_the_game(tmp_path):
    async with FakeTelegram() as world:
        alice, bob = world.user("Alice"), world.user("Bob")
        group = world.group("Table", members=[bob], admins=[alice])
        users = {0: alice, 1: bob}
        async with running_bot(world, tmp_path / "db") as app:
            game_id = await start_with_computers(world, group, [alice, bob])
            await play_out(
                world, app, game_id, users, stop=lambda g: g.match.hand.phase == "playing"
            )
            bob.block_bot()
            await play_out(world, app, game_id, users, stop=lambda g: g.rec.paused)
            game = service(app).games[game_id]
            await world.settle()
            assert "paused" in world.last_message(group, from_bot=True).text
            sent_before = len(world.transcript(bob))
            await bob.start_bot()  # unblocks: Telegram sends a bare /start
            await world.settle()
            assert not game.rec.paused
            new = [m.text for m in world.transcript(bob)[sent_before:] if m.from_bot]
            assert any("Welcome back" in t for t in new)
            hand = hand_message(world, bob, game_id)
            assert hand.message_id > world.transcript(bob)[sent_before - 1].message_id
            await play_out(
                world, app, game_id, users, stop=lambda g: g.match.hand_number > 1, group=group
            )


async def test_edits_answered_true_count_as_done(tmp_path, caplog):
    async with FakeTelegram() as world:
        alice = world.user("Alice")
        group = world.group("Table", admins=[alice])
        world.core.edits_answer_true = True
        async with running_bot(world, tmp_path / "db") as app:
            game_id = await start_with_computers(world, group, [alice])
            await play_out(
                world, app, game_id, {0: alice}, stop=lambda g: len(g.match.hand.tricks) >= 2
            )
            edits = [r for r in world.requests("editMessageText") if r.ok]
            assert len(edits) > 10 and all(r.result is True for r in edits)
            # the table was edited on, trick by trick, in the one message
            tables = [m for m in world.transcript(group) if m.from_bot and "🂠" in (m.text or "")]
            assert len(tables) <= 1
        assert not [
            r for r in caplog.records if r.name == "bot.delivery.outbox" and r.levelno >= 30
        ]


async def test_every_html_text_of_a_match_and_the_help_screens_is_strictly_escaped(tmp_path):
    async with FakeTelegram() as world:
        alice, bob = world.user("Alice & <Bob>"), world.user("Bob > Carol")
        group = world.group("R&D <table>", members=[bob], admins=[alice])
        async with running_bot(world, tmp_path / "db", next_hand_delay_seconds=0.01) as app:
            await alice.send(group, "/startlevel A")
            await alice.send(group, "/settings")
            await world.settle()
            settings = world.last_message(group, from_bot=True)
            for label in ("Overturn", "翻"):
                b = next((b for r in settings.buttons() for b in r if label in b.text), None)
                if b is not None:
                    await alice.press(settings, data=b.data)
                    await world.settle()
            for text in ("/rules", "/rules declaring", "/rules levels", "/help", "/last"):
                await alice.send(group, text)
            await alice.start_bot()
            for text in ("/help", "/rules", "/rules declaring", "/stats"):
                await alice.send(text)
            await world.settle()
            game_id = await start_with_computers(world, group, [alice, bob])
            await play_out(world, app, game_id, {0: alice, 1: bob}, group=group)
            for text in ("/last", "/stats"):
                await alice.send(group, text)
                await alice.send(text)
            await world.settle()
        sent = [
            r.params.get("text") or r.params.get("caption")
            for r in world.core.log
            if r.method in ("sendMessage", "editMessageText", "sendPhoto", "editMessageCaption")
            and str(r.params.get("parse_mode", "")).upper() == "HTML"
        ]
        assert len(sent) > 100
        bare = {text: unescaped(text) for text in sent if unescaped(text)}
        assert not bare, next(iter(bare.items()))
        assert any("&gt;" in text for text in sent)  # /rules declaring: ♠ > ♥ > ♣ > ♦
        assert any("&amp;" in text for text in sent)  # the winners' names, joined
