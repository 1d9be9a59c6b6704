"""What happened: the events :meth:`HandState.apply` and :meth:`MatchState.apply` return.

Each accepted action returns the moments it caused, in order, so that a caller
renders moments instead of diffing states. Events are public facts: nothing in an
event is hidden from anyone at the table (a burial names who buried, never the
cards; a dealt batch says how many cards, never which).

Events are slotted dataclasses tagged by ``kind``, values to read and never to
change (not ``frozen``: a frozen dataclass costs four times as much to build, and
a hand makes ~150 events); :data:`EVENTS` (a pydantic ``TypeAdapter``) turns a list
of them into JSON-ready data and back.

Who reads which (issue 26): the live bot renders every view from the table's state
(``bot.views.projection``), not from events, and reads only two: :class:`TrickWon` (a finished
trick reaches the group at once) and :class:`HandSettled` (the match's history and
chart). ``./run --simulate`` (``bot.simulate``) narrates a match from
:class:`Declared`, :class:`Reinforced`, :class:`Overturned`, :class:`KittyTaken`,
:class:`Buried` and :class:`TrickWon`. The others are for replays and tests: a hand's
events, in order and through :data:`EVENTS`, tell the whole public story of it
(``tests/engine`` checks each kind where its rule is).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from engine.cards import Card
from engine.records import HandResult
from engine.seats import Seat, Team


@dataclass(slots=True)
class HandStarted:
    """A new hand of the match: its dealer (None in hand 1: the race decides) and level."""

    hand_number: int
    dealer: Seat | None
    level: int
    kind: Literal["hand_started"] = "hand_started"


@dataclass(slots=True)
class Dealt:
    """Cards went out: ``dealt`` of ``total`` are in the hands now."""

    dealt: int
    total: int
    kind: Literal["dealt"] = "dealt"


@dataclass(slots=True)
class Declared:
    """The first show of the hand set the trump (``None`` = no-trump).

    ``reinforced``: declared with the pair at once. ``dealer``: the dealer after it
    (in hand 1 the declarer; an attacker declaring under ``dealer_team`` too)."""

    seat: Seat
    cards: tuple[Card, ...]
    trump: int | None
    dealer: Seat | None
    reinforced: bool
    kind: Literal["declared"] = "declared"


@dataclass(slots=True)
class DealerTeamChecked:
    """``later_declare = dealer_team`` (joker_declare, RULES 12): the deal ended with
    nothing declared, and whether the dealer's team can declare is now known to all.
    ``can_declare`` False (叫不起): the attackers may declare too (an attacker who does
    becomes dealer); True: only the dealer's team may, else the kitty decides."""

    can_declare: bool
    kind: Literal["dealer_team_checked"] = "dealer_team_checked"


@dataclass(slots=True)
class Reinforced:
    """The declarer showed the pair: weaker overturns are locked out (RULES 5)."""

    seat: Seat
    cards: tuple[Card, ...]
    kind: Literal["reinforced"] = "reinforced"


@dataclass(slots=True)
class Overturned:
    """A stronger show changed the trump (RULES 7); the stake is now ``multiplier``."""

    seat: Seat
    cards: tuple[Card, ...]
    trump: int | None
    dealer: Seat | None
    multiplier: int
    kind: Literal["overturned"] = "overturned"


@dataclass(slots=True)
class Passed:
    """A seat passed in the after-deal window or in 炒底."""

    seat: Seat
    kind: Literal["passed"] = "passed"


@dataclass(slots=True)
class Redealt:
    """暴动: an attacker asked for a new deal (RULES 12); the deal starts again."""

    seat: Seat
    kind: Literal["redealt"] = "redealt"


@dataclass(slots=True)
class TrumpFromKitty:
    """Nobody declared: the kitty is shown to all and its third card ``card`` set the
    trump (``None`` = no-trump, a joker); ``dealer`` is the dealer (RULES 5)."""

    kitty: tuple[Card, ...]
    card: Card
    trump: int | None
    dealer: Seat
    kind: Literal["trump_from_kitty"] = "trump_from_kitty"


@dataclass(slots=True)
class KittyTaken:
    """``seat`` picked up the kitty to bury (the dealer, or an overturner in 炒底)."""

    seat: Seat
    kind: Literal["kitty_taken"] = "kitty_taken"


@dataclass(slots=True)
class Buried:
    """``seat`` buried 8 cards (which ones only they know)."""

    seat: Seat
    kind: Literal["buried"] = "buried"


@dataclass(slots=True)
class PlayStarted:
    """Declaring and burying are over; ``leader`` (the dealer) leads the first trick."""

    leader: Seat
    trump: int | None
    kind: Literal["play_started"] = "play_started"


@dataclass(slots=True)
class ThrowFailed:
    """A throw failed (RULES 8.3): ``seat`` tried ``attempted`` and must play ``forced``;
    ``penalty`` is the change to the attackers' points (negative if an attacker threw);
    ``beaten_by``: what in another hand beat the forced unit, shown by ``beaten_by_seat``
    (the first seat after the thrower that can, its lowest such unit: RULES 13)."""

    seat: Seat
    attempted: tuple[Card, ...]
    forced: tuple[Card, ...]
    penalty: int
    beaten_by: tuple[Card, ...] = ()
    beaten_by_seat: Seat | None = None
    kind: Literal["throw_failed"] = "throw_failed"


@dataclass(slots=True)
class Played:
    """``seat`` played ``cards`` into trick number ``trick`` (0-based)."""

    seat: Seat
    cards: tuple[Card, ...]
    trick: int
    kind: Literal["played"] = "played"


@dataclass(slots=True)
class TrickWon:
    """Trick number ``trick`` went to ``winner`` with ``points`` in it; the attackers'
    running points (penalties included, RULES 9) are ``attackers_points``."""

    trick: int
    winner: Seat
    points: int
    attackers_points: int
    kind: Literal["trick_won"] = "trick_won"


@dataclass(slots=True)
class HandSettled:
    """The hand is over: the kitty is public, the result settles levels and the next dealer."""

    result: HandResult
    kind: Literal["hand_settled"] = "hand_settled"


@dataclass(slots=True)
class MatchWon:
    """``team`` won the match (``by_time``: at the time limit, RULES 11)."""

    team: Team
    by_time: bool = False
    kind: Literal["match_won"] = "match_won"


Event = Annotated[
    HandStarted
    | Dealt
    | Declared
    | DealerTeamChecked
    | Reinforced
    | Overturned
    | Passed
    | Redealt
    | TrumpFromKitty
    | KittyTaken
    | Buried
    | PlayStarted
    | ThrowFailed
    | Played
    | TrickWon
    | HandSettled
    | MatchWon,
    Field(discriminator="kind"),
]

EVENTS: TypeAdapter[list[Event]] = TypeAdapter(list[Event])
"""``EVENTS.dump_python(events, mode="json")`` / ``EVENTS.validate_python(data)``."""
