"""A player's private hand message (DM): what matters now, and the card keyboard.

Built from the engine's ``observation(seat)`` only, so it shows exactly what this
seat may see: its own cards, the public record, the kitty only to whoever buried it.

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

from collections.abc import Sequence
from dataclasses import dataclass

from bot.codec import CardButton, HandButton, Kind, ShowButton
from bot.i18n import plural, t
from bot.messages import Button, Content, Keyboard, WebAppButton
from bot.models import GameRecord
from bot.render.cards import (
    card_label,
    cards_label,
    counts_label,
    hand_lines,
    rank_label,
    suit_groups,
)
from bot.render.keyboard import ROW_MAX, even_rows, per_row
from bot.render.names import shown
from bot.render.table import (
    BEFORE_PLAY,
    kitty_decided,
    name_of,
    play_text,
    points_text,
    result_lines,
    shows_block,
    trump_label,
)
from bot.taps import one_tap
from engine.match import MatchState
from engine.records import Trick
from engine.view import Observation

ROW = ROW_MAX


@dataclass(frozen=True)
class TurnClock:
    """The deadline of what this player is asked to do now (a turn, or the after-deal
    window): ``seconds`` it lasts, ``until`` a clock time (HH:MM:SS, UTC) when it runs
    out, ``warning``: the last seconds have come (托管 takes over at ``until``)."""

    seconds: int
    until: str
    warning: bool = False
    window: bool = False
    optional: bool = False  # 炒底: running out is a pass, not 托管


def hand_message(
    rec: GameRecord,
    match: MatchState,
    seat: int,
    clock: TurnClock | None = None,
    app_url: str | None = None,
) -> tuple[Content, bool]:
    """The DM content for ``seat`` and whether it is this seat's turn to act (always
    False once the game is no longer running: an ended game asks nothing); ``clock``:
    the deadline of what it is asked to do; ``app_url``: the Mini App's table for this
    game (a last row opens it)."""
    obs = match.observation(seat)
    lang = rec.seat_lang(seat)
    s = rec.seats[seat]
    live = rec.status == "running"
    my_turn = obs.my_turn and live
    lines = [_header(rec, obs, lang), ""]
    lines += _situation(rec, obs, lang, live, my_turn)
    if obs.kitty and obs.phase != "done":
        lines.append(t(lang, "dm.kitty", cards=cards_label(obs.kitty, lang)))
    if rec.group_gone:
        lines.append(t(lang, "dm.paused.group", group=shown(rec.chat_title or "?")))
    elif rec.paused:
        lines.append(t(lang, "dm.paused"))
    if s.auto and live:
        lines.append(t(lang, "dm.auto.on"))
    if obs.hand:
        counts = counts_label(obs.ctx, obs.hand, lang)
        n = plural(lang, "table.count", len(obs.hand))
        lines += ["", t(lang, "dm.your_cards", counts=counts, n=n)]
        if obs.phase not in ("burying", "playing") or not live:  # no buttons: cards as text
            lines += hand_lines(obs.ctx, obs.hand, lang)
    picked = match.hand.picked_up(seat) if my_turn else []
    if picked:
        lines.append(t(lang, "dm.picked_up", cards=cards_label(picked, lang)))
    if live and obs.phase in ("burying", "playing") and s.selection:
        lines.append(t(lang, "dm.selected", cards=cards_label(obs.ctx.sorted(s.selection), lang)))
    prompt = _prompt(rec, match, obs, lang, live) if live else ""
    if prompt:
        lines += ["", prompt]
    if clock is not None and live and (my_turn or obs.phase == "after_deal"):
        lines.append(_clock_line(clock, lang))
    keyboard = _keyboard(rec, match, obs, lang, picked, app_url) if live else None
    return Content("\n".join(lines), keyboard), my_turn


def _clock_line(clock: TurnClock, lang: str) -> str:
    if clock.warning:
        return t(lang, "dm.clock.warning", until=clock.until)
    key = "dm.clock.window" if clock.window else "dm.clock.turn"
    if clock.optional:
        key = "dm.clock.optional"
    return t(lang, key, seconds=clock.seconds, until=clock.until)


def _header(rec: GameRecord, obs: Observation, lang: str) -> str:
    defends = obs.defends(obs.seat)
    role = "" if defends is None else t(lang, "dm.defending" if defends else "dm.attacking")
    dealer = name_of(rec, obs.dealer, lang) if obs.dealer is not None else "?"
    return t(
        lang,
        "dm.header",
        group=shown(rec.chat_title or "?"),
        n=obs.hand_number,
        seat=obs.seat + 1,
        team=t(lang, f"team.short.{obs.team_of(obs.seat)}"),
        role=role,
        level=rank_label(obs.level),
        trump=trump_label(obs, lang),
        dealer=dealer,
        a=rank_label(obs.levels[0]),
        b=rank_label(obs.levels[1]),
    )


def _plays(
    rec: GameRecord, obs: Observation, trick: Trick, upto: int, lang: str, live: bool = False
) -> str:
    """The first ``upto`` plays of a trick on one line; the winning mark only on the
    trick in progress on the reader's turn (``live``: nothing changes meanwhile)."""
    best = obs.winning if live else None
    return " · ".join(
        t(
            lang,
            "dm.play",
            name=name_of(rec, p.seat, lang),
            cards=play_text(obs, p, lang, trick),
            mark=t(lang, "table.best") if p.seat == best else "",
        )
        for p in trick.plays[:upto]
    )


