"""The card counter (记牌器): what one seat can count from its own observation, and
nothing more (RULES.md sections 2, 3, 8.1, 9 and 13).

Every card exists twice (section 2). A seat has *seen* a copy when it was played to a
trick (section 13: plays are public), when it is in the seat's own hand, or when it
is in the kitty the seat buried (section 6: only the one who buried it sees it; once
the hand is over everyone does). Every other copy is *out*: in another hand, or in a
kitty this seat did not bury; the counter never says which. Shows and a failed
throw's attempted cards and beater (section 13) are public too, but those cards stay
in their holders' hands, so they are still out; the counter does not place them.

Per suit class (section 3: the trumps, then each off-suit ♠ ♥ ♣ ♦ that is not the
trump suit), the counter gives the cards played, how many cards of the class are out,
and the *high cards* with the copies of each still out:

- trumps: the *top trumps* (the jokers, the level cards of every suit, the 2s under
  ``permanent_twos``: every trump above the trump suit's plain cards) and the trump
  suit's two highest plain ranks (A and K unless one is the level). Those decide who
  wins a trump trick or over-ruffs (8.2), whatever the trump suit;
- an off-suit: its three highest ranks (A K Q, or K Q J when A is the level). Once
  they are gone the next rank is the boss of the suit, and K carries 10 points.

Those are the cards a player counts at a real table to know whether a card is now
the highest of its class (a single, a pair, a safe throw: 8.3). The rest of the class
is given by the count and the cards played.

Points (section 9): the points of every card not yet played (200 less the points on
the table), of those the seat's own and, to the one who buried it, the kitty's; and
the point cards out (5s, 10s and Ks not seen).

Voids (section 8.1): a seat that played a card outside the led suit class has no card
of that class left (it had to follow as far as it could). Every seat's voids are
public; they never come back.

:func:`card_counter` reads only an :class:`~engine.view.Observation`; ``tricks``
limits the count to the first tricks (a message that states "after trick k").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from engine.cards import NUM_DISTINCT, POINTS, Card
from engine.ranking import TRUMP, TrumpContext
from engine.records import Trick
from engine.seats import Seat
from engine.view import Observation

COPIES = 2  # every card is in the shoe twice (RULES 2)
TOTAL_POINTS = 200
TRUMP_PLAIN_HIGH = 2  # the trump suit's plain ranks counted as high cards
OFF_SUIT_HIGH = 3  # an off-suit's ranks counted as high cards


@dataclass(frozen=True, slots=True)
class ClassCount:
    """One suit class (``klass``: 0..3 an off-suit, 4 the trumps) as a seat counts it."""

    klass: int
    played: tuple[Card, ...]  # display order, strongest first
    out: int  # copies of the class the seat has not seen
    high: tuple[tuple[Card, int], ...]  # each high card and its copies out, strongest first


@dataclass(frozen=True, slots=True)
class CardCount:
    """The counter of one seat (the module docstring says what each part counts)."""

    seat: Seat
    tricks: int  # tricks counted (the last perhaps unfinished)
    classes: tuple[ClassCount, ...]  # the trumps first, then the off-suits ♠ ♥ ♣ ♦
    points_unplayed: int  # points of every card not yet played, anywhere
    points_mine: int  # of those, in the seat's own hand
    points_buried: int | None  # in the kitty, when the seat knows it
    points_out: tuple[tuple[Card, int], ...]  # point cards out and their copies
    voids: tuple[tuple[int, ...], ...]  # per seat, the classes it has shown void in
    kitty_known: bool

    def of(self, klass: int) -> ClassCount:
        return next(c for c in self.classes if c.klass == klass)

    @property
    def trumps_out(self) -> int:
        """Trumps the seat has not seen (in the other hands, or a kitty it did not bury)."""
        return self.of(TRUMP).out


@cache
def high_cards(ctx: TrumpContext, klass: int) -> tuple[Card, ...]:
    """The high cards of a class under ``ctx``, strongest first (the module docstring
    says which and why)."""
    cards = members(ctx, klass)
    if klass == TRUMP:
        tops = [c for c in cards if ctx.is_top_trump(c)]
        plain = sorted({ctx.order[c] for c in cards if not ctx.is_top_trump(c)}, reverse=True)
        keep = set(plain[:TRUMP_PLAIN_HIGH])
        chosen = tops + [c for c in cards if not ctx.is_top_trump(c) and ctx.order[c] in keep]
    else:
        orders = sorted({ctx.order[c] for c in cards}, reverse=True)[:OFF_SUIT_HIGH]
        chosen = [c for c in cards if ctx.order[c] in orders]
    return tuple(ctx.sorted(chosen))


@cache
def members(ctx: TrumpContext, klass: int) -> tuple[Card, ...]:
    """The card ids of a suit class under ``ctx``."""
    return tuple(c for c in range(NUM_DISTINCT) if ctx.suit_class[c] == klass)


@cache
def point_ids(ctx: TrumpContext) -> tuple[Card, ...]:
    """The card ids that carry points, in display order."""
    return tuple(ctx.sorted([c for c in range(NUM_DISTINCT) if POINTS[c]]))


def class_order(ctx: TrumpContext) -> tuple[int, ...]:
    """The suit classes of the hand in display order: the trumps, then each off-suit."""
    return (TRUMP, *(s for s in range(4) if s != ctx.trump))


def shown_voids(ctx: TrumpContext, tricks: Sequence[Trick]) -> tuple[tuple[int, ...], ...]:
    """Per seat, the suit classes it has shown void in: it played a card outside the
    led class (RULES 8.1), so it has none of it left."""
    voids: list[set[int]] = [set(), set(), set(), set()]
    cls = ctx.suit_class
    for trick in tricks:
        if not trick.plays:
            continue
        led = cls[trick.plays[0].cards[0]]
        for play in trick.plays[1:]:
            if any(cls[c] != led for c in play.cards):
                voids[play.seat].add(led)
    order = class_order(ctx)
    return tuple(tuple(k for k in order if k in v) for v in voids)


def card_counter(obs: Observation, tricks: int | None = None) -> CardCount | None:
    """The counter of ``obs``'s seat from what it observes (the first ``tricks`` tricks
    only, if given); None before the trump is decided (the classes are not yet known)."""
    if not obs.trump_decided:
        return None
    ctx = obs.ctx
    counted = obs.tricks if tricks is None else obs.tricks[: max(0, tricks)]
    seen = [0] * NUM_DISTINCT
    played: list[Card] = []
    for trick in counted:
        for play in trick.plays:
            played += play.cards
    for c in played:
        seen[c] += 1
    # the hand's cards as they were after the counted tricks: what is played later is
    # still in it then
    later_mine = [
        c
        for trick in obs.tricks[len(counted) :]
        for p in trick.plays
        if p.seat == obs.seat
        for c in p.cards
    ]
    mine = list(obs.hand) + later_mine
    for c in mine:
        seen[c] += 1
    kitty = obs.kitty
    for c in kitty or ():
        seen[c] += 1
    out = [COPIES - n for n in seen]
    by_class: dict[int, list[Card]] = {k: [] for k in class_order(ctx)}
    for c in played:
        by_class[ctx.suit_class[c]].append(c)
    classes = tuple(
        ClassCount(
            klass=k,
            played=tuple(ctx.sorted(by_class[k])),
            out=sum(out[c] for c in members(ctx, k)),
            high=tuple((c, out[c]) for c in high_cards(ctx, k)),
        )
        for k in class_order(ctx)
    )
    return CardCount(
        seat=obs.seat,
        tricks=len(counted),
        classes=classes,
        points_unplayed=TOTAL_POINTS - sum(POINTS[c] for c in played),
        points_mine=sum(POINTS[c] for c in mine),
        points_buried=None if kitty is None else sum(POINTS[c] for c in kitty),
        points_out=tuple((c, out[c]) for c in point_ids(ctx) if out[c]),
        voids=shown_voids(ctx, counted),
        kitty_known=kitty is not None,
    )
