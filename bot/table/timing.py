"""The table's deadlines (RULES.md 13: 托管): the clocks a change starts or stops
(:func:`settle`: a person's turn, the after-deal window), which single timer the table
needs now (:func:`due`), a person's turn deadline (:func:`turn_clock`), and what a
timer does when it goes off (:func:`tick`): deal a batch, close the overturn window,
move for a computer or a player whose time ran out, deal the next hand, expire a lobby.

The clocks are table state, set only by :func:`bot.table.apply` (and when a table is
read from the store: :func:`bot.table.restarted`); :func:`due` and :func:`turn_clock`
only read them.

A timer carries the hand number and state version it was armed for, and does nothing
if the table moved on."""

from __future__ import annotations

import logging
import random

from bot.data.saved import GameRecord
from bot.table.commands import Tick
from bot.table.moments import AutoOff, AutoOn, Closed, Event, Warned
from bot.table.state import Moment, Pace, Step, Table
from bot.table.tokens import TimerKind, Token
from engine.errors import IllegalAction
from engine.hand import Action, Deal, Observation, Pass, Show
from engine.match import MatchState

log = logging.getLogger(__name__)


def decision_rng(game_seed: int, hand_number: int, version: int) -> random.Random:
    """The randomness of the computers' decisions at one moment of a game (its hand and
    version): a function of the game's seed, so a game replays the same."""
    return random.Random(game_seed * 7919 + version * 31 + hand_number)


def robot(rec: GameRecord, seat: int) -> bool:
    """The computer acts for this seat: a computer player, or a player on 托管."""
    s = rec.seats[seat]
    return s.computer or s.auto


# a person whose turn lasts longer than twice this is warned this long before 托管
WARN_SECONDS = 15.0


def due(table: Table, pace: Pace, at: Moment) -> tuple[Token, float] | None:
    """The single timer the table needs now, with its delay (None: no timer)."""
    rec, match = table.rec, table.match
    if rec.status == "lobby":
        left = rec.created_at + pace.lobby_expiry_minutes * 60 - at.wall
        return Token(0, 0, TimerKind.EXPIRE), max(0.0, left)
    if rec.status != "running" or match is None or rec.paused:
        return None
    n, v = match.hand.hand_number, match.hand.version
    to = match.next_actor()  # the engine says who (or what) acts next
    if to.kind == "deal":
        delay = pace.deal_pace_seconds if rec.deal_pace is None else rec.deal_pace
        return Token(n, v, TimerKind.DEAL), delay
    if to.kind == "window":
        if any(robot(rec, s) for s in to.seats):
            return Token(n, v, TimerKind.ROBOTS), pace.computer_delay_seconds
        end = table.window_deadline  # set when the window opened (settle)
        left = pace.overturn_window_seconds if end is None else end[0] - at.now
        return Token(n, v, TimerKind.WINDOW), max(0.0, left)
    if to.seat is not None:  # one seat's turn: bury, 炒底 or play
        if robot(rec, to.seat):
            return Token(n, v, TimerKind.ROBOT), pace.computer_delay_seconds
        # the delays are the turn's own (its deadline was set when it opened), so a
        # timer is armed once per moment whatever the clock did meanwhile
        seconds = turn_seconds(table, pace)
        if seconds <= 2 * WARN_SECONDS or match.hand.phase == "chaodi":  # no 托管 to warn of
            return Token(n, v, TimerKind.TIMEOUT), seconds
        if not table.warned:
            return Token(n, v, TimerKind.WARN), seconds - WARN_SECONDS
        return Token(n, v, TimerKind.TIMEOUT), WARN_SECONDS
    if to.kind == "next_hand":
        return Token(n, v, TimerKind.NEXT), pace.next_hand_delay_seconds
    return None


def turn_seconds(table: Table, pace: Pace) -> float:
    return table.rec.turn_seconds or pace.turn_timeout_seconds


def turn_clock(table: Table) -> tuple[float, float] | None:
    """When the turn of the person who acts now runs out and 托管 takes over
    (monotonic, wall clock). None: nobody's turn, a computer's (托管 included) or the
    game is paused (it gets its time again)."""
    deadline = table.turn_deadline
    return None if deadline is None else (deadline[1], deadline[2])


def settle(table: Table, pace: Pace, at: Moment) -> None:
    """The table's clocks after a change at ``at``: the after-deal window ends
    ``overturn_window_seconds`` after it opened; a person's turn runs out
    ``turn_seconds`` after it opened (its warning not given yet), and has no deadline
    while it is nobody's turn, a computer's (托管 included) or the game is paused (the
    turn then gets its whole time again)."""
    rec, match = table.rec, table.match
    if match is None or match.hand.phase != "after_deal":
        table.window_deadline = None
    elif table.window_deadline is None:
        seconds = pace.overturn_window_seconds
        table.window_deadline = (at.now + seconds, at.wall + seconds)
    seat = None if match is None else match.next_actor().seat
    if rec.status != "running" or rec.paused or seat is None or robot(rec, seat):
        table.turn_deadline = None
        return
    assert match is not None
    key = (match.hand.hand_number, match.hand.version)
    if table.turn_deadline is None or table.turn_deadline[0] != key:
        seconds = turn_seconds(table, pace)
        table.turn_deadline = (key, at.now + seconds, at.wall + seconds)
        table.warned = False


