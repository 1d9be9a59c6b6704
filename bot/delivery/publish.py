"""What each chat is shown, and when: the call budget (issue 8).

``bot.views`` says what a message would show now; this module decides whether its
reader needs it now, and hands it to the chat's paced outbox (``bot.delivery.outbox``), which
coalesces, skips what a message already shows and spends the chat's rate budget.

* A DM is edited only when a statement it makes may have become false (issue 16):
  their own cards (during the deal too: cards as they arrive), their selection,
  whether it is their turn and its deadline (one warning before 托管), the phase, who
  buries or may overturn, the declarations (level, trump, dealer), the result, a
  pause or 托管. Cards others play reach a DM with the reader's next turn (the
  current trick and the last completed one are in it then), not card by card: in
  between, its lines are phrased to stay true (``bot.views.dm_hand``).
* A turn is announced by editing the DM in place; only a player who may be away (no
  press for ``AWAY_SECONDS``) gets a new message (it notifies; the old one is
  deleted). A new hand always starts with a new message at the bottom of the DM.
* While a player has the Mini App open (``Apps.connected``) it shows them everything: their DM
  waits, but for a turn reaching them while they may be away; when the app closes the
  DM is brought up to date at once (``bot.edges.miniapp.streams``), so it is never stale.
* The group: its live table and a hand's result (``bot.views.group_table``), edited in place, the live
  table at most every ``CALM_INTERVALS`` pacing intervals (rendered when it goes out:
  ``Outbox.put_later``), but a state in which a trick was just completed goes out at
  once (*urgent*). Whatever the group's output skipped,
  the next table delivered shows again in full: each render is told how many finished
  tricks the table the group reads now has shown (its outbox slot's tag), so no finished
  trick is ever missed and the group catches up in one edit, never by a backlog.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.data.history import Charted
from bot.data.saved import GameRecord
from bot.delivery.outbox import Outboxes, Slot
from bot.i18n import t
from bot.infra.config import Settings
from bot.service.live import Game
from bot.table.moments import (
    LOBBY,
    Closed,
    DmFailed,
    Event,
    HandClosed,
    HandResent,
    Selected,
    TookOver,
    Warned,
)
from bot.views import codec
from bot.views import dm_hand as render_hand
from bot.views import group_table as render_table
from bot.views import history_text as render_history
from bot.views.lobby_message import lobby as render_lobby
from bot.views.messages import Clock, Content, slot_key
from bot.views.names import shown
from bot.views.projection import Deadline, Projection, Projections, clock_of
from engine.events import TrickWon

log = logging.getLogger(__name__)

# a player who pressed nothing for this long may be away: their turn notifies
AWAY_SECONDS = 30.0
# during the deal a DM shows the cards as they arrive at most this often (a new show
# option, or the end of the deal, goes out at once)
DEAL_CALM_SECONDS = 8.0
# the group's live table is edited at most once per this many pacing intervals, but
# for a finished trick (at once): a play costs a DM edit for who played and one for
# who plays next; the group gets well under one edit a play
CALM_INTERVALS = 2.0
# what changes a DM only (a selection, a turn's warning, a hand sent anew): the group's
# messages are not rendered again for it
_PRIVATE = (Selected, Warned, HandResent)
# who pressed lately is swept of old presses once it holds this many (then twice what is left)
SWEEP_AT = 1024


@dataclass
class _Shown:
    """What a DM was last given, by what its reader needs of it."""

    hand_no: int
    needs: Needs


class Apps(Protocol):
    """The open Mini Apps (``bot.edges.miniapp.streams.Readers``)."""

    def connected(self, user_id: int) -> bool:
        """Whether a person has the Mini App open (their DM may then wait: ``_dm``)."""
        ...

    def changed(self, game: Game) -> None:
        """Called with every game published, under its lock."""
        ...


class Publisher:
    def __init__(
        self, settings: Settings, outboxes: Outboxes, clock: Clock, apps: Apps, bot_username: str
    ) -> None:
        self.settings, self.outboxes, self.clock = settings, outboxes, clock
        self.apps, self.bot_username = apps, bot_username
        self._dms: dict[tuple[int, int], _Shown] = {}  # (game, seat) -> last published
        self._won_at: dict[int, float] = {}  # game -> when its last trick was won
        self._pressed: dict[int, float] = {}  # user -> when they last pressed a button
        self._sweep_at = SWEEP_AT
        # what each reader of a table is shown, built once per change (the Mini App's too)
        self.projections = Projections(settings)

    async def delivered(self, chats: Sequence[int]) -> None:
        await self.outboxes.delivered(list(chats))

    def retire(self, chats: Sequence[int], prefix: str) -> None:
        self.outboxes.retire(list(chats), prefix)

    def adopt(self, chat_id: int, key: str, message_id: int, digest: str | None) -> None:
        self.outboxes.get(chat_id).adopt(key, message_id, shown=digest)

    @staticmethod
    def dm_key(rec: GameRecord) -> str:
        return slot_key(rec.id, "hand")

    def renew_dm(self, rec: GameRecord, seat: int) -> None:
        """The seat's hand goes out as a new message at the next publish (a player back
        in their DM, a newcomer in the seat); an older one in that DM is deleted, so
        the DM holds one live hand message."""
        user_id = rec.seats[seat].user_id
        assert user_id is not None
        self._dms.pop((rec.id, seat), None)
        self.outboxes.get(user_id).renew(self.dm_key(rec))

    def forget(self, game_id: int) -> None:
        """A game ended and left: nothing of it is published again."""
        for seat in range(4):
            self._dms.pop((game_id, seat), None)
        self._won_at.pop(game_id, None)
        self.projections.forget(game_id)

    def pressed(self, user_id: int, rec: GameRecord, dm_message: int | None = None) -> bool:
        """A press of ``user_id`` (they are here); True when it was on a DM hand message
        (``dm_message``) of ``rec`` that is no longer the live one (it is then old)."""
        self._seen(user_id)
        if dm_message is None:
            return False
        live = self.outboxes.message_id(user_id, self.dm_key(rec))
        return live is not None and live != dm_message

    def _seen(self, user_id: int) -> None:
        now = self._pressed[user_id] = self.clock.now()
        if len(self._pressed) >= self._sweep_at:
            # a press older than AWAY_SECONDS says what no press says: forget those
            self._pressed = {u: t for u, t in self._pressed.items() if now - t <= AWAY_SECONDS}
            self._sweep_at = max(SWEEP_AT, 2 * len(self._pressed))

    def left_app(self, user_id: int) -> None:
        """Their Mini App closed or went silent: they may be away until they press again."""
        self._pressed.pop(user_id, None)

    def _wake(self, user_id: int, needs: Needs, last: _Shown | None) -> bool:
        """Their turn came and they may be away: the DM notifies, whatever else shows it."""
        return needs.mine and (last is None or not last.needs.mine) and self._away(user_id)

    def _away(self, user_id: int) -> bool:
        last = self._pressed.get(user_id)
        return last is None or self.clock.now() - last > AWAY_SECONDS

    def trick_won_at(self, game_id: int) -> float | None:
        """When the group was last given a trick just won (None: not since start-up)."""
        return self._won_at.get(game_id)

    def group_behind(self, game: Game) -> bool:
        """The group's table does not show the last trick won yet (its output is paced,
        or failing). False when unknown (after a restart) or when it is not shown."""
        rec, match = game.table.rec, game.table.match
        if rec.group_gone or match is None:
            return False
        done = self.projections.of(game.table, None).tricks_done
        if not done:
            return False
        box = self.outboxes.get(rec.chat_id)
        slot = box.slots.get(render_table.table_key(rec, match.hand_number))
        if slot is not None and slot.message_id is None:
            return slot.dirty  # the hand's table is on its way (not given up)
        seen = _seen(slot)
        return seen is not None and seen < done

    def publish(
        self, game: Game, events: Sequence[Event | Charted] = (), full: bool = False
    ) -> None:
        """Every chat of the game shows its state as of now (as far as it needs), after
        ``events`` (what the change did); ``full``: the lobby too, whatever happened
        (at start-up, after a failure)."""
        rec = game.table.rec
        for e in events:
            if isinstance(e, HandResent):
                self.renew_dm(rec, e.seat)
        if full or not events or not all(isinstance(e, _PRIVATE) for e in events):
            self._group(game, events, full)
        if game.table.match is not None and rec.status in ("running", "finished", "ended"):
            for seat in range(4):
                self._dm(game, seat)
        for e in events:
            self._notice(game, e)
        self.apps.changed(game)

    def _notice(self, game: Game, e: Event | Charted) -> None:
        """What a moment says besides the game's own messages."""
        rec = game.table.rec
        group = self.outboxes.get(rec.chat_id)
        th = rec.thread_id
        if isinstance(e, TookOver):
            old = e.old
            # the player who left keeps a last word in their DM, without buttons
            if old.user_id is not None and not old.dm_failed:
                text = t(
                    old.lang or rec.lang,
                    "dm.replaced",
                    group=shown(rec.chat_title or "?"),
                    name=shown(e.new.name),
                )
                self.outboxes.get(old.user_id).put(self.dm_key(rec), Content(text), oneshot=False)
            name = shown(old.name or "?", render_table.NAME_LIMIT)
            text = t(rec.lang, "table.taken_over", name=shown(e.new.name), old=name, n=e.seat + 1)
            key = slot_key(rec.id, "take", seat=e.seat)
            group.put(key, Content(text), oneshot=True, thread_id=th)
        elif isinstance(e, DmFailed):
            group.put(
                slot_key(rec.id, "dmfail", seat=e.seat),
                self._dm_failed(rec, e.seat),
                oneshot=True,
                thread_id=th,
            )
        elif isinstance(e, HandClosed):
            # the finished hand's result loses its "Next hand" button (no stale buttons)
            key = slot_key(rec.id, "result", hand=e.view.hand_number)
            content = render_table.result_of(rec, e.view, live=False)
            group.put(key, content, oneshot=False, thread_id=th)
        elif rec.group_gone:
            return  # the bot is not in the group: the end is not told there
        elif isinstance(e, Closed) and e.by is not None:
            text = t(rec.lang, "endgame.done", name=e.by)
            group.put(slot_key(rec.id, "ended"), Content(text), oneshot=True, thread_id=th)
        elif isinstance(e, Charted):
            content = render_history.chart_message(rec.lang, e.record)
            group.put(slot_key(rec.id, "chart"), content, oneshot=True, thread_id=th)

    def _dm_failed(self, rec: GameRecord, seat: int) -> Content:
        """The group is told a player's DM fails: open it again, or take the seat."""
        url = codec.deep_link(self.bot_username, codec.open_payload(rec.id))
        take = render_table.takeover_markup(rec, self.bot_username, [seat])
        rows = [[InlineKeyboardButton(t(rec.lang, "btn.open_dm"), url=url)]]
        if take is not None:
            rows += [list(r) for r in take.inline_keyboard]
        markup = InlineKeyboardMarkup(rows)
        text = t(rec.lang, "dm_failed", name=render_table.name_of(rec, seat), n=seat + 1)
        return Content(text, markup)

    def _group(self, game: Game, events: Sequence[Event | Charted], full: bool) -> None:
        rec, match = game.table.rec, game.table.match
        if rec.group_gone:  # the bot is not in the group: nothing can be shown there
            return
        box = self.outboxes.get(rec.chat_id)
        th = rec.thread_id
        user = self.bot_username
        if full or any(isinstance(e, LOBBY) for e in events):
            box.put(slot_key(rec.id, "lobby"), render_lobby(rec, user), thread_id=th)
        if match is None:
            return
        shown = self.projections.of(game.table, None)
        # a trick just won goes out at once
        urgent = any(isinstance(e, TrickWon) for e in events)
        if urgent:
            self._won_at[rec.id] = self.clock.now()
        calm = CALM_INTERVALS * self.settings.group_interval_seconds
        watch = codec.direct_link(user, self.settings.webapp_short_name, rec.id)
        # the live table is rendered when its turn comes (half its states are replaced
        # by newer ones during its calm); the result at once
        table = render_table.table_slot(rec, shown)
        render = _TableLater(game, shown, user, watch)
        box.put_later(
            table.key, render, family=table.family, thread_id=th, urgent=urgent, calm=calm
        )
        for slot, content in render_table.result_messages(rec, shown):
            box.put(slot.key, content, thread_id=th, urgent=urgent)

    def _dm(self, game: Game, seat: int) -> None:
        rec, match = game.table.rec, game.table.match
        assert match is not None
        s = rec.seats[seat]
        if not s.human or s.dm_failed:
            return
        assert s.user_id is not None
        box = self.outboxes.get(s.user_id)
        key = self.dm_key(rec)
        hand = match.hand
        clock = clock_of(game.table, self.settings)  # whoever acts now: theirs, or the window's
        needs = _needs(game, seat, clock)
        last = self._dms.get((rec.id, seat))
        if last is not None and last.needs == needs and key in box.slots:
            return  # nothing its reader needs changed
        if (
            key in box.slots
            and self.apps.connected(s.user_id)
            and not self._wake(s.user_id, needs, last)
        ):
            return  # their Mini App shows it all; the DM catches up when the app closes
        app_url = codec.table_url(self.settings.webapp_url, rec.id)
        projection = self.projections.of(game.table, seat)
        content, my_turn = render_hand.hand_message(rec, projection, app_url)
        if rec.status == "ended":  # the last word: no buttons any more
            ended = t(rec.seat_lang(seat), "dm.ended", group=shown(rec.chat_title or "?"))
            content, my_turn = Content(content.text + "\n\n" + ended), False
        # A new hand moves the DM to the bottom (it notifies); so does a turn of a
        # player who may be away. After a restart nothing is known: edit in place.
        turn_came = my_turn and (last is None or not last.needs.mine) and self._away(s.user_id)
        resend = last is not None and (last.hand_no != hand.hand_number or turn_came)
        # cards as they are dealt: calm; anything else (a show option, a show) at once
        dealing = hand.phase == "dealing" and rec.status == "running"
        urgent = dealing and last is not None and last.needs.beyond_deal() != needs.beyond_deal()
        calm = DEAL_CALM_SECONDS if dealing else 0.0
        box.put(key, content, resend=resend, calm=calm, urgent=urgent)
        self._dms[(rec.id, seat)] = _Shown(hand.hand_number, needs)


