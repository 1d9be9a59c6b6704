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
from bot.render.cards import card_label, cards_label, rank_label, suit_label
from engine.cards import BJ, LJ
from engine.hand import HandState, Trick
from engine.match import MatchState
from engine.scoring import throw_penalty


def name_of(rec: GameRecord, seat: int, lang: str | None = None) -> str:
    s = rec.seats[seat]
    if s.computer:
        return t(lang or rec.lang, "computer_seat", n=seat + 1)
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
        # the levels this hand is played at (the result message tells the new ones)
        a=rank_label(hand.levels[0]),
        b=rank_label(hand.levels[1]),
    )


def counts_after(hand: HandState, tricks: int) -> list[int]:
    """Each seat's card count once the first ``tricks`` tricks were played as far as
    they are now: what a message showing that moment must say, whatever came later."""
    counts = [len(h) for h in hand.hands]
    for trick in hand.tricks[tricks:]:
        for play in trick.plays:
            counts[play.seat] += len(play.cards)
    return counts


def points_after(hand: HandState, tricks: int) -> int:
    """The attackers' points once the first ``tricks`` tricks were played (trick points
    and throw penalties, before any kitty bonus): what that trick's message shows."""
    defenders = hand.defenders
    total = 0
    for trick in hand.tricks[:tricks]:
        if trick.winner is not None and team_of(trick.winner) != defenders:
            total += trick.points
        for play in trick.plays:
            if play.attempted is not None:
                back = len(play.attempted) - len(play.cards)
                total += throw_penalty(hand.rules, back, team_of(play.seat) != defenders)
    return max(0, total)


def seats_block(
    rec: GameRecord, hand: HandState, live: bool = True, counts: list[int] | None = None
) -> str:
    lang = rec.lang
    counts = counts or [len(h) for h in hand.hands]
    lines = []
    for seat in range(4):
        mark = "▶" if live and hand.turn == seat and hand.phase != "done" else "  "
        role = ""
        if hand.dealer is not None:
            role = t(lang, "role.dealer") if seat == hand.dealer else ""
        auto = " 🤖" if rec.seats[seat].auto else ""
        team = t(lang, f"team.short.{team_of(seat)}")
        lines.append(
            f"{mark}{seat + 1}. {name_of(rec, seat)} [{team}]{role}{auto} · {counts[seat]}"
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
    # once play started this message shows the moment before the first lead
    counts = counts_after(hand, 0) if hand.tricks else None
    lines = [header(rec, match), "", seats_block(rec, hand, live, counts), ""]
    shows = shows_block(rec, hand)
    lines += shows or ([] if hand.revealed_kitty is not None else [t(lang, "table.no_show")])
    if hand.revealed_kitty is not None:
        lines.append(kitty_decided(hand.revealed_kitty, lang))
    phase = hand.phase
    if phase == "dealing":
        lines.append(t(lang, "table.dealing", dealt=hand.dealt, total=100))
    elif phase == "after_deal":
        waiting = ", ".join(name_of(rec, i) for i in range(4) if hand.can_pass(i))
        lines.append(t(lang, "table.window", names=waiting))
    elif phase == "burying":
        lines.append(t(lang, "table.burying", name=name_of(rec, hand.turn)))  # type: ignore[arg-type]
    elif phase == "chaodi":
        lines.append(t(lang, "table.chaodi", name=name_of(rec, hand.turn)))  # type: ignore[arg-type]
    else:
        lines.append(t(lang, "table.play_started"))
    return Content("\n".join(lines))


def kitty_decided(kitty: list[int], lang: str) -> str:
    """Nobody declared: the kitty was shown to all and its third card set the trump
    (RULES.md section 5; a joker means no-trump)."""
    third = kitty[2]  # the third card as dealt
    cards = cards_label(kitty, lang)
    if third in (BJ, LJ):
        return t(lang, "table.kitty_decided.nt", cards=cards, card=card_label(third, lang))
    return t(
        lang,
        "table.kitty_decided",
        cards=cards,
        card=card_label(third, lang),
        trump=suit_label(third // 13, lang),
    )


def trick_lines(
    rec: GameRecord, hand: HandState, trick: Trick, number: int, lang: str | None = None
) -> list[str]:
    lang = lang or rec.lang
    lines = [t(lang, "table.trick", n=number)]
    for play in trick.plays:
        if play.attempted is not None:
            lines.append(
                t(
                    lang,
                    "table.failed_throw",
                    name=name_of(rec, play.seat, lang),
                    tried=cards_label(hand.ctx.sorted(list(play.attempted)), lang),
                    cards=cards_label(hand.ctx.sorted(list(play.cards)), lang),
                )
            )
        else:
            lines.append(
                t(
                    lang,
                    "table.play",
                    name=name_of(rec, play.seat, lang),
                    cards=cards_label(hand.ctx.sorted(list(play.cards)), lang),
                )
            )
    if trick.winner is not None:
        lines.append(
            t(lang, "table.trick_won", name=name_of(rec, trick.winner, lang), points=trick.points)
        )
    elif hand.turn is not None:
        lines.append(t(lang, "table.waiting", name=name_of(rec, hand.turn, lang)))
    return lines


def trick_table(rec: GameRecord, match: MatchState, index: int) -> Content:
    lang, hand = rec.lang, match.hand
    trick = hand.tricks[index]
    live = trick.winner is None
    counts = counts_after(hand, index + 1)
    lines = [header(rec, match), "", seats_block(rec, hand, live, counts), ""]
    if index > 0 and trick.winner is None and not trick.plays:
        prev = hand.tricks[index - 1]
        lines.append(
            t(lang, "table.previous", name=name_of(rec, prev.winner or 0), points=prev.points)
        )
    lines += trick_lines(rec, hand, trick, index + 1)
    lines.append("")
    lines.append(t(lang, "table.points", points=points_after(hand, index + 1)))
    return Content("\n".join(lines))


def result_message(rec: GameRecord, match: MatchState, live: bool = True) -> Content:
    """The hand's result; ``live`` False: its "Next hand" button is gone (the next hand
    started, or the game was ended)."""
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
        lines.append("")
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
    else:
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
    """Every group message of the current hand that may still change, oldest first.
    Only the newest table carries the "Take seat" buttons (none linger on old ones)."""
    hand = match.hand
    base = f"g{rec.id}:h{hand.hand_number}"
    out: list[tuple[str, Content]] = []
    n = len(hand.tricks)
    if n <= 1:
        out.append((f"{base}:t0", pre_play(rec, match)))
    for i in range(max(0, n - 2), n):
        out.append((f"{base}:t{i + 1}", trick_table(rec, match, i)))
    if out and hand.phase != "done":
        key, content = out[-1]
        markup = takeover_markup(rec, bot_username, takeable(rec))
        out[-1] = (key, Content(content.text, markup))
    if hand.phase == "done":
        out.append((f"{base}:result", result_message(rec, match, live=rec.status == "running")))
    return out
