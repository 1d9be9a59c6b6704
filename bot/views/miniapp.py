"""What the Mini App shows one reader: a JSON document built from their projection
(``bot.views.projection``).

A seated player gets their seat's projection (their own cards, the kitty if they
buried it, what they may do now); anyone else the public one. No rule is computed
here: the winners, the marks of the plays, the points with their penalties, the
take-over and the next threshold, the cards that may follow are the projection's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.data.saved import GameRecord
from bot.i18n import t
from bot.views.card_labels import class_label, rank_label, suit_groups, suit_label
from bot.views.group_table import (
    dealer_team_line,
    name_of,
    points_context_parts,
    result_lines,
    signed,
    trump_label,
)
from bot.views.projection import (
    MatchHistory,
    Own,
    PlayView,
    Points,
    Projection,
    TrickView,
    hand_tricks,
)
from bot.views.reason_line import reason_line
from engine.cards import BJ, LJ, RANKS, points, rank_of, suit_of
from engine.counter import CardCount
from engine.ranking import TRUMP
from engine.seats import SEATS

SUIT_TEXT = "♠♥♣♦"
# the catalogs' suits ask for the emoji glyphs (♠️, the DM's colours); on the page they are
# text, drawn in the text's colour (a black emoji ♠ is lost on a dark theme), ♥ ♦ red
_PAGE_SUITS = {
    "♠️": "♠",
    "♣️": "♣",
    "♥️": '<span class="red">♥</span>',
    "♦️": '<span class="red">♦</span>',
}


def page_suits(html: str) -> str:
    """Safe HTML with its suits as the page draws them (:data:`_PAGE_SUITS`)."""
    for emoji, text in _PAGE_SUITS.items():
        html = html.replace(emoji, text)
    return html


def text_suits(text: str) -> str:
    """Plain text with its suits as text glyphs (the page sets it as text, uncoloured)."""
    return text.replace("\ufe0f", "")


def card_json(card: int, lang: str) -> dict[str, Any]:
    """A card as the page draws it: rank and suit, or the joker's name."""
    if card in (BJ, LJ):
        return {
            "id": card,
            "r": t(lang, "card.bj" if card == BJ else "card.lj"),
            "s": "🃏",
            "red": card == BJ,
            "joker": True,
        }
    rank, suit = rank_of(card), suit_of(card)
    assert rank is not None and suit is not None  # not a joker
    return {
        "id": card,
        "r": RANKS[rank],
        "s": SUIT_TEXT[suit],
        "red": suit in (1, 3),
        "p": points(card),
    }


def _cards(cards: Sequence[int], lang: str) -> list[dict[str, Any]]:
    return [card_json(c, lang) for c in cards]


