"""What a group remembers: every finished hand and match, for /last, /stats and the level
chart (issue 11; the stats follow RULES.md 11's words: defenders, attackers, levels).

A hand is kept whole: the engine's final :class:`~engine.hand.HandState` holds the deal's
seed and deck, every action (its log), the shows, the kitty, each trick and the result;
the seats say who played. It is written once, when the hand ends, in the same transaction
as the game's own save (no extra commit: a press that ends a hand costs one more INSERT,
other presses nothing). The rows of ``hand_players`` / ``match_players`` (people only,
not computers) carry what /stats adds up, so the stats are SQL aggregates.

**[decided]** "Levels gained" are the levels a player's team actually went up in hands
they played (a stop or the target caps them); "held" is a defence that kept the deal
(attackers under 80), "took over" an attack that reached 80. Only finished matches (a
winner, by play or by the time limit) count as played; a match ended with /endgame
does not, its hands do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel

from bot.data.saved import GameRecord
from bot.data.store import Store
from engine.hand import HandState, team_of
from engine.match import MatchState


class Player(BaseModel):
    user_id: int | None = None
    name: str = ""
    computer: bool = False


class HandRecord(BaseModel):
    game_id: int
    chat_id: int
    chat_title: str = ""
    hand_no: int
    finished_at: float
    seats: list[Player]
    # the final state: its deck, log, tricks and result; ``hand.dealt_hands()`` is the deal
    hand: HandState


class MatchRecord(BaseModel):
    game_id: int
    chat_id: int
    chat_title: str = ""
    finished_at: float
    winner: int  # team: 0 = seats 1+3 (A), 1 = seats 2+4 (B)
    ended_by_time: bool = False
    seats: list[Player]
    # per team, the level before hand 1 and after each hand, counted on past A (wrap)
    progression: list[list[int]]


def _players(rec: GameRecord) -> list[Player]:
    return [Player(user_id=s.user_id, name=s.name, computer=s.computer) for s in rec.seats]


def progression(match: MatchState) -> list[list[int]]:
    """Each team's level before hand 1 and after every hand, unwrapped (A + 1 = 14th)."""
    levels = [match.rules.start_level] * 2
    out = [list(levels)]
    for r in match.results:
        up = r.climbed(match.rules)
        levels = [levels[t] + up[t] for t in (0, 1)]
        out.append(list(levels))
    return out


@dataclass(slots=True)
class Charted:
    """(An event of the change path, beside the table's: the history says it.) The
    match ended and was kept: its level chart is shown."""

    record: MatchRecord
    kind: Literal["charted"] = "charted"


async def hand_over(
    store: Store, rec: GameRecord, match: MatchState, now: float
) -> MatchRecord | None:
    """The hand just ended: keep it (and the match, if it is over). Not committed: the
    caller's save of the game commits both. Returns the match's record if it just ended."""
    hand, result = match.hand, match.hand.result
    if result is None:
        return None
    record = HandRecord(
        game_id=rec.id,
        chat_id=rec.chat_id,
        chat_title=rec.chat_title,
        hand_no=hand.hand_number,
        finished_at=now,
        seats=_players(rec),
        hand=hand,
    )
    db = store.db
    cur = await db.execute(
        "INSERT OR IGNORE INTO hands(chat_id, game_id, hand_no, finished_at, attackers_points,"
        " kitty_bonus, record) VALUES (?,?,?,?,?,?,?)",
        (
            rec.chat_id,
            rec.id,
            hand.hand_number,
            now,
            result.attackers_points,
            result.kitty_bonus,
            record.model_dump_json(),
        ),
    )
    if not cur.rowcount:
        return None  # already kept
    hand_id = cur.lastrowid
    rows = []
    up = result.climbed(match.rules)
    for seat, s in enumerate(rec.seats):
        if s.user_id is None or s.computer:
            continue
        team = team_of(seat)
        defended = team == result.defenders
        won = team == result.winning_team
        rows.append((hand_id, seat, s.user_id, rec.chat_id, s.name, defended, won, up[team]))
    await db.executemany(
        "INSERT INTO hand_players(hand_id, seat, user_id, chat_id, name, defended, won,"
        " levels_gained) VALUES (?,?,?,?,?,?,?,?)",
        rows,
    )
    if match.winner is None:
        return None
    m = MatchRecord(
        game_id=rec.id,
        chat_id=rec.chat_id,
        chat_title=rec.chat_title,
        finished_at=now,
        winner=match.winner,
        ended_by_time=match.ended_by_time,
        seats=_players(rec),
        progression=progression(match),
    )
    await db.execute(
        "INSERT OR IGNORE INTO matches(game_id, chat_id, finished_at, winner, record)"
        " VALUES (?,?,?,?,?)",
        (rec.id, rec.chat_id, now, match.winner, m.model_dump_json()),
    )
    await db.executemany(
        "INSERT OR IGNORE INTO match_players(game_id, seat, user_id, chat_id, name, won)"
        " VALUES (?,?,?,?,?,?)",
        [
            (rec.id, seat, s.user_id, rec.chat_id, s.name, team_of(seat) == match.winner)
            for seat, s in enumerate(rec.seats)
            if s.user_id is not None and not s.computer
        ],
    )
    return m


