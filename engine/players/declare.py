"""The declaring search: whether to show, when, and which (RULES.md sections 5, 7 and 12).

A seat that may show (declare, reinforce, overturn, 炒底) compares its options, waiting
(or passing) included, by their expected value to its team: it samples the cards it
cannot see (the other hands, the kitty and, while dealing, every card still to come,
its own included), and in every sampled world plays the whole hand out from here with
the heuristic for all four seats: the rest of the deal and its race to show, the
after-deal window, the bury and 炒底 by the engine's own :class:`~engine.hand.HandState`,
then the tricks by the fast :func:`~engine.players.playout.playout`. Every option meets
the same worlds (paired comparison); the best mean wins when it beats the heuristic's
own choice by more than ``CONFIDENCE`` standard errors of the paired difference.

The value is the team's: ``total - 80`` when its team attacks after the show (whoever
ends as dealer; a partner's show in hand 1 makes us defenders too), ``80 - total``
when it defends, with ``total`` the attackers' final points. Levels hinge on 80, so in
hand 1, where a show decides who deals, defending at 60 and attacking at 100 are worth
the same; in later hands the roles are fixed and only the points differ.

Assumptions of the rollouts: after each ``DEAL_STEP`` cards the seats are asked in seat
order (as the bot and ``bench/duplicate_eval.py`` do); the seat itself, when it waits,
shows nothing more until the deal ends and then does what the heuristic does (it will
think again at the next step anyway). The heuristic opponents read no shows, so what
an option reveals (a pair rather than a single, the suit) costs nothing in the
rollouts beyond what the rules make of it (a single can be overturned by any pair).

The budget is work, as in :mod:`engine.players.search`: ``budget_ms * PLAYS_PER_MS``
simulated plays, a rollout counting ``ROLLOUT_PLAYS``; a seat without a show option
passes at once. At the default budget a decision takes about 0.3 s of CPU (p95 0.32 s,
``bench/bench_declare.py``); alone against the heuristic's declaring it gained +7.4 ± 2.7
points per deal pair at the bot's dealing pace (figures in ``bench/duplicate_eval.py``).
"""

from __future__ import annotations

import random
from collections import Counter

from engine.cards import HAND_SIZE, KITTY_SIZE, NUM_DISTINCT
from engine.declaring import Declaring, Window
from engine.hand import Action, Deal, HandState, Observation, Pass, Show, team_of
from engine.players import heuristic
from engine.players.deadline import Deadline, passed
from engine.players.playout import playout
from engine.players.worlds import KITTY, knowledge, sample

PHASES = ("dealing", "after_deal", "chaodi")
DEAL_STEP = 12  # cards dealt between two chances to show (the bot's default: 3 a seat)
ROLLOUT_PLAYS = 150  # the work of one rollout (deal, window, bury, 炒底, 100 plays) in plays
BUDGET_FACTOR = 1  # a declaring decision thinks this many card-play budgets
CONFIDENCE = 1.0  # standard errors by which an option must beat the heuristic's choice
PIVOT = 80  # attackers' points where the hand changes hands (RULES 11)

Option = tuple[int, ...]  # the cards to show; () waits (while dealing) or passes


