"""Declaring, reinforcing and overturning, per preset (RULES.md sections 5, 7 and 12).

A *show* is what a player lays open to set or change the trump:

=============  ===============================  ======================================
kind           classic / tournament             joker_declare
=============  ===============================  ======================================
``single``     one level card                   one level card + the joker of its colour
``pair``       two identical level cards        two identical level cards + that joker
``jokers``     ``LJ LJ`` or ``BJ BJ``           ``LJ LJ`` or ``BJ BJ``
=============  ===============================  ======================================

The joker of a suit's colour is ``BJ`` for ♥ ♦ and ``LJ`` for ♠ ♣. Anything else
is not a show. A show's *strength* is its place in the preset's overturn
priority: a single is 0; level pairs 1..4 following ``overturn_suit_order``
(classic ♠ 4 > ♥ > ♣ > ♦ 1, tournament ♠ > ♥ > ♦ > ♣); ``LJ LJ`` 5; ``BJ BJ`` 6.
Under joker_declare every level pair + joker has strength 1 (the seeds order
only 大王 > 小王 > 对级牌), so one such overturn never beats another.

What a show does (:meth:`Declaring.show`):

- **declare**: the first show of the hand (a single or a pair; jokers cannot
  declare). A pair declares and reinforces at once.
- **reinforce**: the declarer shows the pair of the declared card while their
  single declaration still stands (classic and tournament; under joker_declare
  only the at-once pair + joker reinforces). The declaration then counts as
  that pair: only a stronger show overturns it.
- **overturn**: anyone else shows something stronger than what currently sets
  the trump. The player whose show currently sets the trump cannot overturn it,
  but may again once somebody else's overturn stands.

Windows (which actions each allows; **[decided]** where RULES.md is silent):

- hand 1, ``deal``: declare and reinforce: the race (抢报); the first declarer
  becomes the dealer. ``after_deal`` (until the kitty is taken): declare,
  reinforce and overturn (反主反打, RULES 7: "overturns happen after the deal");
  each overturner becomes the dealer. ``chaodi``: closed.
- later hands, ``deal``: declare, reinforce (overturns wait).
- later hands, ``after_deal``: declare and reinforce (a last chance for the
  final cards); overturns too only with the option ``later_overturn =
  before_kitty``, which no preset uses.
- later hands, ``chaodi`` (after burying): overturns only, when
  ``later_overturn`` is ``chaodi`` (every preset: RULES 12 and seed 002's 炒地皮
  for tournament). The dealer never changes in later hands, except under
  ``later_declare = dealer_team`` when the hand opened declaring to the attackers
  (:meth:`Declaring.dealer_team_checked`: neither player of the dealer's team could
  declare at the end of the deal, a public fact): an attacker who then declares
  becomes dealer.
- Once the kitty decided the trump (:meth:`Declaring.resolve_nobody`) every
  window is closed.

Holding the shown cards is checked by the caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from engine import errors
from engine.cards import BJ, DIAMONDS, HEARTS, LJ, make, suit_of, total_points
from engine.errors import IllegalAction
from engine.rules import RuleSet
from engine.seats import same_team

ShowKind = Literal["single", "pair", "jokers"]
Action = Literal["declare", "reinforce", "overturn"]
Window = Literal["deal", "after_deal", "chaodi"]
WINDOWS: tuple[Window, ...] = ("deal", "after_deal", "chaodi")

HOST_SEAT = 0
SINGLE_STRENGTH = 0
LJ_PAIR_STRENGTH = 5
BJ_PAIR_STRENGTH = 6
REDEAL_POINTS_BELOW = 15

_ALL: frozenset[Action] = frozenset(("declare", "reinforce", "overturn"))
_DECLARE: frozenset[Action] = frozenset(("declare", "reinforce"))
_OVERTURN: frozenset[Action] = frozenset(("overturn",))
_NONE: frozenset[Action] = frozenset()


def colour_joker(suit: int) -> int:
    """The joker that goes with a suit under joker_declare: BJ for ♥ ♦, LJ for ♠ ♣."""
    return BJ if suit in (HEARTS, DIAMONDS) else LJ


@dataclass(frozen=True, slots=True)
class Show:
    """A classified show: its cards (level cards first), kind, the trump it sets
    (None = no-trump) and its strength in the preset's overturn priority."""

    cards: tuple[int, ...]
    kind: ShowKind
    suit: int | None
    strength: int


