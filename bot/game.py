"""GameService: one place that owns the games.

It holds each game's :class:`~engine.match.MatchState` with the lobby, the seat ↔ player
mapping and the ids of the messages that show it; applies actions through the engine's
one door (``MatchState.apply``), saves before anything is acknowledged, asks
``bot.render`` for what every message should show now and hands that to the paced
outboxes, and arms the one timer each game needs next (``bot.timers``).

Every mutation of a game runs under that game's lock, whether it comes from an update
or from a timer, so updates and deadlines for one game never interleave.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape

from bot import codec, history, options
from bot.config import Settings
from bot.i18n import t
from bot.models import ChatSettings, GameRecord, Seat
from bot.outbox import Clock, Content, Outboxes
from bot.render import hand as render_hand
from bot.render import history as render_history
from bot.render import table as render_table
from bot.render.lobby import lobby as render_lobby
from bot.store import Store
from engine.errors import IllegalAction
from engine.hand import Action, Bury, Deal, Pass, Play, Redeal, Show
from engine.match import MatchState
from engine.players import choose_action, choose_bury, suggest

log = logging.getLogger(__name__)


@dataclass
class Answer:
    """What a press is answered with (``answerCallbackQuery``)."""

    text: str = ""
    alert: bool = False
    url: str | None = None


@dataclass
class Game:
    rec: GameRecord
    match: MatchState | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # monotonic deadline of the after-deal window (not persisted: re-armed on restart)
    window_deadline: float | None = None

    @property
    def lang(self) -> str:
        return self.rec.lang


# A timer arms ``fire(game_id, token, delay)``; bot.timers implements it with the JobQueue.
Arm = Callable[[int, tuple[int, int, str], float], None]
Disarm = Callable[[int], None]


SeedSource = Callable[[], int]


def system_seed() -> int:
    """A fresh match seed from the operating system's randomness."""
    return random.SystemRandom().randrange(2**31)