def deciding(table: Table, token: Token) -> tuple[Observation, random.Random] | None:
    """What a computer (or 托管) decides for a turn's timer, before the change: the
    observation of the seat to move and the randomness of that moment; None if the
    timer asks for no move or the table moved on."""
    hand_no, version, kind = token
    match = table.match
    turn = None if match is None else match.hand.turn
    if kind not in (TimerKind.ROBOT, TimerKind.TIMEOUT) or match is None or turn is None:
        return None
    hand = match.hand
    if (hand.hand_number, hand.version) != (hand_no, version):
        return None
    rng = decision_rng(table.rec.seed, hand.hand_number, hand.version)
    return hand.observation(turn), rng


def showing(table: Table, token: Token, pace: Pace) -> list[tuple[Observation, random.Random]]:
    """Who a deal batch's or the after-deal window's timer asks to show, decided before
    the change (at a search strength): the observation of each computer seat that may
    show then, in seat order (after this timer's batch, dealt on a copy of the hand:
    what the seat will see), each with its own randomness. Empty if the timer asks
    nobody or the table moved on."""
    hand_no, version, kind = token
    rec, match = table.rec, table.match
    if kind not in (TimerKind.DEAL, TimerKind.ROBOTS) or match is None:
        return []
    hand = match.hand
    if (hand.hand_number, hand.version) != (hand_no, version):
        return []
    rng = decision_rng(rec.seed, hand_no, version)
    if kind == TimerKind.DEAL:
        hand = hand.model_copy(deep=True)
        hand.apply(Deal(n=4 * pace.deal_batch))
        seats = [s for s in range(4) if rec.seats[s].computer and hand.phase == "dealing"]
    else:
        seats = [s for s in range(4) if robot(rec, s) and hand.can_pass(s)]
        seats = [s for s in seats if hand.phase == "after_deal"]
    streams = [random.Random(rng.getrandbits(32)) for _ in range(4)]
    return [(hand.observation(s), streams[s]) for s in seats]


def tick(table: Table, cmd: Tick, step: Step) -> None:
    """What a timer does when it goes off (nothing if the table moved on since it was
    armed), and the clocks after it (:func:`settle`)."""
    _tick(table, cmd, step)
    settle(table, step.pace, step.at)


def _tick(table: Table, cmd: Tick, step: Step) -> None:
    hand_no, version, kind = cmd.token
    rec, match, out = table.rec, table.match, step.events
    if kind == TimerKind.EXPIRE:
        if rec.status == "lobby":
            rec.status = "expired"
            out.append(Closed("expired"))
        return
    if match is None or rec.status != "running" or rec.paused:
        return
    hand = match.hand
    if (hand.hand_number, hand.version) != (hand_no, version):
        return
    if kind == TimerKind.WARN:  # the turn's last seconds: its DM says so once
        table.warned = True
        assert hand.turn is not None
        out.append(Warned(hand.turn))
        return
    if kind == TimerKind.DEAL:
        out += match.apply(Deal(n=4 * step.pace.deal_batch))
        # computers race to declare like everyone else: decided before the change
        _shows(table, cmd.shows or {}, out)
    elif kind == TimerKind.ROBOTS:
        _shows(table, cmd.shows or {}, out)
    elif kind == TimerKind.WINDOW:
        for seat in range(4):
            if hand.phase == "after_deal" and hand.can_pass(seat):
                _try(match, Pass(seat=seat), out)
    elif kind in (TimerKind.ROBOT, TimerKind.TIMEOUT):
        turn = hand.turn
        assert turn is not None
        if kind == TimerKind.ROBOT and not robot(rec, turn):
            return  # the player came back while the move was being decided
        s = rec.seats[turn]
        if kind == TimerKind.TIMEOUT and hand.phase == "chaodi":
            # 炒底 is optional: a window left to run out is a pass, as the after-deal
            # window's is, never 托管
            s.ui.selection = []
            _try(match, Pass(seat=turn), out)
            table.after_engine(step)
            return
        if kind == TimerKind.TIMEOUT and not s.auto:
            s.auto = True  # 托管 until the player acts again
            out.append(AutoOn(turn))
        s.ui.selection = []
        assert cmd.thought is not None
        if not _try(match, cmd.thought, out) and s.auto:
            s.auto = s.away = False  # leave the turn to the player; re-armed
            out.append(AutoOff(turn))
    elif kind == TimerKind.NEXT:
        table.next_hand(step)
        return
    table.after_engine(step)


def _shows(table: Table, shows: dict[int, Action], out: list[Event]) -> None:
    """The computers' decisions of a show window (``showing``), in seat order. Each was
    made on the table as it was before any of them: once a show is applied, the later
    seats' are dropped (they are asked again at the next batch or window timer); so is
    the decision of a seat a person took back meanwhile."""
    rec, match = table.rec, table.match
    assert match is not None
    hand = match.hand
    for seat in sorted(shows):
        dealing = hand.phase == "dealing"
        if not (rec.seats[seat].computer if dealing else robot(rec, seat)):
            continue
        if not (dealing or (hand.phase == "after_deal" and hand.can_pass(seat))):
            continue
        action = shows[seat]
        if isinstance(action, Pass) and dealing:
            continue  # "not now"
        if _try(match, action, out) and isinstance(action, Show):
            return


def _try(match: MatchState, action: Action, out: list[Event]) -> bool:
    try:
        out += match.apply(action)
        return True
    except IllegalAction as e:
        log.error("engine refused a computer action %s: %s", action, e)
        return False