def classify(rules: RuleSet, level: int, cards: Sequence[int]) -> Show | None:
    """What ``cards`` are as a show under ``rules`` at ``level``, or None if not a show."""
    jokers = sorted(c for c in cards if c >= LJ)
    plain = [c for c in cards if c < LJ]
    if not plain:
        if len(jokers) == 2 and jokers[0] == jokers[1]:
            strength = BJ_PAIR_STRENGTH if jokers[0] == BJ else LJ_PAIR_STRENGTH
            return Show((jokers[0], jokers[0]), "jokers", None, strength)
        return None
    suit = suit_of(plain[0])
    assert suit is not None
    card = make(level, suit)
    if any(c != card for c in plain) or len(plain) > 2:
        return None
    if rules.declare_with_joker:
        if jokers != [colour_joker(suit)]:
            return None
    elif jokers:
        return None
    shown = (*plain, *jokers)
    if len(plain) == 1:
        return Show(shown, "single", suit, SINGLE_STRENGTH)
    if rules.declare_with_joker:
        return Show(shown, "pair", suit, 1)
    order = rules.overturn_suit_order
    return Show(shown, "pair", suit, len(order) - order.index(suit))


def may_request_redeal(
    rules: RuleSet, seat: int, hand_cards: Sequence[int], dealer: int | None, redeals: int = 0
) -> bool:
    """暴动 (option ``redeal``): an attacker whose cards hold under 15 points may ask
    for a redeal, once per hand (``redeals`` so far); the dealer is unchanged.
    Timing (after the deal, before the kitty is taken) is the caller's."""
    return (
        rules.redeal
        and redeals == 0
        and dealer is not None
        and not same_team(seat, dealer)
        and total_points(hand_cards) < REDEAL_POINTS_BELOW
    )


class ShowRecord(BaseModel):
    """One accepted show, in the order they happened."""

    model_config = ConfigDict(frozen=True)

    seat: int
    cards: tuple[int, ...]
    kind: Action


