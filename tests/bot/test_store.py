from bot.data.saved import ChatSettings, GameRecord, Seat
from bot.data.store import Store


async def test_a_game_survives_reopening_the_database(tmp_path):
    path = tmp_path / "db.sqlite3"
    store = await Store(path).open()
    rec = await store.create_game(GameRecord(chat_id=-100, creator_id=1, chat_title="G"))
    rec.seats[2] = Seat(user_id=5, name="Bo")
    await store.save_game(rec)
    await store.save_shown(-100, "g1:lobby", 42, "abc")
    await store.close()

    store = await Store(path).open()
    again = await store.load_game(rec.id)
    assert again is not None and again.seats[2].name == "Bo"
    assert await store.all_shown() == [(-100, "g1:lobby", 42, "abc")]
    assert [g.id for g in await store.open_games()] == [rec.id]
    async with store.db.execute("PRAGMA journal_mode") as cur:
        assert (await cur.fetchone())[0] == "wal"
    await store.close()


async def test_one_open_game_per_chat_and_topic(tmp_path):
    store = await Store(tmp_path / "db").open()
    a = await store.create_game(GameRecord(chat_id=-1, creator_id=1))
    await store.create_game(GameRecord(chat_id=-1, thread_id=7, creator_id=1))
    assert (await store.open_game_in(-1, None)).id == a.id
    assert (await store.open_game_in(-1, 7)).thread_id == 7
    a.status = "finished"
    await store.save_game(a)
    assert await store.open_game_in(-1, None) is None
    await store.close()


async def test_message_ids_kept_in_game_records_move_to_what_messages_show(tmp_path):
    """A database of the first schema: the ids of the group's and the players' messages
    lived in the game record; after the upgrade a restart still edits them."""
    import json

    import aiosqlite

    from bot.data import store as store_module

    path = tmp_path / "old.sqlite3"
    async with aiosqlite.connect(path) as db:
        await db.executescript(store_module._MIGRATIONS[0])
        await db.execute("PRAGMA user_version = 1")
        record = {
            "id": 1,
            "chat_id": -7,
            "creator_id": 1,
            "status": "running",
            "seats": [{"user_id": 11}, {"user_id": 12}, {"computer": True}, {}],
            "group_messages": {"g1:lobby": 3, "g1:h1:t0": 4},
            "dm_messages": {"0": 5, "1": 6},
        }
        await db.execute(
            "INSERT INTO games(id, chat_id, thread_id, status, record, updated_at)"
            " VALUES (1, -7, NULL, 'running', ?, 0)",
            (json.dumps(record),),
        )
        await db.commit()
    store = await Store(path).open()
    assert sorted(await store.all_shown()) == [
        (-7, "g1:h1:t0", 4, None),
        (-7, "g1:lobby", 3, None),
        (11, "g1:hand", 5, None),
        (12, "g1:hand", 6, None),
    ]
    assert (await store.load_game(1)).seats[0].user_id == 11
    await store.close()


async def test_chat_settings(tmp_path):
    store = await Store(tmp_path / "db").open()
    assert (await store.chat_settings(-5)).preset == "classic"
    await store.save_chat_settings(ChatSettings(chat_id=-5, lang="en", preset="tournament"))
    s = await store.chat_settings(-5)
    assert (s.lang, s.preset) == ("en", "tournament")
    await store.close()


async def test_a_full_disk_while_noting_a_shown_message_is_one_line_and_no_exception(
    tmp_path, caplog
):
    store = await Store(str(tmp_path / "db")).open()
    try:
        await store.save_shown(-5, "table", 1, "a")
        async with store.db.execute("PRAGMA page_count") as cur:
            row = await cur.fetchone()
        assert row is not None
        await store.db.execute(f"PRAGMA max_page_count = {row[0]}")
        many = [(-6 - i, "x" * 500, i, "d" * 500) for i in range(200)]
        for chat_id, key, message_id, digest in many:  # fills what room is left
            await store.save_shown(chat_id, key, message_id, digest)
        errors = [r for r in caplog.records if r.levelname == "WARNING"]
        assert errors and not any(r.exc_info for r in errors)
        assert "database or disk is full" in errors[0].getMessage()
        assert "not recorded" in errors[0].getMessage()
        await store.db.execute("PRAGMA max_page_count = 1073741823")
        await store.save_shown(-5, "table", 2, "b")
        assert (-5, "table", 2, "b") in await store.all_shown()
    finally:
        await store.close()


