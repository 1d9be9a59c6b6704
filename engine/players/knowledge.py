"""What a seat can infer from the public record (for the heuristic and the search player).

Everything here reads only an :class:`~engine.hand.Observation`: the seat's own hand,
the tricks, the shows and (for whoever buried it) the kitty.

- *played*: every card played so far (failed throws count the cards actually played);
- *voids*: a seat that played fewer cards of the led suit class than the lead holds
  has none of that class left (section 8.1: it had to follow as far as it could);
- *no pairs*: a seat that followed a lead with pairs using cards of the led class only,
  but fewer pairs than were led, has no pair of that class left (8.1: pairs must be
  matched as far as the hand allows).
- *ducked*: a seat that followed a single-card lead in suit, with points on the trick and
  an opponent winning it with a card of the led class, without beating it, probably holds
  no card of that class that would have beaten it (a soft inference: the search weights
  worlds by it, :func:`engine.players.search.likelihood`; the heuristic always takes such
  a trick when it can).
- *withheld*: a seat that played last to a single-card lead its partner had won, and gave
  no points (a card of the led suit without points, or, out of that suit, a discard of
  another side suit without points), probably holds no point card it could have given:
  of the led suit, those that would not have taken the trick from its partner; of the
  other side suits, when it discarded (a soft inference as *ducked*; the heuristic always
  gives points to a trick its partner has surely won). Trumps are left out: players keep
  a trump ten or king for its strength.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from engine.cards import POINTS
from engine.hand import Observation, team_of
from engine.ranking import TRUMP, TrumpContext
from engine.tricks import lead_summary
from engine.units import pair_ids

DUCK_POINTS = 5  # points on the trick before the play that make a duck telling


def played_cards(obs: Observation) -> Counter[int]:
    seen: Counter[int] = Counter()
    for t in obs.tricks:
        for p in t.plays:
            seen.update(p.cards)
    return seen


def seen_counts(obs: Observation, with_own: bool = True) -> list[int]:
    """Per card id, the copies this seat has seen: played, and (``with_own``) held or buried."""
    seen = [0] * 54
    for t in obs.tricks:
        for p in t.plays:
            for c in p.cards:
                seen[c] += 1
    if with_own:
        for c in obs.hand:
            seen[c] += 1
        for c in obs.kitty or ():
            seen[c] += 1
    return seen


@lru_cache(maxsize=256)
def point_cards(ctx: TrumpContext, klass: int) -> tuple[int, ...]:
    """The card ids of class ``klass`` that carry points."""
    return tuple(c for c in range(54) if ctx.suit_class[c] == klass and POINTS[c])


@lru_cache(maxsize=4096)
def higher_cards(ctx: TrumpContext, klass: int, top: int) -> tuple[int, ...]:
    """The card ids of class ``klass`` ranking above class order ``top``."""
    cls, order = ctx.suit_class, ctx.order
    return tuple(c for c in range(54) if cls[c] == klass and order[c] > top)


def inferences(ctx: TrumpContext, obs: Observation) -> tuple[list[set[int]], list[set[int]]]:
    """``(voids, no_pairs)``: per seat, the suit classes it is known to be out of / without pairs."""
    voids: list[set[int]] = [set(), set(), set(), set()]
    no_pairs: list[set[int]] = [set(), set(), set(), set()]
    cls = ctx.suit_class
    for t in obs.tricks:
        if not t.plays:
            continue
        lead = t.plays[0].cards
        info = lead_summary(ctx, tuple(lead))
        for p in t.plays[1:]:
            same = [c for c in p.cards if cls[c] == info.klass]
            if len(same) < info.size:
                voids[p.seat].add(info.klass)
            elif info.pairs and len(pair_ids(ctx, same, info.klass)) < info.pairs:
                no_pairs[p.seat].add(info.klass)
    return voids, no_pairs


def ducked(ctx: TrumpContext, obs: Observation) -> list[set[int]]:
    """Per seat, the card ids it probably did not hold when it ducked a point trick."""
    out: list[set[int]] = [set(), set(), set(), set()]
    cls, order = ctx.suit_class, ctx.order
    for t in obs.tricks:
        if not t.plays or len(t.plays[0].cards) != 1:
            continue
        lead = t.plays[0].cards[0]
        klass = cls[lead]
        best, best_seat, points = lead, t.plays[0].seat, POINTS[lead]
        for p in t.plays[1:]:
            card = p.cards[0]
            if (
                p.seat != obs.seat
                and cls[card] == klass
                and cls[best] == klass
                and points >= DUCK_POINTS
                and team_of(best_seat) != team_of(p.seat)
                and order[card] <= order[best]
            ):
                out[p.seat].update(higher_cards(ctx, klass, order[best]))
            same = cls[card] == cls[best]
            if same and order[card] > order[best] or (cls[card] == TRUMP and not same):
                best, best_seat = card, p.seat
            points += POINTS[card]
    return out


def withheld(ctx: TrumpContext, obs: Observation) -> list[set[int]]:
    """Per seat, the point cards it probably did not hold when, last to play to a trick
    its partner had won, it gave no points (module docstring)."""
    out: list[set[int]] = [set(), set(), set(), set()]
    cls, order = ctx.suit_class, ctx.order
    for t in obs.tricks:
        if len(t.plays) < 4 or len(t.plays[0].cards) != 1:
            continue
        lead = t.plays[0].cards[0]
        klass = cls[lead]
        if klass == TRUMP:
            continue
        best, best_seat = lead, t.plays[0].seat
        for p in t.plays[1:3]:
            card = p.cards[0]
            same = cls[card] == cls[best]
            if same and order[card] > order[best] or (cls[card] == TRUMP and not same):
                best, best_seat = card, p.seat
        last = t.plays[3]
        card = last.cards[0]
        if last.seat == obs.seat or team_of(best_seat) != team_of(last.seat) or POINTS[card]:
            continue
        if cls[card] == klass:  # followed with no points: none that would not take the trick
            beaten = cls[best] == klass
            out[last.seat].update(
                c for c in point_cards(ctx, klass) if not (beaten and order[c] > order[best])
            )
        elif cls[card] != TRUMP:  # out of the suit, discarded without points
            for other in {cls[c] for c in range(54)} - {klass, TRUMP}:
                out[last.seat].update(point_cards(ctx, other))
    return out
