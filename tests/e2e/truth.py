"""Every statement a DM makes, checked against the engine at every moment (issue 16).

:class:`TruthWatch` is called by the fake Telegram after every Bot API call. At that
moment, for every person's hand message, each line that states a fact is matched
against the catalog's templates (in the reader's language) and checked against the
engine's state as it is now: who acts, what the trick in progress holds, the phase,
the deal, the points, the deadline. A DM with a write on its way (its outbox holds a
newer state than the one shown) is being corrected and is not judged at that moment;
neither is any DM while a game's change is half done (its lock held). The check also
runs whenever a person acts (an update is pushed): the moment they read their DM. Everything
else must be true: a DM that stops being true must be edited, at once or paced.
The group's table is held to the same rule for an ended game (no "Dealing…").
"""

from __future__ import annotations

import functools
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from html import unescape
from typing import Any

from bot.delivery.publish import Publisher
from bot.i18n import t
from bot.table.state import one_tap
from bot.views.card_labels import cards_label, rank_label
from bot.views.group_table import name_of, table_key, trump_label
from tests.e2e.seen import cards_in

# the keys whose lines state a fact, with the placeholders they carry
KEYS = (
    "dm.your_turn.lead",
    "dm.your_turn.follow.one",
    "dm.your_turn.follow.other",
    "dm.your_turn.one_tap",
    "dm.bury",
    "dm.chaodi",
    "dm.chaodi.none",
    "dm.can_show",
    "dm.window",
    "dm.window.first",
    "dm.window_waiting",
    "dm.prompt.context",
    "table.dealing",
    "dm.burying",
    "table.chaodi",
    "dm.trick.done",
    "dm.trick.now",
    "dm.trick.you_lead",
    "dm.trick.mine",
    "dm.points.after",
    "dm.points.start",
    "dm.selected",
    "dm.auto.on",
    "dm.clock.turn",
    "dm.clock.warning",
    "dm.clock.window",
    "dm.not_your_turn",
    "dm.ended",
    "result.title",
)
TURN_PROMPTS = {
    "dm.your_turn.lead",
    "dm.your_turn.follow.one",
    "dm.your_turn.follow.other",
    "dm.your_turn.one_tap",
    "dm.bury",
    "dm.chaodi",
    "dm.chaodi.none",
}


