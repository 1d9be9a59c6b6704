"""History records: written once per hand, the deal replays from the seed, an old store
gains the history tables in place."""

import random

import aiosqlite

from bot import history
from bot.models import GameRecord, Seat
from bot.store import _MIGRATIONS, Store
from engine.hand import Deal
from engine.match import MatchState
from engine.players import choose_action
from engine.rules import RuleSet


def play_hands(match: MatchState, hands: int, rng: random.Random) -> list[list[list[int]]]:
    """Play ``hands`` hands with the computer; returns each hand's cards right after the deal."""
    dealt = []
    for _ in range(hands):
        if match.hand_number > 1 or match.hand.result is not None:
            match.start_next_hand()
        while match.hand.phase == "dealing":
            match.apply(Deal(n=100))
        dealt.append([list(h) for h in match.hand.hands])
        while match.hand.result is None:
            seat = match.hand.next_actor().seats[0]
            match.apply(choose_action(match.hand.observation(seat), rng))
    return dealt


async def test_a_hand_is_kept_once_and_its_deal_replays_from_the_seed(tmp_path):
    store = await Store(tmp_path / "db").open()
    rec = GameRecord(id=7, chat_id=-5, creator_id=1, chat_title="T")
    rec.seats = [Seat(user_id=1, name="A")] + [Seat(computer=True) for _ in range(3)]
    match = MatchState.new(RuleSet(), seed=99)
    rng = random.Random(1)
    dealt = play_hands(match, 1, rng)
    assert await history.hand_over(store, rec, match, 1.0) is None  # the match goes on
    await history.hand_over(store, rec, match, 2.0)  # again: ignored
    dealt += play_hands(match, 1, rng)
    await history.hand_over(store, rec, match, 3.0)
    await store.db.commit()
    rows = await store.db.execute_fetchall("SELECT hand_no FROM hands ORDER BY id")
    assert [r[0] for r in rows] == [1, 2]
    people = await store.db.execute_fetchall("SELECT COUNT(*) FROM hand_players")
    assert people[0][0] == 2  # one person, two hands; computers are not counted
    kept = await history.last_hand(store, -5)
    assert kept.hand_no == 2 and kept.dealt() == dealt[1]
    assert kept.hand.result == match.hand.result
    await store.close()


async def test_an_old_store_gains_the_history_tables_and_keeps_its_games(tmp_path):
    path = tmp_path / "db"
    async with aiosqlite.connect(path) as db:
        await db.executescript(_MIGRATIONS[0])
        await db.execute("PRAGMA user_version = 1")
        await db.execute("INSERT INTO chats(chat_id, settings) VALUES (-1, '{\"chat_id\": -1}')")
        await db.commit()
    store = await Store(path).open()
    assert (await store.chat_settings(-1)).chat_id == -1
    assert await history.group_stats(store, -1) == history.GroupStats()
    version = await store.db.execute_fetchall("PRAGMA user_version")
    assert version[0][0] == len(_MIGRATIONS)
    await store.close()