def _tricks(rec: GameRecord, obs: Observation, lang: str, my_turn: bool) -> list[str]:
    """The last finished trick (it stays so), and the trick in progress: whole on the
    reader's turn, else up to the reader's own play (if they played in it yet)."""
    lines = []
    done = obs.tricks_done
    last = obs.last_trick
    if last is not None:
        plays = _plays(rec, obs, last, len(last.plays), lang)
        assert last.winner is not None  # a finished trick
        won = name_of(rec, last.winner, lang)
        lines.append(t(lang, "dm.trick.done", n=done, plays=plays, name=won, points=last.points))
    current = obs.current_trick
    if current is None:
        return lines
    n = len(obs.tricks)
    if my_turn:
        if current.plays:
            plays = _plays(rec, obs, current, len(current.plays), lang, live=True)
            lines.append(t(lang, "dm.trick.now", n=n, plays=plays))
        else:
            lines.append(t(lang, "dm.trick.you_lead", n=n))
        return lines
    mine = next((i for i, p in enumerate(current.plays) if p.seat == obs.seat), None)
    if mine is not None:
        plays = _plays(rec, obs, current, mine + 1, lang)
        lines.append(t(lang, "dm.trick.mine", n=n, plays=plays))
    return lines


def _situation(
    rec: GameRecord, obs: Observation, lang: str, live: bool, my_turn: bool
) -> list[str]:
    phase = obs.phase
    lines: list[str] = []
    if phase in BEFORE_PLAY:
        lines += shows_block(rec, obs, lang)
        decided = kitty_decided(obs, lang)
        if decided:
            lines.append(decided)
        if not live:
            return lines
    if phase == "dealing":
        lines.append(t(lang, "table.dealing", dealt=obs.dealt, total=obs.deal_total))
    elif phase in ("burying", "chaodi") and not my_turn:
        assert obs.turn is not None  # who buries, or may 炒底
        # "burying" stays true once the kitty is buried: the DM is not edited for the first lead
        key = "dm.burying" if phase == "burying" else "table.chaodi"
        lines.append(t(lang, key, name=name_of(rec, obs.turn, lang)))
    elif phase == "playing":
        lines += _tricks(rec, obs, lang, my_turn)
        lines += points_text(obs, lang)
    elif phase == "done" and obs.result is not None:
        lines += _tricks(rec, obs, lang, False)
        lines += ["", t(lang, "result.title", n=obs.hand_number)]
        lines += result_lines(rec, obs, lang)
        if obs.match_winner is None:
            next_dealer = name_of(rec, obs.result.next_dealer, lang)
            lines.append(t(lang, "result.next_dealer.final", name=next_dealer))
    return lines


