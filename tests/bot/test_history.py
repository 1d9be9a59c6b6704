"""History records: written once per hand, the kept hand says its deal, an old store
gains the history tables in place."""

import random

import aiosqlite

from bot.data import history
from bot.data.saved import GameRecord, Seat
from bot.data.store import _MIGRATIONS, Store
from engine.hand import Deal
from engine.match import MatchState
from engine.players import choose_action
from engine.rules import RuleSet
from engine.scoring import advance, hand_outcome


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


async def test_a_hand_is_kept_once_and_says_its_deal(tmp_path):
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
    assert kept.hand_no == 2 and kept.hand.dealt_hands() == dealt[1]
    assert kept.hand.result == match.hand.result
    # a record kept by an older version (it carried the first dealer) still loads
    old = kept.model_dump(mode="json") | {"first_dealer": match.results[0].next_dealer}
    assert history.HandRecord.model_validate(old).hand.dealt_hands() == dealt[1]
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


async def test_levels_gained_count_a_full_round_under_wrap_with_an_open_ended_table(tmp_path):
    """A 13-step rise under ``wrap`` (the tournament table has no cap: 340 points are
    +13) lands on the same rank: the stats count 13 levels, not 0."""
    store = await Store(tmp_path / "db").open()
    rec = GameRecord(id=7, chat_id=-5, creator_id=1, chat_title="T")
    rec.seats = [Seat(user_id=1, name="A"), Seat(user_id=2, name="B")] + [
        Seat(computer=True) for _ in range(2)
    ]
    rules = RuleSet.from_preset("tournament", match_end="wrap", must_play=[])
    match = MatchState.new(rules, seed=99)
    play_hands(match, 1, random.Random(1))
    r = match.hand.result
    attackers = 1 - r.defenders
    up, steps = hand_outcome(rules, 340)
    assert (up, steps) == ("attackers", 13)
    after = list(r.levels_before)
    after[attackers] = advance(rules, after[attackers], steps, defended=False)
    assert after == r.levels_before  # a full round: the same rank again
    forged = r.model_copy(
        update={"winner": up, "steps": steps, "attackers_points": 340, "levels_after": after}
    )
    match.hand.result = match.results[-1] = forged
    await history.hand_over(store, rec, match, 1.0)
    await store.db.commit()
    stats = await history.group_stats(store, -5)
    gained = {p.name: p.levels for p in stats.players}
    seat_of = {"A": 0, "B": 1}
    assert gained == {n: 13 if seat % 2 == attackers else 0 for n, seat in seat_of.items()}
    assert history.progression(match)[-1][attackers] == r.levels_before[attackers] + 13
    await store.close()
