"""What a person does at their seat of a running game (``SeatCommand``: a DM button, the
same in the Mini App, the group's "Next hand"): the checks every such command passes
(the game runs, the seat is theirs, the hand is current, the table is not paused), then
what the command does, the engine deciding whatever the rules decide."""

from __future__ import annotations

from typing import assert_never

from bot.data.saved import Hinted
from bot.table.commands import (
    Away,
    Back,
    Clear,
    Hint,
    NextHand,
    Pass,
    Play,
    Redeal,
    SeatCommand,
    Select,
    Show,
    Tally,
    Why,
)
from bot.table.moments import AutoOff, AutoOn, Selected
from bot.table.state import Answer, Step, Table, one_tap
from engine import hand as rules
from engine.errors import IllegalAction


def press(table: Table, cmd: SeatCommand, step: Step) -> Answer:
    rec, match = table.rec, table.match
    if rec.status != "running" or match is None:
        return Answer("stale")
    seat = rec.seat_of(cmd.user_id)
    if seat is None:
        return Answer("not_your_game", alert=True)
    if cmd.hand != match.hand.hand_number:
        return Answer("stale", {"hand": cmd.hand, "current": match.hand.hand_number})
    if cmd.old_message:  # an older hand message of this DM
        return Answer("dm.old_message", alert=True)
    if rec.paused and not isinstance(cmd, Back):
        return Answer("paused.group" if rec.group_gone else "paused", alert=True)
    s = rec.seats[seat]
    if not isinstance(cmd, Select | NextHand | Why | Tally | Away) and s.auto:
        # the player is back: 托管 ends for good (saved), the computer's move for
        # them is called off (their own turn clock again), the table drops the 🤖
        s.auto = s.away = False
        step.events.append(AutoOff(seat))
    match cmd:
        case Select():
            return _select(table, seat, cmd, step)
        case Play():
            return _play(table, seat, cmd, step)
        case Show():
            return _act(table, rules.Show(seat=seat, cards=list(cmd.cards)), seat, step)
        case Pass():
            return _act(table, rules.Pass(seat=seat), seat, step)
        case Redeal():
            return _act(table, rules.Redeal(seat=seat), seat, step)
        case Hint():
            return _hint(table, seat, cmd, step)
        case Why():
            return _why(table, seat, step)
        case Tally():
            s.ui.tally = not s.ui.tally
            step.events.append(Selected(seat))
            return Answer()
        case Clear():
            s.ui.selection = []
            step.events.append(Selected(seat))
            return Answer()
        case Back():
            return Answer("auto.off")  # 托管 ended above
        case Away():
            return _away(table, seat, step)
        case NextHand():
            return _next_hand(table, seat, step)
        case _:
            assert_never(cmd)


def _away(table: Table, seat: int, step: Step) -> Answer:
    """托管 by choice: as after a time-out (RULES.md 13), the computer plays the seat's
    turns from now on (the timers see a robot's seat) until any press but a view's."""
    s = table.rec.seats[seat]
    if s.auto:
        return Answer("auto.already")
    s.auto = s.away = True
    s.ui.selection = []
    step.events.append(AutoOn(seat))
    return Answer("auto.away")


def _next_hand(table: Table, seat: int, step: Step) -> Answer:
    match = table.match
    assert match is not None
    if match.hand.phase != "done" or match.finished:
        return Answer("stale", {"phase": match.hand.phase})
    table.next_hand(step)
    return Answer()


def _select(table: Table, seat: int, cmd: Select, step: Step) -> Answer:
    rec, match = table.rec, table.match
    assert match is not None
    hand, card, copy = match.hand, cmd.card, cmd.copy
    s = rec.seats[seat]
    if not 0 <= copy < hand.hands[seat].count(card):
        return Answer("stale", {"card": card, "copy": copy})
    # a tap on an older keyboard only selects
    if cmd.version == hand.version and one_tap(hand, seat, s.ui.selection):
        return _act(table, rules.Play(seat=seat, cards=[card]), seat, step)
    if s.ui.selection.count(card) > copy:
        s.ui.selection.remove(card)
    else:
        s.ui.selection.append(card)
    step.events.append(Selected(seat))
    return Answer()


def _hint(table: Table, seat: int, cmd: Hint, step: Step) -> Answer:
    """Select the suggestion the edge decided (the table calls no player)."""
    rec, match = table.rec, table.match
    assert match is not None
    hand = match.hand
    suggestion = cmd.suggestion
    if hand.phase not in ("burying", "playing") or hand.turn != seat or suggestion is None:
        return Answer("hint.not_now")
    if suggestion.version != hand.version:
        return Answer()  # decided for a moment that has passed: dropped, nothing changes
    cards, reason = list(suggestion.cards), suggestion.reason
    s = rec.seats[seat]
    s.ui.selection = list(cards)
    # why, shown with the selection while it stays the hint (bot.views.projection)
    s.ui.hint = Hinted(hand=hand.hand_number, version=hand.version, cards=cards, reason=reason)
    step.events.append(Selected(seat))
    return Answer("hint.done", {"cards": tuple(cards)})


def _why(table: Table, seat: int, step: Step) -> Answer:
    """The DM's "Why?" on the last trick: open (the trick's number) or closed again."""
    match = table.match
    assert match is not None
    done = sum(1 for trick in match.hand.tricks if trick.winner is not None)
    s = table.rec.seats[seat]
    s.ui.why = None if not done or s.ui.why == done else done
    step.events.append(Selected(seat))
    return Answer()


def _play(table: Table, seat: int, cmd: Play, step: Step) -> Answer:
    match = table.match
    assert match is not None
    hand = match.hand
    if cmd.version != hand.version:
        return Answer("stale", {"version": cmd.version, "current": hand.version})
    # the DM plays its selection; the Mini App sends the cards
    cards = list(table.rec.seats[seat].ui.selection if cmd.cards is None else cmd.cards)
    if hand.phase == "burying":
        return _act(table, rules.Bury(seat=seat, cards=cards), seat, step)
    return _act(table, rules.Play(seat=seat, cards=cards), seat, step)


def _act(table: Table, action: rules.Action, seat: int, step: Step) -> Answer:
    try:
        table.act(action, step)
    except IllegalAction as e:
        return refusal(e)
    table.rec.seats[seat].ui.selection = []
    return Answer(f"ack.{action.kind}")


def refusal(e: IllegalAction) -> Answer:
    """The engine's refusal as the table answers it: the reason's key, with the reason's
    code and the facts the engine gave (card lists as tuples), as an alert."""
    details = {k: tuple(v) if isinstance(v, list) else v for k, v in e.details.items()}
    return Answer(f"reason.{e.reason}", {"reason": e.reason, **details}, alert=True)