# ---------------------------------------------------------------- reading
async def last_hand(store: Store, chat_id: int) -> HandRecord | None:
    async with store.db.execute(
        "SELECT record FROM hands WHERE chat_id=? ORDER BY id DESC LIMIT 1", (chat_id,)
    ) as cur:
        row = await cur.fetchone()
    return HandRecord.model_validate_json(row[0]) if row else None


async def last_hand_of(store: Store, user_id: int) -> HandRecord | None:
    """The last hand a person played, in any group."""
    async with store.db.execute(
        "SELECT h.record FROM hands h JOIN hand_players p ON p.hand_id = h.id"
        " WHERE p.user_id=? ORDER BY h.id DESC LIMIT 1",
        (user_id,),
    ) as cur:
        row = await cur.fetchone()
    return HandRecord.model_validate_json(row[0]) if row else None


@dataclass
class PlayerStats:
    user_id: int
    name: str = ""
    groups: int = 0
    matches: int = 0
    won: int = 0
    levels: int = 0
    defended: int = 0
    held: int = 0
    attacked: int = 0
    took_over: int = 0


@dataclass(frozen=True)
class Highlight:
    """A record hand: its value, the attackers who made it, where."""

    value: int
    hand: HandRecord

    @property
    def attackers(self) -> list[int]:
        result = self.hand.hand.result
        assert result is not None
        return [s for s in range(4) if team_of(s) != result.defenders]


@dataclass
class GroupStats:
    matches: int = 0
    hands: int = 0
    players: list[PlayerStats] = field(default_factory=list)
    biggest_kitty: Highlight | None = None
    most_points: Highlight | None = None


_HAND_SUMS = (
    "SELECT user_id, name, MAX(hand_id), COUNT(DISTINCT chat_id), SUM(defended),"
    " SUM(defended * won), SUM(1 - defended), SUM((1 - defended) * won), SUM(levels_gained)"
    " FROM hand_players WHERE {where} GROUP BY user_id"
)
_MATCH_SUMS = "SELECT user_id, COUNT(*), SUM(won) FROM match_players WHERE {where} GROUP BY user_id"


async def _players_stats(store: Store, where: str, arg: int) -> dict[int, PlayerStats]:
    out: dict[int, PlayerStats] = {}
    async with store.db.execute(_HAND_SUMS.format(where=where), (arg,)) as cur:
        for uid, name, _, groups, dfd, held, att, took, levels in await cur.fetchall():
            out[uid] = PlayerStats(uid, name, groups, 0, 0, levels, dfd, held, att, took)
    async with store.db.execute(_MATCH_SUMS.format(where=where), (arg,)) as cur:
        for uid, played, won in await cur.fetchall():
            p = out.setdefault(uid, PlayerStats(uid))
            p.matches, p.won = played, won
    return out


async def _highlight(store: Store, chat_id: int, column: str) -> Highlight | None:
    async with store.db.execute(
        f"SELECT {column}, record FROM hands WHERE chat_id=? AND {column} > 0"
        f" ORDER BY {column} DESC, id LIMIT 1",
        (chat_id,),
    ) as cur:
        row = await cur.fetchone()
    return Highlight(row[0], HandRecord.model_validate_json(row[1])) if row else None


async def _count(store: Store, sql: str, *args: object) -> int:
    async with store.db.execute(sql, args) as c:
        row = await c.fetchone()
    assert row is not None  # COUNT(*) answers one row
    return int(row[0])


async def group_stats(store: Store, chat_id: int) -> GroupStats:
    stats = GroupStats()
    stats.matches = await _count(store, "SELECT COUNT(*) FROM matches WHERE chat_id=?", chat_id)
    stats.hands = await _count(store, "SELECT COUNT(*) FROM hands WHERE chat_id=?", chat_id)
    players = await _players_stats(store, "chat_id=?", chat_id)
    stats.players = sorted(players.values(), key=lambda p: (-p.won, -p.levels, p.name))
    stats.biggest_kitty = await _highlight(store, chat_id, "kitty_bonus")
    stats.most_points = await _highlight(store, chat_id, "attackers_points")
    return stats


async def player_stats(store: Store, user_id: int) -> PlayerStats | None:
    """A person's record across every group."""
    return (await _players_stats(store, "user_id=?", user_id)).get(user_id)
