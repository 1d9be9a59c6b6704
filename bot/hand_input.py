"""A player's buttons in their DM (and the group's "Next hand"): each kind of button
has one method here (``_ROUTES``); every press runs as one step of
``GameService.change``. Also the one place where an action reaches the engine
(:meth:`HandInput.apply`), for people and for deadlines alike.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from bot import codec, slots
from bot.codec import Kind
from bot.i18n import t
from bot.live import Answer, Game
from bot.render import table as render_table
from bot.taps import one_tap
from engine.errors import IllegalAction
from engine.hand import Action, Bury, Pass, Play, Redeal, Show
from engine.players import choose_bury, suggest

if TYPE_CHECKING:
    from bot.game import GameService

log = logging.getLogger(__name__)


class HandInput:
    def __init__(self, svc: GameService) -> None:
        self.svc = svc

    async def press(
        self,
        game: Game,
        press: codec.Press,
        user_id: int,
        code: str | None = None,
        dm_message: int | None = None,
    ) -> Answer:
        """A button of a DM hand (``dm_message``: the pressed message's id) or the
        group's next-hand button."""
        self.svc.publisher.pressed(user_id)
        return await self.svc.change(
            game, lambda g: self._press(g, press, user_id, code, dm_message)
        )

    def _press(
        self,
        game: Game,
        press: codec.Press,
        user_id: int,
        code: str | None,
        dm_message: int | None = None,
    ) -> Answer:
        rec, match = game.rec, game.match
        lang = rec.user_lang(user_id, code)
        if rec.status != "running" or match is None:
            return Answer(t(lang, "stale"))
        seat = rec.seat_of(user_id)
        if seat is None:
            return Answer(t(lang, "not_your_game"), alert=True)
        if press.hand != match.hand.hand_number:
            return Answer(t(lang, "stale"))
        live = self.svc.publisher.live_dm(rec, user_id) if dm_message is not None else None
        if live is not None and live != dm_message:  # an older hand message of this DM
            return Answer(t(lang, "dm.old_message"), alert=True)
        if rec.paused and press.kind != Kind.BACK:
            return Answer(t(lang, "paused.group" if rec.group_gone else "paused"), alert=True)
        s = rec.seats[seat]
        if press.kind not in (Kind.TOGGLE, Kind.NEXT_HAND) and s.auto:
            # the player is back: 托管 ends for good (saved), the computer's move for
            # them is called off (their own turn clock again), the table drops the 🤖
            s.auto = False
            game.changed()
        route = _ROUTES.get(press.kind)
        if route is None:
            return Answer(t(lang, "bad_button"))
        return route(self, game, seat, press)

    # ------------------------------------------------------------------ one per kind
    def _back(self, game: Game, seat: int, press: codec.Press) -> Answer:
        game.rec.seats[seat].auto = False
        game.changed()
        return Answer(t(game.rec.seat_lang(seat), "auto.off"))

    def _next_hand_press(self, game: Game, seat: int, press: codec.Press) -> Answer:
        match = game.match
        assert match is not None
        if match.hand.phase != "done" or match.finished:
            return Answer(t(game.rec.seat_lang(seat), "stale"))
        self.next_hand(game)
        return Answer()

    def _toggle(self, game: Game, seat: int, press: codec.Press) -> Answer:
        rec, hand = game.rec, game.match.hand  # type: ignore[union-attr]
        lang = rec.seat_lang(seat)
        if len(press.arg) != 2 or press.arg[1] not in "01":
            return Answer(t(lang, "bad_button"))
        card = codec.decode_cards(press.arg[0])[0]
        copy = int(press.arg[1])
        s = rec.seats[seat]
        if copy >= hand.hands[seat].count(card):
            return Answer(t(lang, "stale"))
        # a tap on an older keyboard only selects
        if press.version == hand.version and one_tap(
            hand, seat, s.selection
        ):  # exactly one card is needed: the card tapped is the play
            return self._act(game, Play(seat=seat, cards=[card]), seat)
        if s.selection.count(card) > copy:
            s.selection.remove(card)
        else:
            s.selection.append(card)
        game.changed(durable=False)
        return Answer()

    def _clear(self, game: Game, seat: int, press: codec.Press) -> Answer:
        game.rec.seats[seat].selection = []
        game.changed(durable=False)
        return Answer()

    def _hint(self, game: Game, seat: int, press: codec.Press) -> Answer:
        rec, hand = game.rec, game.match.hand  # type: ignore[union-attr]
        obs = hand.observation(seat)
        if hand.phase == "burying" and hand.turn == seat:
            rec.seats[seat].selection = list(choose_bury(obs))
        elif hand.phase == "playing" and hand.turn == seat:
            rec.seats[seat].selection = list(suggest(obs))
        else:
            return Answer(t(rec.seat_lang(seat), "hint.not_now"))
        game.changed(durable=False)
        return Answer(t(rec.seat_lang(seat), "hint.done"))

    def _show(self, game: Game, seat: int, press: codec.Press) -> Answer:
        return self._act(game, Show(seat=seat, cards=press.cards), seat)

    def _pass(self, game: Game, seat: int, press: codec.Press) -> Answer:
        return self._act(game, Pass(seat=seat), seat)

    def _redeal(self, game: Game, seat: int, press: codec.Press) -> Answer:
        return self._act(game, Redeal(seat=seat), seat)

    def _play(self, game: Game, seat: int, press: codec.Press) -> Answer:
        hand = game.match.hand  # type: ignore[union-attr]
        if press.version != hand.version:
            return Answer(t(game.rec.seat_lang(seat), "stale"))
        # the DM plays its selection; the Mini App sends the cards with the press
        try:
            cards = press.cards if press.arg else list(game.rec.seats[seat].selection)
        except codec.BadData:
            return Answer(t(game.rec.seat_lang(seat), "bad_button"))
        if hand.phase == "burying":
            return self._act(game, Bury(seat=seat, cards=cards), seat)
        return self._act(game, Play(seat=seat, cards=cards), seat)

    def _act(self, game: Game, action: Action, seat: int) -> Answer:
        lang = game.rec.seat_lang(seat)
        try:
            self.apply(game, action)
        except IllegalAction as e:
            return Answer(reason_text(lang, e), alert=True)
        game.rec.seats[seat].selection = []
        return Answer(t(lang, f"ack.{action.kind}"))

    # ------------------------------------------------------------------ the engine's door
    def apply(self, game: Game, action: Action) -> None:
        """Apply one action (IllegalAction if the engine refuses it) and what follows
        from it: the overturn window opens, a finished hand checks the time limit."""
        match = game.match
        assert match is not None
        match.apply(action)
        self.after_engine(game)

    def after_engine(self, game: Game) -> None:
        match, rec = game.match, game.rec
        assert match is not None
        phase = match.hand.phase
        if phase == "after_deal" and game.window_deadline is None:
            game.window_deadline = self.svc.now() + self.svc.settings.overturn_window_seconds
        elif phase != "after_deal":
            game.window_deadline = None
        if phase == "done":
            # a time limit (tournament) is checked when a hand ends: higher level wins
            started = rec.started_at or rec.created_at
            match.check_time_limit((self.svc.wall() - started) / 60)
        if match.finished:
            rec.status = "finished"
        game.changed()

    def next_hand(self, game: Game) -> None:
        match = game.match
        assert match is not None
        rec = game.rec
        # the finished hand's result loses its "Next hand" button (no stale buttons)
        old = slots.key(rec.id, "result", hand=match.hand_number)
        game.notify(rec.chat_id, old, render_table.result_message(rec, match, live=False), False)
        match.start_next_hand()
        rec.hand_no = match.hand_number
        for s in rec.seats:
            s.selection = []
        self.after_engine(game)


_ROUTES: dict[Kind, Callable[[HandInput, Game, int, codec.Press], Answer]] = {
    Kind.TOGGLE: HandInput._toggle,
    Kind.PLAY: HandInput._play,
    Kind.HINT: HandInput._hint,
    Kind.CLEAR: HandInput._clear,
    Kind.SHOW: HandInput._show,
    Kind.PASS: HandInput._pass,
    Kind.REDEAL: HandInput._redeal,
    Kind.BACK: HandInput._back,
    Kind.NEXT_HAND: HandInput._next_hand_press,
}


def reason_text(lang: str, e: IllegalAction) -> str:
    key = f"reason.{e.reason}"
    text = t(lang, key)
    return text if text != key else t(lang, "reason.unknown", reason=e.reason)
