"""A player's private hand message (DM): what matters now, and the card keyboard.

Built from the engine's ``observation(seat)`` only, so it shows exactly what this
seat may see: its own cards, the public record, the kitty only to whoever buried it.

Read from the top: the header (group, hand, seat and side; level, trump, dealer; both
teams' levels), what happens now (the last completed trick until the next one
completes, the current trick with who is winning it, the points; or the result of
the hand), then the hand by suit class with its counts, and last, right above the
buttons, what this player is asked to do. The keyboard lays the cards out by suit
class too: trumps first (jokers and level cards in a row of their own), then each
side suit starting its own row, at most :data:`ROW` buttons a row.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from bot import codec
from bot.i18n import t
from bot.models import GameRecord
from bot.outbox import Content
from bot.render.cards import card_label, cards_label, counts_label, hand_lines, suit_groups
from bot.render.keyboard import Button, Keyboard, WebAppButton
from bot.render.table import (
    BEFORE_PLAY,
    kitty_decided,
    name_of,
    play_text,
    points_line,
    rank_label,
    result_lines,
    shows_block,
    tricks_shown,
    trump_label,
)
from engine.match import MatchState
from engine.records import Trick
from engine.view import Observation

ROW = 8


def hand_message(
    rec: GameRecord, match: MatchState, seat: int, app_url: str | None = None
) -> tuple[Content, bool]:
    """The DM content for ``seat`` and whether it is this seat's turn to act;
    ``app_url``: the Mini App's table for this game (a last row opens it)."""
    obs = match.observation(seat)
    lang = rec.seat_lang(seat)
    s = rec.seats[seat]
    lines = [_header(rec, obs, lang), ""]
    lines += _situation(rec, obs, lang)
    if obs.kitty and obs.phase != "done":
        lines.append(t(lang, "dm.kitty", cards=cards_label(obs.kitty, lang)))
    if rec.group_gone:
        lines.append(t(lang, "dm.paused.group", group=escape(rec.chat_title or "?")))
    elif rec.paused:
        lines.append(t(lang, "dm.paused"))
    if s.auto:
        lines.append(t(lang, "dm.auto"))
    if obs.hand:
        counts = counts_label(obs.ctx, obs.hand, lang)
        n = t(lang, "table.count", n=len(obs.hand))
        lines += ["", t(lang, "dm.your_cards", counts=counts, n=n)]
        if obs.phase not in ("burying", "playing"):  # no card buttons: the cards as text
            lines += hand_lines(obs.ctx, obs.hand, lang)
    if obs.phase in ("burying", "playing") and s.selection:
        lines.append(t(lang, "dm.selected", cards=cards_label(obs.ctx.sorted(s.selection), lang)))
    one_tap = obs.phase == "playing" and match.hand.cards_to_play(seat) == 1
    prompt = _prompt(rec, obs, one_tap, lang)
    if prompt:
        lines += ["", prompt]
    keyboard = _keyboard(rec, match, obs, lang, app_url)
    return Content("\n".join(lines), keyboard), obs.my_turn