def _plain(text: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", text))


@functools.cache  # a template's regex is built once: the checks match thousands of lines
def _pattern(template: str) -> re.Pattern[str]:
    """A catalog template as a regex matching a line that starts with it (a last
    placeholder takes the rest of the line)."""
    out, seen = [], set()
    parts = [p for p in re.split(r"(\{\w+\})", _plain(template)) if p]
    for i, part in enumerate(parts):
        m = re.fullmatch(r"\{(\w+)\}", part)
        if m is None:
            out.append(re.escape(part))
            continue
        greedy = "*" if i == len(parts) - 1 else "+?"
        name = m.group(1)
        out.append(f".{greedy}" if name in seen else f"(?P<{name}>.{greedy})")
        seen.add(name)
    return re.compile("^" + "".join(out))


@dataclass
class TruthWatch:
    world: Any
    game_id: int
    users: dict[int, Any]  # seat -> the person
    group: Any
    app: Any = None  # the running bot (None while it is down)
    failures: list[str] = field(default_factory=list)
    checked: Counter[str] = field(default_factory=Counter)  # statement kind -> times checked
    moments: int = 0

    def install(self) -> None:
        """Check after every Bot API call, and whenever a person acts (a press, a
        message): the moment they read their DM."""
        core = self.world.core
        core.watchers.append(self.check)
        push = core.push_update

        def pushed(kind: str, payload: Any) -> Any:
            self.check()
            return push(kind, payload)

        core.push_update = pushed

    def fail(self, seat: int | str, why: str, text: str) -> None:
        if len(self.failures) < 20:
            self.failures.append(f"seat {seat}: {why}\n---\n{text}\n---")

    # ------------------------------------------------------------------ a moment
    def check(self) -> None:
        if self.app is None:
            return
        svc = self.app.bot_data.service if self.app.bot_data.running else None
        game = svc.games.get(self.game_id) if svc is not None else None
        if game is None or game.match is None or game.lock.locked():
            return  # nothing shown yet, or a change is half done
        self.moments += 1
        for seat, user in self.users.items():
            box = svc.publisher.outboxes.get(user.id)
            slot = box.slots.get(Publisher.dm_key(game.rec))
            if slot is None or slot.dirty or slot.message_id is None:
                continue  # nothing shown yet, or a newer state is on its way
            msg = self.world.core.message(user.private_chat, slot.message_id)
            if msg is None:
                continue
            self.dm(game, seat, msg.text or "", bool(msg.buttons()))
        self.group_table(svc, game)

    def group_table(self, svc: Any, game: Any) -> None:
        rec, match = game.rec, game.match
        if rec.status != "ended":
            return
        slot = svc.publisher.outboxes.get(rec.chat_id).slots.get(table_key(rec, match.hand_number))
        if slot is None or slot.dirty or slot.message_id is None:
            return
        msg = self.world.core.message(self.group, slot.message_id)
        text = msg.text or "" if msg is not None else ""
        lang = rec.lang
        self.checked["group.ended"] += 1
        for key in ("table.dealing", "table.window", "table.waiting", "table.burying"):
            head = _plain(t(lang, key)).split("{")[0]
            if head and head in text:
                self.fail("group", f"an ended game's table still says {key}", text)
        if "▶" in text:
            self.fail("group", "an ended game's table still marks whose turn it is", text)

    # ------------------------------------------------------------------ one DM
    def dm(self, game: Any, seat: int, text: str, has_buttons: bool) -> None:
        rec, match = game.rec, game.match
        hand = match.hand
        lang = rec.seat_lang(seat)
        view = hand.observation(seat)
        running = rec.status == "running"
        my_turn = running and view.my_turn
        found: set[str] = set()

        header = _pattern(t(lang, "dm.header").split("\n")[0])
        first = header.match(text.split("\n")[0])
        if first is None or int(first["n"]) != hand.hand_number:
            self.fail(seat, "the DM is not this hand's", text)
            return
        level_line = _pattern(t(lang, "dm.header").split("\n")[1])
        for line in text.split("\n"):
            m = level_line.match(line)
            if m is not None:
                self.checked["header"] += 1
                dealer = name_of(rec, view.dealer, lang) if view.dealer is not None else "?"
                truth = (rank_label(view.level), trump_label(view, lang), _plain(dealer))
                if (m["level"], m["trump"], m["dealer"]) != truth:
                    self.fail(seat, f"header says {m.groupdict()}, engine {truth}", text)
            for key in KEYS:
                m = _pattern(t(lang, key)).match(line)
                if m is None:
                    continue
                found.add(key)
                self.checked[key] += 1
                why = self.statement(game, seat, key, m.groupdict(), line, my_turn)
                if why:
                    self.fail(seat, f"{key}: {why}", text)
        if "⬅" in text and "dm.trick.now" not in found:
            self.fail(seat, "a winning mark outside the trick of the reader's turn", text)
        if not running and (has_buttons or found & TURN_PROMPTS):
            self.fail(seat, "a game that is not running still asks or offers buttons", text)
        if my_turn and not rec.seats[seat].auto and not found & TURN_PROMPTS:
            self.checked["turn shown"] += 1
            self.fail(seat, "the engine says it is this player's turn; the DM does not", text)

    def statement(
        self, game: Any, seat: int, key: str, v: dict[str, str], line: str, my_turn: bool
    ) -> str | None:
        """Why the statement is false now (None: it is true)."""
        rec, hand = game.rec, game.match.hand
        lang = rec.seat_lang(seat)
        view = hand.observation(seat)
        selection = rec.seats[seat].ui.selection
        phase = hand.phase

        def named(seat_or_none: int | None) -> str:
            return "?" if seat_or_none is None else _plain(name_of(rec, seat_or_none, lang))

        current = view.current_trick
        if key in TURN_PROMPTS and not my_turn:
            return f"a turn prompt, but the turn is {hand.turn} in {phase}"
        if key == "dm.your_turn.lead":
            return None if phase == "playing" and current and not current.plays else "no lead"
        if key.startswith("dm.your_turn.follow."):
            need = hand.cards_to_play(seat)
            ok = (int(v["need"]), int(v["n"])) == (need, len(selection))
            return None if ok else f"need {need}, selected {len(selection)}"
        if key == "dm.your_turn.one_tap":
            return None if one_tap(hand, seat, selection) else "not a one-tap follow"
        if key == "dm.bury":
            ok = phase == "burying" and int(v["n"]) == len(selection)
            return None if ok else "not burying"
        if key == "dm.chaodi":
            return None if phase == "chaodi" and view.show_options else "not 炒底 with a show"
        if key == "dm.chaodi.none":  # said to this seat alone: it holds nothing to show
            return None if phase == "chaodi" and not view.show_options else "a show is possible"
        if key == "dm.prompt.context":
            said = (v["level"], _plain(v["trump"]))
            truth = (rank_label(hand.level), _plain(trump_label(view, lang)))
            return None if said == truth else f"level and trump are {truth}"
        if key == "dm.can_show":
            return None if phase == "dealing" and view.show_options else "no show option now"
        if key in ("dm.window", "dm.window.first"):
            if not (phase == "after_deal" and view.can_pass):
                return "no window open to it"
            # hand 1's window: an overturner becomes the dealer (RULES 7)
            first = hand.hand_number == 1
            return None if (key == "dm.window.first") == first else "not this hand's window"
        if key == "dm.window_waiting":
            return None if phase == "after_deal" and not view.can_pass else "not waiting"
        if key == "table.dealing":
            ok = phase == "dealing" and int(v["dealt"]) == hand.dealt
            return None if ok else f"dealt {hand.dealt} in {phase}"
        if key == "dm.burying":
            burier = hand.turn if phase == "burying" else hand.buried_by
            return None if v["name"] == named(burier) else f"the burier is {named(burier)}"
        if key == "table.chaodi":
            ok = phase == "chaodi" and v["name"] == named(hand.turn)
            return None if ok else "nobody may overturn now"
        if key == "dm.trick.done":
            n = int(v["n"])
            trick = hand.tricks[n - 1] if 0 < n <= len(hand.tricks) else None
            if trick is None or trick.winner is None:
                return "no such finished trick"
            ok = (v["name"], int(v["points"])) == (named(trick.winner), trick.points)
            return None if ok else "another winner or points"
        if key == "dm.trick.now":
            if not my_turn or current is None or int(v["n"]) != len(hand.tricks):
                return "not the trick in progress on the reader's turn"
            plays = v["plays"].split(" · ")
            if len(plays) != len(current.plays):
                return f"{len(plays)} plays shown, {len(current.plays)} made"
            if cards_in(v["plays"]) < Counter(c for p in current.plays for c in p.cards):
                return "other cards than the trick holds"
            best = [p for p in plays if "⬅" in p]
            if len(best) != 1 or not best[0].startswith(named(view.winning)):
                return f"the winning mark is not on {named(view.winning)}"
            return None
        if key == "dm.trick.you_lead":
            ok = my_turn and current is not None and not current.plays
            return None if ok and int(v["n"]) == len(hand.tricks) else "not the reader's lead"
        if key == "dm.trick.mine":
            n = int(v["n"])
            trick = hand.tricks[n - 1] if 0 < n <= len(hand.tricks) else None
            mine = [i for i, p in enumerate(trick.plays) if p.seat == seat] if trick else []
            if not mine:
                return "the reader did not play in that trick"
            if len(v["plays"].split(" · ")) != mine[0] + 1:
                return "not the plays up to the reader's"
            return None
        if key in ("dm.points.after", "dm.points.start"):
            k = int(v.get("k", 0))
            if k and (k > len(hand.tricks) or hand.tricks[k - 1].winner is None):
                return "trick k is not finished"
            points = int(re.match(r"\d+", v["points"]).group())  # type: ignore[union-attr]
            # after trick k, with the penalty of a throw that failed in the next trick
            # (it counts at once, RULES 8.3)
            won = view.trick_points_after(k)
            then = {max(0, won + view.penalties_after(k + i)) for i in (0, 1)}
            return None if points in then else f"{sorted(then)} then"
        if key == "dm.selected":
            shown = v["cards"]
            return None if shown == cards_label(view.ctx.sorted(selection), lang) else "selection"
        if key == "dm.auto.on":
            return None if rec.seats[seat].auto else "not on auto-play"
        if key in ("dm.clock.turn", "dm.clock.warning"):
            deadline = game.table.turn_deadline
            if not my_turn or deadline is None:
                return "no turn clock runs for the reader"
            # the date_time entity's text (each client shows the moment in its own zone)
            until = time.strftime("%H:%M:%S", time.gmtime(deadline[2])) + " UTC"
            if v["until"] != until:
                return f"until {until}"
            return None if (key == "dm.clock.warning") == game.table.warned else "the warning"
        if key == "dm.clock.window":
            return None if phase == "after_deal" else "no window"
        if key == "dm.not_your_turn":
            return "it is the reader's turn" if my_turn else None
        if key == "dm.ended":
            return None if rec.status == "ended" else "the game is not ended"
        if key == "result.title":
            return None if phase == "done" else "the hand is not over"
        return None