@dataclass(frozen=True, slots=True)
class _TableLater:
    """The group's live table of a hand as published last (its projection), rendered
    when the group's outbox delivers it: under the game's lock, so the record it reads
    is one the change path finished with (saved, if its change had to be)."""

    game: Game
    shown: Projection
    bot_username: str
    watch: str | None

    async def __call__(self, slot: Slot) -> Content | None:
        async with self.game.lock:
            rec = self.game.table.rec
            if rec.group_gone:
                return None
            content = render_table.table_message(
                rec, self.shown, self.bot_username, _seen(slot), self.watch
            )
        return replace(content, tag=self.shown.tricks_done)  # how many tricks it shows


def _seen(table: Slot | None) -> int | None:
    """How many finished tricks the hand's table the group reads now has shown; None
    if unknown (then nothing is shown again: after a restart it was up to date)."""
    if table is None:
        return None
    if table.message_id is None:
        return 0  # never shown yet: a new message shows what it must at once
    return table.shown_tag if isinstance(table.shown_tag, int) else None


@dataclass(frozen=True, slots=True)
class Needs:
    """What the reader of a seat's DM needs to see changed: their DM is edited when
    any of it changes, and only then."""

    mine: bool  # their turn (a turn reaching someone who may be away notifies)
    status: str
    paused: bool
    group_gone: bool
    lang: str
    auto: bool
    selection: tuple[int, ...]
    hand_number: int
    # every DM states the phase: each one is told when it changes (a few edits a hand),
    # but for the first lead (what a DM says of a burial stays true, and cards others
    # play reach a DM on its reader's turn: see bot.views.dm_hand)
    phase: str
    # 炒底: every DM says who may overturn now
    overturner: int | None
    # the header: level, trump, dealer (shows and overturns change them)
    level: int
    trump: int | None
    trump_decided: bool
    dealer: int | None
    shows: int
    # the reader's cards, during the deal too: cards as they arrive (the DM's outbox
    # paces them at its rate), and how many are dealt
    cards: tuple[int, ...]
    dealt: int | None
    show_options: tuple[tuple[int, ...], ...] | None
    can_pass: bool | None
    version: int | None  # of their turn
    warned: bool | None  # their turn's last seconds
    clock: Deadline | None  # of their turn, or the after-deal window
    # the throw penalties so far (counted at once: the points line says them)
    failed_throws: int
    # why: the Hint's line (a new hint, if the selection is the same), "Why?" opened
    hint: tuple[int, int] | None = None
    why: int | None = None
    # 托管 by choice reads otherwise than a time-out's; who else is on 托管 (every DM says)
    away: bool = False
    autos: tuple[int, ...] = ()
    tally: bool = False  # the card counter asked for (it states "after trick k")

    def beyond_deal(self) -> Needs:
        """What a DM needs but the deal's progress (its cards and count)."""
        return replace(self, cards=(), dealt=None)


