"""One line saying why a play was made (a Hint's, a computer's on the last trick), from
the engine's reason record (``engine.reasons``), in the reader's language.

Numbers are said the way a player says them: the share of sampled deals as "x in 10",
points to multiples of 5. The line states only the play's own cards and figures the
record holds, never another card: it reads the same whatever the hidden cards are,
for the same figures. Whether the play keeps a joker or level card back is about the
player's own hand, so it is said only to that player (``own``).
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.i18n import t
from bot.views.card_labels import cards_label
from engine.reasons import Odds, Reason


def said_points(points: float) -> int:
    """Points the way a player says them: to the nearest multiple of 5."""
    return 5 * round(points / 5)


def said_share(share: float) -> int:
    """A share of deals the way a player says it: in how many of 10."""
    return round(share * 10)


def reason_line(lang: str, cards: Iterable[int], reason: Reason, own: bool = False) -> str:
    """``♠A ♠A: takes the trick in 9 of 10 deals; keeps 20 points from the attackers``."""
    why = t(lang, "why.and").join(_clauses(lang, reason, own))
    return t(lang, "why.line", cards=cards_label(cards, lang), why=why)


def _clauses(lang: str, reason: Reason, own: bool) -> list[str]:
    best = reason.best
    if reason.kind not in ("search", "endgame") or best is None:
        out = [t(lang, f"why.kind.{reason.kind}")]
    elif reason.kind == "endgame":
        out = [t(lang, "why.endgame", n=best.deals)]
        better = _better(reason)
        out.append(t(lang, "why.better", points=better) if better else t(lang, "why.endgame.best"))
    else:
        out = _odds(lang, best, reason.attacking)
        better = _better(reason)
        if better:
            out.append(t(lang, "why.better", points=better))
    if reason.trumps:
        out.append(t(lang, "why.trumps"))
    if reason.control and own:
        out.append(t(lang, "why.control"))
    return out


def _odds(lang: str, odds: Odds, attacking: bool | None) -> list[str]:
    out = []
    if odds.wins is not None:
        n = said_share(odds.wins)
        if n >= 10:
            out.append(t(lang, "why.wins.all"))
        elif n <= 0:
            out.append(t(lang, "why.wins.none"))
        else:
            out.append(t(lang, "why.wins.some", n=n))
    taken = said_points(odds.taken or 0)
    given = said_points(odds.given or 0)
    if taken:
        out.append(t(lang, "why.takes" if attacking else "why.keeps", points=taken))
    if given:
        key = "why.gives.attacking" if attacking else "why.gives.defending"
        out.append(t(lang, key, points=given))
    return out


def _better(reason: Reason) -> int:
    """How many points better for the player's team than the runner-up, as said (0: not
    said: no runner-up, or less than 5 points apart, or the runner-up looked better and
    the search kept its play for being surer)."""
    best, second = reason.best, reason.runner_up
    if best is None or second is None:
        return 0
    sign = 1 if reason.attacking else -1  # the figures are the attackers' totals
    return max(0, said_points(sign * (best.total - second.total)))
