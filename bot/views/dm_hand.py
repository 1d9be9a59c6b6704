"""A player's private hand message (DM): what matters now, and the card keyboard.

Built from the seat's projection (``bot.views.projection``, made of the engine's
``observation(seat)``) only, so it shows exactly what this seat may see: its own
cards, the public record, the kitty only to whoever buried it; no rule is computed
here.

Read from the top: the header (group, hand, seat and side; level, trump, dealer; both
teams' levels), what happens now, then the hand by suit class with its counts, and
last, right above the buttons, what this player is asked to do. The keyboard lays the
cards out by suit class too: trumps first (jokers and level cards in a row of their
own), then each side suit starting its own row, as many buttons a row as their labels
fit uncut on a phone and the rows of a suit as even as can be (``keyboard.per_row``);
while burying, the 8 cards picked up from the kitty come first, in a row of their own.

Every statement a DM makes stays true until the DM is edited again (issue 16). The
publisher edits a DM whenever something it states *live* changes: the phase, the deal
(cards as they arrive), the shows, who buries or may overturn, the player's own turn,
their cards and selection. What others play while it is not this player's turn is
not followed card by card (that would cost a write per DM per play), so then every
line is phrased to stay true: a finished trick says it is finished, the trick in
progress is shown only up to the player's own play ("up to your play"), the points
are "after trick k", and no line says whom the table waits for.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import lru_cache

from bot.data.saved import GameRecord
from bot.i18n import plural, t
from bot.views.card_labels import (
    SUIT_MARKS,
    card_label,
    cards_label,
    class_label,
    counts_label,
    hand_lines,
    rank_label,
    suit_groups,
)
from bot.views.codec import CardButton, HandButton, Kind, ShowButton
from bot.views.group_table import (
    BEFORE_PLAY,
    kitty_decided,
    name_of,
    play_text,
    points_text,
    result_lines,
    shows_block,
    trump_label,
)
from bot.views.messages import ROW_MAX, Button, Content, Keyboard, WebAppButton, even_rows, per_row
from bot.views.names import shown
from bot.views.projection import Deadline, Own, Projection, TrickView
from bot.views.reason_line import reason_line
from engine.cards import suit_of
from engine.counter import CardCount

ROW = ROW_MAX
# a card no legal play holds now (following): its label in brackets, "(♠️5)"
UNPLAYABLE = "({})"
RED_SUITS = (1, 3)  # ♥ ♦


def red_only(cards: Sequence[int]) -> bool:
    """Whether ``cards`` are all hearts or diamonds (no joker): a red suit's button."""
    suits = {suit_of(c) for c in cards}
    return bool(suits) and suits <= set(RED_SUITS)


def suit_button(label: str, data: str, cards: Sequence[int]) -> Button:
    """A button naming ``cards``; one of hearts or diamonds only is red (Bot API
    ``style`` ``danger``), its suit drawn as text (white on the red, where the red
    emoji would vanish), so red suits read red on any theme; the black suits and
    jokers keep the client's colour and the emoji."""
    if red_only(cards):
        return Button(label.replace("\ufe0f", ""), data, style="danger")
    return Button(label, data)


@lru_cache(maxsize=1024)  # every card button of every DM render: a few hundred faces
def _card_face(card: int, lang: str, chosen: bool, unplayable: bool) -> tuple[str, str | None]:
    """A card button's label and style (:func:`suit_button`'s), selected (✓) or not,
    playable or not (in brackets)."""
    label = ("✓" if chosen else "") + card_label(card, lang)
    if unplayable:
        label = UNPLAYABLE.format(label)
    face = suit_button(label, "", (card,))
    return face.text, face.style


def card_button_label(card: int, lang: str) -> str:
    """A card as its button says it (:func:`suit_button`: a red suit's as text)."""
    label = card_label(card, lang)
    return label.replace("\ufe0f", "") if red_only((card,)) else label


