"""A player's private hand message (DM): what matters now, and the card keyboard.

Built from the engine's ``observation(seat)`` only, so it shows exactly what this
seat may see: its own cards, the public record, the kitty only to whoever buried it.
"""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import codec
from bot.i18n import t
from bot.models import GameRecord
from bot.outbox import Content
from bot.render.cards import card_label, cards_label, rank_label, suit_label
from bot.render.table import kitty_decided, name_of, trick_lines
from engine.hand import Observation
from engine.match import MatchState

ROW = 8


def hand_message(rec: GameRecord, match: MatchState, seat: int) -> tuple[Content, bool]:
    """The DM content for ``seat`` and whether it is this seat's turn to act."""
    obs = match.observation(seat)
    lang = rec.seat_lang(seat)
    s = rec.seats[seat]
    lines = [_header(rec, match, obs), ""]
    lines += _situation(rec, match, obs)
    if obs.kitty and obs.phase != "done":
        lines.append(t(lang, "dm.kitty", cards=cards_label(obs.kitty, lang)))
    if rec.group_gone:
        lines.append(t(lang, "dm.paused.group", group=rec.chat_title or "?"))
    elif rec.paused:
        lines.append(t(lang, "dm.paused"))
    if s.auto:
        lines.append(t(lang, "dm.auto"))
    if obs.phase in ("burying", "playing") and s.selection:
        lines.append(t(lang, "dm.selected", cards=cards_label(_display(obs, s.selection), lang)))
    if obs.phase in ("dealing", "after_deal", "chaodi", "done") or not obs.hand:
        lines.append("")
        lines.append(t(lang, "dm.your_cards", n=len(obs.hand)))
        lines.append(cards_label(obs.hand, lang) or "—")
    return Content("\n".join(lines), _keyboard(rec, match, obs)), obs.my_turn


def _display(obs: Observation, cards: list[int]) -> list[int]:
    return obs.ctx.sorted(list(cards))


def _header(rec: GameRecord, match: MatchState, obs: Observation) -> str:
    lang = rec.seat_lang(obs.seat)
    trump = suit_label(obs.trump, lang) if obs.trump_decided else "?"
    role = ""
    if obs.dealer is not None:
        defending = obs.dealer % 2 == obs.seat % 2
        role = t(lang, "dm.defending" if defending else "dm.attacking")
    return t(
        lang,
        "dm.header",
        group=rec.chat_title or "?",
        n=obs.hand_number,
        seat=obs.seat + 1,
        level=rank_label(obs.level),
        trump=trump,
        role=role,
    )


def _situation(rec: GameRecord, match: MatchState, obs: Observation) -> list[str]:
    lang, hand = rec.seat_lang(obs.seat), match.hand
    phase = obs.phase
    lines: list[str] = []
    if phase in ("dealing", "after_deal", "burying", "chaodi"):
        for seat, cards in obs.shows:
            lines.append(
                t(lang, "table.show", name=name_of(rec, seat, lang), cards=cards_label(cards, lang))
            )
    if obs.revealed_kitty is not None and phase == "burying":
        lines.append(kitty_decided(obs.revealed_kitty, lang))
    if phase == "dealing":
        lines.append(t(lang, "table.dealing", dealt=obs.dealt, total=100))
        if obs.show_options:
            lines.append(t(lang, "dm.can_show"))
    elif phase == "after_deal":
        lines.append(t(lang, "dm.window" if obs.can_pass else "dm.window_waiting"))
    elif phase == "burying":
        if obs.my_turn:
            lines.append(t(lang, "dm.bury", n=len(rec.seats[obs.seat].selection)))
        else:
            lines.append(t(lang, "table.burying", name=name_of(rec, obs.turn, lang)))  # type: ignore[arg-type]
    elif phase == "chaodi":
        if obs.my_turn:
            lines.append(t(lang, "dm.chaodi"))
        else:
            lines.append(t(lang, "table.chaodi", name=name_of(rec, obs.turn, lang)))  # type: ignore[arg-type]
    elif phase == "playing":
        trick = obs.current_trick
        if trick is not None:
            lines += trick_lines(rec, hand, trick, len(obs.tricks), lang)
        lines.append(t(lang, "table.points", points=obs.attackers_points))
        if obs.my_turn:
            lines.append(t(lang, "dm.your_turn"))
    elif phase == "done" and obs.result is not None:
        r = obs.result
        lines.append(
            t(lang, "result.kitty", cards=cards_label(r.kitty, lang), points=r.kitty_points)
        )
        lines.append(t(lang, "dm.hand_over", total=r.attackers_points))
    return lines


def _keyboard(rec: GameRecord, match: MatchState, obs: Observation) -> InlineKeyboardMarkup | None:
    lang = rec.seat_lang(obs.seat)
    hand_no, version = obs.hand_number, obs.version
    s = rec.seats[obs.seat]

    def cb(kind: str, arg: str = "") -> str:
        return codec.Press(kind, rec.id, hand_no, version, arg).encode()

    rows: list[list[InlineKeyboardButton]] = []
    phase = obs.phase
    if phase in ("burying", "playing"):
        rows += _card_rows(obs, s.selection, cb, lang)
    actions: list[InlineKeyboardButton] = []
    for option in obs.show_options[:6]:
        label = t(lang, "btn.show", cards=cards_label(option, lang))
        actions.append(
            InlineKeyboardButton(label, callback_data=cb("D", codec.encode_cards(option)))
        )
    if obs.can_pass:
        actions.append(InlineKeyboardButton(t(lang, "btn.pass"), callback_data=cb("N")))
    if obs.can_redeal:
        actions.append(InlineKeyboardButton(t(lang, "btn.redeal"), callback_data=cb("V")))
    if obs.my_turn and phase == "burying":
        label = t(lang, "btn.bury", n=len(s.selection))
        actions += [
            InlineKeyboardButton(label, callback_data=cb("P")),
            InlineKeyboardButton(t(lang, "btn.hint"), callback_data=cb("H")),
        ]
    if obs.my_turn and phase == "playing":
        actions += [
            InlineKeyboardButton(t(lang, "btn.play"), callback_data=cb("P")),
            InlineKeyboardButton(t(lang, "btn.hint"), callback_data=cb("H")),
        ]
    if s.selection and phase in ("burying", "playing"):
        actions.append(InlineKeyboardButton(t(lang, "btn.clear"), callback_data=cb("O")))
    if s.auto:
        actions.append(InlineKeyboardButton(t(lang, "btn.back"), callback_data=cb("A")))
    for i in range(0, len(actions), 3):
        rows.append(actions[i : i + 3])
    return InlineKeyboardMarkup(rows) if rows else None


def _card_rows(obs: Observation, selection: list[int], cb, lang: str):  # noqa: ANN001, ANN202
    buttons = []
    seen: dict[int, int] = {}
    for card in obs.hand:
        copy = seen.get(card, 0)
        seen[card] = copy + 1
        chosen = selection.count(card) > copy
        label = ("✓" if chosen else "") + card_label(card, lang)
        arg = codec.encode_cards([card]) + str(copy)
        buttons.append(InlineKeyboardButton(label, callback_data=cb("T", arg)))
    return [buttons[i : i + ROW] for i in range(0, len(buttons), ROW)]
