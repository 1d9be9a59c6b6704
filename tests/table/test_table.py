"""The bot's own game as a state machine (``bot.table``), without Telegram, a store or
a clock: a command and a moment go in, events and the answer come out."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import TypeVar

from bot.data.saved import GameRecord
from bot.table import (
    Answer,
    Moment,
    Outcome,
    Table,
    apply,
    deciding,
    due,
    restarted,
    showing,
    turn_clock,
)
from bot.table.commands import (
    AddComputer,
    AtSeat,
    Clear,
    DmBack,
    DmLost,
    End,
    Hint,
    Join,
    Leave,
    Pass,
    Play,
    RemoveComputer,
    Select,
    Start,
    Suggestion,
    TakeOver,
    Tick,
)
from bot.table.tokens import TimerKind
from engine.events import HandSettled, MatchWon, Played, TrickWon
from engine.hand import Show
from engine.players import get, suggest
from engine.players.heuristic import choose_bury_reasoned, suggest_reasoned

CREATOR, BEN = 101, 102
C = TypeVar("C", bound=AtSeat)


@dataclass
class Pace:
    deal_batch: int = 25
    deal_pace_seconds: float = 1.0
    overturn_window_seconds: float = 15.0
    turn_timeout_seconds: float = 60.0
    lobby_expiry_minutes: float = 30.0
    next_hand_delay_seconds: float = 20.0
    computer_delay_seconds: float = 1.0


PACE = Pace()
START = Moment(1000.0, 1_700_000_000.0)


class At:
    """The moments of a test: it only moves forward."""

    def __init__(self) -> None:
        self.moment = START

    def after(self, seconds: float) -> Moment:
        self.moment = Moment(self.moment.now + seconds, self.moment.wall + seconds)
        return self.moment


def kinds(out: Outcome) -> list[str]:
    return [e.kind for e in out.events]


def new_table(seed: int = 7) -> Table:
    rec = GameRecord(id=1, chat_id=-100, creator_id=CREATOR, seed=seed, created_at=START.wall)
    return Table(rec)


def seen(table: Table) -> tuple[int, int]:
    """The hand number and the version a person sees now."""
    hand = table.match.hand if table.match is not None else None
    return (hand.hand_number, hand.version) if hand is not None else (0, 0)


def at_seat(table: Table, command: type[C], user: int = CREATOR, *args: int) -> C:
    """``command`` by ``user`` on what the table shows now."""
    return command(user, *seen(table), *args)


def started(seed: int = 7) -> tuple[Table, At]:
    """The creator in seat 1 with three computers, the match started."""
    table, at = new_table(seed), At()
    apply(table, Join(0, CREATOR, "Ann", "en"), PACE, at.moment)
    for _ in range(3):
        apply(table, AddComputer(CREATOR), PACE, at.moment)
    out = apply(table, Start(CREATOR), PACE, at.after(1))
    assert kinds(out) == ["started"]
    return table, at


def timer(table: Table, at: At) -> Outcome:
    """The table's one timer goes off when due, with the computers' decisions it asks
    for made first, as the edge makes them (``bot.edges.timers``): a turn's move, a show
    window's shows."""
    found = due(table, PACE, at.moment)
    assert found is not None
    token, delay = found
    thought = None
    asked = deciding(table, token)
    if asked is not None:
        obs, rng = asked
        thought = get("heuristic")(obs, rng)
    windows = (TimerKind.DEAL, TimerKind.ROBOTS)
    shows = None
    if token.kind in windows:
        shows = {o.seat: get("heuristic")(o, r) for o, r in showing(table, token, PACE)}
    return apply(table, Tick(token, thought, shows), PACE, at.after(delay))


def hint(table: Table, user: int = CREATOR) -> Hint:
    """A Hint by ``user`` with the suggestion the edge decides (the heuristic's)."""
    command = at_seat(table, Hint, user)
    assert table.match is not None
    hand = table.match.hand
    seat = table.rec.seat_of(user)
    if seat is None or hand.turn != seat or hand.phase not in ("burying", "playing"):
        return command
    obs = hand.observation(seat)
    bury = hand.phase == "burying"
    cards, reason = choose_bury_reasoned(obs) if bury else suggest_reasoned(obs)
    suggestion = Suggestion(hand.version, tuple(cards), reason)
    return replace(command, suggestion=suggestion)


def until(table: Table, at: At, done, limit: int = 2000) -> list[Outcome]:  # noqa: ANN001
    """Timers go off (the creator's own turns play by 托管) until ``done(table)``."""
    outs = []
    for _ in range(limit):
        if done(table):
            return outs
        outs.append(timer(table, at))
    raise AssertionError("never got there")


