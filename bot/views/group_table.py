"""The group's messages for a running match: the live table of a hand, its result.

The table is one message per hand, edited in place, and every render of it is whole:
the header (hand, level, trump, dealer, both teams' levels, the attackers' points), the
seats with their card counts and whose turn it is, the last completed trick in full
(plays, winner, points) and the current trick as it grows with who is winning it now.
When the group's paced output skips renders, the next one delivered shows again, in
full, every trick completed since the last one the group was shown (``seen``).

Only public facts are read here (RULES.md section 13), from the public projection
(``bot.views.projection``): no rule is computed in this module.
"""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.data.saved import GameRecord
from bot.i18n import plural, t
from bot.table import takeable
from bot.views import codec
from bot.views.card_labels import cards_label, rank_label, suit_label
from bot.views.codec import NextHandButton
from bot.views.messages import Content, SlotKey, slot_key
from bot.views.names import shown
from bot.views.projection import PlayView, Points, Projection, TrickView
from engine.seats import SEATS, Seat
from engine.view import PublicView

NAME_LIMIT = 16  # graphemes of a name in a table line
BEFORE_PLAY = ("dealing", "after_deal", "burying", "chaodi")


def name_of(rec: GameRecord, seat: Seat, lang: str | None = None) -> str:
    s = rec.seats[seat]
    if s.computer:
        return t(lang or rec.lang, "computer_seat", n=seat + 1)
    return shown(s.name or "?", NAME_LIMIT)


def trump_label(view: PublicView, lang: str) -> str:
    return suit_label(view.trump, lang) if view.trump_decided else "?"


def header(rec: GameRecord, p: Projection, lang: str) -> str:
    dealer = name_of(rec, p.dealer, lang) if p.dealer is not None else "?"
    return t(
        lang,
        "table.header",
        n=p.hand_number,
        level=rank_label(p.level),
        trump=trump_label(p.view, lang),
        dealer=dealer,
        # the levels this hand is played at (the result tells the new ones)
        a=rank_label(p.levels[0]),
        b=rank_label(p.levels[1]),
    )


def seats_block(rec: GameRecord, p: Projection) -> str:
    lang, view = rec.lang, p.view
    lines = []
    for seat in SEATS:
        live = p.phase != "done" and p.live
        mark = "▶" if seat == p.turn and live else "  "
        role = t(lang, "role.dealer") if seat == p.dealer else ""
        auto = " 🤖" if rec.seats[seat].auto else ""
        team = t(lang, f"team.short.{view.team_of(seat)}")
        count = plural(lang, "table.count", view.card_counts[seat])
        lines.append(f"{mark}{seat + 1}. {name_of(rec, seat)} [{team}]{role}{auto} · {count}")
    return "\n".join(lines)


def shows_block(rec: GameRecord, view: PublicView, lang: str) -> list[str]:
    """Each show of the hand with what it did (亮主 / 加固 / 反主); under joker_declare
    first whether the dealer's team could declare when the deal ended (叫不起)."""
    checked = dealer_team_line(view, lang)
    return ([checked] if checked else []) + [
        t(
            lang,
            "table.show",
            name=name_of(rec, s.seat, lang),
            action=t(lang, f"show.{s.kind}"),
            cards=cards_label(s.cards, lang),
        )
        for s in view.show_records
    ]


def dealer_team_line(view: PublicView, lang: str) -> str | None:
    """joker_declare: whether the dealer's team could declare when the deal ended."""
    can = view.dealer_team_can_declare
    return None if can is None else t(lang, f"table.dealer_team.{'can' if can else 'cannot'}")


def kitty_decided(view: PublicView, lang: str) -> str | None:
    """Nobody declared: the kitty was shown to all and set the trump (RULES.md 5)."""
    if not view.kitty_decided or view.revealed_kitty is None:
        return None
    cards = cards_label(view.revealed_kitty, lang)
    if view.trump is None:
        return t(lang, "table.kitty_decided.nt", cards=cards)
    return t(lang, "table.kitty_decided", cards=cards, trump=suit_label(view.trump, lang))


