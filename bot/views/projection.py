"""What one reader of a table is shown, as facts: computed once per change of the
table, and rendered by the DM (``bot.views.dm_hand``, a seat), the group's table
(``bot.views.group_table``, no seat) and the Mini App (``bot.views.miniapp``, either).

Every rule fact those views state is decided here, by asking the engine, and nowhere
in a renderer: who acts and until when (the table's clocks, ``bot.table.timing``), each
trick with its winner or who is winning it now and how each play reads (a throw, a
ruff: :func:`engine.tricks.play_kind`; a failed throw with its penalty, RULES 8.3),
the attackers' points with the throw penalties counted at once (RULES 8.3, 9) and
what they mean (the take-over, the level table's next threshold), the levels, the
dealer, and for a seat its own cards and options (how many cards to play, what a
show does, which cards may follow). The engine's view it was built from (``view``)
still gives the plain public record: the shows, the counts, the kitty, the result.

No Telegram and no text here: a renderer picks the words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from bot.data.history import progression
from bot.data.saved import GameRecord
from bot.table import Pace, Table, turn_clock
from bot.table.state import one_tap
from bot.table.timing import turn_seconds
from engine.cards import Card, points
from engine.counter import CardCount, card_counter
from engine.match import MatchState
from engine.reasons import Reason
from engine.records import Trick, failed_throw_penalty
from engine.scoring import TAKE_OVER, Side, next_threshold
from engine.seats import Seat, Team
from engine.tricks import followable, play_kind, unfollowable_reasons
from engine.view import Observation, Phase, PublicView, ToAct

Mark = Literal["throw", "ruff"]


@dataclass(frozen=True, slots=True)
class Deadline:
    """The deadline of whoever acts now: a person's turn (``warning``: its last
    seconds came; ``optional``: 炒底, running out is a pass, not 托管) or the after-deal
    window's. ``seconds``: how long it lasts; ``at``: when it runs out on the
    monotonic clock, ``until`` on the wall clock."""

    seconds: int
    at: float
    until: float
    window: bool = False
    warning: bool = False
    optional: bool = False


@dataclass(frozen=True, slots=True)
class PlayView:
    """One play of a trick, cards in display order. ``mark``: how it reads (the
    engine's); a failed throw has what was ``attempted``, the unit that beat it and
    who showed it, and its ``penalty`` to the attackers' points."""

    seat: Seat
    cards: tuple[Card, ...]
    mark: Mark | None = None
    attempted: tuple[Card, ...] | None = None
    beaten_by: tuple[Card, ...] = ()
    beaten_by_seat: Seat | None = None
    penalty: int = 0
    reason: Reason | None = None  # why a computer (or 托管) played it (engine.reasons)


@dataclass(frozen=True, slots=True)
class TrickView:
    """A trick (``number`` from 1): its plays, its ``winner`` once finished, and
    ``best``: who is winning it now (its winner once finished)."""

    number: int
    leader: Seat
    plays: tuple[PlayView, ...]
    winner: Seat | None
    best: Seat | None
    points: int


@dataclass(frozen=True, slots=True)
class Points:
    """The attackers' points now (RULES 9): ``tricks`` won in tricks plus the throw
    ``penalty`` so far (in their favour; counted when the throw fails, RULES 8.3),
    the sum kept at 0 or above; what that means: ``to_take_over`` (0: the defenders
    step down) and the level table's ``next`` threshold ``(total, side, steps)``."""

    team: Team
    total: int
    tricks: int
    penalty: int
    take_over: int
    to_take_over: int
    next: tuple[int, Side, int] | None
    won: tuple[Card, ...]  # the point cards the attackers won, in display order


@dataclass(frozen=True, slots=True)
class ShowOption:
    cards: tuple[Card, ...]
    action: str  # what showing them does: declare, reinforce, overturn


@dataclass(frozen=True, slots=True)
class Own:
    """What only the reader's seat has: its cards and what it may do now."""

    seat: Seat
    hand: tuple[Card, ...]
    my_turn: bool
    needed: int | None  # cards to put down now (None: a lead, or not its turn)
    shows: tuple[ShowOption, ...]
    can_pass: bool
    can_redeal: bool
    kitty: tuple[Card, ...] | None  # the kitty, to whoever buried it
    picked: tuple[Card, ...]  # burying: the cards just picked up with the kitty
    selection: tuple[Card, ...]
    auto: bool  # 托管
    one_tap: bool  # a tap on a card plays it
    playable: tuple[Card, ...] | None  # following: the cards some legal play holds
    # following: why each other card is in no legal play (the engine's reason code)
    refusals: dict[Card, str] = field(default_factory=dict)
    hint: Reason | None = None  # why the selection is the Hint's, while it is
    why: bool = False  # the DM shows why the computers played the last trick so
    away: bool = False  # the 托管 is the player's choice ("I'm away"), not a time-out's
    # the DM's card counter (记牌器), asked for: as of the finished tricks (the DM is not
    # edited for every play, so it states "after trick k")
    tally: CardCount | None = None


@dataclass(frozen=True, slots=True)
class Projection:
    """One reader's table (``seat`` None: the public's)."""

    view: PublicView = field(repr=False)
    seat: Seat | None
    status: str
    paused: bool
    phase: Phase
    hand_number: int
    version: int
    to_act: ToAct
    turn: Seat | None
    clock: Deadline | None
    level: int
    levels: tuple[int, int]
    dealer: Seat | None
    tricks_done: int  # finished tricks
    tricks: int  # tricks begun (the current one too)
    current: TrickView | None
    last: TrickView | None
    points: Points | None
    own: Own | None
    # the seat has a card counter now (记牌器: engine.counter): while the tricks are played
    # and the game has it on; the public has none (counted when read: ``counter``)
    counting: bool = False
    autos: tuple[Seat, ...] = ()  # the people's seats on 托管 (the computer plays them)

    @property
    def counter(self) -> CardCount | None:
        """The seat's card counter now, counted when asked (the Mini App's view asks; a
        DM needs only whether there is one, ``counting``)."""
        view = self.view
        return card_counter(view) if self.counting and isinstance(view, Observation) else None

    def trick(self, number: int) -> TrickView:
        """The hand's trick ``number`` (from 1)."""
        for known in (self.current, self.last):
            if known is not None and known.number == number:
                return known
        return trick_view(self.view, number)

    @property
    def live(self) -> bool:
        return self.status == "running"


def project(
    rec: GameRecord,
    match: MatchState,
    seat: Seat | None,
    clock: Deadline | None = None,
    like: Projection | None = None,
) -> Projection:
    """What a reader at ``seat`` (None: the public) is shown of the match now;
    ``clock``: the deadline of whoever acts now (:func:`clock_of`). ``like``: another
    reader's projection of the match as it is now, whose public facts (the tricks as
    they read, the points) are this one's too: taken, not worked out again."""
    view = match.public_observation() if seat is None else match.observation(seat)
    done = view.tricks_done
    counting = counts(rec) and view.phase == "playing"
    n = len(view.tricks)
    if like is not None:
        current, last, points = like.current, like.last, like.points
    else:
        finished = view.last_trick
        last = None if finished is None else trick_view(view, _number(view, finished))
        current = None if view.current_trick is None else trick_view(view, n)
        points = None if view.dealer is None else _points(view)
    return Projection(
        view=view,
        seat=seat,
        status=rec.status,
        paused=rec.paused or rec.group_gone,
        phase=view.phase,
        hand_number=view.hand_number,
        version=view.version,
        to_act=view.to_act,
        turn=view.turn,
        clock=clock,
        level=view.level,
        levels=(view.levels[0], view.levels[1]),
        dealer=view.dealer,
        tricks_done=done,
        tricks=n,
        current=current,
        last=last,
        points=points,
        own=_own(rec, match, view, last, counting) if isinstance(view, Observation) else None,
        counting=counting and isinstance(view, Observation),
        autos=tuple(s for s, known in enumerate(rec.seats) if known.human and known.auto),
    )


def counts(rec: GameRecord) -> bool:
    """The game shows its players the card counter (the group's setting, on by default)."""
    return rec.card_counter is not False


def clock_of(table: Table, pace: Pace) -> Deadline | None:
    """The deadline of whoever acts now, as the table's clocks have it."""
    rec, match = table.rec, table.match
    if match is None or rec.status != "running" or rec.paused:
        return None
    window = table.window_deadline
    if match.hand.phase == "after_deal":
        if window is None:
            return None
        at, until = window
        return Deadline(round(pace.overturn_window_seconds), at, until, window=True)
    deadline = turn_clock(table)
    if deadline is None:
        return None
    seconds = round(turn_seconds(table, pace))
    optional = match.hand.phase == "chaodi"
    at, until = deadline
    return Deadline(seconds, at, until, warning=table.warned, optional=optional)


def _number(view: PublicView, trick: Trick) -> int:
    return next(i for i, known in enumerate(view.tricks, 1) if known is trick)


def trick_view(view: PublicView, number: int) -> TrickView:
    """Trick ``number`` (from 1) of the view: its plays as they read, its winner or
    who is winning it now."""
    trick = view.tricks[number - 1]
    ctx, defenders = view.ctx, view.defenders
    lead = trick.plays[0].cards if trick.plays else ()
    plays = []
    for i, p in enumerate(trick.plays):
        cards = tuple(ctx.sorted(list(p.cards)))
        if p.attempted is not None:
            plays.append(
                PlayView(
                    p.seat,
                    cards,
                    attempted=tuple(ctx.sorted(list(p.attempted))),
                    beaten_by=tuple(ctx.sorted(list(p.beaten_by or ()))),
                    beaten_by_seat=p.beaten_by_seat,
                    penalty=failed_throw_penalty(view.rules, p, defenders),
                    reason=p.reason,
                )
            )
            continue
        kind = play_kind(ctx, lead, p.cards, i == 0)
        mark: Mark | None = "throw" if kind == "throw" else "ruff" if kind == "ruff" else None
        plays.append(PlayView(p.seat, cards, mark, reason=p.reason))
    best = trick.winner
    if best is None and number == len(view.tricks):
        best = view.winning
    return TrickView(number, trick.leader, tuple(plays), trick.winner, best, trick.points)


def _points(view: PublicView) -> Points:
    attackers = view.attackers
    assert attackers is not None
    total = view.attackers_points
    won: list[Card] = []
    for trick in view.tricks:
        if trick.winner is not None and view.team_of(trick.winner) == attackers:
            won += [c for p in trick.plays for c in p.cards if points(c)]
    n = len(view.tricks)
    return Points(
        team=attackers,
        total=total,
        tricks=view.trick_points_after(n),
        penalty=view.penalties_after(n),
        take_over=TAKE_OVER,
        to_take_over=max(0, TAKE_OVER - total),
        next=next_threshold(view.rules, total),
        won=tuple(view.ctx.sorted(won)),
    )


def _own(
    rec: GameRecord, match: MatchState, obs: Observation, last: TrickView | None, counting: bool
) -> Own:
    hand, seat = match.hand, obs.seat
    s = rec.seats[seat]
    hinted = s.ui.hint
    hint = None
    if (
        hinted is not None
        and obs.my_turn
        and (hinted.hand, hinted.version) == (hand.hand_number, hand.version)
        and sorted(hinted.cards) == sorted(s.ui.selection)
    ):
        hint = hinted.reason
    following = obs.my_turn and obs.phase == "playing"
    trick = obs.current_trick
    playable = None
    refusals: dict[Card, str] = {}
    if following and trick is not None and trick.plays:
        lead = trick.plays[0].cards
        playable = tuple(sorted(followable(obs.ctx, lead, obs.hand)))
        refusals = unfollowable_reasons(obs.ctx, lead, obs.hand, set(obs.hand).difference(playable))
    return Own(
        seat=seat,
        hand=tuple(obs.hand),
        my_turn=obs.my_turn,
        needed=hand.cards_to_play(seat),
        shows=tuple(
            ShowOption(tuple(option), hand.show_action(seat, option)) for option in obs.show_options
        ),
        can_pass=obs.can_pass,
        can_redeal=obs.can_redeal,
        kitty=None if obs.kitty is None else tuple(obs.kitty),
        picked=tuple(hand.picked_up(seat)) if obs.my_turn and obs.phase == "burying" else (),
        selection=tuple(s.ui.selection),
        auto=s.auto,
        one_tap=one_tap(hand, seat, s.ui.selection),
        playable=playable,
        refusals=refusals,
        hint=hint,
        why=last is not None and s.ui.why == last.number,
        away=s.auto and s.away,
        tally=card_counter(obs, obs.tricks_done) if counting and s.ui.tally else None,
    )


@dataclass(frozen=True, slots=True)
class HandTricks:
    """The hand's tricks so far, in order, for the page's Tricks panel: only what the
    whole table saw (RULES 13: the plays, a failed throw with what beat it, the points)
    and the kitty as the reader may see it (after the hand, or to whoever buried it).
    ``taken``: per team, the point cards it won in tricks (display order); ``points``:
    their sum per team; ``penalty``: the throw penalties so far, in the attackers'
    favour."""

    tricks: tuple[TrickView, ...]
    attackers: Team | None
    taken: tuple[tuple[Card, ...], tuple[Card, ...]]
    points: tuple[int, int]
    penalty: int
    kitty: tuple[Card, ...] | None


def hand_tricks(p: Projection) -> HandTricks:
    """Every trick of ``p``'s hand led so far (the current one too) as it reads."""
    view = p.view
    tricks = tuple(p.trick(n) for n, trick in enumerate(view.tricks, 1) if trick.plays)
    taken: tuple[list[Card], list[Card]] = ([], [])
    for trick in view.tricks:
        if trick.winner is not None:
            taken[view.team_of(trick.winner)].extend(
                c for play in trick.plays for c in play.cards if points(c)
            )
    return HandTricks(
        tricks=tricks,
        attackers=view.attackers,
        taken=(tuple(view.ctx.sorted(taken[0])), tuple(view.ctx.sorted(taken[1]))),
        points=(sum(map(points, taken[0])), sum(map(points, taken[1]))),
        penalty=view.penalties_after(len(view.tricks)),
        kitty=None if view.kitty is None else tuple(view.ctx.sorted(list(view.kitty))),
    )


@dataclass(frozen=True, slots=True)
class HandRow:
    """One finished hand of the match, as its result has it: the ``dealer``, the trump
    (``trump_known`` False: a result kept before its trump was), the ``level`` played
    (the defenders'), the attackers' ``points``, the ``team`` the hand went for and the
    levels it climbed (``up``: as far as the stops let it, RULES 11; 0: the attackers
    took the deal over without going up) and the levels after it."""

    number: int
    dealer: Seat
    trump: int | None
    trump_known: bool
    level: int
    attackers: Team
    points: int
    winner: Literal["defenders", "attackers"]
    team: Team
    up: int
    levels_after: tuple[int, int]


@dataclass(frozen=True, slots=True)
class MatchHistory:
    """The match's finished hands, and each team's level before hand 1 and after each
    hand, counted on past A (``bot.data.history.progression``: the group's level chart)."""

    hands: tuple[HandRow, ...]
    progression: tuple[tuple[int, int], ...]
    winner: Team | None


def match_history(match: MatchState) -> MatchHistory:
    """What the match's results say, hand by hand (public: every result was shown)."""
    rows = []
    for number, r in enumerate(match.results, 1):
        team = r.winning_team
        rows.append(
            HandRow(
                number=number,
                dealer=r.dealer,
                trump=r.trump,
                trump_known=r.trump_known,
                level=r.levels_before[r.defenders],
                attackers=1 - r.defenders,
                points=r.attackers_points,
                winner=r.winner,
                team=team,
                up=r.climbed(match.rules)[team],
                levels_after=(r.levels_after[0], r.levels_after[1]),
            )
        )
    return MatchHistory(
        hands=tuple(rows),
        progression=tuple((a, b) for a, b in progression(match)),
        winner=match.winner,
    )


class Projections:
    """The projections of the tables, each built once per change of its table (its
    ``stamp``) and reader, whoever asks first (the publisher, a Mini App)."""

    def __init__(self, pace: Pace) -> None:
        self.pace = pace
        self._built: dict[int, tuple[int, dict[Seat | None, Projection]]] = {}

    def of(self, table: Table, seat: Seat | None) -> Projection:
        """``seat``'s projection of the table (None: the public's); it has a match."""
        assert table.match is not None
        known = self._built.get(table.rec.id)
        if known is None or known[0] != table.stamp:
            known = self._built[table.rec.id] = (table.stamp, {})
        readers = known[1]
        built = readers.get(seat)
        if built is None:
            # the public facts are worked out once a change, for the first reader
            like = next(iter(readers.values()), None)
            clock = like.clock if like is not None else clock_of(table, self.pace)
            built = readers[seat] = project(table.rec, table.match, seat, clock, like)
        return built

    def forget(self, game_id: int) -> None:
        self._built.pop(game_id, None)