def _play(play: PlayView, lang: str, reader: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": play.seat, "cards": _cards(play.cards, lang)}
    # why a computer (or 托管) played it, decided when it played ("Why?" on the last trick);
    # what it keeps back is said only to its own seat
    reason = play.reason
    out["why"] = (
        None
        if reason is None
        else text_suits(reason_line(lang, play.cards, reason, play.seat == reader))
    )
    if play.attempted is not None:  # a failed throw: what was tried, the forced play
        out["attempted"] = _cards(play.attempted, lang)
        out["penalty"] = play.penalty
        # what beat it and who showed it (RULES 13: the first seat after the thrower)
        out["beaten_by"] = _cards(play.beaten_by, lang)
        out["beaten_by_seat"] = play.beaten_by_seat
    out["mark"] = play.mark  # the engine's: "throw" (甩牌), "ruff" (毙) or None
    out["ruff"] = play.mark == "ruff"
    return out


def _trick(trick: TrickView | None, lang: str, reader: int | None) -> dict[str, Any] | None:
    if trick is None:
        return None
    return {
        "number": trick.number,
        "leader": trick.leader,
        "plays": [_play(p, lang, reader) for p in trick.plays],
        "best": trick.best,
        "winner": trick.winner,
        "points": trick.points,
    }


def _points(points: Points, lang: str) -> dict[str, Any]:
    step = points.next
    return {
        "team": points.team,
        "team_name": t(lang, f"team.short.{points.team}"),
        "points": points.total,
        "tricks": points.tricks,
        "take_over": points.take_over,
        "next": None if step is None else step[0],  # where the level table changes
        "penalty": points.penalty,
        # the total explained, one amount: what the tricks gave, the penalty, the floor at 0
        "penalty_line": None
        if not points.penalty
        else t(
            lang,
            "webapp.penalty.floor"
            if points.tricks + points.penalty < points.total
            else "webapp.penalty",
            tricks=points.tricks,
            n=signed(points.penalty),
        ),
        # what the total means, in the DM's words: the take-over, the next threshold
        "context": points_context_parts(points, lang),
        "cards": _cards(points.won, lang),
    }


def _counter(count: CardCount, lang: str) -> dict[str, Any]:
    """The seat's card counter (记牌器, engine.counter) as the page lists it: per suit
    class the cards out and the high cards with their copies out, the cards played; the
    points; each seat's shown voids."""

    def label(klass: int) -> str:
        return t(lang, "hand.trumps") if klass == TRUMP else SUIT_TEXT[klass]

    return {
        "classes": [
            {
                "label": label(c.klass),
                "trump": c.klass == TRUMP,
                "red": c.klass in (1, 3),
                "out": c.out,
                "high": [card_json(card, lang) | {"n": n} for card, n in c.high],
                "played": _cards(c.played, lang),
            }
            for c in count.classes
        ],
        "points": {
            "unplayed": count.points_unplayed,
            "mine": count.points_mine,
            "buried": count.points_buried,
            "out": [card_json(card, lang) | {"n": n} for card, n in count.points_out],
        },
        "voids": [
            {"seat": seat, "classes": [label(k) for k in voids]}
            for seat, voids in enumerate(count.voids)
            if voids
        ],
        "kitty_known": count.kitty_known,
    }


def _mine(p: Projection, own: Own, rec: GameRecord, lang: str) -> dict[str, Any]:
    """What only the reader's seat has: its cards, options and the kitty it buried."""
    groups = [
        {"trump": klass == TRUMP, "cards": _cards(part, lang)}
        for klass, parts in suit_groups(p.view.ctx, own.hand)
        for part in parts
    ]
    shows = [
        {
            "cards": list(option.cards),
            "label": t(lang, f"btn.show.{option.action}"),
            "shown": _cards(option.cards, lang),
        }
        for option in own.shows
    ]
    return {
        "seat": own.seat,
        "groups": groups,
        "hand": list(own.hand),
        "needed": own.needed,
        "my_turn": own.my_turn,
        "shows": shows,
        "can_pass": own.can_pass,
        "can_redeal": own.can_redeal,
        "kitty": _cards(own.kitty, lang) if own.kitty is not None else None,
        # burying: the cards just picked up with the kitty (shown apart)
        "picked": list(own.picked) or None,
        "selection": list(own.selection),
        "auto": own.auto,
        # the seat's card counter (记牌器), when the game has it on and the tricks are played
        "counter": None if (count := p.counter) is None else _counter(count, lang),
        # following: the cards that can be part of a legal play (the engine's answer);
        # None when any card may be tapped
        "playable": None if own.playable is None else list(own.playable),
        # following: why a card left out cannot be played (须跟♦, must play a pair)
        "refusals": {str(c): _refusal(p, reason, lang) for c, reason in own.refusals.items()},
        # leading: each card's suit class (a lead is of one class: RULES 8)
        "classes": [p.view.ctx.suit_class[c] for c in own.hand],
        # the Hint's why, while the selection is the Hint's (its cards, to tell on the page)
        "hint": None
        if own.hint is None
        else {
            "cards": list(own.selection),
            "line": reason_line(lang, p.view.ctx.sorted(list(own.selection)), own.hint, True),
        },
    }


def _refusal(p: Projection, reason: str, lang: str) -> str:
    """The engine's reason a card cannot follow, in the reader's words."""
    if reason == "must_follow_suit" and p.current is not None and p.current.plays:
        klass = p.view.ctx.suit_class[p.current.plays[0].cards[0]]
        return t(lang, "webapp.must_follow", suit=text_suits(class_label(klass, lang)))
    return t(lang, f"reason.{reason}")


def table_view(
    rec: GameRecord, p: Projection, lang: str, now: float | None = None
) -> dict[str, Any]:
    """The document for the reader of ``p``; ``now``: the monotonic time it is built
    at (the seconds left to whoever acts now are counted from it)."""
    view = p.view
    to_act = p.to_act
    deadline = None
    if p.clock is not None and now is not None:
        deadline = max(0.0, p.clock.at - now)
    out: dict[str, Any] = {
        "game": rec.id,
        "group": rec.chat_title,
        "status": rec.status,
        "paused": rec.paused or rec.group_gone,
        "lang": lang,
        "hand_no": p.hand_number,
        "version": p.version,
        "phase": p.phase,
        "level": rank_label(p.level),
        # which of two level pairs overturns the other (RULES 7), strongest suit first
        "overturn_order": " &gt; ".join(SUIT_TEXT[s] for s in view.rules.overturn_suit_order),
        "levels": [rank_label(x) for x in p.levels],
        "trump": trump_label(view, lang),
        "trump_decided": view.trump_decided,
        "dealer": p.dealer,
        "declarer": view.declarer,
        "seats": [
            {
                "name": name_of(rec, s, lang),
                "team": view.team_of(s),
                "team_name": t(lang, f"team.short.{view.team_of(s)}"),
                "computer": rec.seats[s].computer,
                "auto": rec.seats[s].auto,
                "count": view.card_counts[s],
            }
            for s in SEATS
        ],
        "to_act": {"kind": to_act.kind, "seats": list(to_act.seats)},
        "deadline": deadline,
        "dealt": view.dealt,
        "deal_total": view.deal_total,
        "shows": [
            {"seat": s.seat, "action": t(lang, f"show.{s.kind}"), "cards": _cards(s.cards, lang)}
            for s in view.show_records
        ],
        "dealer_team": dealer_team_line(view, lang),  # joker_declare: 叫不起 or not
        "revealed_kitty": _cards(view.revealed_kitty, lang) if view.revealed_kitty else None,
        "trick": _trick(p.current, lang, p.seat),
        "last": _trick(p.last, lang, p.seat),
        "tricks_done": p.tricks_done,
        "points": None if p.points is None else _points(p.points, lang),
        "kitty": _cards(view.kitty, lang) if view.kitty is not None else None,
        "result": None,
        "me": None,
    }
    if view.result is not None:
        out["result"] = {
            "winner": view.result.winner,
            "steps": view.result.steps,
            # the group's own words (safe HTML), its suits readable on any theme
            "lines": [page_suits(line) for line in result_lines(rec, view, lang)],
            "next_dealer": view.result.next_dealer,
            "levels": [rank_label(x) for x in view.result.levels_after],
            "match_over": view.match_winner is not None,
        }
    if p.own is not None:
        out["me"] = _mine(p, p.own, rec, lang)
    return out


# ---------------------------------------------------------------------- the panels
# Fetched when a panel opens (and again while it is open and the table changes), never
# sent with every change: each card once in ``cards`` (its id to how it is drawn), the
# plays as card ids.
def _legend(cards: set[int], lang: str) -> dict[str, Any]:
    return {str(c): card_json(c, lang) for c in sorted(cards)}


def _record_play(play: PlayView, seen: set[int]) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": play.seat, "cards": list(play.cards)}
    seen.update(play.cards)
    if play.mark == "ruff":
        out["ruff"] = True
    if play.attempted is not None:  # a failed throw (RULES 8.3, 13): tried, beaten, by whom
        out["attempted"] = list(play.attempted)
        out["beaten_by"] = list(play.beaten_by)
        out["beaten_by_seat"] = play.beaten_by_seat
        out["penalty"] = play.penalty
        seen.update(play.attempted)
        seen.update(play.beaten_by)
    return out


def tricks_view(rec: GameRecord, p: Projection, lang: str) -> dict[str, Any]:
    """The Tricks panel of ``p``'s reader: every trick of the hand in order (who led,
    each play, the winner and its points), the point cards each team took, the throw
    penalties, and the kitty once the reader may see it (``bot.views.projection.hand_tricks``)."""
    record = hand_tricks(p)
    seen: set[int] = set()
    tricks = [
        {
            "n": trick.number,
            "leader": trick.leader,
            "plays": [_record_play(play, seen) for play in trick.plays],
            "winner": trick.winner,
            "best": trick.best,
            "points": trick.points,
        }
        for trick in record.tricks
    ]
    for cards in record.taken:
        seen.update(cards)
    if record.kitty is not None:
        seen.update(record.kitty)
    result = p.view.result
    return {
        "game": rec.id,
        "hand_no": p.hand_number,
        "version": p.version,
        "attackers": record.attackers,
        "tricks": tricks,
        "taken": [
            {
                "team": team,
                "team_name": t(lang, f"team.short.{team}"),
                "points": record.points[team],
                "cards": list(record.taken[team]),
            }
            for team in (0, 1)
        ],
        "penalty": record.penalty,
        "kitty": None if record.kitty is None else list(record.kitty),
        "kitty_bonus": None if result is None else result.kitty_bonus,
        "cards": _legend(seen, lang),
    }


def history_view(
    rec: GameRecord, p: Projection, history: MatchHistory, lang: str
) -> dict[str, Any]:
    """The History panel: each finished hand of the match (its dealer, trump, level,
    the attackers' points, who went up how far, the levels after it) and the level
    chart's points (``bot.views.projection.match_history``), during the match and after."""
    hands = []
    for row in history.hands:
        hands.append(
            {
                "n": row.number,
                "dealer": row.dealer,
                "trump": suit_label(row.trump, lang) if row.trump_known else "?",
                "red": row.trump_known and row.trump in (1, 3),
                "level": rank_label(row.level),
                "attackers": row.attackers,
                "points": row.points,
                "winner": row.winner,
                "team": row.team,  # the team the hand went for, and the levels it climbed
                "team_name": t(lang, f"team.short.{row.team}"),
                "up": row.up,
                "levels": [rank_label(x) for x in row.levels_after],
            }
        )
    return {
        "game": rec.id,
        "hand_no": p.hand_number,
        "hands": hands,
        "teams": [t(lang, f"team.short.{team}") for team in (0, 1)],
        # per point (before hand 1, after each hand): both teams' levels, counted on past A
        "progression": [list(point) for point in history.progression],
        "ranks": list(RANKS),  # the axis' labels, a lap of them
        "winner": history.winner,
    }
