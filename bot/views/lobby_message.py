"""The lobby message: four seats as two teams, and the join / leave / start buttons."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.data.options import game_rules
from bot.data.saved import GameRecord, Seat
from bot.i18n import t
from bot.views import codec
from bot.views.card_labels import rank_label
from bot.views.codec import Kind, LobbyButton
from bot.views.messages import Content
from bot.views.names import shown
from bot.views.settings_screens import changed_line
from engine.seats import SEATS, TEAMS


def seat_name(seat: Seat, lang: str, number: int) -> str:
    """A seat as the lobby lists it; a computer by the name the table gives it (电脑2),
    ``number`` being the seat's (from 1)."""
    if seat.computer:
        return t(lang, "computer_seat", n=number)
    if seat.user_id is None:
        return t(lang, "lobby.empty")
    return shown(seat.name)


def lobby(rec: GameRecord, bot_username: str) -> Content:
    lang = rec.lang
    lines = [t(lang, "lobby.title"), ""]
    for team in sorted(set(TEAMS)):
        lines.append(t(lang, "lobby.team", team=t(lang, f"team.{team}")))
        for i in SEATS:
            if TEAMS[i] == team:
                lines.append(f"  {i + 1}. {seat_name(rec.seats[i], lang, i + 1)}")
    lines.append("")
    lines.append(
        t(
            lang,
            "lobby.preset",
            preset=t(lang, f"preset.{rec.preset}"),
            level=rank_label(rec.start_level),
        )
    )
    changed = changed_line(lang, game_rules(rec))  # the options changed from the preset
    if changed:
        lines.append(changed)
    if rec.status == "lobby":
        lines.append(t(lang, "lobby.full") if rec.full else t(lang, "lobby.how"))
        return Content("\n".join(lines), _lobby_keyboard(rec, bot_username))
    # The match's end is told by the last hand's result, after its final trick: the
    # lobby above them must not announce it first.
    status = "running" if rec.status == "finished" else rec.status
    lines.append(t(lang, f"lobby.status.{status}"))
    return Content("\n".join(lines), None)


def _lobby_keyboard(rec: GameRecord, bot_username: str) -> InlineKeyboardMarkup:
    lang = rec.lang

    def cb(kind: Kind) -> str:
        return LobbyButton(kind, rec.id).pack()

    seat_buttons = [
        InlineKeyboardButton(
            t(lang, "btn.sit", n=i + 1),
            url=codec.deep_link(bot_username, codec.join_payload(rec.id, i)),
        )
        for i, s in enumerate(rec.seats)
        if s.empty
    ]
    rows = [seat_buttons] if seat_buttons else []
    row = [InlineKeyboardButton(t(lang, "btn.leave"), callback_data=cb(Kind.LEAVE))]
    if not rec.full:
        row.append(
            InlineKeyboardButton(t(lang, "btn.add_computer"), callback_data=cb(Kind.ADD_COMPUTER))
        )
    if any(s.computer for s in rec.seats):
        row.append(
            InlineKeyboardButton(
                t(lang, "btn.remove_computer"), callback_data=cb(Kind.REMOVE_COMPUTER)
            )
        )
    rows.append(row)
    rows.append(
        [
            InlineKeyboardButton(t(lang, "btn.start"), callback_data=cb(Kind.START)),
            InlineKeyboardButton(t(lang, "btn.cancel"), callback_data=cb(Kind.CANCEL)),
        ]
    )
    return InlineKeyboardMarkup(rows)