def play_text(rec: GameRecord, play: PlayView, lang: str) -> str:
    """A play's cards; a failed throw says what was tried, what beat it and the
    penalty; a successful throw (甩牌) and a ruff (毙) are marked (the engine's)."""
    if play.attempted is not None:
        return failed_throw_text(rec, play, lang)
    cards = cards_label(play.cards, lang)
    return cards + t(lang, f"mark.{play.mark}") if play.mark else cards


def signed(n: int) -> str:
    """A change of points with its sign, "+20" / "−10" (a minus sign, not a hyphen)."""
    return f"{n:+d}".replace("-", "\u2212")


def failed_throw_text(rec: GameRecord, play: PlayView, lang: str) -> str:
    """A failed throw explained (RULES 8.3): what was tried, the unit that failed and
    who holds what beat it (RULES 13: the first seat after the thrower that can, its
    lowest such unit, the engine's), the forced play and the penalty as a figure of its own."""
    tried = cards_label(play.attempted or (), lang)
    cards = cards_label(play.cards, lang)
    if play.beaten_by:
        beaten_by = cards_label(play.beaten_by, lang)
        holder = play.beaten_by_seat
        name = name_of(rec, holder, lang) if holder is not None else "?"
        text = t(
            lang, "table.throw_failed.by", tried=tried, cards=cards, beaten_by=beaten_by, name=name
        )
    else:
        text = t(lang, "table.throw_failed", tried=tried, cards=cards)
    if play.penalty:
        text += t(lang, "table.throw_failed.penalty", penalty=signed(play.penalty))
    return text


# the most missed tricks a table repeats in full (only if output failed for long)
MISSED_LIMIT = 8


def tricks_shown(p: Projection, seen: int | None = None) -> list[TrickView]:
    """The tricks a render shows: the last completed trick and the current one; with
    ``seen`` (how many completed tricks the reader's message has shown so far) also,
    before them, every completed trick the reader missed."""
    done = p.tricks_done
    out = []
    if seen is not None and seen < done - 1:
        first = max(seen, done - 1 - MISSED_LIMIT)
        out += [p.trick(i + 1) for i in range(first, done - 1)]
    if p.last is not None:
        out.append(p.last)
    if p.current is not None:
        out.append(p.current)
    return out


def trick_block(rec: GameRecord, p: Projection, trick: TrickView, lang: str) -> list[str]:
    """A trick in full, one line per play: its winner, or who is winning it now."""
    if trick.winner is not None:
        won = name_of(rec, trick.winner, lang)
        lines = [t(lang, "table.trick_won", n=trick.number, name=won, points=trick.points)]
    else:
        lines = [t(lang, "table.trick", n=trick.number)]
    for play in trick.plays:
        best = trick.winner is None and play.seat == trick.best
        mark = t(lang, "table.best") if best else ""
        text = play_text(rec, play, lang)
        lines.append(t(lang, "table.play", name=name_of(rec, play.seat, lang), cards=text) + mark)
    if trick.winner is None and p.turn is not None and p.live:
        lines.append(t(lang, "table.waiting", name=name_of(rec, p.turn, lang)))
    return lines


def situation(rec: GameRecord, p: Projection, lang: str) -> list[str]:
    """What happens before the first lead: the deal, the shows, the kitty."""
    view = p.view
    lines = shows_block(rec, view, lang)
    decided = kitty_decided(view, lang)
    if decided:
        lines.append(decided)
    elif not lines:
        lines.append(t(lang, "table.no_show"))
    if rec.status != "running":  # an ended game deals and waits for nobody
        return lines
    phase = view.phase
    if phase == "dealing":
        lines.append(t(lang, "table.dealing", dealt=view.dealt, total=view.deal_total))
    elif phase == "after_deal":
        waiting = t(lang, "list.sep").join(name_of(rec, s, lang) for s in p.to_act.seats)
        lines.append(t(lang, "table.window", names=waiting))
    elif phase in ("burying", "chaodi"):
        assert p.turn is not None  # who buries, or may 炒底
        key = "table.burying" if phase == "burying" else "table.chaodi"
        lines.append(t(lang, key, name=name_of(rec, p.turn, lang)))
    return lines


