"""The group's messages for a running match: the live table of a hand, its result.

The table is one message per hand, edited in place, and every render of it is whole:
the header (hand, level, trump, dealer, both teams' levels, the attackers' points), the
seats with their card counts and whose turn it is, the last completed trick in full
(plays, winner, points) and the current trick as it grows with who is winning it now.
Whatever renders a delivery skips, the next one shows everything that was missed.

Only public facts are read here (RULES.md section 13), and only from the engine: no
rule is computed in this module.
"""

from __future__ import annotations

from html import escape

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import codec
from bot.i18n import t
from bot.models import GameRecord
from bot.outbox import Content
from bot.render.cards import cards_label, rank_label, suit_label
from bot.render.names import clip
from engine.hand import DEALT, HandState, Trick, team_of
from engine.match import MatchState
from engine.tricks import trick_winner

NAME_LIMIT = 16  # graphemes of a name in a table line


def name_of(rec: GameRecord, seat: int, lang: str | None = None) -> str:
    s = rec.seats[seat]
    if s.computer:
        return t(lang or rec.lang, "computer_seat", n=seat + 1)
    return escape(clip(s.name or "?", NAME_LIMIT))


def trump_label(hand: HandState, lang: str) -> str:
    return suit_label(hand.trump, lang) if hand.declaring.trump_decided else "?"


def header(rec: GameRecord, hand: HandState, lang: str) -> str:
    dealer = name_of(rec, hand.dealer, lang) if hand.dealer is not None else "?"
    return t(
        lang,
        "table.header",
        n=hand.hand_number,
        level=rank_label(hand.level),
        trump=trump_label(hand, lang),
        dealer=dealer,
        # the levels this hand is played at (the result tells the new ones)
        a=rank_label(hand.levels[0]),
        b=rank_label(hand.levels[1]),
    )


def seats_block(rec: GameRecord, hand: HandState) -> str:
    lang = rec.lang
    lines = []
    for seat in range(4):
        mark = "▶" if hand.turn == seat and hand.phase != "done" else "  "
        role = t(lang, "role.dealer") if seat == hand.dealer else ""
        auto = " 🤖" if rec.seats[seat].auto else ""
        team = t(lang, f"team.short.{team_of(seat)}")
        count = t(lang, "table.count", n=len(hand.hands[seat]))
        lines.append(f"{mark}{seat + 1}. {name_of(rec, seat)} [{team}]{role}{auto} · {count}")
    return "\n".join(lines)


def show_line(rec: GameRecord, seat: int, kind: str, cards: list[int], lang: str) -> str:
    return t(
        lang,
        "table.show",
        name=name_of(rec, seat, lang),
        action=t(lang, f"show.{kind}"),
        cards=cards_label(cards, lang),
    )


def shows_block(rec: GameRecord, hand: HandState, lang: str) -> list[str]:
    return [show_line(rec, s.seat, s.kind, list(s.cards), lang) for s in hand.declaring.shows]


def kitty_decided(hand: HandState, lang: str) -> str | None:
    """Nobody declared: the kitty was shown to all and set the trump (RULES.md 5)."""
    if hand.revealed_kitty is None:
        return None
    cards = cards_label(hand.revealed_kitty, lang)
    if hand.trump is None:
        return t(lang, "table.kitty_decided.nt", cards=cards)
    return t(lang, "table.kitty_decided", cards=cards, trump=suit_label(hand.trump, lang))


def winning_now(hand: HandState, trick: Trick) -> int | None:
    """The seat whose play currently wins ``trick`` (the engine's judgement)."""
    if trick.winner is not None:
        return trick.winner
    if not trick.plays:
        return None
    index = trick_winner(hand.ctx, [p.cards for p in trick.plays])
    return trick.plays[index].seat


def play_text(rec: GameRecord, hand: HandState, play, lang: str) -> str:  # noqa: ANN001
    cards = cards_label(hand.ctx.sorted(list(play.cards)), lang)
    if play.attempted is None:
        return cards
    tried = cards_label(hand.ctx.sorted(list(play.attempted)), lang)
    return t(lang, "table.failed_throw", tried=tried, cards=cards)


def trick_block(
    rec: GameRecord, hand: HandState, trick: Trick, number: int, lang: str
) -> list[str]:
    """A trick in full, one line per play: the winner (or who wins it now) marked."""
    lines = []
    if trick.winner is not None:
        lines.append(
            t(
                lang,
                "table.trick_won",
                n=number,
                name=name_of(rec, trick.winner, lang),
                points=trick.points,
            )
        )
    else:
        lines.append(t(lang, "table.trick", n=number))
    best = winning_now(hand, trick) if trick.winner is None else None
    for play in trick.plays:
        mark = t(lang, "table.best") if play.seat == best else ""
        lines.append(
            t(
                lang,
                "table.play",
                name=name_of(rec, play.seat, lang),
                cards=play_text(rec, hand, play, lang),
            )
            + mark
        )
    if trick.winner is None and hand.turn is not None:
        lines.append(t(lang, "table.waiting", name=name_of(rec, hand.turn, lang)))
    return lines


def tricks_shown(hand: HandState) -> list[tuple[int, Trick]]:
    """The last completed trick and the current one, numbered from 1."""
    out = []
    tricks = hand.tricks
    done = [i for i, tr in enumerate(tricks) if tr.winner is not None]
    if done:
        out.append((done[-1] + 1, tricks[done[-1]]))
    if tricks and tricks[-1].winner is None:
        out.append((len(tricks), tricks[-1]))
    return out


