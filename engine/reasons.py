"""Why a computer played what it played: a small record kept with the play (no text).

The search player (:mod:`engine.players.search`) keeps, for its chosen play and the
runner-up, what it computed anyway over its sampled deals: how often the play's team
takes the trick, the trick points that go to each team and the attackers' expected final
total. The heuristic (:mod:`engine.players.heuristic`) names the rule it followed. The
record is public once the play is made (it rides on the :class:`~engine.records.PlayRecord`
for "why?" on the last trick), so it holds no card: only figures over sampled deals, the
rule's name and flags about the play itself. A renderer picks the words.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

ReasonKind = Literal[
    "search",  # the search's choice: its odds say why
    "endgame",  # the last tricks worked out exactly in every sampled deal
    "only_play",  # one legal play, or none that anything still in play tells apart
    # the heuristic's rules (简单, hints, and the search's fallback)
    "lead_master",  # lead what nobody can beat (every such unit of one suit: a throw)
    "lead_tractor",  # lead a tractor
    "lead_short",  # lead low from a short off-suit, keeping points and pairs back
    "lead_trumps",  # only trumps left: lead the lowest
    "feed_partner",  # partner's win is secure: give it points
    "follow_low_partner",  # partner is winning: follow low
    "cover_partner",  # partner's win may be beaten: take the trick over
    "overtake",  # no play stays under the partner's
    "ruff",  # void in the led suit: win with trumps
    "win_cheap",  # take the trick (points in it, or the last word) as cheaply as possible
    "win_lead",  # take the trick with a card worth little, for the lead
    "duck",  # the trick cannot be won: keep points back
    "bury_void",  # bury short off-suits whole: voids to ruff with
    "bury_low",  # bury low off-suit cards without points or pairs
]


class Odds(BaseModel):
    """One candidate play over the sampled deals (weighted as the search weighs them).

    ``wins``: the share of deals in which the player's team takes the trick; ``taken`` /
    ``given``: the trick's expected points to the player's team / to the other team;
    ``total``: the attackers' expected final points for the hand. The trick figures are
    None where the search did not play the trick out (an endgame solved exactly)."""

    deals: int
    total: float
    wins: float | None = None
    taken: float | None = None
    given: float | None = None


class Reason(BaseModel):
    """Why a play was made. ``best``: the chosen play's odds, ``runner_up``: the next
    best candidate's (search kinds only). ``trumps``: the play leads trumps (draws
    them); ``control``: it keeps a joker or level card back that the runner-up would
    have spent (the player's own hand: a renderer says it only to that player)."""

    kind: ReasonKind
    attacking: bool | None = None  # the player's team attacks (None: no dealer yet)
    trumps: bool = False
    control: bool = False
    best: Odds | None = None
    runner_up: Odds | None = None


def odds(
    values: list[float],
    weights: list[float],
    sign: int,
    trick: list[tuple[bool, int]] | None = None,
) -> Odds:
    """A candidate's :class:`Odds` from the search's values (``sign`` times the attackers'
    total, per deal it met) and, per deal, ``(its team took the trick, the trick's points)``."""
    met = weights[: len(values)]
    total = sum(met) or 1.0
    mean = sum(w * v for w, v in zip(met, values, strict=True)) / total
    out = Odds(deals=len(values), total=round(sign * mean, 1))
    if trick is not None:
        out.wins = round(sum(w for w, (won, _) in zip(met, trick, strict=True) if won) / total, 3)
        out.taken = round(
            sum(w * p for w, (won, p) in zip(met, trick, strict=True) if won) / total, 1
        )
        out.given = round(
            sum(w * p for w, (won, p) in zip(met, trick, strict=True) if not won) / total, 1
        )
    return out
