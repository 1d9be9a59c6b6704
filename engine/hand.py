"""One hand as a state machine (RULES.md sections 5-10).

Phases: ``dealing`` → ``after_deal`` → ``burying`` ⇄ ``chaodi`` → ``playing`` → ``done``.

One narrow door: :meth:`HandState.apply` takes an :data:`Action`; a rejected
action raises :class:`~engine.errors.IllegalAction` and leaves the state
exactly as it was (every check runs before the first mutation).
:meth:`HandState.observation` gives a seat only what it may see.

Decisions the rule book leaves open (**[decided]** here):

- Dealing is a system action ``Deal(n)`` that hands out the next ``n`` cards one
  at a time, seat by seat, starting with the dealer (seat 0 in hand 1).
- After the last card there is always an ``after_deal`` window that closes when
  all four seats have passed since the last show. In hand 1 (and with the
  non-preset option ``later_overturn = before_kitty``) declaring and overturning
  race on in it; in later hands of every preset it is a last chance to declare or
  reinforce (overturns wait for 炒底), because in a chat the last dealt card must
  get a fair moment too.
- ``later_declare = dealer_team`` (joker_declare, RULES 12): when the deal ends with
  nothing declared, the engine looks at the dealer's team's cards. If neither of
  them *can* declare (a level card with the joker of its colour), declaring opens to
  the attackers (an attacker who declares becomes dealer). If one of them can, only
  they may declare in the window; if they let it close, nobody declared and the
  kitty's third card decides (RULES 5). Which of the two it is, is public at once
  (``DealerTeamChecked``, ``PublicView.dealer_team_can_declare``), as "叫不起" at a
  table: an attacker's own show options would tell it anyway.
- 炒底 asks seats in turn from the dealer's next seat: four seats at first,
  then the three seats after each overturner; it closes when they all passed.
  It happens in later hands of every preset when the trump was declared, never
  when the kitty's card set it (tournament included: seed 002's 炒地皮).
- Throw penalties are summed over the hand with the trick points and the kitty
  bonus, and only that total is kept at 0 or above (RULES 8.3, 9): a penalty is a
  debt the attackers' later points pay off.

The API (queries, views, events) is summarised in :mod:`engine`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, Field, model_validator

from engine import errors
from engine.cards import HAND_SIZE, KITTY_SIZE, POINTS, Card, shuffled_shoe, total_points
from engine.declaring import Action as ShowAction
from engine.declaring import Declaring, Window, may_request_redeal
from engine.errors import IllegalAction
from engine.events import (
    Buried,
    DealerTeamChecked,
    Dealt,
    Declared,
    Event,
    HandSettled,
    KittyTaken,
    Overturned,
    Passed,
    Played,
    PlayStarted,
    Redealt,
    Reinforced,
    ThrowFailed,
    TrickWon,
    TrumpFromKitty,
)
from engine.ranking import TrumpContext
from engine.reasons import Reason
from engine.records import HandResult, PlayRecord, Trick
from engine.rules import RuleSet
from engine.scoring import kitty_bonus_for_lead, settle_hand
from engine.seats import Seat, team_of
from engine.tricks import (
    check_follow,
    check_lead,
    failed_throw,
    is_legal_follow,
    throw_beater,
    trick_winner,
)
from engine.units import Unit
from engine.view import Observation, Phase, PublicView, ToAct, next_actor

__all__ = [
    "Action",
    "Bury",
    "Deal",
    "HandResult",
    "HandState",
    "Observation",
    "Pass",
    "Phase",
    "Play",
    "PlayRecord",
    "PublicView",
    "Redeal",
    "Show",
    "ToAct",
    "Trick",
    "legal_plays",
    "sub_multisets",
    "team_of",
]

DEALT = 4 * HAND_SIZE
V = TypeVar("V", bound=PublicView)


class Deal(BaseModel):
    """System action: deal the next ``n`` cards (one per seat in turn)."""

    kind: Literal["deal"] = "deal"
    n: int = 4


class Show(BaseModel):
    """Declare, reinforce or overturn by showing cards."""

    kind: Literal["show"] = "show"
    seat: Seat
    cards: list[Card]


class Pass(BaseModel):
    """Decline to show in an overturn window."""

    kind: Literal["pass"] = "pass"
    seat: Seat


class Bury(BaseModel):
    kind: Literal["bury"] = "bury"
    seat: Seat
    cards: list[Card]


class Play(BaseModel):
    kind: Literal["play"] = "play"
    seat: Seat
    cards: list[Card]
    reason: Reason | None = None  # a computer's, kept with the play (engine.reasons)


class Redeal(BaseModel):
    """暴动 (joker_declare): an attacker with under 15 points asks for a new deal."""

    kind: Literal["redeal"] = "redeal"
    seat: Seat


Action = Annotated[Deal | Show | Pass | Bury | Play | Redeal, Field(discriminator="kind")]


class HandState(BaseModel):
    rules: RuleSet
    hand_number: int
    seed: int
    levels: list[int]  # per team, before this hand
    level: int
    phase: Phase = "dealing"
    version: int = 0
    deck: list[int]
    deal_start: int
    dealt: int = 0
    hands: list[list[int]] = [[], [], [], []]
    kitty: list[int] = []
    declaring: Declaring
    passes: list[int] = []  # seats that passed since the last show (after_deal)
    queue: list[int] = []  # seats still to be asked in 炒底, in order
    turn: int | None = None
    buried_by: int | None = None  # who last buried (sees the kitty)
    revealed_kitty: list[int] | None = None  # the kitty as shown when nobody declared
    redeals: int = 0
    chaodi_started: bool = False
    tricks: list[Trick] = []
    trick_points: int = 0
    penalty: int = 0
    result: HandResult | None = None
    log: list[Action] = []

    @model_validator(mode="after")
    def _dealer_team_fact(self) -> HandState:
        """A hand saved before ``dealer_team_can_declare`` was kept: derive the fact
        where it still tells something (declaring open to the attackers, or the
        after-deal window with nothing declared)."""
        d = self.declaring
        if d.dealer_team_can_declare is None:
            if d.attackers_may_declare:
                d.dealer_team_can_declare = False
            elif (
                self.phase == "after_deal"
                and self.hand_number > 1
                and self.rules.later_declare == "dealer_team"
                and not d.trump_decided
            ):
                d.dealer_team_can_declare = True
        return self

    # ---- construction -------------------------------------------------
    @classmethod
    def new(
        cls,
        rules: RuleSet,
        seed: int,
        hand_number: int = 1,
        dealer: int | None = None,
        levels: list[int] | None = None,
    ) -> HandState:
        if hand_number > 1 and dealer is None:
            raise ValueError("a later hand needs its dealer")
        levels = list(levels or [rules.start_level, rules.start_level])
        dealer = None if hand_number == 1 else dealer  # hand 1: the race decides
        start = 0 if dealer is None else dealer
        level = levels[team_of(start)]
        return cls(
            rules=rules,
            hand_number=hand_number,
            seed=seed,
            levels=levels,
            level=level,
            deck=shuffled_shoe(seed),
            deal_start=start,
            hands=[[], [], [], []],
            declaring=Declaring.start(rules, level, hand_number, dealer),
        )

    @classmethod
    def replay(cls, initial: HandState, log: list[Action]) -> HandState:
        """Rebuild a hand from its initial state (or seed) and its action log."""
        state = initial.model_copy(deep=True)
        for action in log:
            state.apply(action)
        return state

    # ---- derived facts ---------------------------------------------------
    @property
    def dealer(self) -> int | None:
        return self.declaring.dealer

    @property
    def trump(self) -> int | None:
        return self.declaring.trump

    @property
    def ctx(self) -> TrumpContext:
        return TrumpContext(self.level, self.declaring.trump, self.rules.permanent_twos)

    @property
    def defenders(self) -> int | None:
        d = self.dealer
        return None if d is None else team_of(d)

    @property
    def current_trick(self) -> Trick | None:
        if self.tricks and self.tricks[-1].winner is None:
            return self.tricks[-1]
        return None

    @property
    def attackers_points(self) -> int:
        """Points the attackers hold so far (trick points plus penalties, not below 0)."""
        if self.result is not None:
            return self.result.attackers_points
        return max(0, self.trick_points + self.penalty)

    def _window(self) -> Window:
        if self.phase == "chaodi":
            return "chaodi"
        if self.phase == "after_deal" and (
            self.hand_number == 1 or self.rules.later_overturn == "before_kitty"
        ):
            return "after_deal"
        return "deal"

    def show_options(self, seat: int) -> list[list[int]]:
        """Every show this seat may make now (for buttons and computer players)."""
        if self.phase not in ("dealing", "after_deal", "chaodi"):
            return []
        if self.phase == "chaodi" and self.turn != seat:
            return []
        return self.declaring.options(seat, self.hands[seat], self._window())

    def show_action(self, seat: Seat, cards: list[Card]) -> ShowAction:
        """What showing ``cards`` would do now: ``declare``, ``reinforce`` or
        ``overturn`` (for the show buttons); IllegalAction if it is not allowed."""
        return self.declaring.action_of(seat, cards, self._window())

    def can_pass(self, seat: int) -> bool:
        if self.phase == "after_deal":
            return seat not in self.passes
        return self.phase == "chaodi" and self.turn == seat

    def can_redeal(self, seat: int) -> bool:
        # Only in later hands: in hand 1 the dealer is not fixed before the deal ends.
        # The hand's own dealer (who dealt) counts, even if an attacker has declared
        # since under ``dealer_team``: a redeal restores that dealer.
        return (
            self.phase == "after_deal"
            and self.hand_number > 1
            and may_request_redeal(
                self.rules, seat, self.hands[seat], self.deal_start, self.redeals
            )
        )

    # ---- the door ------------------------------------------------------
    def apply(self, action: Action) -> list[Event]:
        """Apply an action or raise IllegalAction, leaving the state unchanged.

        Returns what happened, in order (:mod:`engine.events`)."""
        out: list[Event] = []
        _DO[action.kind](self, action, out)
        self.log.append(action)
        self.version += 1
        return out

    def check(self, action: Action) -> None:
        """Raise IllegalAction (with the reason) if ``action`` is not legal now; change
        nothing. A throw that would fail is legal: the engine plays the forced cards."""
        _CHECK[action.kind](self, action)

    def is_legal(self, action: Action) -> bool:
        """Whether ``action`` is legal now (no copy of the state is made)."""
        try:
            _CHECK[action.kind](self, action)
        except IllegalAction:
            return False
        return True

    def _need_phase(self, *phases: str) -> None:
        if self.phase not in phases:
            raise IllegalAction(errors.WRONG_PHASE, phase=self.phase)

    @staticmethod
    def _check_seat(seat: int) -> None:
        if not 0 <= seat < 4:
            raise IllegalAction(errors.NOT_YOUR_TURN, seat=seat)

    def _need_turn(self, seat: Seat) -> None:
        if seat != self.turn:
            raise IllegalAction(errors.NOT_YOUR_TURN, turn=self.turn)

    def _holds(self, seat: int, cards: list[int]) -> None:
        if not cards:
            raise IllegalAction(errors.EMPTY_PLAY)
        hand = self.hands[seat]
        for c in set(cards):
            if cards.count(c) > hand.count(c):
                raise IllegalAction(errors.NOT_IN_HAND, card=c)

    # dealing and declaring
    def _check_deal(self, a: Deal) -> None:
        self._need_phase("dealing")
        if a.n < 1:
            raise IllegalAction(errors.WRONG_COUNT, n=a.n)

    def _do_deal(self, a: Deal, out: list[Event]) -> None:
        self._check_deal(a)
        end = min(DEALT, self.dealt + a.n)
        for i in range(self.dealt, end):
            self.hands[(self.deal_start + i) % 4].append(self.deck[i])
        self.dealt = end
        out.append(Dealt(end, DEALT))
        if end == DEALT:
            self.kitty = self.deck[DEALT:]
            self.phase = "after_deal"
            self.passes = []
            if (
                self.hand_number > 1
                and self.rules.later_declare == "dealer_team"
                and not self.declaring.trump_decided
            ):
                can = self._dealers_team_can_declare()
                self.declaring.dealer_team_checked(can)
                out.append(DealerTeamChecked(can))

    def _dealers_team_can_declare(self) -> bool:
        """RULES 12 (joker_declare): whether the dealer or partner holds a declaration
        (a level card with the joker of its colour) now."""
        window = self._window()
        return any(
            self.declaring.options(seat, self.hands[seat], window)
            for seat in (self.deal_start, (self.deal_start + 2) % 4)
        )

    def _check_show(self, a: Show) -> None:
        self._check_seat(a.seat)
        self._need_phase("dealing", "after_deal", "chaodi")
        if self.phase == "chaodi":
            self._need_turn(a.seat)
        self._holds(a.seat, a.cards)
        self.declaring.check(a.seat, a.cards, self._window())

    def _do_show(self, a: Show, out: list[Event]) -> None:
        self._check_show(a)
        declaring = self.declaring
        did = declaring.show(a.seat, list(a.cards), self._window())
        shown = declaring.shows[-1].cards
        if did == "declare":
            out.append(
                Declared(a.seat, shown, declaring.trump, declaring.dealer, declaring.reinforced)
            )
        elif did == "reinforce":
            out.append(Reinforced(a.seat, shown))
        else:
            out.append(
                Overturned(a.seat, shown, declaring.trump, declaring.dealer, declaring.multiplier)
            )
        if self.phase == "after_deal":
            self.passes = []
        elif self.phase == "chaodi":
            # the overturner picks up the kitty and buries again
            self.hands[a.seat].extend(self.kitty)
            self.kitty = []
            self.phase = "burying"
            self.turn = a.seat
            out.append(KittyTaken(a.seat))

    def _check_pass(self, a: Pass) -> None:
        self._check_seat(a.seat)
        self._need_phase("after_deal", "chaodi")
        if self.phase == "chaodi":
            self._need_turn(a.seat)
        elif a.seat in self.passes:
            raise IllegalAction(errors.WRONG_PHASE, phase=self.phase)

    def _do_pass(self, a: Pass, out: list[Event]) -> None:
        self._check_pass(a)
        out.append(Passed(a.seat))
        if self.phase == "chaodi":
            self.queue.pop(0)
            if self.queue:
                self.turn = self.queue[0]
            else:
                self._start_play(out)
            return
        self.passes.append(a.seat)
        if len(self.passes) == 4:
            self._close_declaring(out)

    def _check_redeal(self, a: Redeal) -> None:
        self._check_seat(a.seat)
        if not self.can_redeal(a.seat):
            raise IllegalAction(errors.REDEAL_NOT_ALLOWED)

    def _do_redeal(self, a: Redeal, out: list[Event]) -> None:
        self._check_redeal(a)
        dealer = self.deal_start  # dealer unchanged (in later hands the deal starts there)
        self.redeals += 1
        self.deck = shuffled_shoe(self.seed * 1000 + self.redeals)
        self.hands = [[], [], [], []]
        self.kitty = []
        self.dealt = 0
        self.passes = []
        self.phase = "dealing"
        self.declaring = Declaring.start(self.rules, self.level, self.hand_number, dealer)
        out.append(Redealt(a.seat))

    def _close_declaring(self, out: list[Event]) -> None:
        if not self.declaring.trump_decided:
            self.declaring.resolve_nobody(self.kitty)
            self.revealed_kitty = list(self.kitty)
            d = self.declaring
            assert d.dealer is not None
            out.append(TrumpFromKitty(tuple(self.kitty), self.kitty[2], d.trump, d.dealer))
        dealer = self.declaring.dealer
        assert dealer is not None
        # The hand is played at the defenders' level. It differs from the declaring
        # level only when the dealer's team changed (hand 1 with unequal levels, or an
        # attacker declaring under ``dealer_team``); later overturns then use it too.
        self.level = self.levels[team_of(dealer)]
        self.declaring.level = self.level
        self.passes = []
        self.hands[dealer].extend(self.kitty)
        self.kitty = []
        self.phase = "burying"
        self.turn = dealer
        out.append(KittyTaken(dealer))

    # burying and 炒底
    def _check_bury(self, a: Bury) -> None:
        self._check_seat(a.seat)
        self._need_phase("burying")
        self._need_turn(a.seat)
        if len(a.cards) != KITTY_SIZE:
            raise IllegalAction(errors.WRONG_BURY_COUNT, need=KITTY_SIZE, got=len(a.cards))
        self._holds(a.seat, a.cards)

    def _do_bury(self, a: Bury, out: list[Event]) -> None:
        self._check_bury(a)
        hand = self.hands[a.seat]
        for c in a.cards:
            hand.remove(c)
        self.kitty = list(a.cards)
        self.buried_by = a.seat
        out.append(Buried(a.seat))
        if self._chaodi_allowed():
            n = 3 if self.chaodi_started else 4
            self.chaodi_started = True
            self.queue = [(a.seat + i) % 4 for i in range(1, n + 1)]
            self.phase = "chaodi"
            self.turn = self.queue[0]
        else:
            self._start_play(out)

    def _chaodi_allowed(self) -> bool:
        return (
            self.hand_number > 1
            and self.rules.later_overturn == "chaodi"
            and not self.declaring.from_kitty
        )

    def _start_play(self, out: list[Event]) -> None:
        dealer = self.dealer
        assert dealer is not None
        self.phase = "playing"
        self.queue = []
        self.turn = dealer
        self.tricks.append(Trick(leader=dealer))
        out.append(PlayStarted(dealer, self.declaring.trump))

    # playing
    def _check_play(self, a: Play) -> None:
        self._play_units(a, self.ctx, self.tricks[-1] if self.tricks else None)

    def _play_units(self, a: Play, ctx: TrumpContext, trick: Trick | None) -> list[Unit] | None:
        """Check a play; for a lead return its units (a throw is checked on playing)."""
        if not 0 <= a.seat < 4:
            raise IllegalAction(errors.NOT_YOUR_TURN, seat=a.seat)
        if self.phase != "playing" or trick is None:
            raise IllegalAction(errors.WRONG_PHASE, phase=self.phase)
        if a.seat != self.turn:
            raise IllegalAction(errors.NOT_YOUR_TURN, turn=self.turn)
        if not trick.plays:
            return check_lead(ctx, self.hands[a.seat], a.cards)
        check_follow(ctx, trick.plays[0].cards, self.hands[a.seat], a.cards)
        return None

    def _do_play(self, a: Play, out: list[Event]) -> None:
        ctx = self.ctx
        trick = self.tricks[-1] if self.tricks else None
        units = self._play_units(a, ctx, trick)
        assert trick is not None
        hand = self.hands[a.seat]
        cards = list(a.cards)
        record = PlayRecord(seat=a.seat, cards=cards, reason=a.reason)
        failed = None
        if units is not None and len(units) > 1:
            failed = failed_throw(ctx, self.rules, self.hands, a.seat, cards, self.defenders)
        if failed is not None:
            forced, penalty = failed
            others = [self.hands[(a.seat + i) % 4] for i in (1, 2, 3)]
            shown = throw_beater(ctx, forced, others)
            holder = None if shown is None else (a.seat + 1 + shown.holder) % 4
            beaten_by = [] if shown is None else shown.cards
            record = PlayRecord(
                seat=a.seat,
                cards=list(forced),
                attempted=cards,
                beaten_by=beaten_by,
                beaten_by_seat=holder,
                reason=a.reason,
            )
            self.penalty += penalty
            out.append(
                ThrowFailed(a.seat, tuple(cards), tuple(forced), penalty, tuple(beaten_by), holder)
            )
        for c in record.cards:
            hand.remove(c)
        trick.plays.append(record)
        out.append(Played(a.seat, tuple(record.cards), len(self.tricks) - 1))
        if len(trick.plays) < 4:
            self.turn = (a.seat + 1) % 4
            return
        self._finish_trick(ctx, trick, out)

    def _finish_trick(self, ctx: TrumpContext, trick: Trick, out: list[Event]) -> None:
        idx = trick_winner(ctx, [p.cards for p in trick.plays])
        trick.winner = trick.plays[idx].seat
        trick.points = sum(POINTS[c] for p in trick.plays for c in p.cards)
        attackers_won = team_of(trick.winner) != self.defenders
        if attackers_won:
            self.trick_points += trick.points
        out.append(
            TrickWon(len(self.tricks) - 1, trick.winner, trick.points, self.attackers_points)
        )
        if self.hands[trick.winner]:
            self.turn = trick.winner
            self.tricks.append(Trick(leader=trick.winner))
            return
        bonus = kitty_bonus_for_lead(
            ctx, self.rules, self.kitty, trick.plays[0].cards, attackers_won
        )
        self._settle(bonus)
        assert self.result is not None
        out.append(HandSettled(self.result))

    def _settle(self, bonus: int) -> None:
        dealer = self.dealer
        assert dealer is not None
        defenders = team_of(dealer)
        total = max(0, self.trick_points + self.penalty + bonus)
        s = settle_hand(self.rules, total, dealer, self.level, self.levels[1 - defenders])
        after = list(self.levels)
        after[defenders] = s.defender_level
        after[1 - defenders] = s.attacker_level
        winner_team = None
        if s.match_winner == "defenders":
            winner_team = defenders
        elif s.match_winner == "attackers":
            winner_team = 1 - defenders
        self.result = HandResult(
            trick_points=self.trick_points,
            penalty=self.penalty,
            kitty=list(self.kitty),
            kitty_points=total_points(self.kitty),
            kitty_bonus=bonus,
            attackers_points=total,
            winner=s.winner,
            steps=s.steps,
            dealer=dealer,
            defenders=defenders,
            levels_before=list(self.levels),
            levels_after=after,
            next_dealer=s.next_dealer,
            match_winner=winner_team,
            multiplier=self.declaring.multiplier,
            trump=self.declaring.trump,
            trump_known=True,
        )
        self.phase = "done"
        self.turn = None

    # ---- what the table and a seat may see --------------------------------
    def public_observation(self) -> PublicView:
        """What anyone at the table may see now, and nothing more (RULES.md 13)."""
        return self._view(PublicView, kitty=list(self.kitty) if self.phase == "done" else None)

    def observation(self, seat: Seat) -> Observation:
        """The public view plus this seat's own cards, options and the kitty if it buried
        it. (The kitty shown when nobody declared is ``revealed_kitty``, never the
        buried one.)"""
        phase = self.phase
        sees_kitty = phase == "done" or self.buried_by == seat
        in_window = phase in ("dealing", "after_deal", "chaodi")
        return self._view(
            Observation,
            kitty=list(self.kitty) if sees_kitty else None,
            seat=seat,
            hand=self.ctx.sorted(self.hands[seat]),
            show_options=self.show_options(seat) if in_window else [],
            can_pass=in_window and self.can_pass(seat),
            can_redeal=phase == "after_deal" and self.can_redeal(seat),
        )

    def _view(self, cls: type[V], **own: Any) -> V:
        declaring = self.declaring
        # Finished tricks never change, so they are shared; the open one is copied.
        tricks = list(self.tricks)
        if tricks and tricks[-1].winner is None:
            last = tricks[-1]
            tricks[-1] = Trick(leader=last.leader, plays=list(last.plays))
        revealed = self.revealed_kitty
        result = self.result
        return cls(
            phase=self.phase,
            version=self.version,
            hand_number=self.hand_number,
            rules=self.rules,
            level=self.level,
            levels=list(self.levels),
            dealer=declaring.dealer,
            trump=declaring.trump,
            trump_decided=declaring.trump_decided,
            declarer=declaring.declarer,
            shows=[(s.seat, list(s.cards)) for s in declaring.shows],
            card_counts=[len(h) for h in self.hands],
            dealt=self.dealt,
            revealed_kitty=revealed,
            turn=self.turn,
            tricks=tricks,
            attackers_points=self.attackers_points,
            result=result,
            show_records=tuple(declaring.shows),
            overturns=declaring.overturns,
            dealer_team_can_declare=declaring.dealer_team_can_declare,
            passed=tuple(self.passes),
            match_winner=None if result is None else result.match_winner,
            **own,
        )

    # ---- who acts, what is legal -------------------------------------------
    @property
    def is_terminal(self) -> bool:
        return self.phase == "done"

    def next_actor(self) -> ToAct:
        """Who or what must act next: the deal, the after-deal window (the seats that
        have not passed), the one seat whose turn it is, or nobody (hand over)."""
        return next_actor(self.phase, self.turn, self.passes)

    def dealt_hands(self) -> list[list[Card]]:
        """Each seat's cards as the deal handed them out (of the last deal, after a
        redeal; so far, while dealing), before any kitty was picked up or a card
        played: the deck and where the deal started say it, nothing is replayed."""
        hands: list[list[Card]] = [[], [], [], []]
        for i in range(self.dealt):
            hands[(self.deal_start + i) % 4].append(self.deck[i])
        return hands

    def picked_up(self, seat: Seat) -> list[Card]:
        """The kitty cards ``seat`` picked up, while it buries them (the kitty is added
        at the end of the hand it picks it up into), else []."""
        if self.phase != "burying" or self.turn != seat:
            return []
        return self.ctx.sorted(self.hands[seat][-KITTY_SIZE:])

    def cards_to_play(self, seat: Seat) -> int | None:
        """How many cards ``seat`` must put down now: 8 to bury, the lead's size to
        follow (RULES 8.1); None when it leads (any number) or it is not its turn.
        A follow of one card is one tap: the card tapped is the play."""
        if self.turn != seat:
            return None
        if self.phase == "burying":
            return KITTY_SIZE
        if self.phase == "playing":
            plays = self.tricks[-1].plays
            return len(plays[0].cards) if plays else None
        return None

    def legal_actions(self, seat: int) -> Iterator[Action]:
        """Every distinct legal action of this seat now, lazily (OpenSpiel's door).

        Burying and leading can have very many (C(33, 8) burials; every sub-multiset
        of a suit class is a lead, a throw that fails being the engine's business,
        not an illegal action), so this is an iterator: take what you need.
        """
        if self.phase in ("dealing", "after_deal", "chaodi"):
            for cards in self.show_options(seat):
                yield Show(seat=seat, cards=cards)
            if self.can_pass(seat):
                yield Pass(seat=seat)
            if self.can_redeal(seat):
                yield Redeal(seat=seat)
            return
        if self.turn != seat:
            return
        hand = self.hands[seat]
        if self.phase == "burying":
            for cards in sub_multisets(hand, KITTY_SIZE):
                yield Bury(seat=seat, cards=cards)
        elif self.phase == "playing":
            for cards in legal_plays(self.ctx, self.tricks[-1], hand):
                yield Play(seat=seat, cards=cards)


_KINDS = ("deal", "show", "pass", "bury", "play", "redeal")
_DO = {k: getattr(HandState, "_do_" + k) for k in _KINDS}
_CHECK = {k: getattr(HandState, "_check_" + k) for k in _KINDS}


def sub_multisets(cards: list[int], size: int) -> Iterator[list[int]]:
    """Every distinct multiset of ``size`` cards drawn from ``cards`` (sorted ids)."""
    return _sub_multisets(sorted(Counter(cards).items()), 0, size)


def _sub_multisets(counts: list[tuple[int, int]], i: int, need: int) -> Iterator[list[int]]:
    """:func:`sub_multisets` from ``counts[i:]`` (a module-level generator, not a
    closure that calls itself: such a closure is a reference cycle, garbage that only the
    cycle collector frees, and the computers made tens of thousands of them a hand)."""
    if need == 0:
        yield []
        return
    if i == len(counts):
        return
    card, n = counts[i]
    for k in range(min(n, need), -1, -1):
        for rest in _sub_multisets(counts, i + 1, need - k):
            yield [card] * k + rest


def legal_plays(ctx: TrumpContext, trick: Trick, hand: list[int]) -> Iterator[list[int]]:
    """Every distinct legal play into this trick: any one-class lead, or a legal follow."""
    if not trick.plays:
        by_class: dict[int, list[int]] = {}
        for c in hand:
            by_class.setdefault(ctx.suit_class[c], []).append(c)
        for cards in by_class.values():
            for size in range(1, len(cards) + 1):
                yield from sub_multisets(cards, size)
        return
    lead = trick.plays[0].cards
    n = len(lead)
    led = ctx.suit_class[lead[0]]
    same = [c for c in hand if ctx.suit_class[c] == led]
    if len(same) >= n:
        pool = sub_multisets(same, n)
    else:
        rest = [c for c in hand if ctx.suit_class[c] != led]
        pool = (same + extra for extra in sub_multisets(rest, n - len(same)))
    for play in pool:
        if is_legal_follow(ctx, lead, hand, play):
            yield play