def follows_one_card(table: Table) -> bool:
    hand = table.match.hand
    return hand.phase == "playing" and hand.turn == 0 and hand.cards_to_play(0) == 1


def tap(table: Table, card: int, copy: int = 0) -> Select:
    return at_seat(table, Select, CREATOR, card, copy)


# ---------------------------------------------------------------------- lobby and seats
def test_people_sit_move_and_leave_the_lobby_each_an_event():
    table = new_table()
    out = apply(table, Join(0, CREATOR, "Ann", "en"), PACE, START)
    assert (out.said.key, kinds(out)) == ("join.ok", ["seated"])
    out = apply(table, Join(2, CREATOR, "Ann", "en"), PACE, START)
    assert (out.said.key, kinds(out)) == ("join.ok", ["left", "seated"])
    before = table.rec.model_dump_json()
    out = apply(table, Join(2, BEN, "Ben", None), PACE, START)
    assert (out.said.key, out.events) == ("join.taken", [])
    assert table.rec.model_dump_json() == before  # no event: nothing changed
    out = apply(table, Leave(CREATOR), PACE, START)
    assert kinds(out) == ["left"] and table.rec.seats[2].empty


def test_only_the_creator_or_an_admin_seats_computers_and_a_table_needs_a_person():
    table = new_table()
    out = apply(table, AddComputer(BEN), PACE, START)
    assert out.answer.alert and out.events == []
    for _ in range(4):
        out = apply(table, AddComputer(BEN, admin=True), PACE, START)
        assert kinds(out) == ["computer_seated"]
    out = apply(table, Start(CREATOR), PACE, START)
    assert out.answer.alert and out.events == [] and table.match is None  # no person
    apply(table, RemoveComputer(CREATOR), PACE, START)
    apply(table, Join(3, BEN, "Ben", None), PACE, START)
    out = apply(table, Start(CREATOR), PACE, START)
    assert kinds(out) == ["started"] and table.rec.status == "running"
    assert due(table, PACE, START) == ((1, table.match.hand.version, "deal"), 1.0)


def test_a_lobby_not_started_in_time_expires_once():
    table = new_table()
    token, delay = due(table, PACE, START)
    assert token.kind is TimerKind.EXPIRE and delay == 30 * 60
    out = apply(table, Tick(token), PACE, Moment(START.now + delay, START.wall + delay))
    assert kinds(out) == ["closed"] and table.rec.status == "expired"
    assert apply(table, Tick(token), PACE, START).events == []
    assert due(table, PACE, START) is None


# ---------------------------------------------------------------------- a hand
def test_a_tapped_card_is_the_play_when_one_card_is_needed_and_nothing_is_selected():
    table, at = started()
    until(table, at, follows_one_card)
    hand = table.match.hand
    card = suggest(hand.observation(0))[0]
    other = next(c for c in hand.hands[0] if c != card)
    # with a card selected (the hint's) a tap only selects: a light change (no wait
    # for the disk)
    out = apply(table, hint(table), PACE, at.moment)
    assert kinds(out) == ["selected"] and table.rec.seats[0].ui.selection == [card]
    out = apply(table, tap(table, other), PACE, at.moment)
    assert kinds(out) == ["selected"] and not out.durable
    assert table.rec.seats[0].ui.selection == [card, other]
    apply(table, at_seat(table, Clear), PACE, at.moment)
    out = apply(table, tap(table, card), PACE, at.moment)
    assert isinstance(out.events[0], Played) and out.events[0].cards == (card,)
    assert out.events[0].seat == 0 and out.durable
    assert out.answer == Answer("ack.play") and table.rec.seats[0].ui.selection == []


def test_a_whole_hand_is_told_in_events_a_finished_trick_is_one():
    table, at = started()
    outs = until(table, at, lambda t: t.match.hand.phase == "done")
    events = [e for out in outs for e in out.events]
    hand = table.match.hand
    plays = sum(len(trick.plays) for trick in hand.tricks)
    assert sum(isinstance(e, Played) for e in events) == plays
    won = [e for e in events if isinstance(e, TrickWon)]
    assert [e.winner for e in won] == [trick.winner for trick in hand.tricks]
    assert sum(isinstance(e, HandSettled) for e in events) == 1
    # the next hand: the finished result closes, hand 2 starts
    out = timer(table, at)
    assert kinds(out)[:2] == ["hand_closed", "hand_started"]
    assert out.events[0].view.hand_number == 1 and table.rec.hand_no == 2