class Declaring(BaseModel):
    """The trump and the dealer as declaring, reinforcing and overturning set them.

    ``declarer`` is the seat whose show currently sets the trump; ``strength`` is
    what an overturn must beat; ``reinforced``: the declaration was reinforced;
    ``overturns`` counts overturns (the stake multiplier is ``2 ** overturns``);
    ``from_kitty``: nobody declared and the kitty's third card decided.
    ``dealer_team_can_declare``: under ``later_declare = dealer_team``, whether the
    dealer's team could declare when the deal ended with nothing declared (None:
    not asked); False opens declaring to the attackers (``attackers_may_declare``).
    """

    rules: RuleSet
    level: int
    hand_number: int
    dealer: int | None = None
    trump: int | None = None
    trump_decided: bool = False
    declarer: int | None = None
    strength: int = -1
    reinforced: bool = False
    overturns: int = 0
    shows: list[ShowRecord] = Field(default_factory=list)
    from_kitty: bool = False
    attackers_may_declare: bool = False
    dealer_team_can_declare: bool | None = None

    @classmethod
    def start(cls, rules: RuleSet, level: int, hand_number: int, dealer: int | None) -> Declaring:
        """Declaring for a new hand; in hand 1 nobody is dealer yet (``dealer`` ignored)."""
        return cls(
            rules=rules,
            level=level,
            hand_number=hand_number,
            dealer=None if hand_number == 1 else dealer,
        )

    @property
    def multiplier(self) -> int:
        return 1 << self.overturns  # 2 ** overturns, typed int

    def classify(self, cards: Sequence[int]) -> Show | None:
        return classify(self.rules, self.level, cards)

    # ---- the door -------------------------------------------------------------

    def show(self, seat: int, cards: Sequence[int], window: Window) -> Action:
        """Apply a show or raise IllegalAction (then nothing changed); say what it did.

        Reasons: ``invalid_show`` (not a show, or jokers before any declaration),
        ``show_too_weak``, ``cannot_overturn_self``, ``not_allowed_to_declare``,
        ``declaring_closed`` (the window does not take this action; see the module).
        """
        action, shown = self._plan(seat, cards, window)
        self.shows.append(ShowRecord(seat=seat, cards=shown.cards, kind=action))
        self.strength = shown.strength
        if action == "reinforce":
            self.reinforced = True
            return action
        if action == "declare":
            self.reinforced = shown.kind == "pair"
            if self.hand_number == 1 or (
                self.attackers_may_declare
                and self.dealer is not None
                and not same_team(seat, self.dealer)
            ):
                self.dealer = seat
        else:
            self.overturns += 1
            if self.hand_number == 1:
                self.dealer = seat
        self.trump = shown.suit
        self.declarer = seat
        self.trump_decided = True
        return action

    def options(self, seat: int, hand_cards: Sequence[int], window: Window) -> list[list[int]]:
        """Every distinct show ``seat`` may make now from ``hand_cards``."""
        if self.from_kitty:
            return []
        have = {c: 0 for c in (LJ, BJ)}
        for c in hand_cards:
            if c >= LJ or c % 13 == self.level:
                have[c] = have.get(c, 0) + 1
        candidates: list[list[int]] = []
        for suit in range(4):
            card = make(self.level, suit)
            n = have.get(card, 0)
            extra = [colour_joker(suit)] if self.rules.declare_with_joker else []
            if n == 0 or (extra and have[extra[0]] == 0):
                continue
            candidates.append([card, *extra])
            if n >= 2:
                candidates.append([card, card, *extra])
        candidates += [[j, j] for j in (LJ, BJ) if have[j] >= 2]
        return [c for c in candidates if self._allows(seat, c, window)]

    def dealer_team_checked(self, can_declare: bool) -> None:
        """``later_declare = dealer_team``: the deal ended with nothing declared and the
        caller looked at the dealer's team's cards (RULES 12). If neither can declare
        (叫不起), from now on anyone may; an attacker who does becomes dealer. Either
        way the fact is public: an attacker's own show options would tell it."""
        if self.trump_decided:
            raise IllegalAction(errors.WRONG_PHASE, trump_decided=True)
        self.dealer_team_can_declare = can_declare
        self.attackers_may_declare = not can_declare

    def resolve_nobody(self, kitty: Sequence[int]) -> None:
        """Nobody declared: the kitty's third card (as dealt) sets the trump, a joker
        means no-trump; no overturns afterwards. In hand 1 the host becomes dealer."""
        if self.trump_decided:
            raise IllegalAction(errors.WRONG_PHASE, trump_decided=True)
        self.trump = suit_of(kitty[2])
        self.trump_decided = True
        self.from_kitty = True
        if self.dealer is None:
            self.dealer = HOST_SEAT

    # ---- the rules ------------------------------------------------------------

    def action_of(self, seat: int, cards: Sequence[int], window: Window) -> Action:
        """What the show would do now (declare, reinforce or overturn), or raise
        IllegalAction with the reason; changes nothing."""
        return self._plan(seat, cards, window)[0]

    def check(self, seat: int, cards: Sequence[int], window: Window) -> None:
        """Raise IllegalAction (with the reason) unless the show is allowed now."""
        self._plan(seat, cards, window)

    def _allows(self, seat: int, cards: Sequence[int], window: Window) -> bool:
        try:
            self._plan(seat, cards, window)
        except IllegalAction:
            return False
        return True

    def _window_actions(self, window: Window) -> frozenset[Action]:
        if window not in WINDOWS:
            raise ValueError(f"unknown window {window!r}")
        if self.hand_number == 1:
            # RULES 7: first-hand overturns happen after the deal, before the kitty.
            return {"deal": _DECLARE, "after_deal": _ALL}.get(window, _NONE)
        if window == "deal":
            return _DECLARE
        if window == "after_deal":
            return _ALL if self.rules.later_overturn == "before_kitty" else _DECLARE
        return _OVERTURN if self.rules.later_overturn == "chaodi" else _NONE

    def _may_declare(self, seat: int) -> bool:
        return (
            self.hand_number == 1
            or self.rules.later_declare == "anyone"
            or self.attackers_may_declare
            or self.dealer is None
            or same_team(seat, self.dealer)
        )

    def _plan(self, seat: int, cards: Sequence[int], window: Window) -> tuple[Action, Show]:
        """What the show would do, or raise IllegalAction; changes nothing."""
        allowed = self._window_actions(window)
        if self.from_kitty:
            raise IllegalAction(errors.DECLARING_CLOSED, from_kitty=True)
        shown = self.classify(cards)
        if shown is None:
            raise IllegalAction(errors.INVALID_SHOW, cards=list(cards))
        if self.declarer is None:
            if shown.kind == "jokers":
                raise IllegalAction(errors.INVALID_SHOW, cards=list(cards), jokers_declare=True)
            if "declare" not in allowed:
                raise IllegalAction(errors.DECLARING_CLOSED, window=window)
            if not self._may_declare(seat):
                raise IllegalAction(errors.NOT_ALLOWED_TO_DECLARE, dealer=self.dealer)
            return "declare", shown
        if seat == self.declarer:
            if self._reinforces(shown):
                if "reinforce" not in allowed:
                    raise IllegalAction(errors.DECLARING_CLOSED, window=window)
                return "reinforce", shown
            raise IllegalAction(errors.CANNOT_OVERTURN_SELF)
        if shown.strength <= self.strength:
            raise IllegalAction(errors.SHOW_TOO_WEAK, needs_more_than=self.strength)
        if "overturn" not in allowed:
            raise IllegalAction(errors.DECLARING_CLOSED, window=window)
        return "overturn", shown

    def _reinforces(self, shown: Show) -> bool:
        return (
            not self.rules.declare_with_joker
            and self.strength == SINGLE_STRENGTH
            and shown.kind == "pair"
            and shown.suit == self.trump
        )