def situation(rec: GameRecord, hand: HandState, lang: str) -> list[str]:
    """What happens before the first lead: the deal, the shows, the kitty."""
    lines = shows_block(rec, hand, lang)
    decided = kitty_decided(hand, lang)
    if decided:
        lines.append(decided)
    elif not lines:
        lines.append(t(lang, "table.no_show"))
    phase = hand.phase
    if phase == "dealing":
        lines.append(t(lang, "table.dealing", dealt=hand.dealt, total=DEALT))
    elif phase == "after_deal":
        waiting = ", ".join(name_of(rec, i, lang) for i in range(4) if hand.can_pass(i))
        lines.append(t(lang, "table.window", names=waiting))
    elif phase == "burying":
        lines.append(t(lang, "table.burying", name=name_of(rec, hand.turn, lang)))  # type: ignore[arg-type]
    elif phase == "chaodi":
        lines.append(t(lang, "table.chaodi", name=name_of(rec, hand.turn, lang)))  # type: ignore[arg-type]
    return lines


def table_message(rec: GameRecord, match: MatchState, bot_username: str = "bot") -> Content:
    """The hand's live table, whole at every render; with the "Take seat" links of
    seats another member may take over while the hand runs."""
    lang, hand = rec.lang, match.hand
    lines = [header(rec, hand, lang), "", seats_block(rec, hand), ""]
    if hand.phase in ("dealing", "after_deal", "burying", "chaodi"):
        lines += situation(rec, hand, lang)
    else:
        decided = kitty_decided(hand, lang)
        if decided:
            lines.append(decided)
        for number, trick in tricks_shown(hand):
            lines += trick_block(rec, hand, trick, number, lang)
            lines.append("")
        lines.append(t(lang, "table.points", points=hand.attackers_points))
    markup = None
    if hand.phase != "done":
        markup = takeover_markup(rec, bot_username, takeable(rec))
    return Content("\n".join(lines).strip(), markup)


def result_lines(rec: GameRecord, match: MatchState, lang: str) -> list[str]:
    """The hand's outcome: the kitty, the points, who holds or takes over by how many
    levels, the levels now, and the match's end when it ended."""
    r = match.hand.result
    assert r is not None
    lines = [t(lang, "result.kitty", cards=cards_label(r.kitty, lang), points=r.kitty_points)]
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
    lines.append(
        t(lang, "result.outcome", side=t(lang, f"result.winner.{r.winner}"), steps=r.steps)
    )
    lines.append(
        t(lang, "result.levels", a=rank_label(r.levels_after[0]), b=rank_label(r.levels_after[1]))
    )
    if match.winner is not None:
        team = match.winner
        names = " & ".join(name_of(rec, s, lang) for s in range(4) if team_of(s) == team)
        if match.ended_by_time:  # RULES.md 11: at the limit the higher level wins
            lines.append(
                t(
                    lang,
                    "result.by_time",
                    minutes=match.rules.time_limit_min,
                    a=rank_label(match.levels[0]),
                    b=rank_label(match.levels[1]),
                )
            )
        lines.append(t(lang, "result.match_won", team=t(lang, f"team.{team}"), names=names))
    return lines


def result_message(rec: GameRecord, match: MatchState, live: bool = True) -> Content:
    """The hand's result; ``live`` False: its "Next hand" button is gone (the next hand
    started, or the game was ended)."""
    lang, hand = rec.lang, match.hand
    r = hand.result
    assert r is not None
    lines = [t(lang, "result.title", n=hand.hand_number), ""]
    lines += result_lines(rec, match, lang)
    if match.winner is not None:
        return Content("\n".join(lines))
    # once the next hand started (or the game was ended) "starts shortly" is untrue
    key = "result.next_dealer" if live else "result.next_dealer.final"
    lines.append(t(lang, key, name=name_of(rec, r.next_dealer)))
    if not live:
        return Content("\n".join(lines))
    data = codec.Press("G", rec.id, hand.hand_number, hand.version).encode()
    markup = InlineKeyboardMarkup(
        [[InlineKeyboardButton(t(lang, "btn.next_hand"), callback_data=data)]]
    )
    return Content("\n".join(lines), markup)


def takeable(rec: GameRecord) -> list[int]:
    """Seats another group member may take over: the player is on 托管 or unreachable."""
    if rec.status != "running":
        return []
    return [i for i, s in enumerate(rec.seats) if s.human and (s.auto or s.dm_failed)]


def takeover_markup(
    rec: GameRecord, bot_username: str, seats: list[int]
) -> InlineKeyboardMarkup | None:
    if not seats:
        return None
    buttons = [
        InlineKeyboardButton(
            t(rec.lang, "btn.take", n=i + 1),
            url=f"https://t.me/{bot_username}?start={codec.take_payload(rec.id, i)}",
        )
        for i in seats
    ]
    return InlineKeyboardMarkup([buttons])


def group_messages(
    rec: GameRecord, match: MatchState, bot_username: str = "bot"
) -> list[tuple[str, Content]]:
    """Every group message of the current hand that may still change, oldest first:
    the hand's table, then its result once the hand is over."""
    hand = match.hand
    base = f"g{rec.id}:h{hand.hand_number}"
    out = [(f"{base}:table", table_message(rec, match, bot_username))]
    if hand.phase == "done":
        out.append((f"{base}:result", result_message(rec, match, live=rec.status == "running")))
    return out
