"""What a viewer may know of a hand: the public view, a seat's view, who acts next.

:class:`PublicView` is what anyone at the table may see (RULES.md section 13): the
shows, the trump once it is set, the plays, counts, points and the kitty only when
it is public (nobody declared: the dealt kitty was shown; the hand is over: the
buried kitty). :class:`Observation` adds one seat's own cards, the kitty to whoever
buried it, and what that seat may do now. Both are plain dataclasses built on request
(computer players build thousands); derived facts (who is winning the trick, failed
throws, points after a given trick) are computed only when asked. Finished tricks are
shared with the state and must not be mutated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from engine.cards import Card
from engine.declaring import ShowRecord
from engine.ranking import TrumpContext
from engine.records import HandResult, Trick, failed_throw_penalty, running_points
from engine.rules import RuleSet
from engine.seats import TEAMS, Seat, Team, team_of
from engine.tricks import trick_winner

Phase = Literal["dealing", "after_deal", "burying", "chaodi", "playing", "done"]
DEAL_TOTAL = 100  # cards dealt to the seats (the other 8 are the kitty)

ActorKind = Literal[
    "deal", "window", "bury", "chaodi", "play", "hand_over", "next_hand", "match_over"
]


@dataclass(frozen=True, slots=True)
class ToAct:
    """Who or what must act next (for turn clocks and computer players).

    ``kind``:

    - ``deal``: the system deals the next cards (a pace, not a player's turn); while
      cards go out any seat with a show option may show.
    - ``window``: the after-deal window. ``seats`` may still show (or redeal) and have
      not passed; it closes once they all passed, so a deadline is met by a ``Pass``
      for each of them.
    - ``bury`` / ``chaodi`` / ``play``: the single seat in ``seats`` must act (in
      ``chaodi``: show to overturn, or pass); a turn clock runs for it alone.
    - ``hand_over``: the hand is settled (:class:`HandState`); a match says
      ``next_hand`` (deal on) or ``match_over`` instead.
    """

    kind: ActorKind
    seats: tuple[Seat, ...] = ()

    @property
    def seat(self) -> Seat | None:
        """The seat whose turn it is (``bury``, ``chaodi``, ``play``), else None."""
        if self.kind in ("bury", "chaodi", "play"):
            return self.seats[0]
        return None


_DEAL, _HAND_OVER = ToAct("deal"), ToAct("hand_over")
_NEXT_HAND, _MATCH_OVER = ToAct("next_hand"), ToAct("match_over")
_TURN_KINDS: dict[str, ActorKind] = {"burying": "bury", "chaodi": "chaodi", "playing": "play"}
_TURN_ACTORS = {(k, s): ToAct(k, (s,)) for k in _TURN_KINDS.values() for s in range(4)}


def next_actor(phase: Phase, turn: Seat | None, passed: Sequence[Seat]) -> ToAct:
    """Who or what acts next in a hand in ``phase`` (see :class:`ToAct`)."""
    if phase == "after_deal":
        return ToAct("window", tuple(s for s in range(4) if s not in passed))
    if turn is not None and phase in _TURN_KINDS:
        return _TURN_ACTORS[_TURN_KINDS[phase], turn]
    return _DEAL if phase == "dealing" else _HAND_OVER


def match_actor(hand: ToAct, finished: bool) -> ToAct:
    """A match's next actor: the hand's, or between hands ``next_hand`` / ``match_over``."""
    if finished:
        return _MATCH_OVER
    return _NEXT_HAND if hand.kind == "hand_over" else hand


@dataclass(frozen=True, slots=True)
class FailedThrow:
    """A failed throw (RULES 8.3): what was tried, the forced play, the penalty to the
    attackers' points (negative when an attacker threw)."""

    trick: int
    seat: Seat
    attempted: tuple[Card, ...]
    forced: tuple[Card, ...]
    penalty: int
    beaten_by: tuple[Card, ...] = ()
    beaten_by_seat: Seat | None = None


@dataclass(slots=True, kw_only=True)
class PublicView:
    """Everything anyone at the table may see, and nothing more.

    ``trump`` is meaningful once ``trump_decided`` (``None`` is then no-trump).
    ``levels`` are both teams' levels before this hand (the result has the new ones).
    ``kitty`` is the kitty as this viewer may see it: for the public, the buried kitty
    once the hand is over. ``revealed_kitty`` is the dealt kitty shown to all when
    nobody declared, and ``kitty_card`` its third card that set the trump.
    Derived facts are properties, computed when asked.
    ``attackers_points``: trick points plus throw penalties so far, kept at 0 or
    above (RULES 9); the kitty bonus is added in the result.
    """

    phase: Phase
    version: int
    hand_number: int
    rules: RuleSet
    level: int
    levels: list[int]
    dealer: Seat | None
    trump: int | None
    trump_decided: bool
    declarer: Seat | None
    shows: list[tuple[Seat, list[Card]]]
    card_counts: list[int]
    dealt: int
    kitty: list[Card] | None
    turn: Seat | None
    tricks: list[Trick]
    attackers_points: int
    result: HandResult | None
    revealed_kitty: list[Card] | None = None
    show_records: tuple[ShowRecord, ...] = ()  # each show with what it did
    overturns: int = 0
    # later_declare = dealer_team: whether the dealer's team could declare when the deal
    # ended with nothing declared (False: 叫不起, the attackers may); None: not asked
    dealer_team_can_declare: bool | None = None
    passed: tuple[Seat, ...] = ()  # after-deal window: passed since the last show
    match_winner: Team | None = None
    ended_by_time: bool = False
    in_match: bool = False  # built by a match: between hands ``to_act`` says what next

    deal_total = DEAL_TOTAL  # cards dealt to the seats in every hand

    # ---- teams -------------------------------------------------------------
    teams = TEAMS  # the team of each seat: (0, 1, 0, 1)

    @staticmethod
    def team_of(seat: Seat) -> Team:
        return team_of(seat)

    @property
    def defenders(self) -> Team | None:
        """The dealer's team, once there is a dealer."""
        return None if self.dealer is None else team_of(self.dealer)

    @property
    def attackers(self) -> Team | None:
        return None if self.dealer is None else 1 - team_of(self.dealer)

    def defends(self, seat: Seat) -> bool | None:
        """Whether ``seat`` is on the dealer's team (None before there is a dealer)."""
        return None if self.dealer is None else team_of(seat) == team_of(self.dealer)

    # ---- the trump and the stake ---------------------------------------------
    @property
    def ctx(self) -> TrumpContext:
        return TrumpContext(self.level, self.trump, self.rules.permanent_twos)

    @property
    def multiplier(self) -> int:
        """The stake multiplier, ``2 ** overturns`` (RULES 7)."""
        return 1 << self.overturns

    @property
    def kitty_card(self) -> Card | None:
        """Nobody declared: the kitty's third card (as dealt), which set the trump."""
        return None if self.revealed_kitty is None else self.revealed_kitty[2]

    @property
    def kitty_decided(self) -> bool:
        """Nobody declared and the kitty's third card set the trump (RULES 5)."""
        return self.revealed_kitty is not None

    @property
    def to_act(self) -> ToAct:
        """Who or what must act next (as ``next_actor()`` of the hand or match)."""
        actor = next_actor(self.phase, self.turn, self.passed)
        if self.in_match:
            return match_actor(actor, self.match_winner is not None)
        return actor

    # ---- tricks ----------------------------------------------------------------
    @property
    def current_trick(self) -> Trick | None:
        if self.tricks and self.tricks[-1].winner is None:
            return self.tricks[-1]
        return None

    @property
    def last_trick(self) -> Trick | None:
        """The last completed trick (with its winner and points), if any."""
        for trick in reversed(self.tricks):
            if trick.winner is not None:
                return trick
        return None

    @property
    def winning(self) -> Seat | None:
        """The seat winning the trick in progress as it stands (None before its lead)."""
        trick = self.current_trick
        if trick is None or not trick.plays:
            return None
        return trick.plays[trick_winner(self.ctx, [p.cards for p in trick.plays])].seat

    @property
    def failed_throws(self) -> list[FailedThrow]:
        """Every failed throw of the hand so far, oldest first."""
        defenders = self.defenders
        return [
            FailedThrow(
                trick=i,
                seat=p.seat,
                attempted=tuple(p.attempted),
                forced=tuple(p.cards),
                penalty=failed_throw_penalty(self.rules, p, defenders),
                beaten_by=tuple(p.beaten_by or ()),
                beaten_by_seat=p.beaten_by_seat,
            )
            for i, trick in enumerate(self.tricks)
            for p in trick.plays
            if p.attempted is not None
        ]

    @property
    def tricks_done(self) -> int:
        """How many tricks of the hand are finished (won)."""
        return sum(1 for trick in self.tricks if trick.winner is not None)

    def trick_points_after(self, tricks: int) -> int:
        """The trick points the attackers won in the first ``tricks`` tricks (no
        penalties, no kitty bonus)."""
        defenders = self.defenders
        return sum(
            trick.points
            for trick in self.tricks[: max(0, tricks)]
            if trick.winner is not None and team_of(trick.winner) != defenders
        )

    def penalties_after(self, tricks: int) -> int:
        """The failed throws' penalties of the first ``tricks`` tricks, in the attackers'
        favour (RULES 8.3)."""
        return sum(f.penalty for f in self.failed_throws if f.trick < tricks)

    def points_after(self, tricks: int) -> int:
        """The attackers' points once the first ``tricks`` tricks went as far as they
        have now (penalties included, no kitty bonus): what a message about that
        moment shows."""
        if tricks <= 0:
            return 0
        return running_points(self.rules, self.tricks[:tricks], self.defenders)[-1]

    def counts_after(self, tricks: int) -> list[int]:
        """Each seat's card count once the first ``tricks`` tricks went as far as they
        have now, whatever came later."""
        counts = list(self.card_counts)
        for trick in self.tricks[max(0, tricks) :]:
            for play in trick.plays:
                counts[play.seat] += len(play.cards)
        return counts

    @property
    def waiting_for(self) -> tuple[Seat, ...]:
        """The seats the table waits for now (the window's, or the one whose turn it is)."""
        return self.to_act.seats


@dataclass(slots=True, kw_only=True)
class Observation(PublicView):
    """Everything one seat may know: the public view, its own hand, the kitty if it
    buried it, and what it may do now."""

    seat: Seat
    hand: list[Card]
    show_options: list[list[Card]]
    can_pass: bool
    can_redeal: bool

    @property
    def my_turn(self) -> bool:
        return self.turn == self.seat and self.phase in ("burying", "chaodi", "playing")