def test_a_turn_that_runs_out_is_warned_then_goes_to_托管_until_the_player_acts():
    table, at = started()
    until(table, at, follows_one_card)
    (n, v, kind), delay = due(table, PACE, at.moment)
    assert (kind, delay) == ("warn", 45.0)
    out = timer(table, at)
    assert kinds(out) == ["warned"] and not out.durable and table.warned
    (n, v, kind), delay = due(table, PACE, at.moment)
    assert (kind, delay) == ("timeout", 15.0)
    out = timer(table, at)
    assert kinds(out)[:2] == ["auto_on", "played"] and table.rec.seats[0].auto
    until(table, at, lambda t: t.match.hand.turn == 0 and t.match.hand.phase == "playing")
    assert due(table, PACE, at.moment)[0][2] == "robot"  # 托管 plays for them
    out = apply(table, hint(table), PACE, at.moment)
    assert kinds(out) == ["auto_off", "selected"] and not table.rec.seats[0].auto


def clocks(table: Table) -> tuple[object, ...]:
    """Everything of a table: its record, its match and its clocks."""
    match = None if table.match is None else table.match.model_dump_json()
    clock = (table.window_deadline, table.turn_deadline, table.warned)
    return (table.rec.model_dump_json(), match, clock)


def test_a_turn_runs_from_the_change_that_opened_it_and_asking_changes_nothing():
    """The turn's deadline is set by the command that gives the person their turn, not
    when someone first asks for it: its DM, the Mini App and the timer, asked at any
    moment and any number of times, see the same deadline and change nothing."""
    table, at = started()
    until(table, at, follows_one_card)
    opened = at.moment  # the change that gave Ann her turn happened now
    assert turn_clock(table) == (opened.now + 60, opened.wall + 60)
    before = clocks(table)
    for later in (at.after(5), at.after(20), at.moment):
        assert due(table, PACE, later) == due(table, PACE, opened)
        assert turn_clock(table) == (opened.now + 60, opened.wall + 60)
        assert clocks(table) == before


def test_the_after_deal_window_ends_when_it_opened_plus_its_time_whoever_asks():
    table, at = started()
    # Ann passes for herself: only the computers' timers run the window
    until(table, at, lambda t: t.match.hand.phase == "after_deal")
    opened = at.moment
    seconds = PACE.overturn_window_seconds
    assert table.window_deadline == (opened.now + seconds, opened.wall + seconds)
    before = clocks(table)
    due(table, PACE, at.after(3))
    due(table, PACE, at.after(3))
    assert clocks(table) == before


def test_a_table_read_again_gives_the_turn_its_whole_time_once():
    """After a restart (the clocks are not saved) the turn gets its whole time from the
    moment the table is read; asking for it later changes nothing."""
    table, at = started()
    until(table, at, follows_one_card)
    again = Table(table.rec.model_copy(deep=True), table.match.model_copy(deep=True))
    read = at.after(100)
    restarted(again, PACE, read)
    assert turn_clock(again) == (read.now + 60, read.wall + 60) and not again.warned
    before = clocks(again)
    assert due(again, PACE, at.after(10))[0][2] == "warn"
    assert clocks(again) == before


def test_a_lost_dm_pauses_the_table_until_the_player_is_back_or_replaced():
    table, at = started()
    apply(table, Join(0, CREATOR, "Ann", "en"), PACE, at.moment)  # (running: their DM back)
    out = apply(table, DmLost(CREATOR), PACE, at.moment)
    assert kinds(out) == ["dm_failed", "paused"] and due(table, PACE, at.moment) is None
    out = apply(table, at_seat(table, Hint), PACE, at.moment)
    assert out.answer.alert and out.events == []
    out = apply(table, DmBack(CREATOR), PACE, at.moment)
    assert kinds(out) == ["hand_resent", "resumed"] and not table.rec.paused
    # lost again, and another member takes the seat: the table goes on with them
    apply(table, DmLost(CREATOR), PACE, at.moment)
    out = apply(table, TakeOver(0, BEN, "Ben", "zh"), PACE, at.moment)
    assert (out.said.key, kinds(out)) == ("take.ok", ["took_over", "hand_resent", "resumed"])
    assert out.events[0].old.user_id == CREATOR and table.rec.seat_of(BEN) == 0