def _prompt(rec: GameRecord, match: MatchState, obs: Observation, lang: str, live: bool) -> str:
    """What this player is asked to do now; the turn unmistakable."""
    phase = obs.phase
    if phase == "dealing":
        return t(lang, "dm.can_show") if obs.show_options else ""
    if phase == "after_deal":
        return t(lang, "dm.window" if obs.can_pass else "dm.window_waiting")
    if not obs.my_turn:
        return t(lang, "dm.not_your_turn") if phase in ("burying", "playing") else ""
    selected = len(rec.seats[obs.seat].selection)
    if phase == "burying":
        return t(lang, "dm.bury", n=selected)
    if phase == "chaodi":
        return t(lang, "dm.chaodi")
    need = match.hand.cards_to_play(obs.seat)
    if need is None:
        return t(lang, "dm.your_turn.lead")
    if one_tap(match.hand, obs.seat, rec.seats[obs.seat].selection):
        return t(lang, "dm.your_turn.one_tap")
    return plural(lang, "dm.your_turn.follow", need, need=need, n=selected)


def _keyboard(
    rec: GameRecord,
    match: MatchState,
    obs: Observation,
    lang: str,
    picked: list[int],
    app_url: str | None,
) -> Keyboard | None:
    hand_no, version = obs.hand_number, obs.version
    s = rec.seats[obs.seat]

    def cb(kind: Kind) -> str:
        return HandButton(kind, rec.id, hand_no, version).pack()

    rows: list[Sequence[Button | WebAppButton]] = []
    phase = obs.phase
    if phase in ("burying", "playing"):
        rows += _card_rows(rec.id, obs, s.selection, lang, picked)
    actions: list[Button] = []
    for option in obs.show_options[:6]:
        # the button says what the show does: 亮主 / 加固 / 反主
        action = t(lang, f"btn.show.{match.hand.show_action(obs.seat, option)}")
        label = t(lang, "btn.show", action=action, cards=cards_label(option, lang))
        show = ShowButton(rec.id, hand_no, version, tuple(option))
        actions.append(Button(label, show.pack()))
    if obs.can_pass:
        actions.append(Button(t(lang, "btn.pass"), cb(Kind.PASS)))
    if obs.can_redeal:
        actions.append(Button(t(lang, "btn.redeal"), cb(Kind.REDEAL)))
    if obs.my_turn and phase == "burying":
        label = t(lang, "btn.bury", n=len(s.selection))
        actions += [
            Button(label, cb(Kind.PLAY)),
            Button(t(lang, "btn.hint"), cb(Kind.HINT)),
        ]
    if obs.my_turn and phase == "playing":
        need = match.hand.cards_to_play(obs.seat)
        n = len(s.selection)
        label = t(lang, "btn.play.count", n=n, need=need) if need else t(lang, "btn.play.n", n=n)
        actions += [
            Button(label, cb(Kind.PLAY)),
            Button(t(lang, "btn.hint"), cb(Kind.HINT)),
        ]
    if s.selection and phase in ("burying", "playing"):
        actions.append(Button(t(lang, "btn.clear"), cb(Kind.CLEAR)))
    if s.auto:
        actions.append(Button(t(lang, "btn.auto.off"), cb(Kind.BACK)))
    rows += even_rows(actions, min(3, per_row([b.text for b in actions])))
    if app_url:
        rows.append([WebAppButton(t(lang, "btn.table"), app_url)])
    return Keyboard.of(rows) if rows else None


def _card_rows(
    game: int,
    obs: Observation,
    selection: list[int],
    lang: str,
    picked: list[int],
) -> list[list[Button]]:
    """One button per card copy, by suit class: every class (and the top trumps)
    starts a row of its own; the cards picked up from the kitty come first."""
    rows: list[list[Button]] = []
    seen: dict[int, int] = {}

    def button(card: int) -> Button:
        copy = seen.get(card, 0)
        seen[card] = copy + 1
        chosen = selection.count(card) > copy
        label = ("✓" if chosen else "") + card_label(card, lang)
        data = CardButton(game, obs.hand_number, obs.version, card, copy).pack()
        return Button(label, data)

    rest = list(obs.hand)
    for card in picked:
        rest.remove(card)
    parts = [list(picked)] if picked else []
    parts += [part for _klass, ps in suit_groups(obs.ctx, rest) for part in ps]
    for part in parts:
        buttons = [button(card) for card in part]
        # the width a card's label takes when selected (✓): tapping moves no button
        n = per_row(["✓" + card_label(card, lang) for card in part])
        rows += even_rows(buttons, n)
    return rows