def _header(rec: GameRecord, obs: Observation, lang: str) -> str:
    defends = obs.defends(obs.seat)
    role = "" if defends is None else t(lang, "dm.defending" if defends else "dm.attacking")
    dealer = name_of(rec, obs.dealer, lang) if obs.dealer is not None else "?"
    return t(
        lang,
        "dm.header",
        group=escape(rec.chat_title or "?"),
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


def _trick_line(rec: GameRecord, obs: Observation, number: int, trick: Trick, lang: str) -> str:
    """A trick on one line: who played what, the winner or who is winning it now."""
    best = obs.winning if trick.winner is None else None
    plays = " · ".join(
        t(
            lang,
            "dm.play",
            name=name_of(rec, p.seat, lang),
            cards=play_text(obs, p, lang),
            mark=t(lang, "table.best") if p.seat == best else "",
        )
        for p in trick.plays
    )
    if trick.winner is not None:
        won = name_of(rec, trick.winner, lang)
        return t(lang, "dm.trick_won", n=number, plays=plays, name=won, points=trick.points)
    if not plays and obs.turn is not None:
        return t(lang, "dm.trick.lead", n=number, name=name_of(rec, obs.turn, lang))
    return t(lang, "dm.trick", n=number, plays=plays)


def _situation(rec: GameRecord, obs: Observation, lang: str) -> list[str]:
    phase = obs.phase
    lines: list[str] = []
    if phase in BEFORE_PLAY:
        lines += shows_block(rec, obs, lang)
        decided = kitty_decided(obs, lang)
        if decided:
            lines.append(decided)
    if phase == "dealing":
        lines.append(t(lang, "table.dealing", dealt=obs.dealt, total=obs.deal_total))
    elif phase == "burying" and not obs.my_turn:
        lines.append(t(lang, "table.burying", name=name_of(rec, obs.turn, lang)))  # type: ignore[arg-type]
    elif phase == "chaodi" and not obs.my_turn:
        lines.append(t(lang, "table.chaodi", name=name_of(rec, obs.turn, lang)))  # type: ignore[arg-type]
    elif phase == "playing":
        # the last completed trick stays in view until the next one completes
        lines += [_trick_line(rec, obs, n, trick, lang) for n, trick in tricks_shown(obs)]
        lines.append(points_line(obs, lang))
    elif phase == "done" and obs.result is not None:
        lines += [_trick_line(rec, obs, n, trick, lang) for n, trick in tricks_shown(obs)]
        lines += ["", t(lang, "result.title", n=obs.hand_number)]
        lines += result_lines(rec, obs, lang)
        if obs.match_winner is None:
            next_dealer = name_of(rec, obs.result.next_dealer, lang)
            lines.append(t(lang, "result.next_dealer.final", name=next_dealer))
    return lines


def _prompt(rec: GameRecord, obs: Observation, one_tap: bool, lang: str) -> str:
    """What this player is asked to do now; the turn unmistakable."""
    phase = obs.phase
    if phase == "dealing":
        return t(lang, "dm.can_show") if obs.show_options else ""
    if phase == "after_deal":
        return t(lang, "dm.window" if obs.can_pass else "dm.window_waiting")
    if not obs.my_turn:
        if phase == "playing" and obs.turn is not None:
            return t(lang, "dm.waiting", name=name_of(rec, obs.turn, lang))
        return ""
    if phase == "burying":
        return t(lang, "dm.bury", n=len(rec.seats[obs.seat].selection))
    if phase == "chaodi":
        return t(lang, "dm.chaodi")
    return t(lang, "dm.your_turn.one_tap" if one_tap else "dm.your_turn")


def _keyboard(
    rec: GameRecord, match: MatchState, obs: Observation, lang: str, app_url: str | None
) -> Keyboard | None:
    hand_no, version = obs.hand_number, obs.version
    s = rec.seats[obs.seat]

    cb = codec.press_encoder(rec.id, hand_no, version)

    rows: list[list[Button | WebAppButton]] = []
    phase = obs.phase
    if phase in ("burying", "playing"):
        rows += _card_rows(obs, s.selection, cb, lang)
    actions: list[Button] = []
    for option in obs.show_options[:6]:
        # the button says what the show does: 亮主 / 加固 / 反主
        action = t(lang, f"btn.show.{match.hand.show_action(obs.seat, option)}")
        label = t(lang, "btn.show", action=action, cards=cards_label(option, lang))
        actions.append(Button(label, cb("D", codec.encode_cards(option))))
    if obs.can_pass:
        actions.append(Button(t(lang, "btn.pass"), cb("N")))
    if obs.can_redeal:
        actions.append(Button(t(lang, "btn.redeal"), cb("V")))
    if obs.my_turn and phase == "burying":
        label = t(lang, "btn.bury", n=len(s.selection))
        actions += [
            Button(label, cb("P")),
            Button(t(lang, "btn.hint"), cb("H")),
        ]
    if obs.my_turn and phase == "playing":
        actions += [
            Button(t(lang, "btn.play"), cb("P")),
            Button(t(lang, "btn.hint"), cb("H")),
        ]
    if s.selection and phase in ("burying", "playing"):
        actions.append(Button(t(lang, "btn.clear"), cb("O")))
    if s.auto:
        actions.append(Button(t(lang, "btn.back"), cb("A")))
    for i in range(0, len(actions), 3):
        rows.append(actions[i : i + 3])
    if app_url:
        rows.append([WebAppButton(t(lang, "btn.table"), app_url)])
    return Keyboard.of(rows) if rows else None


def _card_rows(
    obs: Observation, selection: list[int], cb: Callable[..., str], lang: str
) -> list[list[Button]]:
    """One button per card copy, by suit class: every class (and the top trumps)
    starts a row of its own."""
    rows: list[list[Button]] = []
    seen: dict[int, int] = {}
    for _klass, parts in suit_groups(obs.ctx, obs.hand):
        for part in parts:
            buttons = []
            for card in part:
                copy = seen.get(card, 0)
                seen[card] = copy + 1
                chosen = selection.count(card) > copy
                label = ("✓" if chosen else "") + card_label(card, lang)
                arg = codec.encode_cards([card]) + str(copy)
                buttons.append(Button(label, cb("T", arg)))
            rows += [buttons[i : i + ROW] for i in range(0, len(buttons), ROW)]
    return rows