def points_line(points: Points, lang: str) -> str:
    """The group's (live) points line: the attackers' points as they stand, penalties
    apart, then what 80 means and the level table's next threshold."""
    team = t(lang, f"team.short.{points.team}")
    line = t(lang, "table.points", team=team, points=points.total) + _penalty(points, lang)
    context = points_context(points, lang)
    return line + "\n" + context if context else line


def points_text(points: Points, done: int, lang: str) -> list[str]:
    """The attackers' points in context, said after the last finished trick (``done``,
    so the line stays true until the next one is won; a failed throw's penalty counts
    at once): trick points and penalties apart, what 80 means, the next threshold of
    the level table."""
    team = t(lang, f"team.short.{points.team}")
    key = "dm.points.after" if done else "dm.points.start"
    line = t(lang, key, team=team, k=done, points=points.total) + _penalty(points, lang)
    context = points_context(points, lang)
    return [line, context] if context else [line]


def _penalty(points: Points, lang: str) -> str:
    if not points.penalty:
        return ""
    return t(lang, "dm.points.penalty", tricks=points.tricks, penalty=signed(points.penalty))


def points_context(points: Points, lang: str) -> str:
    """What the points mean: how far 80 (the take-over) is, the next threshold of the
    level table ("" when neither applies)."""
    return " · ".join(points_context_parts(points, lang))


def points_context_parts(points: Points, lang: str) -> list[str]:
    """:func:`points_context`'s parts, each a phrase that reads whole (the Mini App
    breaks a narrow line between them, not inside one)."""
    context = []
    if points.to_take_over:
        more, need = points.to_take_over, points.take_over
        context.append(t(lang, "dm.points.to_take_over", need=need, more=more))
    step = points.next
    if step is not None and step[0] != points.take_over:
        at, side, steps = step
        context.append(t(lang, f"dm.points.next.{side}", at=at, steps=steps))
    return context


def table_message(
    rec: GameRecord,
    p: Projection,
    bot_username: str = "bot",
    seen: int | None = None,
    watch_url: str | None = None,
) -> Content:
    """The hand's live table, whole at every render; with the "Take seat" links of
    seats another member may take over while the hand runs. ``seen``: how many completed
    tricks the group's table has shown; the ones it missed are shown again in full.
    ``watch_url``: the Mini App's direct link to watch the table (a button of its own)."""
    lang = rec.lang
    lines = [header(rec, p, lang), "", seats_block(rec, p), ""]
    if p.phase in BEFORE_PLAY:
        lines += situation(rec, p, lang)
    else:
        decided = kitty_decided(p.view, lang)
        if decided:
            lines.append(decided)
        for trick in tricks_shown(p, seen):
            lines += trick_block(rec, p, trick, lang)
            lines.append("")
        if p.points is not None:
            lines.append(points_line(p.points, lang))
    if rec.status == "ended":
        lines += ["", t(lang, "table.ended")]
    markup = None
    if p.phase != "done":
        markup = takeover_markup(rec, bot_username, takeable(rec))
        if watch_url and rec.status == "running":
            watch = [InlineKeyboardButton(t(lang, "btn.watch"), url=watch_url)]
            rows = [*markup.inline_keyboard, watch] if markup is not None else [watch]
            markup = InlineKeyboardMarkup(rows)
    return Content("\n".join(lines).strip(), markup)


