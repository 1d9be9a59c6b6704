"""What each chat is shown, and when: the call budget (issue 8).

``bot.render`` says what a message would show now; this module decides whether its
reader needs it now, and hands it to the chat's paced outbox (``bot.outbox``), which
coalesces, skips what a message already shows and spends the chat's rate budget.

* A DM is edited only when what its reader needs changed: their own cards, their
  selection, whether it is their turn, the phase, the declarations (the trump), the
  result, a pause or 托管. Cards others play reach a DM with the reader's next turn
  (the current trick and the last completed one are in it then), not card by card.
* A turn is announced by editing the DM in place; only a player who may be away (no
  press for ``AWAY_SECONDS``) gets a new message (it notifies; the old one is
  deleted). A new hand always starts with a new message at the bottom of the DM.
* The group: whatever ``render.table.group_messages`` lists, edited in place, the live
  table at most every ``CALM_INTERVALS`` pacing intervals, but a state in which a trick
  was just completed goes out at once (*urgent*). Whatever the group's output skipped,
  the next table delivered shows again in full: each render is told how many finished
  tricks the table the group reads now has shown (its outbox slot's tag), so no finished
  trick is ever missed and the group catches up in one edit, never by a backlog.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from html import escape
from typing import TYPE_CHECKING

from bot import slots
from bot.i18n import t
from bot.live import Game
from bot.models import GameRecord
from bot.outbox import Content, Slot
from bot.render import hand as render_hand
from bot.render import table as render_table
from bot.render.lobby import lobby as render_lobby
from bot.webapp.links import table_url

if TYPE_CHECKING:
    from bot.game import GameService

# a player who pressed nothing for this long may be away: their turn notifies
AWAY_SECONDS = 30.0
# the group's live table is edited at most once per this many pacing intervals, but
# for a finished trick (at once): a play costs a DM edit for who played and one for
# who plays next; the group gets well under one edit a play
CALM_INTERVALS = 2.0


@dataclass
class _Shown:
    """What a DM was last given, by what its reader needs of it."""

    hand_no: int
    needs: tuple[object, ...]


class Publisher:
    def __init__(self, svc: GameService) -> None:
        self.svc = svc
        self._dms: dict[tuple[int, int], _Shown] = {}  # (game, seat) -> last published
        self._tricks: dict[int, int] = {}  # game -> completed tricks last published
        self._won_at: dict[int, float] = {}  # game -> when its last trick was won
        self._pressed: dict[int, float] = {}  # user -> when they last pressed a button
        # called with every game published, under its lock (the Mini App's live tables)
        self.listeners: list[Callable[[Game], None]] = []

    @staticmethod
    def dm_key(rec: GameRecord) -> str:
        return slots.key(rec.id, "hand")

    def pressed(self, user_id: int) -> None:
        self._pressed[user_id] = self.svc.now()

    def _away(self, user_id: int) -> bool:
        last = self._pressed.get(user_id)
        return last is None or self.svc.now() - last > AWAY_SECONDS

    def trick_won_at(self, game_id: int) -> float | None:
        """When the group was last given a trick just won (None: not since start-up)."""
        return self._won_at.get(game_id)

    def group_behind(self, game: Game) -> bool:
        """The group's table does not show the last trick won yet (its output is paced,
        or failing). False when unknown (after a restart) or when it is not shown."""
        rec, match = game.rec, game.match
        done = self._tricks.get(rec.id)
        if rec.group_gone or match is None or not done:
            return False
        box = self.svc.outboxes.get(rec.chat_id)
        slot = box.slots.get(render_table.table_key(rec, match.hand_number))
        if slot is not None and slot.message_id is None:
            return slot.dirty  # the hand's table is on its way (not given up)
        seen = _seen(slot)
        return seen is not None and seen < done

    def publish(self, game: Game) -> None:
        """Every chat of the game shows its state as of now (as far as it needs)."""
        self._group(game)
        if game.match is not None and game.rec.status in ("running", "finished", "ended"):
            for seat in range(4):
                self._dm(game, seat)
        for n in game.notices:
            box = self.svc.outboxes.get(n.chat_id)
            box.put(n.key, n.content, oneshot=n.oneshot, thread_id=n.thread_id)
        game.notices.clear()
        for listener in self.listeners:
            listener(game)

    def _group(self, game: Game) -> None:
        rec, match = game.rec, game.match
        if rec.group_gone:  # the bot is not in the group: nothing can be shown there
            return
        box = self.svc.outboxes.get(rec.chat_id)
        th = rec.thread_id
        user = self.svc.bot_username
        box.put(slots.key(rec.id, "lobby"), render_lobby(rec, user), thread_id=th)
        if match is None:
            return
        done = sum(1 for trick in match.hand.tricks if trick.winner is not None)
        urgent = self._tricks.get(rec.id) not in (None, done)
        self._tricks[rec.id] = done
        if urgent:
            self._won_at[rec.id] = self.svc.now()
        seen = _seen(box.slots.get(render_table.table_key(rec, match.hand_number)))
        calm = CALM_INTERVALS * self.svc.settings.group_interval_seconds
        for slot, content in render_table.group_messages(rec, match, user, seen):
            key, family = slot.key, slot.family
            live = calm if family is not None else 0.0
            if family is not None:
                content = replace(content, tag=done)  # how many tricks it shows
            box.put(key, content, family=family, thread_id=th, urgent=urgent, calm=live)

    def _dm(self, game: Game, seat: int) -> None:
        rec, match = game.rec, game.match
        assert match is not None
        s = rec.seats[seat]
        if not s.human or s.dm_failed:
            return
        assert s.user_id is not None
        box = self.svc.outboxes.get(s.user_id)
        key = self.dm_key(rec)
        hand = match.hand
        needs = _needs(game, seat)
        last = self._dms.get((rec.id, seat))
        if last is not None and last.needs == needs and key in box.slots:
            return  # nothing its reader needs changed
        app_url = table_url(self.svc.settings.webapp_url, rec.id)
        content, my_turn = render_hand.hand_message(rec, match, seat, app_url)
        if rec.status == "ended":  # the last word: no buttons any more
            ended = t(rec.seat_lang(seat), "dm.ended", group=escape(rec.chat_title or "?"))
            content, my_turn = Content(content.text + "\n\n" + ended), False
        # A new hand moves the DM to the bottom (it notifies); so does a turn of a
        # player who may be away. After a restart nothing is known: edit in place.
        turn_came = my_turn and (last is None or not last.needs[0]) and self._away(s.user_id)
        resend = last is not None and (last.hand_no != hand.hand_number or turn_came)
        box.put(key, content, resend=resend)
        self._dms[(rec.id, seat)] = _Shown(hand.hand_number, needs)


def _seen(table: Slot | None) -> int | None:
    """How many finished tricks the hand's table the group reads now has shown; None
    if unknown (then nothing is shown again: after a restart it was up to date)."""
    if table is None:
        return None
    if table.message_id is None:
        return 0  # never shown yet: a new message shows what it must at once
    return table.shown_tag if isinstance(table.shown_tag, int) else None


def _needs(game: Game, seat: int) -> tuple[object, ...]:
    """What the reader of seat's DM needs to see changed (first: their turn)."""
    rec, match = game.rec, game.match
    assert match is not None
    hand, s = match.hand, rec.seats[seat]
    phase = hand.phase
    mine = hand.turn == seat and phase in ("burying", "chaodi", "playing")
    dealing = phase in ("dealing", "after_deal")
    return (
        mine,
        rec.status,
        rec.paused,
        rec.group_gone,
        rec.seat_lang(seat),
        s.auto,
        tuple(s.selection),
        hand.hand_number,
        # who acts next sees the new phase then; the deal and the result reach all
        phase if dealing or phase == "done" else "play",
        # cards as they are dealt matter once they allow a show (or the deal is over)
        tuple(hand.hands[seat]) if phase != "dealing" else None,
        tuple(map(tuple, match.observation(seat).show_options)) if dealing else None,
        len(hand.declaring.shows) if dealing else None,
        hand.can_pass(seat) if phase == "after_deal" else None,
        hand.version if mine else None,
    )