def _needs(game: Game, seat: int, clock: Deadline | None) -> Needs:
    """What the reader of seat's DM needs to see changed; ``clock``: the deadline of
    whoever acts now."""
    rec, match = game.table.rec, game.table.match
    assert match is not None
    hand, s = match.hand, rec.seats[seat]
    phase = hand.phase
    mine = hand.turn == seat and phase in ("burying", "chaodi", "playing")
    dealing = phase in ("dealing", "after_deal")
    d = hand.declaring
    return Needs(
        mine=mine,
        status=rec.status,
        paused=rec.paused,
        group_gone=rec.group_gone,
        lang=rec.seat_lang(seat),
        auto=s.auto,
        selection=tuple(s.ui.selection),
        hand_number=hand.hand_number,
        phase="play" if phase in ("burying", "playing") else phase,
        overturner=hand.turn if phase == "chaodi" else None,
        level=hand.level,
        trump=d.trump,
        trump_decided=d.trump_decided,
        dealer=d.dealer,
        shows=len(d.shows),
        cards=tuple(hand.hands[seat]),
        dealt=hand.dealt if phase == "dealing" else None,
        show_options=(tuple(map(tuple, match.observation(seat).show_options)) if dealing else None),
        can_pass=hand.can_pass(seat) if phase == "after_deal" else None,
        version=hand.version if mine else None,
        warned=game.table.warned if mine else None,
        clock=clock if clock is None or clock.window or mine else None,
        failed_throws=sum(
            1 for tr in hand.tricks if tr.plays and tr.plays[0].attempted is not None
        ),
        hint=None if s.ui.hint is None else (s.ui.hint.hand, s.ui.hint.version),
        why=s.ui.why,
        away=s.away,
        autos=tuple(i for i, other in enumerate(rec.seats) if other.human and other.auto),
        tally=s.ui.tally,
    )