def hand_message(
    rec: GameRecord, p: Projection, app_url: str | None = None
) -> tuple[Content, bool]:
    """The DM content for the seat of ``p`` and whether it is this seat's turn to act
    (always False once the game is no longer running: an ended game asks nothing);
    ``app_url``: the Mini App's table for this game (a last row opens it)."""
    own = p.own
    assert own is not None  # a seat's projection
    lang = rec.seat_lang(own.seat)
    live = p.live
    my_turn = own.my_turn and live
    lines = [_header(rec, p, own, lang), ""]
    lines += _situation(rec, p, own, lang, live, my_turn)
    if own.kitty and p.phase != "done":
        lines.append(t(lang, "dm.kitty", cards=cards_label(own.kitty, lang)))
    if rec.group_gone:
        lines.append(t(lang, "dm.paused.group", group=shown(rec.chat_title or "?")))
    elif rec.paused:
        lines.append(t(lang, "dm.paused"))
    if own.auto and live:
        lines.append(t(lang, "dm.auto.away" if own.away else "dm.auto.on"))
    others = [name_of(rec, seat, lang) for seat in p.autos if seat != own.seat]
    if others and live:  # every reader sees who is on 托管 (the group's table marks them 🤖)
        lines.append(t(lang, "dm.auto.others", names=t(lang, "list.sep").join(others)))
    if own.tally is not None:
        lines += ["", *tally_lines(rec, own.tally, lang)]
    ctx = p.view.ctx
    if own.hand:
        counts = counts_label(ctx, own.hand, lang)
        n = plural(lang, "table.count", len(own.hand))
        lines += ["", t(lang, "dm.your_cards", counts=counts, n=n)]
        if p.phase not in ("burying", "playing") or not live:  # no buttons: cards as text
            lines += hand_lines(ctx, own.hand, lang)
    picked = own.picked if my_turn else ()
    if picked:
        lines.append(t(lang, "dm.picked_up", cards=cards_label(picked, lang)))
    if live and p.phase in ("burying", "playing") and own.selection:
        selected = cards_label(ctx.sorted(list(own.selection)), lang)
        lines.append(t(lang, "dm.selected", cards=selected))
        if own.hint is not None:  # the selection is the Hint's: why
            line = reason_line(lang, ctx.sorted(list(own.selection)), own.hint, own=True)
            lines.append(t(lang, "dm.hint.why", line=line))
    prompt = _prompt(p, own, lang) if live else ""
    if prompt:
        lines.append("")
        if my_turn and p.phase in ("burying", "playing"):
            # the header scrolls away above a hand of buttons: the level and the trump
            # again, with the prompt right above the cards the player chooses from
            level, trump = rank_label(p.level), trump_label(p.view, lang)
            lines.append(t(lang, "dm.prompt.context", level=level, trump=trump))
        lines.append(prompt)
    clock = p.clock
    if clock is not None and live and (my_turn or clock.window):
        lines.append(_clock_line(clock, lang))
    keyboard = _keyboard(rec, p, own, lang, picked, app_url) if live else None
    return Content("\n".join(lines), keyboard), my_turn


def tally_lines(rec: GameRecord, count: CardCount, lang: str) -> list[str]:
    """The card counter (记牌器) in a few lines: per suit class the cards out and the high
    cards out (with their copies), the points, the voids shown, what "out" means."""

    def many(pairs: Sequence[tuple[int, int]]) -> str:
        return " ".join(card_label(c, lang) + (f"×{n}" if n > 1 else "") for c, n in pairs if n)

    key = "counter.title" if count.tricks else "counter.title.start"
    lines = [t(lang, key, n=count.tricks)]
    for c in count.classes:
        high = many(c.high) or t(lang, "counter.high.none")
        lines.append(
            t(lang, "counter.class", suit=class_label(c.klass, lang), out=c.out, high=high)
        )
    buried = count.points_buried
    lines.append(
        t(
            lang,
            "counter.points",
            left=count.points_unplayed,
            mine=count.points_mine,
            kitty="" if buried is None else t(lang, "counter.points.kitty", n=buried),
            cards=many(count.points_out) or t(lang, "counter.points.none"),
        )
    )
    voids = [
        f"{name_of(rec, seat, lang)} {''.join(class_label(k, lang) for k in classes)}"
        for seat, classes in enumerate(count.voids)
        if classes
    ]
    lines.append(
        t(lang, "counter.voids", list="; ".join(voids)) if voids else t(lang, "counter.voids.none")
    )
    lines.append(t(lang, "counter.out.hands" if count.kitty_known else "counter.out.kitty"))
    return lines


