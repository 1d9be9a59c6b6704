"""Lobby and seats: a new game, joining through a seat's deep link, the lobby's buttons
(leave, add or remove a computer, start, cancel) and taking over an absent player's seat.

Each entry point is a step run through ``GameService.change`` (lock → engine → save
once → publish once → arm once); it returns what the person is told.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot import codec, options, slots
from bot.codec import Kind
from bot.i18n import t
from bot.live import Answer, Game
from bot.models import GameRecord, Seat
from bot.outbox import Content
from bot.processor import KeyedLocks
from bot.render import table as render_table
from bot.render.names import shown
from engine.match import MatchState

if TYPE_CHECKING:
    from bot.game import GameService


class Lobby:
    def __init__(self, svc: GameService) -> None:
        self.svc = svc
        self._chat_locks = KeyedLocks()  # two /newgame at once: one lobby

    async def new_game(
        self, chat_id: int, thread_id: int | None, title: str, creator: int, lang: str
    ) -> tuple[Game, bool]:
        """Open a lobby, or return the chat's open game (``created`` False)."""
        svc = self.svc

        async def open_lobby() -> tuple[Game, bool]:
            existing = await svc.open_game_in(chat_id, thread_id)
            if existing is not None:
                return existing, False
            chat = await svc.store.chat_settings(chat_id)
            if chat.lang is None:  # the group's first game: its creator's language
                chat.lang = lang
                await svc.store.save_chat_settings(chat)
            rec = GameRecord(
                chat_id=chat_id,
                thread_id=thread_id,
                chat_title=title,
                creator_id=creator,
                lang=chat.lang,
                seed=svc.seed_source(),
                created_at=svc.wall(),
            )
            options.to_game(chat, rec)
            return await svc.create(rec), True

        game, created = await self._chat_locks.run(chat_id, open_lobby())
        if created:
            await svc.change(game, Game.changed)
        return game, created

    def lobby_message_id(self, game: Game) -> int | None:
        return self.svc.outboxes.get(game.rec.chat_id).message_id(slots.key(game.rec.id, "lobby"))

    async def join(self, game_id: int, seat: int, user_id: int, name: str, lang: str | None) -> str:
        """Seat a player who came through the deep link. Returns an i18n key."""
        game = await self.svc.get(game_id)
        if game is None:
            return "join.no_game"

        def step(game: Game) -> str:
            rec = game.rec
            if rec.status != "lobby":
                if rec.seat_of(user_id) is not None and rec.status == "running":
                    self.svc.chats.dm_back(game, user_id)
                    return "join.back"
                return "join.closed"
            current = rec.seat_of(user_id)
            if current == seat:
                return "join.already"
            if not rec.seats[seat].empty:
                return "join.taken"
            if current is not None:
                rec.seats[current] = Seat()
            rec.seats[seat] = Seat(user_id=user_id, name=name, lang=lang)
            game.changed()
            return "join.ok"

        return await self.svc.change(game, step)

    async def press(
        self, game: Game, press: codec.Press, user_id: int, admin: bool, code: str | None
    ) -> Answer:
        """A lobby button; ``admin``: the presser administers the group."""
        return await self.svc.change(game, lambda g: self._press(g, press, user_id, admin, code))

    def _press(
        self, game: Game, press: codec.Press, user_id: int, admin: bool, code: str | None
    ) -> Answer:
        rec = game.rec
        lang = rec.lang  # the lobby is in the group: its language
        if rec.status != "lobby":
            return Answer(t(lang, "stale"))
        kind = press.kind
        if kind == Kind.LEAVE:
            seat = rec.seat_of(user_id)
            if seat is None:
                return Answer(t(lang, "lobby.not_seated"))
            rec.seats[seat] = Seat()
            answer = Answer(t(lang, "lobby.left"))
        elif not (admin or user_id == rec.creator_id):
            return Answer(t(lang, "lobby.only_creator"), alert=True)
        elif kind == Kind.ADD_COMPUTER:
            empty = next((i for i, s in enumerate(rec.seats) if s.empty), None)
            if empty is None:
                return Answer(t(lang, "lobby.no_empty"))
            rec.seats[empty] = Seat(computer=True, name=t(lang, "computer_name"))
            answer = Answer()
        elif kind == Kind.REMOVE_COMPUTER:
            last = next((i for i in (3, 2, 1, 0) if rec.seats[i].computer), None)
            if last is None:
                return Answer()
            rec.seats[last] = Seat()
            answer = Answer()
        elif kind == Kind.CANCEL:
            rec.status = "cancelled"
            answer = Answer(t(lang, "lobby.cancelled"))
        elif kind == Kind.START:
            if not rec.full:
                return Answer(t(lang, "lobby.need_four"), alert=True)
            if not any(s.human for s in rec.seats):
                return Answer(t(lang, "lobby.need_human"), alert=True)
            self._start_match(game)
            answer = Answer(t(lang, "lobby.started"))
        else:
            return Answer(t(lang, "bad_button"))
        game.changed()
        return answer

    def _start_match(self, game: Game) -> None:
        rec = game.rec
        game.match = MatchState.new(options.game_rules(rec), rec.seed)
        rec.status = "running"
        rec.hand_no = game.match.hand_number
        rec.started_at = self.svc.wall()

    def expire(self, game: Game) -> None:
        """The lobby was not started in time."""
        if game.rec.status == "lobby":
            game.rec.status = "expired"
            game.changed()

    # ------------------------------------------------------------------ take-overs
    async def take_over(
        self, game_id: int, seat: int, user_id: int, name: str, lang: str | None
    ) -> str:
        """/start t<game>_<seat>: a group member takes the seat of a player who is on
        托管 or unreachable; they get the current hand at once. Returns an i18n key."""
        game = await self.svc.get(game_id)
        if game is None:
            return "join.no_game"
        return await self.svc.change(game, lambda g: self._take_over(g, seat, user_id, name, lang))

    def _take_over(self, game: Game, seat: int, user_id: int, name: str, lang: str | None) -> str:
        rec = game.rec
        if rec.status != "running":
            return "join.closed"
        mine = rec.seat_of(user_id)
        if mine == seat:
            self.svc.chats.dm_back(game, user_id)
            return "join.back"
        if mine is not None:
            return "take.seated"
        if seat not in render_table.takeable(rec):
            return "take.not_free"
        old = rec.seats[seat]
        old_name = render_table.name_of(rec, seat)
        rec.seats[seat] = Seat(user_id=user_id, name=name, lang=lang)
        key = self.svc.publisher.dm_key(rec)
        # the player who left keeps a last word in their DM, without buttons
        if old.user_id is not None and not old.dm_failed:
            text = t(
                old.lang or rec.lang,
                "dm.replaced",
                group=shown(rec.chat_title or "?"),
                name=shown(name),
            )
            game.notify(old.user_id, key, Content(text), oneshot=False)
        # the newcomer's hand is sent as a new message (an older one of theirs goes)
        self.svc.publisher.renew_dm(rec, seat)
        if rec.paused and not rec.group_gone and not any(s.dm_failed for s in rec.seats):
            rec.paused = False
        text = t(rec.lang, "table.taken_over", name=shown(name), old=old_name, n=seat + 1)
        game.notify(rec.chat_id, slots.key(rec.id, "take", seat=seat), Content(text))
        game.changed()
        return "take.ok"

    def takeover_link(self, game: Game, seat: int) -> str | None:
        """The deep link that takes over ``seat`` now, or None if it is not free."""
        if seat not in render_table.takeable(game.rec):
            return None
        return codec.deep_link(self.svc.bot_username, codec.take_payload(game.rec.id, seat))
