from bot.models import ChatSettings, GameRecord, Seat
from bot.store import Store


async def test_a_game_survives_reopening_the_database(tmp_path):
    path = tmp_path / "db.sqlite3"
    store = await Store(path).open()
    rec = await store.create_game(GameRecord(chat_id=-100, creator_id=1, chat_title="G"))
    rec.seats[2] = Seat(user_id=5, name="Bo")
    rec.group_messages["g1:lobby"] = 42
    await store.save_game(rec)
    await store.close()

    store = await Store(path).open()
    again = await store.load_game(rec.id)
    assert again is not None and again.seats[2].name == "Bo"
    assert again.group_messages == {"g1:lobby": 42}
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


async def test_chat_settings_and_dm_users(tmp_path):
    store = await Store(tmp_path / "db").open()
    assert (await store.chat_settings(-5)).preset == "classic"
    await store.save_chat_settings(ChatSettings(chat_id=-5, lang="en", preset="tournament"))
    s = await store.chat_settings(-5)
    assert (s.lang, s.preset) == ("en", "tournament")
    assert not await store.dm_ok(9)
    await store.mark_dm_ok(9, "en")
    assert await store.dm_ok(9)
    await store.close()
