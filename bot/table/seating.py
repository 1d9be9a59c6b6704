"""Lobby and seats, and the chats around the table: joining through a seat's deep
link, the lobby's buttons, taking over an absent player's seat, a DM that fails or
works again, the group's settings, a group upgraded or left, /endgame."""

from __future__ import annotations

from typing import assert_never

from bot.data import options
from bot.data.saved import Seat
from bot.table.commands import (
    AddComputer,
    ApplySettings,
    Cancel,
    DmLost,
    End,
    Join,
    Leave,
    LobbyCommand,
    MoveChat,
    RemoveComputer,
    Start,
    TakeOver,
)
from bot.table.moments import (
    ChatMoved,
    Closed,
    ComputerSeated,
    DmFailed,
    GroupBack,
    GroupGone,
    HandResent,
    Left,
    Paused,
    Resumed,
    Seated,
    SettingsApplied,
    Started,
    TookOver,
)
from bot.table.state import Answer, Step, Table, takeable
from engine.match import MatchState


def join(table: Table, cmd: Join, step: Step) -> Answer:
    """What the person is told (the edge adds the group's name and the seat's number)."""
    rec, seat = table.rec, cmd.seat
    if rec.status != "lobby":
        if rec.seat_of(cmd.user_id) is not None and rec.status == "running":
            dm_back(table, cmd.user_id, step)
            return Answer("join.back")
        return Answer("join.closed", {"status": rec.status})
    current = rec.seat_of(cmd.user_id)
    if current == seat:
        return Answer("join.already")
    if not rec.seats[seat].empty:
        return Answer("join.taken")
    if current is not None:
        rec.seats[current] = Seat()
        step.events.append(Left(current))
    rec.seats[seat] = Seat(user_id=cmd.user_id, name=cmd.name, lang=cmd.lang)
    step.events.append(Seated(seat))
    return Answer("join.ok")


def lobby(table: Table, cmd: LobbyCommand, step: Step) -> Answer:
    """A lobby's button: anyone seated may leave; the rest is the creator's or an
    admin's."""
    rec, user_id, out = table.rec, cmd.user_id, step.events
    if rec.status != "lobby":
        return Answer("stale", {"status": rec.status})
    if isinstance(cmd, Leave):
        seat = rec.seat_of(user_id)
        if seat is None:
            return Answer("lobby.not_seated")
        rec.seats[seat] = Seat()
        out.append(Left(seat))
        return Answer("lobby.left")
    if not (cmd.admin or user_id == rec.creator_id):
        return Answer("lobby.only_creator", alert=True)
    match cmd:
        case AddComputer():
            empty = next((i for i, s in enumerate(rec.seats) if s.empty), None)
            if empty is None:
                return Answer("lobby.no_empty")
            rec.seats[empty] = Seat(computer=True, name=cmd.name)
            out.append(ComputerSeated(empty))
            return Answer()
        case RemoveComputer():
            last = next((i for i in (3, 2, 1, 0) if rec.seats[i].computer), None)
            if last is not None:
                rec.seats[last] = Seat()
                out.append(Left(last))
            return Answer()
        case Cancel():
            rec.status = "cancelled"
            out.append(Closed("cancelled"))
            return Answer("lobby.cancelled")
        case Start():
            return _start(table, step)
        case _:
            assert_never(cmd)


def _start(table: Table, step: Step) -> Answer:
    rec = table.rec
    if not rec.full:
        seated = sum(1 for s in rec.seats if not s.empty)
        return Answer("lobby.need_four", {"seated": seated}, alert=True)
    if not any(s.human for s in rec.seats):
        return Answer("lobby.need_human", alert=True)
    table.match = MatchState.new(options.game_rules(rec), rec.seed)
    rec.status = "running"
    rec.hand_no = table.match.hand_number
    rec.started_at = step.at.wall
    step.events.append(Started())
    return Answer("lobby.started")


def take_over(table: Table, cmd: TakeOver, step: Step) -> Answer:
    """What the person is told (the edge adds the group's name and the seat's number).
    The newcomer gets the current hand at once; the player who left keeps a last word
    in their DM."""
    rec, seat = table.rec, cmd.seat
    if rec.status != "running":
        return Answer("join.closed", {"status": rec.status})
    mine = rec.seat_of(cmd.user_id)
    if mine == seat:
        dm_back(table, cmd.user_id, step)
        return Answer("join.back")
    if mine is not None:
        return Answer("take.seated")
    if seat not in takeable(rec):
        return Answer("take.not_free")
    old = rec.seats[seat]
    rec.seats[seat] = new = Seat(user_id=cmd.user_id, name=cmd.name, lang=cmd.lang)
    step.events += [TookOver(seat, old, new.model_copy()), HandResent(seat)]
    _resume_if_all_back(table, step)
    return Answer("take.ok")


def dm_back(table: Table, user_id: int, step: Step) -> None:
    """The person's DM works again: their hand is sent anew."""
    rec = table.rec
    seat = rec.seat_of(user_id)
    if seat is None:
        return
    rec.seats[seat].dm_failed = False
    step.events.append(HandResent(seat))
    _resume_if_all_back(table, step)


def dm_lost(table: Table, cmd: DmLost, step: Step) -> None:
    rec = table.rec
    seat = rec.seat_of(cmd.user_id)
    if seat is None or rec.status != "running":
        return
    rec.seats[seat].dm_failed = True
    step.events.append(DmFailed(seat))
    if not rec.paused:
        rec.paused = True
        step.events.append(Paused())


def _resume_if_all_back(table: Table, step: Step) -> None:
    rec = table.rec
    if rec.paused and not rec.group_gone and not any(s.dm_failed for s in rec.seats):
        rec.paused = False
        step.events.append(Resumed())


def end(table: Table, cmd: End, step: Step) -> None:
    rec = table.rec
    if rec.status not in ("lobby", "running"):
        return
    rec.status = "ended" if rec.status == "running" else "cancelled"
    rec.paused = False
    step.events.append(Closed(rec.status, by=cmd.by))


def apply_settings(table: Table, cmd: ApplySettings, step: Step) -> None:
    rec, chat = table.rec, cmd.chat
    if rec.status not in ("lobby", "running"):
        return
    if chat.lang:
        rec.lang = chat.lang
    if rec.status == "lobby":
        options.to_game(chat, rec)
    step.events.append(SettingsApplied())


def move_chat(table: Table, cmd: MoveChat, step: Step) -> None:
    if table.rec.chat_id == cmd.old:
        table.rec.chat_id = cmd.new
        step.events.append(ChatMoved(cmd.old, cmd.new))


def leave_group(table: Table, step: Step) -> None:
    rec = table.rec
    if rec.status == "lobby":
        rec.status = "cancelled"
        step.events.append(Closed("cancelled"))
    elif rec.status == "running" and not rec.group_gone:
        rec.group_gone = rec.paused = True
        step.events.append(GroupGone())


def return_to_group(table: Table, step: Step) -> None:
    rec = table.rec
    if not rec.group_gone:
        return
    rec.group_gone = False
    rec.paused = any(s.dm_failed for s in rec.seats)
    step.events.append(GroupBack())
