"""The group's messages for a running match: one table per trick, the result.

Only public facts are read here: shows, tricks, counts, points, and the kitty once it
is revealed. A hand's cards are never read (RULES.md section 13).
"""

from __future__ import annotations

from html import escape

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import codec
from bot.i18n import t
from bot.models import GameRecord
from bot.outbox import Content
from bot.render.cards import cards_label, rank_label, suit_label
from engine.hand import DEALT, HandState, Trick
from engine.match import MatchState


def name_of(rec: GameRecord, seat: int) -> str:
    s = rec.seats[seat]
    if s.computer:
        return t(rec.lang, "computer_seat", n=seat + 1)
    return escape(s.name or "?")


def team_of(seat: int) -> int:
    return seat % 2


def header(rec: GameRecord, match: MatchState) -> str:
    lang, hand = rec.lang, match.hand
    trump = (
        suit_label(hand.trump, lang)
        if hand.declaring.trump_decided or hand.phase not in ("dealing", "after_deal")
        else "?"
    )
    dealer = name_of(rec, hand.dealer) if hand.dealer is not None else "?"
    return t(
        lang,
        "table.header",
        n=hand.hand_number,
        level=rank_label(hand.level),
        trump=trump,
        dealer=dealer,
        a=rank_label(match.levels[0]),
        b=rank_label(match.levels[1]),
    )


def seats_block(rec: GameRecord, hand: HandState, live: bool = True) -> str:
    lang = rec.lang
    lines = []
    for seat in range(4):
        mark = "▶" if live and hand.turn == seat and hand.phase != "done" else "  "
        role = ""
        if hand.dealer is not None:
            role = t(lang, "role.dealer") if seat == hand.dealer else ""
        auto = " 🤖" if rec.seats[seat].auto else ""
        team = t(lang, f"team.short.{team_of(seat)}")
        lines.append(
            f"{mark}{seat + 1}. {name_of(rec, seat)} [{team}]{role}{auto} · {len(hand.hands[seat])}"
        )
    return "\n".join(lines)


def shows_block(rec: GameRecord, hand: HandState) -> list[str]:
    lang = rec.lang
    return [
        t(lang, "table.show", name=name_of(rec, s.seat), cards=cards_label(s.cards, lang))
        for s in hand.declaring.shows
    ]


def pre_play(rec: GameRecord, match: MatchState) -> Content:
    """The table before the first lead: the deal, the shows, the kitty being buried."""
    lang, hand = rec.lang, match.hand
    live = hand.phase != "playing" and not hand.tricks
    lines = [header(rec, match), "", seats_block(rec, hand, live), ""]
    lines += shows_block(rec, hand) or [t(lang, "table.no_show")]
    phase = hand.phase
    if phase == "dealing":
        lines.append(t(lang, "table.dealing", dealt=hand.dealt, total=100))
    elif phase == "after_deal":
        waiting = ", ".join(name_of(rec, i) for i in range(4) if hand.can_pass(i))
        lines.append(t(lang, "table.window", names=waiting))
    elif phase == "burying":
        if hand.kitty_revealed and hand.declaring.from_kitty:
            lines.append(t(lang, "table.kitty_decided", cards=_revealed_kitty(hand, lang)))
        lines.append(t(lang, "table.burying", name=name_of(rec, hand.turn)))  # type: ignore[arg-type]
    elif phase == "chaodi":
        lines.append(t(lang, "table.chaodi", name=name_of(rec, hand.turn)))  # type: ignore[arg-type]
    else:
        lines.append(t(lang, "table.play_started"))
    return Content("\n".join(lines))


def _revealed_kitty(hand: HandState, lang: str) -> str:
    # nobody declared: the kitty (the deck's last 8 cards) was shown to all (section 5)
    return cards_label(hand.deck[DEALT:], lang)


def trick_lines(rec: GameRecord, hand: HandState, trick: Trick, number: int) -> list[str]:
    lang = rec.lang
    lines = [t(lang, "table.trick", n=number)]
    for play in trick.plays:
        if play.attempted is not None:
            lines.append(
                t(
                    lang,
                    "table.failed_throw",
                    name=name_of(rec, play.seat),
                    tried=cards_label(play.attempted, lang),
                    cards=cards_label(play.cards, lang),
                )
            )
        else:
            lines.append(
                t(
                    lang,
                    "table.play",
                    name=name_of(rec, play.seat),
                    cards=cards_label(play.cards, lang),
                )
            )
    if trick.winner is not None:
        lines.append(
            t(lang, "table.trick_won", name=name_of(rec, trick.winner), points=trick.points)
        )
    elif hand.turn is not None:
        lines.append(t(lang, "table.waiting", name=name_of(rec, hand.turn)))
    return lines


def trick_table(rec: GameRecord, match: MatchState, index: int) -> Content:
    lang, hand = rec.lang, match.hand
    trick = hand.tricks[index]
    lines = [header(rec, match), "", seats_block(rec, hand, live=trick.winner is None), ""]
    if index > 0 and trick.winner is None and not trick.plays:
        prev = hand.tricks[index - 1]
        lines.append(
            t(lang, "table.previous", name=name_of(rec, prev.winner or 0), points=prev.points)
        )
    lines += trick_lines(rec, hand, trick, index + 1)
    lines.append("")
    lines.append(t(lang, "table.points", points=hand.attackers_points))
    return Content("\n".join(lines))


def result_message(rec: GameRecord, match: MatchState) -> Content:
    lang, hand = rec.lang, match.hand
    r = hand.result
    assert r is not None
    lines = [t(lang, "result.title", n=hand.hand_number), ""]
    lines.append(t(lang, "result.kitty", cards=cards_label(r.kitty, lang), points=r.kitty_points))
    lines.append(
        t(
            lang,
            "result.points",
            tricks=r.trick_points,
            bonus=r.kitty_bonus,
            penalty=r.penalty,
            total=r.attackers_points,
        )
    )
    if r.multiplier > 1:
        lines.append(t(lang, "result.multiplier", m=r.multiplier))
    side = t(lang, f"result.winner.{r.winner}")
    lines.append(t(lang, "result.outcome", side=side, steps=r.steps))
    lines.append(
        t(
            lang,
            "result.levels",
            a=rank_label(r.levels_after[0]),
            b=rank_label(r.levels_after[1]),
        )
    )
    markup = None
    if match.winner is not None:
        team = match.winner
        names = " & ".join(name_of(rec, s) for s in (team, team + 2))
        lines += ["", t(lang, "result.match_won", team=t(lang, f"team.{team}"), names=names)]
        if match.ended_by_time:
            lines.append(t(lang, "result.by_time"))
    else:
        lines.append(t(lang, "result.next_dealer", name=name_of(rec, r.next_dealer)))
        data = codec.Press("G", rec.id, hand.hand_number, hand.version).encode()
        markup = InlineKeyboardMarkup(
            [[InlineKeyboardButton(t(lang, "btn.next_hand"), callback_data=data)]]
        )
    return Content("\n".join(lines), markup)


def group_messages(rec: GameRecord, match: MatchState) -> list[tuple[str, Content]]:
    """Every group message of the current hand that may still change, oldest first."""
    hand = match.hand
    base = f"g{rec.id}:h{hand.hand_number}"
    out: list[tuple[str, Content]] = []
    n = len(hand.tricks)
    if n <= 1:
        out.append((f"{base}:t0", pre_play(rec, match)))
    for i in range(max(0, n - 2), n):
        out.append((f"{base}:t{i + 1}", trick_table(rec, match, i)))
    if hand.phase == "done":
        out.append((f"{base}:result", result_message(rec, match)))
    return out