async def _committed_shown(path) -> list[tuple[int, str, int, str | None]]:
    """What another connection reads: only what was committed."""
    import sqlite3

    with sqlite3.connect(path) as db:
        return [tuple(r) for r in db.execute("SELECT chat_id, key, message_id, digest FROM shown")]


async def test_an_edits_note_rides_with_the_next_commit_and_makes_none_of_its_own(tmp_path):
    path = tmp_path / "db"
    store = await Store(path).open()
    try:
        rec = await store.create_game(GameRecord(chat_id=-1, creator_id=1))
        await store.save_shown(-1, "g1:table", 10, "a")  # a new message: committed at once
        assert await _committed_shown(path) == [(-1, "g1:table", 10, "a")]
        commits = 0
        commit = store.db.commit

        async def counted() -> None:
            nonlocal commits
            commits += 1
            await commit()

        store.db.commit = counted  # type: ignore[method-assign]
        for digest in ("b", "c", "d"):  # three edits: noted, nothing written yet
            store.note_shown(-1, "g1:table", 10, digest)
        assert commits == 0 and await _committed_shown(path) == [(-1, "g1:table", 10, "a")]
        await store.save_game(rec)  # the game's save commits the last edit's note with it
        assert commits == 1 and await _committed_shown(path) == [(-1, "g1:table", 10, "d")]
    finally:
        await store.close()


async def test_an_edits_note_is_committed_within_the_delay_when_no_game_saves(
    tmp_path, monkeypatch
):
    import asyncio

    from bot.data import store as store_module

    monkeypatch.setattr(store_module, "NOTE_DELAY", 0.05)
    path = tmp_path / "db"
    store = await Store(path).open()
    try:
        await store.save_shown(-1, "g1:hand", 3, "a")
        store.note_shown(-1, "g1:hand", 3, "b")
        await asyncio.sleep(0.3)
        assert await _committed_shown(path) == [(-1, "g1:hand", 3, "b")]
    finally:
        await store.close()


async def test_the_last_edits_note_is_written_when_the_store_closes(tmp_path):
    path = tmp_path / "db"
    store = await Store(path).open()
    await store.save_shown(-1, "g1:hand", 3, "a")
    store.note_shown(-1, "g1:hand", 3, "z")
    await store.close()
    assert await _committed_shown(path) == [(-1, "g1:hand", 3, "z")]


async def test_a_forgotten_message_stays_forgotten_whatever_note_was_waiting(tmp_path):
    path = tmp_path / "db"
    store = await Store(path).open()
    try:
        await store.save_shown(-1, "g1:hand", 3, "a")
        store.note_shown(-1, "g1:hand", 3, "b")
        await store.save_shown(-1, "g1:hand", None, None)
        assert await _committed_shown(path) == []
    finally:
        await store.close()


async def test_the_match_is_saved_in_its_own_column_only_when_it_changed(tmp_path):
    path = tmp_path / "db"
    store = await Store(path).open()
    try:
        rec = await store.create_game(GameRecord(chat_id=-1, creator_id=1))
        rec.match_json = '{"levels": [0, 0]}'
        await store.save_game(rec)
        rec.seats[0] = Seat(user_id=5, name="Bo")  # a record-only change (a seat, a selection)
        rec.match_json = "not written"
        record = await store.save_game(rec, match=False)
        assert "match_json" not in record  # never escaped again inside the record
        again = await store.load_game(rec.id)
        assert again is not None and again.seats[0].name == "Bo"
        assert again.match_json == '{"levels": [0, 0]}'
    finally:
        await store.close()