def result_lines(rec: GameRecord, view: PublicView, lang: str) -> list[str]:
    """The hand's outcome: the kitty, the points, who holds or takes over by how many
    levels, the levels now, and the match's end when it ended."""
    r = view.result
    assert r is not None
    lines = [t(lang, "result.kitty", cards=cards_label(r.kitty, lang), points=r.kitty_points)]
    lines.append(result_points(r.trick_points, r.kitty_bonus, r.penalty, r.attackers_points, lang))
    if r.multiplier > 1:  # RULES.md 7: reported only; 2 ** overturns
        lines.append(t(lang, "result.multiplier", m=r.multiplier, n=view.overturns))
    side = t(lang, f"result.winner.{r.winner}")
    lines.append(plural(lang, "result.outcome", r.steps, side=side))
    a, b = (rank_label(x) for x in r.levels_after)
    lines.append(t(lang, "result.levels", a=a, b=b))
    team = view.match_winner
    if team is not None:
        names = " &amp; ".join(name_of(rec, s, lang) for s in SEATS if view.team_of(s) == team)
        if view.ended_by_time:  # RULES.md 11: at the limit the higher level wins
            minutes = view.rules.time_limit_min
            lines.append(t(lang, "result.by_time", minutes=minutes, a=a, b=b))
        lines.append(t(lang, "result.match_won", team=t(lang, f"team.{team}"), names=names))
    return lines


def result_points(tricks: int, bonus: int, penalty: int, total: int, lang: str) -> str:
    """The attackers' points as one amount: the total, and only when something besides
    trick points went into it, the sum that makes it ("牌分 20 + 抠底 40 − 甩牌罚分 20"),
    each term once with its own sign; a sum below zero says the total stops at 0."""
    if not bonus and not penalty:
        return t(lang, "result.points", total=total)
    terms = [t(lang, "result.term.tricks", n=tricks)]
    if bonus:
        terms.append("+ " + t(lang, "result.term.bonus", n=bonus))
    if penalty:
        sign = "+ " if penalty > 0 else "\u2212 "
        terms.append(sign + t(lang, "result.term.penalty", n=abs(penalty)))
    key = "result.points.floor" if tricks + bonus + penalty < total else "result.points.sum"
    return t(lang, key, sum=" ".join(terms), total=total)


def result_of(rec: GameRecord, view: PublicView, live: bool = True) -> Content:
    """The result of the hand whose public view (as it ended) is ``view``; ``live``
    False: its "Next hand" button is gone (the next hand started, or the game was
    ended)."""
    lang = rec.lang
    r = view.result
    assert r is not None
    lines = [t(lang, "result.title", n=view.hand_number), ""]
    lines += result_lines(rec, view, lang)
    if view.match_winner is not None:
        return Content("\n".join(lines))
    # once the next hand started (or the game was ended) "starts shortly" is untrue
    key = "result.next_dealer" if live else "result.next_dealer.final"
    lines.append(t(lang, key, name=name_of(rec, r.next_dealer)))
    if not live:
        return Content("\n".join(lines))
    data = NextHandButton(rec.id, view.hand_number, view.version).pack()
    markup = InlineKeyboardMarkup(
        [[InlineKeyboardButton(t(lang, "btn.next_hand"), callback_data=data)]]
    )
    return Content("\n".join(lines), markup)


def takeover_markup(
    rec: GameRecord, bot_username: str, seats: list[int]
) -> InlineKeyboardMarkup | None:
    if not seats:
        return None
    buttons = [
        InlineKeyboardButton(
            t(rec.lang, "btn.take", n=i + 1),
            url=codec.deep_link(bot_username, codec.take_payload(rec.id, i)),
        )
        for i in seats
    ]
    return InlineKeyboardMarkup([buttons])


def table_key(rec: GameRecord, hand_number: int) -> str:
    return slot_key(rec.id, "table", hand=hand_number)


def group_messages(
    rec: GameRecord,
    p: Projection,
    bot_username: str = "bot",
    seen: int | None = None,
    watch_url: str | None = None,
) -> list[tuple[SlotKey, Content]]:
    """Every group message of the current hand that may still change, oldest first:
    the hand's table (``seen``, ``watch_url``: see :func:`table_message`), then its
    result once the hand is over."""
    n = p.hand_number
    table = table_message(rec, p, bot_username, seen, watch_url)
    out = [(SlotKey(rec.id, "table", hand=n), table)]
    if p.view.result is not None:
        result = result_of(rec, p.view, live=p.live)
        out.append((SlotKey(rec.id, "result", hand=n), result))
    return out