def clock_time(until: float) -> str:
    """A moment as the Bot API's ``date_time`` entity: each reader's client shows it in
    their own time zone (format ``T``: the time with seconds); a client without it shows
    the text inside, the time in UTC."""
    text = time.strftime("%H:%M:%S", time.gmtime(until)) + " UTC"
    return f'<tg-time unix="{int(until)}" format="T">{text}</tg-time>'


def _clock_line(clock: Deadline, lang: str) -> str:
    until = clock_time(clock.until)
    if clock.warning:
        return t(lang, "dm.clock.warning", until=until)
    key = "dm.clock.window" if clock.window else "dm.clock.turn"
    if clock.optional:
        key = "dm.clock.optional"
    return t(lang, key, seconds=clock.seconds, until=until)


def _header(rec: GameRecord, p: Projection, own: Own, lang: str) -> str:
    view = p.view
    defends = view.defends(own.seat)
    role = "" if defends is None else t(lang, "dm.defending" if defends else "dm.attacking")
    dealer = name_of(rec, p.dealer, lang) if p.dealer is not None else "?"
    return t(
        lang,
        "dm.header",
        group=shown(rec.chat_title or "?"),
        n=p.hand_number,
        seat=own.seat + 1,
        team=t(lang, f"team.short.{view.team_of(own.seat)}"),
        role=role,
        level=rank_label(p.level),
        trump=trump_label(view, lang),
        dealer=dealer,
        a=rank_label(p.levels[0]),
        b=rank_label(p.levels[1]),
    )


def _plays(rec: GameRecord, trick: TrickView, upto: int, lang: str, live: bool = False) -> str:
    """The first ``upto`` plays of a trick on one line; the winning mark only on the
    trick in progress on the reader's turn (``live``: nothing changes meanwhile)."""
    best = trick.best if live else None
    return " · ".join(
        t(
            lang,
            "dm.play",
            name=name_of(rec, play.seat, lang),
            cards=play_text(rec, play, lang),
            mark=t(lang, "table.best") if play.seat == best else "",
        )
        for play in trick.plays[:upto]
    )


def _tricks(rec: GameRecord, p: Projection, own: Own, lang: str, my_turn: bool) -> list[str]:
    """The last finished trick (it stays so), and the trick in progress: whole on the
    reader's turn, else up to the reader's own play (if they played in it yet)."""
    lines = []
    last = p.last
    if last is not None:
        plays = _plays(rec, last, len(last.plays), lang)
        assert last.winner is not None  # a finished trick
        won = name_of(rec, last.winner, lang)
        lines.append(
            t(lang, "dm.trick.done", n=last.number, plays=plays, name=won, points=last.points)
        )
        if own.why:
            lines += why_lines(rec, last, own.seat, lang)
    current = p.current
    if current is None:
        return lines
    n = current.number
    if my_turn:
        if current.plays:
            plays = _plays(rec, current, len(current.plays), lang, live=True)
            lines.append(t(lang, "dm.trick.now", n=n, plays=plays))
        else:
            lines.append(t(lang, "dm.trick.you_lead", n=n))
        return lines
    mine = next((i for i, play in enumerate(current.plays) if play.seat == own.seat), None)
    if mine is not None:
        plays = _plays(rec, current, mine + 1, lang)
        lines.append(t(lang, "dm.trick.mine", n=n, plays=plays))
    return lines