def replay_events(
    rules: RuleSet,
    level: int,
    hand_number: int,
    dealer: int | None,
    events: Sequence[tuple[int, Sequence[int]]],
    kitty: Sequence[int],
) -> tuple[list[bool], int | None, int | None]:
    """Replay shows listed in time order without their windows (conformance cases).

    Each event goes to the earliest window, not before the previous accepted
    event's, in which it is legal (windows run ``deal`` → ``after_deal`` →
    ``chaodi``); an event legal in none is invalid and changes nothing. A case has
    no hands, so under ``later_declare = dealer_team`` moving past the deal with
    nothing declared stands for "neither of the dealer's team could declare" and
    opens declaring to the attackers. If nobody declared at all, the kitty decides.
    Returns (validity per event, trump, dealer).
    """
    d = Declaring.start(rules, level, hand_number, dealer)
    current = 0
    valid: list[bool] = []
    for seat, cards in events:
        ok = False
        for i in range(current, len(WINDOWS)):
            trial = d.model_copy(deep=True)
            if i > 0 and _opens_to_attackers(trial):
                trial.dealer_team_checked(False)
            try:
                trial.show(seat, cards, WINDOWS[i])
            except IllegalAction:
                continue
            d, current, ok = trial, i, True
            break
        valid.append(ok)
    if not d.trump_decided:
        d.resolve_nobody(kitty)
    return valid, d.trump, d.dealer


def _opens_to_attackers(d: Declaring) -> bool:
    return (
        d.hand_number > 1
        and d.rules.later_declare == "dealer_team"
        and not d.trump_decided
        and d.dealer_team_can_declare is None
    )
