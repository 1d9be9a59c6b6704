"""A player's buttons in their DM, and the group's "Next hand": one function per kind
of button (``_ROUTES``)."""

from __future__ import annotations

from collections.abc import Callable

from bot import codec
from bot.codec import Kind
from bot.i18n import t
from bot.table.commands import HandPress
from bot.table.events import AutoOff, Selected
from bot.table.state import Answer, Step, Table
from bot.taps import one_tap
from engine.errors import IllegalAction
from engine.hand import Action, Bury, Pass, Play, Redeal, Show
from engine.players import choose_bury, suggest


def press(table: Table, cmd: HandPress, step: Step) -> Answer:
    rec, match = table.rec, table.match
    user_id, p = cmd.user_id, cmd.press
    lang = rec.user_lang(user_id, cmd.code)
    if rec.status != "running" or match is None:
        return Answer(t(lang, "stale"))
    seat = rec.seat_of(user_id)
    if seat is None:
        return Answer(t(lang, "not_your_game"), alert=True)
    if p.hand != match.hand.hand_number:
        return Answer(t(lang, "stale"))
    if cmd.old_message:  # an older hand message of this DM
        return Answer(t(lang, "dm.old_message"), alert=True)
    if rec.paused and p.kind != Kind.BACK:
        return Answer(t(lang, "paused.group" if rec.group_gone else "paused"), alert=True)
    s = rec.seats[seat]
    if p.kind not in (Kind.TOGGLE, Kind.NEXT_HAND) and s.auto:
        # the player is back: 托管 ends for good (saved), the computer's move for
        # them is called off (their own turn clock again), the table drops the 🤖
        s.auto = False
        step.events.append(AutoOff(seat))
    route = _ROUTES.get(p.kind)
    if route is None:
        return Answer(t(lang, "bad_button"))
    return route(table, seat, p, step)


def _back(table: Table, seat: int, p: codec.Press, step: Step) -> Answer:
    s = table.rec.seats[seat]
    if s.auto:
        s.auto = False
        step.events.append(AutoOff(seat))
    return Answer(t(table.rec.seat_lang(seat), "auto.off"))


def _next_hand(table: Table, seat: int, p: codec.Press, step: Step) -> Answer:
    match = table.match
    assert match is not None
    if match.hand.phase != "done" or match.finished:
        return Answer(t(table.rec.seat_lang(seat), "stale"))
    table.next_hand(step)
    return Answer()


def _toggle(table: Table, seat: int, p: codec.Press, step: Step) -> Answer:
    rec, match = table.rec, table.match
    assert match is not None
    hand, lang = match.hand, rec.seat_lang(seat)
    if len(p.arg) != 2 or p.arg[1] not in "01":
        return Answer(t(lang, "bad_button"))
    card = codec.decode_cards(p.arg[0])[0]
    copy = int(p.arg[1])
    s = rec.seats[seat]
    if copy >= hand.hands[seat].count(card):
        return Answer(t(lang, "stale"))
    # a tap on an older keyboard only selects
    if p.version == hand.version and one_tap(hand, seat, s.selection):
        return _act(table, Play(seat=seat, cards=[card]), seat, step)
    if s.selection.count(card) > copy:
        s.selection.remove(card)
    else:
        s.selection.append(card)
    step.events.append(Selected(seat))
    return Answer()


def _clear(table: Table, seat: int, p: codec.Press, step: Step) -> Answer:
    table.rec.seats[seat].selection = []
    step.events.append(Selected(seat))
    return Answer()


def _hint(table: Table, seat: int, p: codec.Press, step: Step) -> Answer:
    rec, match = table.rec, table.match
    assert match is not None
    hand = match.hand
    obs = hand.observation(seat)
    if hand.phase == "burying" and hand.turn == seat:
        rec.seats[seat].selection = list(choose_bury(obs))
    elif hand.phase == "playing" and hand.turn == seat:
        rec.seats[seat].selection = list(suggest(obs))
    else:
        return Answer(t(rec.seat_lang(seat), "hint.not_now"))
    step.events.append(Selected(seat))
    return Answer(t(rec.seat_lang(seat), "hint.done"))


def _show(table: Table, seat: int, p: codec.Press, step: Step) -> Answer:
    return _act(table, Show(seat=seat, cards=p.cards), seat, step)


def _pass(table: Table, seat: int, p: codec.Press, step: Step) -> Answer:
    return _act(table, Pass(seat=seat), seat, step)


def _redeal(table: Table, seat: int, p: codec.Press, step: Step) -> Answer:
    return _act(table, Redeal(seat=seat), seat, step)


def _play(table: Table, seat: int, p: codec.Press, step: Step) -> Answer:
    match = table.match
    assert match is not None
    hand = match.hand
    if p.version != hand.version:
        return Answer(t(table.rec.seat_lang(seat), "stale"))
    # the DM plays its selection; the Mini App sends the cards with the press
    try:
        cards = p.cards if p.arg else list(table.rec.seats[seat].selection)
    except codec.BadData:
        return Answer(t(table.rec.seat_lang(seat), "bad_button"))
    if hand.phase == "burying":
        return _act(table, Bury(seat=seat, cards=cards), seat, step)
    return _act(table, Play(seat=seat, cards=cards), seat, step)


def _act(table: Table, action: Action, seat: int, step: Step) -> Answer:
    lang = table.rec.seat_lang(seat)
    try:
        table.act(action, step)
    except IllegalAction as e:
        return Answer(reason_text(lang, e), alert=True)
    table.rec.seats[seat].selection = []
    return Answer(t(lang, f"ack.{action.kind}"))


_Route = Callable[[Table, int, codec.Press, Step], Answer]
_ROUTES: dict[str, _Route] = {
    Kind.TOGGLE: _toggle,
    Kind.PLAY: _play,
    Kind.HINT: _hint,
    Kind.CLEAR: _clear,
    Kind.SHOW: _show,
    Kind.PASS: _pass,
    Kind.REDEAL: _redeal,
    Kind.BACK: _back,
    Kind.NEXT_HAND: _next_hand,
}


def reason_text(lang: str, e: IllegalAction) -> str:
    key = f"reason.{e.reason}"
    text = t(lang, key)
    return text if text != key else t(lang, "reason.unknown", reason=e.reason)