class GameService:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        outboxes: Outboxes,
        clock: Clock,
        seed_source: SeedSource | None = None,
    ):
        self.settings = settings
        # where a new game's seed (its deals) comes from: tests inject fixed seeds
        self.seed_source: SeedSource = seed_source or system_seed
        self.store = store
        self.outboxes = outboxes
        self.clock = clock
        self.games: dict[int, Game] = {}
        self.bot_username = "bot"
        self.arm: Arm = lambda *_: None
        self.disarm: Disarm = lambda *_: None
        outboxes.on_sent = self._on_sent
        outboxes.on_forbidden = self._on_forbidden
        outboxes.on_migrated = self._on_migrated
        self._tasks: set[asyncio.Task[None]] = set()
        self._dm_owner: dict[int, set[int]] = {}  # user id -> games they sit in

    def _wall(self) -> float:
        wall = getattr(self.clock, "wall", None)
        return wall() if wall is not None else time.time()

    # ------------------------------------------------------------------ loading
    async def get(self, game_id: int) -> Game | None:
        game = self.games.get(game_id)
        if game is None:
            rec = await self.store.load_game(game_id)
            if rec is None:
                return None
            game = self._adopt(rec)
        return game

    def _adopt(self, rec: GameRecord) -> Game:
        match = MatchState.model_validate_json(rec.match_json) if rec.match_json else None
        game = self.games[rec.id] = Game(rec, match)
        group = self.outboxes.get(rec.chat_id)
        for key, mid in rec.group_messages.items():
            if group.message_id(key) is None:
                group.adopt(key, mid, family=_family(key))
        for seat, mid in rec.dm_messages.items():
            user = rec.seats[seat].user_id
            if user is not None and self.outboxes.get(user).message_id(self._dm_key(rec)) is None:
                self.outboxes.get(user).adopt(self._dm_key(rec), mid)
        return game

    async def resume_all(self) -> int:
        """After a start-up: load every open game, re-render it (edits) and re-arm its timer."""
        recs = await self.store.open_games()
        for rec in recs:
            game = self._adopt(rec)
            async with game.lock:
                self._render(game)
                self._schedule(game)
        return len(recs)

    # ------------------------------------------------------------------ persistence
    async def _save(self, game: Game) -> None:
        if game.match is not None:
            game.rec.match_json = game.match.model_dump_json()
        await self.store.save_game(game.rec)

    async def _on_sent(self, chat_id: int, key: str, message_id: int) -> None:
        game_id = _game_of_key(key)
        game = self.games.get(game_id) if game_id is not None else None
        if game is None:
            return
        if chat_id == game.rec.chat_id:
            game.rec.group_messages[key] = message_id
            # keep only the messages a restart may still edit
            live = {k: v for k, v in game.rec.group_messages.items() if _keep(k, game)}
            game.rec.group_messages = live
        else:
            seat = game.rec.seat_of(chat_id)
            if seat is not None:
                game.rec.dm_messages[seat] = message_id
        await self.store.save_game(game.rec)

    async def _on_forbidden(self, chat_id: int) -> None:
        """A DM failed (blocked, never started): pause the game and say so in the group.
        A group that refuses messages (the bot was removed) pauses its games too."""
        if chat_id < 0:
            await self.bot_removed(chat_id)
            return
        for game in list(self.games.values()):
            seat = game.rec.seat_of(chat_id)
            if seat is None or game.rec.status != "running":
                continue
            game.rec.seats[seat].dm_failed = True
            game.rec.paused = True
            await self.store.save_game(game.rec)
            self.disarm(game.rec.id)
            self._notice_dm_failed(game, seat)
            self._render_group(game)

    def _notice_dm_failed(self, game: Game, seat: int) -> None:
        rec = game.rec
        url = f"https://t.me/{self.bot_username}?start={codec.open_payload(rec.id)}"
        from telegram import InlineKeyboardButton, InlineKeyboardMarkup

        take = render_table.takeover_markup(rec, self.bot_username, [seat])
        rows = [[InlineKeyboardButton(t(rec.lang, "btn.open_dm"), url=url)]]
        markup = InlineKeyboardMarkup(rows + [list(r) for r in take.inline_keyboard])  # type: ignore[union-attr]
        text = t(rec.lang, "dm_failed", name=render_table.name_of(rec, seat), n=seat + 1)
        self.outboxes.get(rec.chat_id).put(
            f"g{rec.id}:dmfail:{seat}:{time.time_ns()}",
            Content(text, markup),
            oneshot=True,
            thread_id=rec.thread_id,
        )

    # ------------------------------------------------------------------ the group itself
    def _on_migrated(self, old: int, new: int) -> None:
        """A request to the group failed with ChatMigrated (its service message may
        not have reached us yet): move the games there."""
        task = asyncio.get_running_loop().create_task(self.migrate_chat(old, new))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def migrate_chat(self, old: int, new: int) -> None:
        """The group was upgraded to a supergroup: its games, lobby and settings move to
        the new chat id (store and memory) and the table is posted there anew. Idempotent:
        both service messages and a ChatMigrated error may announce the same move."""
        games = [g for g in self.games.values() if g.rec.chat_id == old]
        for game in games:
            async with game.lock:
                if game.rec.chat_id != old:
                    continue
                game.rec.chat_id = new
                game.rec.group_messages = {}
                await self._save(game)
        await self.store.migrate_chat(old, new)
        self.outboxes.drop(old)
        for game in games:
            async with game.lock:
                if game.rec.status in ("lobby", "running"):
                    self._render_group(game)
        if games:
            log.info("chat %s became %s: %d games moved", old, new, len(games))

    async def _games_in(self, chat_id: int) -> list[Game]:
        out = []
        for rec in await self.store.games_in(chat_id):
            if rec.status in ("lobby", "running"):
                game = await self.get(rec.id)
                if game is not None:
                    out.append(game)
        return out

    async def bot_removed(self, chat_id: int) -> None:
        """The bot left or was removed: an open lobby is cancelled, a running game is
        paused (kept whole) until the bot is back."""
        self.outboxes.drop(chat_id)  # nothing can reach the group now
        for game in await self._games_in(chat_id):
            async with game.lock:
                rec = game.rec
                if rec.status == "lobby":
                    rec.status = "cancelled"
                elif rec.status == "running" and not rec.group_gone:
                    rec.group_gone = rec.paused = True
                    for seat in range(4):
                        self._render_dm(game, seat)
                else:
                    continue
                self.disarm(rec.id)
                await self._save(game)
                log.info("bot removed from %s: game %s %s", chat_id, rec.id, rec.status)

    async def bot_added(self, chat_id: int) -> None:
        """The bot is (back) in the group: paused games resume with the table posted anew."""
        games = [g for g in await self._games_in(chat_id) if g.rec.group_gone]
        if games:
            self.outboxes.drop(chat_id)  # a fresh outbox: old message ids may be gone
        for game in games:
            async with game.lock:
                rec = game.rec
                rec.group_gone = False
                rec.paused = any(s.dm_failed for s in rec.seats)
                rec.group_messages = {}
                await self._save(game)
                self._render(game)
                self._schedule(game)

    # ------------------------------------------------------------------ lobby
    async def open_game_in(self, chat_id: int, thread_id: int | None) -> Game | None:
        rec = await self.store.open_game_in(chat_id, thread_id)
        return None if rec is None else await self.get(rec.id)

    async def new_game(
        self, chat_id: int, thread_id: int | None, title: str, creator: int, lang: str
    ) -> tuple[Game, bool]:
        """Open a lobby, or return the chat's open game (``created`` False)."""
        existing = await self.open_game_in(chat_id, thread_id)
        if existing is not None:
            return existing, False
        chat = await self.store.chat_settings(chat_id)
        rec = GameRecord(
            chat_id=chat_id,
            thread_id=thread_id,
            chat_title=title,
            creator_id=creator,
            lang=chat.lang or lang,
            group_lang=chat.lang,
            seed=self.seed_source(),
        )
        options.to_game(chat, rec)
        rec = await self.store.create_game(rec)
        game = self.games[rec.id] = Game(rec)
        async with game.lock:
            self._render(game)
            self._schedule(game)
        return game, True

    async def apply_chat_settings(self, chat_id: int, chat: ChatSettings) -> None:
        """A settings change reaches the chat's open games: the language at once (lobby and
        running match), the rules only lobbies that have not started."""
        for game in list(self.games.values()):
            rec = game.rec
            if rec.chat_id != chat_id or rec.status not in ("lobby", "running"):
                continue
            async with game.lock:
                if chat.lang:
                    rec.lang = rec.group_lang = chat.lang
                if rec.status == "lobby":
                    options.to_game(chat, rec)
                await self._save(game)
                self._render(game)

    async def join(self, game_id: int, seat: int, user_id: int, name: str, lang: str | None) -> str:
        """Seat a player who came through the deep link. Returns an i18n key."""
        game = await self.get(game_id)
        if game is None:
            return "join.no_game"
        async with game.lock:
            rec = game.rec
            if rec.status != "lobby":
                if rec.seat_of(user_id) is not None and rec.status == "running":
                    await self._dm_back(game, user_id)
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
            await self.store.save_game(rec)
            self._render(game)
            return "join.ok"

    async def take_over(
        self, game_id: int, seat: int, user_id: int, name: str, lang: str | None
    ) -> str:
        """/start t<game>_<seat>: a group member takes the seat of a player who is on
        托管 or unreachable; they get the current hand at once. Returns an i18n key."""
        game = await self.get(game_id)
        if game is None:
            return "join.no_game"
        async with game.lock:
            rec = game.rec
            if rec.status != "running":
                return "join.closed"
            mine = rec.seat_of(user_id)
            if mine == seat:
                await self._dm_back(game, user_id)
                return "join.back"
            if mine is not None:
                return "take.seated"
            if seat not in render_table.takeable(rec):
                return "take.not_free"
            old = rec.seats[seat]
            old_name = render_table.name_of(rec, seat)
            rec.seats[seat] = Seat(user_id=user_id, name=name, lang=lang)
            rec.dm_messages.pop(seat, None)
            # the player who left keeps a last word in their DM, without buttons
            if old.user_id is not None and not old.dm_failed:
                box = self.outboxes.get(old.user_id)
                text = t(
                    rec.group_lang or old.lang or rec.lang,
                    "dm.replaced",
                    group=escape(rec.chat_title or "?"),
                    name=escape(name),
                )
                box.put(self._dm_key(rec), Content(text))
            # the newcomer's hand is sent as a new message
            self.outboxes.get(user_id).slots.pop(self._dm_key(rec), None)
            if rec.paused and not rec.group_gone and not any(s.dm_failed for s in rec.seats):
                rec.paused = False
            self.outboxes.get(rec.chat_id).put(
                f"g{rec.id}:take:{seat}:{time.time_ns()}",
                Content(
                    t(
                        rec.lang,
                        "table.taken_over",
                        name=escape(name),
                        old=old_name,
                        n=seat + 1,
                    )
                ),
                oneshot=True,
                thread_id=rec.thread_id,
            )
            await self._save(game)
            self._render(game)
            self._schedule(game)
            return "take.ok"

    def takeover_link(self, game: Game, seat: int) -> str | None:
        """The deep link that takes over ``seat`` now, or None if it is not free."""
        if seat not in render_table.takeable(game.rec):
            return None
        return f"https://t.me/{self.bot_username}?start={codec.take_payload(game.rec.id, seat)}"

    async def end_game(self, game: Game, by: str) -> bool:
        """/endgame, confirmed: the match stops for good; the record is kept (ended)."""
        rec = game.rec
        if rec.status not in ("lobby", "running"):
            return False
        rec.status = "ended" if rec.status == "running" else "cancelled"
        rec.paused = False
        self.disarm(rec.id)
        await self._save(game)
        if not rec.group_gone:
            self.outboxes.get(rec.chat_id).put(
                f"g{rec.id}:ended",
                Content(t(rec.lang, "endgame.done", name=by)),
                oneshot=True,
                thread_id=rec.thread_id,
            )
        self._render(game)
        return True

    async def open_dm(self, game_id: int, user_id: int) -> str:
        """/start g<game>: the player (re)opened the DM; resume if the game waited for them."""
        game = await self.get(game_id)
        if game is None or game.rec.seat_of(user_id) is None:
            return "open.not_seated"
        async with game.lock:
            await self._dm_back(game, user_id)
        return "join.back"

    async def _dm_back(self, game: Game, user_id: int) -> None:
        rec = game.rec
        seat = rec.seat_of(user_id)
        if seat is None:
            return
        rec.seats[seat].dm_failed = False
        box = self.outboxes.get(user_id)
        slot = box.slots.get(self._dm_key(rec))
        if slot is not None:
            slot.sent = None
            slot.message_id = None
        if rec.paused and not rec.group_gone and not any(s.dm_failed for s in rec.seats):
            rec.paused = False
        await self.store.save_game(rec)
        self._render(game)
        self._schedule(game)

    async def lobby_press(
        self, game: Game, press: codec.Press, user_id: int, admin: bool, code: str | None = None
    ) -> Answer:
        rec = game.rec
        lang = rec.user_lang(user_id, code)
        if rec.status != "lobby":
            return Answer(t(lang, "stale"))
        boss = admin or user_id == rec.creator_id
        kind = press.kind
        if kind == "L":
            seat = rec.seat_of(user_id)
            if seat is None:
                return Answer(t(lang, "lobby.not_seated"))
            rec.seats[seat] = Seat()
            answer = Answer(t(lang, "lobby.left"))
        elif kind in "CRSX" and not boss:
            return Answer(t(lang, "lobby.only_creator"), alert=True)
        elif kind == "C":
            empty = next((i for i, s in enumerate(rec.seats) if s.empty), None)
            if empty is None:
                return Answer(t(lang, "lobby.no_empty"))
            rec.seats[empty] = Seat(computer=True, name=t(lang, "computer_name"))
            answer = Answer()
        elif kind == "R":
            last = next((i for i in (3, 2, 1, 0) if rec.seats[i].computer), None)
            if last is None:
                return Answer()
            rec.seats[last] = Seat()
            answer = Answer()
        elif kind == "X":
            rec.status = "cancelled"
            answer = Answer(t(lang, "lobby.cancelled"))
        elif kind == "S":
            if not rec.full:
                return Answer(t(lang, "lobby.need_four"), alert=True)
            if not any(s.human for s in rec.seats):
                return Answer(t(lang, "lobby.need_human"), alert=True)
            self._start_match(game)
            answer = Answer(t(lang, "lobby.started"))
        else:
            return Answer(t(lang, "bad_button"))
        await self._save(game)
        self._render(game)
        self._schedule(game)
        return answer

    def _start_match(self, game: Game) -> None:
        rec = game.rec
        game.match = MatchState.new(options.game_rules(rec), rec.seed)
        rec.status = "running"
        rec.hand_no = game.match.hand_number
        rec.started_at = self._wall()

    async def expire(self, game: Game) -> None:
        if game.rec.status == "lobby":
            game.rec.status = "expired"
            await self._save(game)
            self._render(game)
            self.disarm(game.rec.id)

    # ------------------------------------------------------------------ hand presses
    async def hand_press(
        self, game: Game, press: codec.Press, user_id: int, code: str | None = None
    ) -> Answer:
        """A button of a DM hand (or the group's next-hand button)."""
        rec, match = game.rec, game.match
        lang = rec.user_lang(user_id, code)
        if rec.status != "running" or match is None:
            return Answer(t(lang, "stale"))
        seat = rec.seat_of(user_id)
        if seat is None:
            return Answer(t(lang, "not_your_game"), alert=True)
        hand = match.hand
        if press.hand != hand.hand_number:
            return Answer(t(lang, "stale"))
        if rec.paused and press.kind != "A":
            return Answer(t(lang, "paused.group" if rec.group_gone else "paused"), alert=True)
        s = rec.seats[seat]
        kind = press.kind
        if kind == "G":
            return await self._next_hand_press(game, lang)
        if kind != "T" and s.auto:
            # the player is back: 托管 ends for good (saved), the computer's move for
            # them is called off (their own turn clock again), the table drops the 🤖
            s.auto = False
            await self._save(game)
            self._render(game)
            self._schedule(game)
        if kind == "A":
            s.auto = False
            await self._save(game)
            self._render(game)
            self._schedule(game)
            return Answer(t(lang, "auto.off"))
        if kind == "T":
            return await self._toggle(game, seat, press)
        if kind == "O":
            s.selection = []
            self._render_dm(game, seat)
            return Answer()
        if kind == "H":
            return self._hint(game, seat)
        if kind == "D":
            return await self._act(game, Show(seat=seat, cards=press.cards), seat)
        if kind == "N":
            return await self._act(game, Pass(seat=seat), seat)
        if kind == "V":
            return await self._act(game, Redeal(seat=seat), seat)
        if kind == "P":
            if press.version != hand.version:
                return Answer(t(lang, "stale"))
            if hand.phase == "burying":
                return await self._act(game, Bury(seat=seat, cards=list(s.selection)), seat)
            return await self._act(game, Play(seat=seat, cards=list(s.selection)), seat)
        return Answer(t(lang, "bad_button"))

    async def _toggle(self, game: Game, seat: int, press: codec.Press) -> Answer:
        rec, hand = game.rec, game.match.hand  # type: ignore[union-attr]
        lang = rec.seat_lang(seat)
        if len(press.arg) != 2 or press.arg[1] not in "01":
            return Answer(t(lang, "bad_button"))
        card = codec.decode_cards(press.arg[0])[0]
        copy = int(press.arg[1])
        held = hand.hands[seat].count(card)
        s = rec.seats[seat]
        if copy >= held:
            return Answer(t(lang, "stale"))
        trick = hand.current_trick
        one_card = (
            hand.phase == "playing"
            and press.version == hand.version  # a tap on an older keyboard only selects
            and hand.turn == seat
            and trick is not None
            and len(trick.plays) > 0
            and len(trick.plays[0].cards) == 1
            and not s.selection
        )
        if one_card:  # exactly one card is needed: one tap plays it
            return await self._act(game, Play(seat=seat, cards=[card]), seat)
        if s.selection.count(card) > copy:
            s.selection.remove(card)
        else:
            s.selection.append(card)
        self._render_dm(game, seat)
        return Answer()

    def _hint(self, game: Game, seat: int) -> Answer:
        rec, hand = game.rec, game.match.hand  # type: ignore[union-attr]
        obs = hand.observation(seat)
        if hand.phase == "burying" and hand.turn == seat:
            rec.seats[seat].selection = list(choose_bury(obs))
        elif hand.phase == "playing" and hand.turn == seat:
            rec.seats[seat].selection = list(suggest(obs))
        else:
            return Answer(t(rec.seat_lang(seat), "hint.not_now"))
        self._render_dm(game, seat)
        return Answer(t(rec.seat_lang(seat), "hint.done"))

    async def _act(self, game: Game, action: Action, seat: int | None) -> Answer:
        """Apply one action; on success save, render and re-arm, then acknowledge."""
        match = game.match
        assert match is not None
        lang = game.rec.seat_lang(seat) if seat is not None else game.rec.lang
        try:
            match.apply(action)
        except IllegalAction as e:
            return Answer(reason_text(lang, e), alert=True)
        if seat is not None:
            game.rec.seats[seat].selection = []
        await self._after_change(game)
        return Answer(_ack(lang, action))

    async def _after_change(self, game: Game) -> None:
        match = game.match
        assert match is not None
        rec = game.rec
        ended = None
        if match.hand.phase == "after_deal" and game.window_deadline is None:
            game.window_deadline = self.clock.now() + self.settings.overturn_window_seconds
        elif match.hand.phase != "after_deal":
            game.window_deadline = None
        if match.hand.phase == "done":
            # a time limit (tournament) is checked when a hand ends: higher level wins
            started = rec.started_at or rec.created_at
            match.check_time_limit((self._wall() - started) / 60)
            if match.finished:
                rec.status = "finished"
            ended = await history.hand_over(self.store, rec, match, self._wall())
        await self._save(game)
        self._render(game)
        if ended is not None and not rec.group_gone:  # the level chart with the result
            chart = render_history.chart_message(rec.lang, ended)
            self.outboxes.get(rec.chat_id).put(
                f"g{rec.id}:chart", chart, oneshot=True, thread_id=rec.thread_id
            )
        self._schedule(game)

    async def _next_hand_press(self, game: Game, lang: str) -> Answer:
        match = game.match
        assert match is not None
        if match.hand.phase != "done" or match.finished:
            return Answer(t(lang, "stale"))
        await self._next_hand(game)
        return Answer()

    async def _next_hand(self, game: Game) -> None:
        match = game.match
        assert match is not None
        rec = game.rec
        # the finished hand's result loses its "Next hand" button (no stale buttons)
        old = f"g{rec.id}:h{match.hand_number}:result"
        done = render_table.result_message(rec, match, live=False)
        self.outboxes.get(rec.chat_id).put(old, done, thread_id=rec.thread_id)
        match.start_next_hand()
        game.rec.hand_no = match.hand_number
        for s in game.rec.seats:
            s.selection = []
        await self._after_change(game)

    # ------------------------------------------------------------------ timers
    def _schedule(self, game: Game) -> None:
        """Arm the single timer this game needs now (or none)."""
        rec, match, st = game.rec, game.match, self.settings
        self.disarm(rec.id)
        if rec.status == "lobby":
            due = rec.created_at + st.lobby_expiry_minutes * 60 - time.time()
            self.arm(rec.id, (0, 0, "expire"), max(0.0, due))
            return
        if rec.status != "running" or match is None or rec.paused:
            return
        hand = match.hand
        token = (hand.hand_number, hand.version)
        phase = hand.phase
        if phase == "dealing":
            pace = st.deal_pace_seconds if rec.deal_pace is None else rec.deal_pace
            self.arm(rec.id, (*token, "deal"), pace)
        elif phase == "after_deal":
            bots = [i for i in range(4) if self._robot(rec, i) and hand.can_pass(i)]
            if bots:
                self.arm(rec.id, (*token, "robots"), st.computer_delay_seconds)
            else:
                if game.window_deadline is None:  # after a restart: a fresh window
                    game.window_deadline = self.clock.now() + st.overturn_window_seconds
                deadline = game.window_deadline
                self.arm(rec.id, (*token, "window"), max(0.0, deadline - self.clock.now()))
        elif phase in ("burying", "chaodi", "playing"):
            seat = hand.turn
            assert seat is not None
            if self._robot(rec, seat):
                self.arm(rec.id, (*token, "robot"), st.computer_delay_seconds)
            else:
                self.arm(rec.id, (*token, "timeout"), rec.turn_seconds or st.turn_timeout_seconds)
        elif phase == "done" and not match.finished:
            self.arm(rec.id, (*token, "next"), st.next_hand_delay_seconds)

    @staticmethod
    def _robot(rec: GameRecord, seat: int) -> bool:
        s = rec.seats[seat]
        return s.computer or s.auto

    async def fire(self, game_id: int, token: tuple[int, int, str]) -> None:
        """A timer went off: act if the game is still where it was when armed."""
        game = await self.get(game_id)
        if game is None:
            return
        async with game.lock:
            hand_no, version, kind = token
            if kind == "expire":
                await self.expire(game)
                return
            match = game.match
            if match is None or game.rec.status != "running" or game.rec.paused:
                return
            hand = match.hand
            if (hand.hand_number, hand.version) != (hand_no, version):
                return
            await self._fire(game, kind)

    async def _fire(self, game: Game, kind: str) -> None:
        match = game.match
        assert match is not None
        hand, rec = match.hand, game.rec
        rng = random.Random(rec.seed * 7919 + hand.version * 31 + hand.hand_number)
        if kind == "deal":
            match.apply(Deal(n=4 * self.settings.deal_batch))
            for seat in range(4):  # computers race to declare like everyone else
                if rec.seats[seat].computer and hand.phase == "dealing":
                    action = choose_action(hand.observation(seat), rng)
                    if isinstance(action, Show):
                        self._try(match, action)
        elif kind == "robots":
            for seat in range(4):
                if self._robot(rec, seat) and hand.phase == "after_deal" and hand.can_pass(seat):
                    self._try(match, choose_action(hand.observation(seat), rng))
        elif kind == "window":
            for seat in range(4):
                if hand.phase == "after_deal" and hand.can_pass(seat):
                    self._try(match, Pass(seat=seat))
        elif kind in ("robot", "timeout"):
            seat = hand.turn
            assert seat is not None
            if kind == "timeout":
                rec.seats[seat].auto = True  # 托管 until the player acts again
            rec.seats[seat].selection = []
            if not self._try(match, self._robot_action(match, seat, rng)):
                rec.seats[seat].auto = False  # leave the turn to the player; re-arm below
        elif kind == "next":
            await self._next_hand(game)
            return
        await self._after_change(game)

    @staticmethod
    def _robot_action(match: MatchState, seat: int, rng: random.Random) -> Action:
        return choose_action(match.hand.observation(seat), rng)

    @staticmethod
    def _try(match: MatchState, action: Action) -> bool:
        try:
            match.apply(action)
            return True
        except IllegalAction as e:
            log.error("engine refused a computer action %s: %s", action, e)
            return False

    # ------------------------------------------------------------------ rendering
    @staticmethod
    def _dm_key(rec: GameRecord) -> str:
        return f"g{rec.id}:hand"

    def _render(self, game: Game) -> None:
        self._render_group(game)
        if game.match is not None and game.rec.status in ("running", "finished", "ended"):
            for seat in range(4):
                self._render_dm(game, seat)

    def _render_group(self, game: Game) -> None:
        rec, match = game.rec, game.match
        if rec.group_gone:  # the bot is not in the group: nothing can be shown there
            return
        box = self.outboxes.get(rec.chat_id)
        th = rec.thread_id
        box.put(f"g{rec.id}:lobby", render_lobby(rec, self.bot_username), family=None, thread_id=th)
        if match is None:
            return
        for key, content in render_table.group_messages(rec, match, self.bot_username):
            box.put(key, content, family=_family(key), thread_id=th)

    def _render_dm(self, game: Game, seat: int) -> None:
        rec, match = game.rec, game.match
        s = rec.seats[seat]
        if match is None or not s.human or s.dm_failed:
            return
        content, my_turn = render_hand.hand_message(rec, match, seat)
        if rec.status == "ended":  # the last word: no buttons any more
            ended = t(rec.seat_lang(seat), "dm.ended", group=rec.chat_title or "?")
            content, my_turn = Content(content.text + "\n\n" + ended), False
        box = self.outboxes.get(s.user_id)  # type: ignore[arg-type]
        key = self._dm_key(rec)
        slot = box.slots.get(key)
        # A new hand, or a new turn, moves the hand to the bottom of the DM (it notifies).
        # After a restart the mark is unknown: edit in place rather than flood.
        hand_no = match.hand.hand_number
        mark = (hand_no, match.hand.version if my_turn else None)
        resend = (
            slot is not None
            and slot.mark is not None
            and (slot.mark[0] != hand_no or (my_turn and slot.mark != mark))
        )
        box.put(key, content, resend=resend)
        box.slots[key].mark = mark


def _family(key: str) -> str | None:
    # g<id>:h<n>:... slots form one family per game: a newer one supersedes unsent older ones
    parts = key.split(":")
    if len(parts) >= 3 and parts[1].startswith("h") and parts[2] != "result":
        return f"{parts[0]}:table"
    return None


def _keep(key: str, game: Game) -> bool:
    match = game.match
    if match is None or ":h" not in key:
        return True
    return key.startswith(f"g{game.rec.id}:h{match.hand_number}:")


def _game_of_key(key: str) -> int | None:
    head = key.split(":", 1)[0]
    if head.startswith("g") and head[1:].isdigit():
        return int(head[1:])
    return None


def reason_text(lang: str, e: IllegalAction) -> str:
    key = f"reason.{e.reason}"
    text = t(lang, key)
    return text if text != key else t(lang, "reason.unknown", reason=e.reason)


def _ack(lang: str, action: Action) -> str:
    return t(lang, f"ack.{action.kind}")