async def test_a_saved_match_moves_out_of_its_record_when_the_schema_migrates(tmp_path):
    import json
    import sqlite3

    from bot.data import store as store_module

    path = tmp_path / "db"
    with sqlite3.connect(path) as db:  # a database of schema version 4: the match inside
        for script in store_module._MIGRATIONS[:4]:
            db.executescript(script)
        db.execute("PRAGMA user_version = 4")
        old = GameRecord(id=1, chat_id=-1, creator_id=1, status="running", match_json='{"a": 1}')
        db.execute(
            "INSERT INTO games(id, chat_id, status, record, updated_at) VALUES (1, -1, ?, ?, 0)",
            (old.status, old.model_dump_json()),
        )
    store = await Store(path).open()
    try:
        rec = await store.load_game(1)
        assert rec is not None and rec.match_json == '{"a": 1}'
        async with store.db.execute("SELECT record, match FROM games") as cur:
            record, match = await cur.fetchone()
        assert "match_json" not in json.loads(record) and match == '{"a": 1}'
    finally:
        await store.close()


def test_a_seat_saved_with_its_screen_state_flat_reads_it_as_the_seats_ui():
    """The screen's state (selection, last Hint, "Why?", counter) has a name of its own
    (``Seat.ui``), apart from the rules' state; a record saved before kept it flat."""
    hinted = {"hand": 2, "version": 9, "cards": [5, 6], "reason": {"kind": "lead_master"}}
    flat = {"user_id": 5, "name": "Bo", "auto": True, "selection": [5, 6], "hint": hinted}
    seat = Seat.model_validate({**flat, "why": 3, "tally": True})
    assert (seat.user_id, seat.name, seat.auto) == (5, "Bo", True)
    assert (seat.ui.selection, seat.ui.why, seat.ui.tally) == ([5, 6], 3, True)
    assert seat.ui.hint is not None and seat.ui.hint.cards == [5, 6]
    saved = seat.model_dump()
    assert "selection" not in saved and saved["ui"]["selection"] == [5, 6]
    assert Seat.model_validate_json(seat.model_dump_json()) == seat
    assert Seat.model_validate({"user_id": 7}).ui.selection == []


async def test_a_commit_under_way_when_the_store_closes_is_finished_before_it_closes(
    tmp_path, caplog
):
    """A selection (a light save, not waited for) and an edit's note, whose commit had
    started writing the note when the bot stopped: both committed, nothing logged."""
    import asyncio
    import logging

    path = tmp_path / "db"
    store = await Store(path).open()
    rec = await store.create_game(GameRecord(chat_id=-1, creator_id=1))
    await store.save_shown(-1, "g1:hand", 3, "a")
    store.note_shown(-1, "g1:hand", 3, "b")  # an edit delivered: its note waits
    rec.seats[0] = Seat(user_id=5, name="Bo")  # a selection: a light save
    await store.save_game(rec, wait=False, match=False)
    await asyncio.sleep(0)  # its commit starts: it takes the note and writes it
    await store.close()
    assert await _committed_shown(path) == [(-1, "g1:hand", 3, "b")]
    again = await Store(path).open()
    try:
        saved = await again.load_game(rec.id)
        assert saved is not None and saved.seats[0].name == "Bo"
    finally:
        await again.close()
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_note_made_while_the_store_closes_is_committed_and_one_after_is_refused(
    tmp_path,
):
    """An outbox delivering its last edit while the store closes: the note is committed
    with the store's last commit. Once closed, a write raises (nothing is lost
    silently)."""
    import asyncio

    import pytest

    path = tmp_path / "db"
    store = await Store(path).open()
    rec = await store.create_game(GameRecord(chat_id=-1, creator_id=1))
    await store.save_shown(-1, "g1:hand", 3, "a")
    closing = asyncio.create_task(store.close())
    await asyncio.sleep(0)  # the store is closing: its last commit under way
    store.note_shown(-1, "g1:hand", 3, "b")
    await closing
    assert await _committed_shown(path) == [(-1, "g1:hand", 3, "b")]
    with pytest.raises(RuntimeError, match="not open"):
        store.note_shown(-1, "g1:hand", 3, "c")
    with pytest.raises(RuntimeError, match="not open"):
        await store.save_game(rec, wait=False)