def choose(
    obs: Observation,
    rng: random.Random,
    plays: int,
    max_worlds: int = 200,
    deadline: Deadline | None = None,
) -> Action:
    """The seat's show (or pass) now, after ``plays`` simulated plays' worth of rollouts
    (or as many worlds as were met by ``deadline``).

    While dealing, a ``Pass`` means "not now" (as :func:`heuristic.choose_action`)."""
    if not obs.show_options:
        return Pass(seat=obs.seat)
    own = heuristic.choose_show(obs)
    options: list[Option] = [tuple(own) if own is not None else ()]
    for o in [[], *obs.show_options]:
        if tuple(o) not in options:
            options.append(tuple(o))
    worlds = min(max_worlds, plays // (len(options) * ROLLOUT_PLAYS))
    best = options[0]
    if worlds >= 2:
        values = evaluate(obs, options, worlds, rng, deadline)
        if len(values[0]) >= 2:
            best = options[pick(values)]
    return Show(seat=obs.seat, cards=list(best)) if best else Pass(seat=obs.seat)


def evaluate(
    obs: Observation,
    options: list[Option],
    worlds: int,
    rng: random.Random,
    deadline: Deadline | None = None,
) -> list[list[float]]:
    """Per option, its value to the seat's team in each of ``worlds`` sampled worlds
    (fewer if ``deadline`` passes first)."""
    values: list[list[float]] = [[] for _ in options]
    know = None if obs.phase == "dealing" else knowledge(obs.ctx, obs)
    for _ in range(worlds):
        if passed(deadline):
            break
        if know is None:
            hands, future, kitty = deal_world(obs, rng)
        else:
            world = sample(obs.ctx, know, rng)
            world[obs.seat] = list(obs.hand)
            hands, future = world[:4], [[], [], [], []]
            kitty = list(obs.kitty) if obs.kitty is not None else world[KITTY]
        row = []
        for option in options:
            if passed(deadline):
                return values  # the world is dropped: not every option met it
            state = world_state(obs, hands, future, kitty)
            total, dealer = rollout(state, obs.seat, option, rng)
            attack = team_of(dealer) != team_of(obs.seat)
            row.append(total - PIVOT if attack else PIVOT - total)
        for i, v in enumerate(row):
            values[i].append(v)
    return values


def pick(values: list[list[float]]) -> int:
    """The option with the best mean if it beats option 0 (the heuristic's) by more than
    ``CONFIDENCE`` standard errors of the paired difference; else 0."""
    base = values[0]
    n = len(base)
    best, best_mean = 0, 0.0
    for i in range(1, len(values)):
        diffs = [v - b for v, b in zip(values[i], base, strict=True)]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / max(1, n - 1)
        if mean > best_mean and mean > CONFIDENCE * (var / n) ** 0.5:
            best, best_mean = i, mean
    return best


def deal_world(
    obs: Observation, rng: random.Random
) -> tuple[list[list[int]], list[list[int]], list[int]]:
    """While dealing: every other seat's cards so far, every seat's cards still to come
    (in dealing order) and the kitty, drawn from the cards this seat has not seen; shown
    cards stay with whoever showed them."""
    me = obs.seat
    unseen = Counter({c: 2 for c in range(NUM_DISTINCT)})
    unseen.subtract(obs.hand)
    hands: list[list[int]] = [[] for _ in range(4)]
    hands[me] = list(obs.hand)
    for seat, cards in obs.shows:
        if seat == me:
            continue
        for c, n in Counter(cards).items():
            for _ in range(n - hands[seat].count(c)):
                hands[seat].append(c)
                unseen[c] -= 1
    pool = [c for c in range(NUM_DISTINCT) for _ in range(unseen[c])]
    rng.shuffle(pool)
    for seat in range(4):
        if seat != me:
            k = obs.card_counts[seat] - len(hands[seat])
            hands[seat] += pool[:k]
            del pool[:k]
    future: list[list[int]] = []
    for seat in range(4):
        k = HAND_SIZE - obs.card_counts[seat]
        future.append(pool[:k])
        del pool[:k]
    assert len(pool) == KITTY_SIZE
    return hands, future, pool


def world_state(
    obs: Observation, hands: list[list[int]], future: list[list[int]], kitty: list[int]
) -> HandState:
    """The hand as it stands for ``obs``, with this world's hidden cards."""
    rules = obs.rules
    start = _deal_start(obs)
    left = [list(f) for f in future]
    deck = [0] * obs.dealt + [left[(start + i) % 4].pop(0) for i in range(obs.dealt, 100)]
    phase = obs.phase
    queue: list[int] = []
    buried_by = None
    if phase == "chaodi":
        overturns = [r.seat for r in obs.show_records if r.kind == "overturn"]
        buried_by = overturns[-1] if overturns else obs.dealer
        assert buried_by is not None and obs.turn is not None
        n = 3 if overturns else 4
        queue = [(buried_by + i) % 4 for i in range(1, n + 1)]
        queue = queue[queue.index(obs.turn) :]
    return HandState.model_construct(
        rules=rules,
        hand_number=obs.hand_number,
        seed=0,
        levels=list(obs.levels),
        level=obs.level,
        phase=phase,
        version=obs.version,
        deck=deck + list(kitty),
        deal_start=start,
        dealt=obs.dealt,
        hands=[list(h) for h in hands],
        kitty=list(kitty) if phase != "dealing" else [],
        declaring=declaring_of(obs, start),
        passes=list(obs.passed),
        queue=queue,
        turn=obs.turn,
        buried_by=buried_by,
        revealed_kitty=None,
        redeals=1,  # nobody redeals in a rollout (the heuristic never asks)
        chaodi_started=phase == "chaodi",
        tricks=[],
        trick_points=0,
        penalty=0,
        result=None,
        log=[],
    )


def _deal_start(obs: Observation) -> int:
    """Who was dealt the first card: seat 0 in hand 1, else the hand's own dealer (an
    attacker who declared under ``dealer_team`` took over only after the deal)."""
    if obs.hand_number == 1 or obs.dealer is None:
        return 0
    if obs.dealer_team_can_declare is False and any(
        r.seat == obs.dealer and r.kind == "declare" for r in obs.show_records
    ):
        return (obs.dealer + 1) % 4
    return obs.dealer


def declaring_of(obs: Observation, start: int) -> Declaring:
    """The declaring state, rebuilt from the public record of shows (made at the level of
    the team that dealt; the hand is then played at the dealer's team's)."""
    d = Declaring.start(obs.rules, obs.levels[team_of(start)], obs.hand_number, start)
    if obs.dealer_team_can_declare is not None:
        d.dealer_team_checked(obs.dealer_team_can_declare)
    for r in obs.show_records:
        window: Window = "after_deal" if obs.hand_number == 1 else "deal"
        if r.kind == "overturn" and obs.hand_number > 1:
            window = "chaodi" if obs.rules.later_overturn == "chaodi" else "after_deal"
        d.show(r.seat, r.cards, window)
    d.level = obs.level
    return d


def rollout(state: HandState, me: int, option: Option, rng: random.Random) -> tuple[int, int]:
    """Take ``option`` for ``me`` now, then play the hand out with the heuristic;
    (the attackers' final total, the dealer)."""
    if option:
        state.apply(Show(seat=me, cards=list(option)))
    elif state.phase != "dealing":
        state.apply(Pass(seat=me))
    quiet = me if not option else -1  # waiting: no more shows until the deal ends
    if state.phase == "dealing":
        _ask(state, range(me + 1, 4), quiet, rng)
    while state.phase != "playing":
        if state.phase == "dealing":
            state.apply(Deal(n=DEAL_STEP))
            _ask(state, range(4), quiet, rng)
            continue
        if state.phase == "after_deal":
            seat = next(s for s in range(4) if state.can_pass(s))
        else:
            assert state.turn is not None
            seat = state.turn
        state.apply(heuristic.choose_action(state.observation(seat), rng))
    dealer = state.dealer
    assert dealer is not None
    obs = state.observation(dealer)
    first = heuristic.suggest(obs, rng)
    hands = [list(h) for h in state.hands]
    total = playout(
        obs, hands, list(state.kitty), state.buried_by, first, heuristic.suggest, rng, (0, 0)
    )
    return total, dealer


def _ask(state: HandState, seats: range, quiet: int, rng: random.Random) -> None:
    """Offer each seat in turn a show while dealing (the heuristic's)."""
    for seat in seats:
        if seat == quiet or state.phase != "dealing":
            continue
        obs = state.observation(seat)
        if obs.show_options:
            action = heuristic.choose_action(obs, rng)
            if isinstance(action, Show):
                state.apply(action)