def why_lines(rec: GameRecord, trick: TrickView, reader: int, lang: str) -> list[str]:
    """Why each computer (or 托管) play of a finished trick was made, as it was decided
    when played; what the play keeps back is said only to its own seat."""
    lines = [t(lang, "dm.why.title", n=trick.number)]
    for play in trick.plays:
        if play.reason is not None:
            line = reason_line(lang, play.cards, play.reason, own=play.seat == reader)
            lines.append(t(lang, "dm.why.play", name=name_of(rec, play.seat, lang), line=line))
    if len(lines) == 1:
        lines.append(t(lang, "dm.why.none", n=trick.number))
    return lines


def _situation(
    rec: GameRecord, p: Projection, own: Own, lang: str, live: bool, my_turn: bool
) -> list[str]:
    phase, view = p.phase, p.view
    lines: list[str] = []
    if phase in BEFORE_PLAY:
        lines += shows_block(rec, view, lang)
        decided = kitty_decided(view, lang)
        if decided:
            lines.append(decided)
        if not live:
            return lines
    if phase == "dealing":
        lines.append(t(lang, "table.dealing", dealt=view.dealt, total=view.deal_total))
    elif phase in ("burying", "chaodi") and not my_turn:
        assert p.turn is not None  # who buries, or may 炒底
        # "burying" stays true once the kitty is buried: the DM is not edited for the first lead
        key = "dm.burying" if phase == "burying" else "table.chaodi"
        lines.append(t(lang, key, name=name_of(rec, p.turn, lang)))
    elif phase == "playing":
        lines += _tricks(rec, p, own, lang, my_turn)
        if p.points is not None:
            lines += points_text(p.points, p.tricks_done, lang)
    elif phase == "done" and view.result is not None:
        lines += _tricks(rec, p, own, lang, False)
        lines += ["", t(lang, "result.title", n=p.hand_number)]
        lines += result_lines(rec, view, lang)
        if view.match_winner is None:
            next_dealer = name_of(rec, view.result.next_dealer, lang)
            lines.append(t(lang, "result.next_dealer.final", name=next_dealer))
    return lines


def _prompt(p: Projection, own: Own, lang: str) -> str:
    """What this player is asked to do now; the turn unmistakable."""
    phase = p.phase
    if phase == "dealing":
        return t(lang, "dm.can_show") if own.shows else ""
    if phase == "after_deal":
        if not own.can_pass:
            return t(lang, "dm.window_waiting")
        # hand 1: an overturner becomes the dealer (RULES 7, 反主反打)
        return t(lang, "dm.window.first" if p.hand_number == 1 else "dm.window")
    if not own.my_turn:
        return t(lang, "dm.not_your_turn") if phase in ("burying", "playing") else ""
    selected = len(own.selection)
    if phase == "burying":
        return t(lang, "dm.bury", n=selected)
    if phase == "chaodi":
        # nothing to show is said to this seat alone; its turn lasts as anyone's
        if not own.shows:
            return t(lang, "dm.chaodi.none")
        order = " &gt; ".join(SUIT_MARKS[s] for s in p.view.rules.overturn_suit_order)
        return t(lang, "dm.chaodi", order=order)
    need = own.needed
    if need is None:
        return t(lang, "dm.your_turn.lead")
    if own.one_tap:
        return t(lang, "dm.your_turn.one_tap")
    return plural(lang, "dm.your_turn.follow", need, need=need, n=selected)