def test_endgame_closes_the_table_and_a_timer_armed_before_does_nothing():
    table, at = started()
    token, _ = due(table, PACE, at.moment)
    out = apply(table, End("Ann"), PACE, at.moment)
    assert kinds(out) == ["closed"] and out.events[0].by == "Ann"
    assert table.rec.status == "ended" and due(table, PACE, at.moment) is None
    assert apply(table, Tick(token), PACE, at.after(1)).events == []
    assert apply(table, End("Ann"), PACE, at.moment).events == []


# ---------------------------------------------------------------------- properties
def test_a_command_that_tells_no_event_changes_nothing():
    """Whatever changes the table says so: a command with no event leaves the record
    and the match as they were (the change path then neither saves nor publishes)."""
    rng = random.Random(5)
    table, at = started(seed=11)
    for _ in range(400):
        if table.rec.status != "running":
            break
        hand = table.match.hand
        cards = hand.hands[0] or [0]
        options = [
            at_seat(table, rng.choice([Play, Hint, Clear, Pass]), rng.choice([CREATOR, BEN])),
            tap(table, rng.choice(cards), rng.choice([0, 1])),
            Play(CREATOR, hand.hand_number, hand.version + 1),
            Join(rng.randrange(4), BEN, "Ben", None),
            TakeOver(rng.randrange(4), BEN, "Ben", None),
            Start(CREATOR, admin=True),
        ]
        command = rng.choice(options)
        before = (table.rec.model_dump_json(), table.match.model_dump_json())
        out = apply(table, command, PACE, at.moment)
        if not out.events:
            assert (table.rec.model_dump_json(), table.match.model_dump_json()) == before
        timer(table, at)


def test_the_same_commands_at_the_same_moments_make_the_same_match():
    def play() -> str:
        table, at = started(seed=3)
        outs = until(table, at, lambda t: t.rec.status != "running", limit=20_000)
        assert isinstance(outs[-1].events[-1], MatchWon) or table.match.finished
        return table.rec.model_dump_json() + table.match.model_dump_json()

    assert play() == play()


def test_computers_shows_decided_before_a_batch_see_it_and_the_first_show_stands():
    """At a search strength the computers' shows of a deal batch are decided before the
    timer's change (off the event loop): each on what it will see after the batch. Two
    computers who both show: the first in seat order shows, the other's decision (made
    without knowing of it) is dropped, to be asked again at the next batch."""
    pace = Pace(deal_batch=3)
    table, at = started(seed=4)  # seats 1 and 3 can both show after the same batch
    while True:
        found = due(table, pace, at.moment)
        assert found is not None and found[0][2] == "deal"
        token, delay = found
        asked = showing(table, token, pace)
        assert [obs.seat for obs, _ in asked] == [1, 2, 3]  # the computers, not Ann
        shows = {
            obs.seat: Show(seat=obs.seat, cards=obs.show_options[0])
            for obs, _ in asked
            if obs.show_options
        }
        out = apply(table, Tick(token, shows=shows), pace, at.after(delay))
        assert table.match is not None
        hand = table.match.hand
        for obs, _ in asked:  # each decided on the batch it was dealt
            assert sorted(obs.hand) == sorted(hand.observation(obs.seat).hand)
        if shows:
            break
    assert sorted(shows) == [1, 3]
    assert [(s.seat, s.kind) for s in hand.declaring.shows] == [(1, "declare")]
    assert hand.declaring.declarer == 1 and out.events
    # the same timer again (the table moved on): nothing
    assert apply(table, Tick(token, shows=shows), pace, at.after(1)).events == []


def test_an_unanswered_炒底_window_counts_as_a_pass_not_托管():
    """炒底 is optional (RULES.md 7): a person who lets its clock run out passes, as if
    they tapped Pass, and stays in charge of their seat (no 托管)."""
    table, at = started()
    until(table, at, lambda t: t.match.hand.phase == "done")
    timer(table, at)  # the next hand
    assert table.match.hand.hand_number == 2

    def asked(t: Table) -> bool:
        hand = t.match.hand
        t.rec.seats[0].auto = False  # the creator is back (hand 1 ran out on 托管)
        return hand.phase == "chaodi" and hand.turn == 0

    until(table, at, asked)
    (n, v, kind), delay = due(table, PACE, at.moment)
    assert kind == "timeout"  # no warning of a 托管 that will not come
    out = until(table, at, lambda t: t.match.hand.turn != 0 or t.match.hand.phase != "chaodi")
    said = [k for o in out for k in kinds(o)]
    assert "passed" in said and "auto_on" not in said, said
    assert not table.rec.seats[0].auto
