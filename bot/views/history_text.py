"""Texts of /last and /stats, and the level chart sent with a match's result. Pure
functions of the kept records (bot.data.history); no arithmetic of the rules: the numbers are
the engine's (the hand's result, each trick's winner and points)."""

from __future__ import annotations

from bot.data.history import GroupStats, HandRecord, Highlight, MatchRecord, PlayerStats
from bot.i18n import plural, t
from bot.views.card_labels import cards_label, rank_label, suit_label
from bot.views.chart import level_chart
from bot.views.messages import Content
from bot.views.names import shown
from engine.hand import team_of

MAX_TEXT = 4000  # Telegram's limit is 4096 characters


def _name(rec: HandRecord | MatchRecord, seat: int, lang: str) -> str:
    s = rec.seats[seat]
    if s.computer or s.user_id is None:
        return t(lang, "computer_seat", n=seat + 1)
    return shown(s.name or "?")


def _names(rec: HandRecord | MatchRecord, seats: list[int], lang: str) -> str:
    return t(lang, "list.sep").join(_name(rec, s, lang) for s in seats)


def last_text(lang: str, rec: HandRecord, seat: int | None = None) -> str:
    """The previous hand in full; ``seat``: the reader's (a DM), who also sees their hand
    as it was dealt."""
    hand = rec.hand
    r = hand.result
    assert r is not None
    ctx = hand.ctx
    head = [
        t(
            lang,
            "last.title",
            group=shown(rec.chat_title or "?"),
            n=rec.hand_no,
            level=rank_label(hand.level),
            trump=suit_label(hand.trump, lang),
        ),
        t(
            lang,
            "last.sides",
            dealer=_name(rec, r.dealer, lang),
            attackers=_names(rec, [s for s in range(4) if team_of(s) != r.defenders], lang),
        ),
    ]
    shows = [
        t(lang, f"last.{s.kind}", name=_name(rec, s.seat, lang), cards=cards_label(s.cards, lang))
        for s in hand.declaring.shows
    ]
    if hand.revealed_kitty is not None:
        shows.append(t(lang, "last.from_kitty", cards=cards_label(hand.revealed_kitty, lang)))
    head += shows or [t(lang, "last.no_show")]
    head.append(
        t(
            lang,
            "last.kitty",
            name=_name(rec, hand.buried_by if hand.buried_by is not None else r.dealer, lang),
            cards=cards_label(ctx.sorted(list(r.kitty)), lang),
            points=r.kitty_points,
        )
    )
    if seat is not None:
        dealt = ctx.sorted(hand.dealt_hands()[seat])
        head.append(t(lang, "last.dealt", cards=cards_label(dealt, lang)))
    tail = [
        t(
            lang,
            "last.result",
            total=r.attackers_points,
            tricks=r.trick_points,
            bonus=r.kitty_bonus,
            penalty=r.penalty,
        ),
        t(lang, f"last.outcome.{r.winner}", steps=r.steps),
        t(lang, "last.levels", a=rank_label(r.levels_after[0]), b=rank_label(r.levels_after[1])),
    ]
    tricks = []
    for i, trick in enumerate(hand.tricks, start=1):
        plays = []
        for p in trick.plays:
            cards = cards_label(ctx.sorted(list(p.cards)), lang)
            if p.attempted is not None:
                tried = cards_label(ctx.sorted(list(p.attempted)), lang)
                cards = t(lang, "last.failed_throw", tried=tried, cards=cards)
            plays.append(f"{_name(rec, p.seat, lang)} {cards}")
        winner = _name(rec, trick.winner or 0, lang)
        tricks.append(
            t(lang, "last.trick", n=i, plays=" · ".join(plays), winner=winner, points=trick.points)
        )
    text = "\n".join([*head, "", *tricks, "", *tail])
    if len(text) > MAX_TEXT:  # a long hand: each trick's winner and points only
        short = [
            t(
                lang,
                "last.trick_short",
                n=i,
                winner=_name(rec, tr.winner or 0, lang),
                points=tr.points,
            )
            for i, tr in enumerate(hand.tricks, start=1)
        ]
        text = "\n".join([*head, "", *short, "", *tail])
    return text


def _player_line(lang: str, p: PlayerStats, with_name: bool = True) -> str:
    line = t(
        lang,
        "stats.player",
        matches=p.matches,
        won=p.won,
        levels=p.levels,
        defended=p.defended,
        held=p.held,
        attacked=p.attacked,
        took=p.took_over,
    )
    return t(lang, "stats.named", name=shown(p.name or "?"), line=line) if with_name else line


def _highlight(lang: str, key: str, h: Highlight | None) -> str:
    if h is None:
        return t(lang, f"{key}.none")
    return t(
        lang,
        key,
        value=h.value,
        names=_names(h.hand, h.attackers, lang),
        n=h.hand.hand_no,
    )


def stats_text(lang: str, title: str, stats: GroupStats) -> str:
    if not stats.hands:
        return t(lang, "stats.empty")
    lines = [
        t(lang, "stats.title", group=shown(title or "?")),
        t(lang, "stats.totals", matches=stats.matches, hands=stats.hands),
        "",
        *(_player_line(lang, p) for p in stats.players),
        "",
        _highlight(lang, "stats.kitty", stats.biggest_kitty),
        _highlight(lang, "stats.points", stats.most_points),
    ]
    return "\n".join(lines)


def me_text(lang: str, name: str, p: PlayerStats | None) -> str:
    if p is None:
        return t(lang, "stats.me.empty")
    return "\n".join(
        [
            plural(lang, "stats.me.title", p.groups, name=shown(name or "?")),
            _player_line(lang, p, with_name=False),
        ]
    )


def chart_message(lang: str, m: MatchRecord) -> Content:
    """The level chart (a picture; names in the caption) sent with the match result."""
    caption = t(
        lang,
        "chart.caption",
        a=_names(m, [0, 2], lang),
        b=_names(m, [1, 3], lang),
        winner=t(lang, f"team.short.{m.winner}"),
    )
    return Content(caption, photo=level_chart(m.progression, lang))