def _keyboard(
    rec: GameRecord,
    p: Projection,
    own: Own,
    lang: str,
    picked: Sequence[int],
    app_url: str | None,
) -> Keyboard | None:
    hand_no, version, selection = p.hand_number, p.version, own.selection

    def cb(kind: Kind) -> str:
        return HandButton(kind, rec.id, hand_no, version).pack()

    rows: list[Sequence[Button | WebAppButton]] = []
    phase = p.phase
    if phase in ("burying", "playing"):
        rows += _card_rows(rec.id, p, own, lang, picked)
    actions: list[Button] = []
    for option in own.shows[:6]:
        # the button says what the show does: 亮主 / 加固 / 反主
        action = t(lang, f"btn.show.{option.action}")
        label = t(lang, "btn.show", action=action, cards=cards_label(option.cards, lang))
        show = ShowButton(rec.id, hand_no, version, option.cards)
        actions.append(suit_button(label, show.pack(), option.cards))
    if own.can_pass:  # 炒底's pass is 不炒 ("Don't overturn")
        label = t(lang, "btn.pass.chaodi" if phase == "chaodi" else "btn.pass")
        actions.append(Button(label, cb(Kind.PASS)))
    if own.can_redeal:
        actions.append(Button(t(lang, "btn.redeal"), cb(Kind.REDEAL)))
    if own.my_turn and phase == "burying":
        label = t(lang, "btn.bury", n=len(selection))
        actions += [
            Button(label, cb(Kind.PLAY)),
            Button(t(lang, "btn.hint"), cb(Kind.HINT)),
        ]
    if own.my_turn and phase == "playing":
        need = own.needed
        n = len(selection)
        label = t(lang, "btn.play.count", n=n, need=need) if need else t(lang, "btn.play.n", n=n)
        actions += [
            Button(label, cb(Kind.PLAY)),
            Button(t(lang, "btn.hint"), cb(Kind.HINT)),
        ]
    if selection and phase in ("burying", "playing"):
        actions.append(Button(t(lang, "btn.clear"), cb(Kind.CLEAR)))
    last = p.last
    if phase == "playing" and last is not None and any(play.reason for play in last.plays):
        actions.append(Button(t(lang, "btn.why.hide" if own.why else "btn.why"), cb(Kind.WHY)))
    if own.auto:
        actions.append(Button(t(lang, "btn.auto.off"), cb(Kind.BACK)))
    rows += even_rows(actions, min(3, per_row([b.text for b in actions])))
    more: list[Button] = []  # the card counter on request; 托管 by choice
    if p.counting:
        label = "btn.tally.hide" if own.tally is not None else "btn.tally"
        more.append(Button(t(lang, label), cb(Kind.TALLY)))
    if not own.auto and phase != "done":
        more.append(Button(t(lang, "btn.auto.on"), cb(Kind.AWAY)))
    # one row with the Mini App's button: the hand message stays as short as it was
    tail: list[Button | WebAppButton] = [*more]
    if app_url:
        tail.append(WebAppButton(t(lang, "btn.table"), app_url))
    if tail:
        rows.append(tail)
    return Keyboard.of(rows) if rows else None


def _card_rows(
    game: int,
    p: Projection,
    own: Own,
    lang: str,
    picked: Sequence[int],
) -> list[list[Button]]:
    """One button per card copy, by suit class: every class (and the top trumps)
    starts a row of its own; the cards picked up from the kitty come first."""
    rows: list[list[Button]] = []
    seen: dict[int, int] = {}
    playable = None if own.playable is None else set(own.playable)

    data = CardButton.packer(game, p.hand_number, p.version)

    def button(card: int) -> Button:
        copy = seen.get(card, 0)
        seen[card] = copy + 1
        chosen = own.selection.count(card) > copy
        # no legal play holds it: told at a glance
        unplayable = playable is not None and card not in playable
        label, style = _card_face(card, lang, chosen, unplayable)
        return Button(label, data(card, copy), style=style)

    rest = list(own.hand)
    for card in picked:
        rest.remove(card)
    parts = [list(picked)] if picked else []
    parts += [part for _klass, ps in suit_groups(p.view.ctx, rest) for part in ps]
    for part in parts:
        buttons = [button(card) for card in part]
        # the width a card's label takes when selected (✓), and marked while following:
        # tapping moves no button
        widest = ["✓" + card_label(card, lang) for card in part]
        n = per_row([UNPLAYABLE.format(w) for w in widest] if playable is not None else widest)
        rows += even_rows(buttons, n)
    return rows
