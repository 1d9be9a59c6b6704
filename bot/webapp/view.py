"""What the Mini App shows one reader: a JSON document built from the engine's view.

A seated player gets their seat's ``observation`` (their own cards, the kitty if they
buried it, what they may do now); anyone else the ``public_observation``. Nothing here
reads the match beyond that view, but for two questions the engine answers about the
reader's own seat (how many cards to put down, what a show would do). No rule is
computed here: the take-over total and the next threshold are the engine's
(``scoring.TAKE_OVER``, ``scoring.next_threshold``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.i18n import t
from bot.models import GameRecord
from bot.render.cards import rank_label, suit_groups
from bot.render.table import dealer_team_line, name_of, result_lines, trump_label
from engine.cards import BJ, LJ, RANKS, points, rank_of, suit_of
from engine.match import MatchState
from engine.ranking import TRUMP
from engine.records import PlayRecord, Trick
from engine.scoring import TAKE_OVER, next_threshold
from engine.seats import SEATS
from engine.tricks import followable
from engine.view import Observation, PublicView

SUIT_TEXT = "♠♥♣♦"


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


def _play(view: PublicView, play: PlayRecord, lead: PlayRecord, lang: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "seat": play.seat,
        "cards": _cards(view.ctx.sorted(list(play.cards)), lang),
    }
    if play.attempted is not None:  # a failed throw: what was tried, the forced play
        out["attempted"] = _cards(view.ctx.sorted(list(play.attempted)), lang)
    klass = view.ctx.suit_class
    if play is not lead and klass[lead.cards[0]] != TRUMP:
        # trumps on a side-suit lead: a ruff (when the seat had none of the suit left)
        out["ruff"] = all(klass[c] == TRUMP for c in play.cards)
    return out


def _trick(view: PublicView, trick: Trick | None, lang: str) -> dict[str, Any] | None:
    if trick is None:
        return None
    best = view.winning if trick.winner is None else trick.winner
    return {
        "leader": trick.leader,
        "plays": [_play(view, p, trick.plays[0], lang) for p in trick.plays],
        "best": best,
        "winner": trick.winner,
        "points": trick.points,
    }


def _points(view: PublicView, lang: str) -> dict[str, Any]:
    step = next_threshold(view.rules, view.attackers_points)
    attackers = view.attackers
    won: list[int] = []
    for trick in view.tricks:
        if (
            trick.winner is not None
            and attackers is not None
            and view.team_of(trick.winner) == attackers
        ):
            won += [c for p in trick.plays for c in p.cards if points(c)]
    return {
        "team": attackers,
        "team_name": None if attackers is None else t(lang, f"team.short.{attackers}"),
        "points": view.attackers_points,
        "take_over": TAKE_OVER,
        "next": None if step is None else step[0],  # where the level table changes
        "penalty": sum(f.penalty for f in view.failed_throws),
        "cards": _cards(view.ctx.sorted(won), lang),
    }


def _mine(
    match: MatchState, obs: Observation, rec: GameRecord, lang: str, picked: list[int] | None
) -> dict[str, Any]:
    """What only the reader's seat has: its cards, options and the kitty it buried."""
    hand = match.hand
    groups = [
        {"trump": klass == TRUMP, "cards": _cards(part, lang)}
        for klass, parts in suit_groups(obs.ctx, obs.hand)
        for part in parts
    ]
    shows = []
    for option in obs.show_options:
        action = hand.show_action(obs.seat, option)
        shows.append(
            {
                "cards": [c for c in option],
                "label": t(lang, f"btn.show.{action}"),
                "shown": _cards(option, lang),
            }
        )
    return {
        "seat": obs.seat,
        "groups": groups,
        "hand": list(obs.hand),
        "needed": hand.cards_to_play(obs.seat),
        "my_turn": obs.my_turn,
        "shows": shows,
        "can_pass": obs.can_pass,
        "can_redeal": obs.can_redeal,
        "kitty": _cards(obs.kitty, lang) if obs.kitty is not None else None,
        # burying: the cards just picked up with the kitty (shown apart)
        "picked": picked if obs.my_turn and obs.phase == "burying" else None,
        "selection": list(rec.seats[obs.seat].selection),
        "auto": rec.seats[obs.seat].auto,
        # following: the cards that can be part of a legal play (the engine's answer);
        # None when any card may be tapped
        "playable": _playable(obs),
    }


def _playable(obs: Observation) -> list[int] | None:
    trick = obs.current_trick
    if not obs.my_turn or obs.phase != "playing" or trick is None or not trick.plays:
        return None
    return sorted(followable(obs.ctx, trick.plays[0].cards, obs.hand))


def table_view(
    rec: GameRecord,
    match: MatchState,
    seat: int | None,
    lang: str,
    deadline: float | None = None,
    picked: list[int] | None = None,
) -> dict[str, Any]:
    """The document for a reader at ``seat`` (None: the public view). ``deadline``:
    seconds left for whoever acts now, if a clock runs; ``picked``: the cards the
    seat burying now took up with the kitty."""
    view: PublicView = match.public_observation() if seat is None else match.observation(seat)
    to_act = view.to_act
    out: dict[str, Any] = {
        "game": rec.id,
        "group": rec.chat_title,
        "status": rec.status,
        "paused": rec.paused or rec.group_gone,
        "lang": lang,
        "hand_no": view.hand_number,
        "version": view.version,
        "phase": view.phase,
        "level": rank_label(view.level),
        "levels": [rank_label(x) for x in view.levels],
        "trump": trump_label(view, lang),
        "trump_decided": view.trump_decided,
        "dealer": view.dealer,
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
        "trick": _trick(view, view.current_trick, lang),
        "last": _trick(view, view.last_trick, lang),
        "tricks_done": sum(1 for tr in view.tricks if tr.winner is not None),
        "points": _points(view, lang) if view.dealer is not None else None,
        "kitty": _cards(view.kitty, lang) if view.kitty is not None else None,
        "result": None,
        "me": None,
    }
    if view.result is not None:
        out["result"] = {
            "winner": view.result.winner,
            "steps": view.result.steps,
            "lines": result_lines(rec, view, lang),  # the group's own words (safe HTML)
            "next_dealer": view.result.next_dealer,
            "match_over": view.match_winner is not None,
        }
    if isinstance(view, Observation):
        out["me"] = _mine(match, view, rec, lang, picked)
    return out
