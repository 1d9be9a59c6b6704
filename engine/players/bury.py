"""The search bury: which 8 cards go into the kitty, chosen by sampling the unseen cards.

The heuristic buries by rule (:func:`~engine.players.heuristic.choose_bury`: void short
off-suits when it costs little, else cheap off-suit cards). A bad bury costs the kitty at
×2-×4 when the attackers win the last trick, and a good one makes voids to ruff with, so
here the burier compares a few distinct buries (:func:`candidates`: the heuristic's
first, then voids in one or two off-suits, points kept or buried, pairs kept, trumps
kept or not) by playing the hand out: the other three hands are drawn from the cards the
burier has not seen (:mod:`engine.players.worlds`, shown cards stay with whoever showed
them), and the heuristic plays all four seats (:mod:`engine.players.playout`). Every
candidate meets the same worlds. The value of a world is the burier's team's result:
minus the attackers' total (trick points, throw penalties and the kitty bonus at its
multiplier) plus ``LEVEL_POINTS`` per level the team climbs over the other (the level
table, :func:`~engine.scoring.hand_outcome`), so thresholds such as 80 count.

Candidates are pruned by successive halving: after each round the worse half of those
left is dropped (the heuristic's bury always stays, as the reference), so the budget
goes to the buries worth telling apart. Another bury is chosen only when it beats the
heuristic's by more than ``CONFIDENCE`` standard errors of the paired difference
(:func:`engine.players.paired.choose`).

The budget is work, not wall time: ``budget_ms * BURY_SCALE * PLAYS_PER_MS`` simulated
plays (the card-play search's unit), so a bury is a function of the observation and the
random stream alone: reproducible and blind to hidden cards. The search draws from a copy
of the seat's stream (the stream itself is not advanced), so the card play after it meets
the same random numbers as after a heuristic bury. At the default budget (300 ms) that is
about 200 full playouts, p50 0.75 s and p95 0.95 s of CPU a bury (60 buries, a loaded
2-core machine). Alone against the heuristic's bury, card play by the heuristic on both
sides: +4.0 ± 1.9 points and +0.10 ± 0.05 levels per deal pair over 600 pairs (figures
in ``bench/duplicate_eval.py``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from engine.cards import POINTS
from engine.hand import Observation, team_of
from engine.players import heuristic
from engine.players.deadline import Deadline, passed
from engine.players.paired import choose
from engine.players.playout import playout, seat_view
from engine.players.worlds import KITTY, knowledge, sample
from engine.ranking import TRUMP
from engine.scoring import DEFENDERS, climb, hand_outcome

BURY_SCALE = 1.5  # the bury's budget, in card-play decisions' worth of work
LEVEL_POINTS = 20  # value of one level gained over the other team, in points
CONFIDENCE = 1.0  # standard errors by which a bury must beat the heuristic's
MAX_CANDIDATES = 12
KITTY_CARDS = 8

Key = Callable[[int], tuple[int, ...]]


def search_bury(
    obs: Observation,
    rng: random.Random,
    budget_ms: int,
    plays_per_ms: int,
    deadline: Deadline | None = None,
) -> list[int]:
    """The bury for ``obs.seat`` (in the bury phase), searched with ``budget_ms`` of work
    (or until ``deadline``, between two worlds)."""
    own = heuristic.choose_bury(obs)
    cands = candidates(obs, own)
    if len(cands) == 1:
        return own
    hand_size = len(obs.hand) - KITTY_CARDS
    playouts = int(budget_ms * BURY_SCALE * plays_per_ms) // (4 * hand_size)
    stream = random.Random()
    stream.setstate(rng.getstate())  # a copy: the seat's own stream is not advanced
    values = evaluate(obs, cands, playouts, stream, deadline)
    if values is None or len(values[0]) < 2:
        return own
    alive = [i for i, v in enumerate(values) if len(v) == len(values[0])]
    pick = choose([values[i] for i in alive], [1.0] * len(values[0]), CONFIDENCE)
    return cands[alive[pick]]


def evaluate(
    obs: Observation,
    cands: list[list[int]],
    playouts: int,
    rng: random.Random,
    deadline: Deadline | None = None,
) -> list[list[float]] | None:
    """Per candidate, its value in each world it met (successive halving: the
    candidates still in at the end met every world); None if the budget buys < 2 worlds.
    Past ``deadline`` no more worlds are drawn."""
    n = len(cands)
    rounds = max(1, (n - 1).bit_length())
    alive = list(range(n))
    # worlds per round so that the rounds share the playouts evenly
    per_round = playouts // rounds
    if per_round // n < 2:
        return None
    ctx = obs.ctx
    know = knowledge(ctx, obs)
    know.room[KITTY] = 0  # the burier holds the kitty
    assert obs.dealer is not None
    dealer = obs.dealer
    defenders = team_of(dealer)
    sign = 1 if team_of(obs.seat) == defenders else -1
    level_of: dict[int, float] = {}

    def result(total: int) -> float:
        """The burier's team's value of the attackers' total ``total``."""
        v = level_of.get(total)
        if v is None:
            side, steps = hand_outcome(obs.rules, total)
            if side == DEFENDERS:
                gained = climb(obs.rules, obs.level, steps)
            else:
                gained = -climb(obs.rules, obs.levels[1 - defenders], steps, defended=False)
            v = level_of[total] = -total + LEVEL_POINTS * gained
        return sign * v

    kept = [[c for c in obs.hand] for _ in cands]
    for i, cand in enumerate(cands):
        for c in cand:
            kept[i].remove(c)
    counts = [
        len(obs.hand) - KITTY_CARDS if s == obs.seat else obs.card_counts[s] for s in range(4)
    ]
    values: list[list[float]] = [[] for _ in cands]
    for r in range(rounds):
        for _ in range(per_round // len(alive)):
            if passed(deadline):
                return values
            world = sample(ctx, know, rng)
            seed = rng.getrandbits(32)  # every candidate's playout meets the same tie-breaks
            row = []
            for i in alive:
                if passed(deadline):
                    return values  # the world is dropped: not every candidate met it
                play_rng = random.Random(seed)
                hands = [list(h) for h in world[:4]]
                hands[obs.seat] = list(kept[i])
                view = seat_view(obs, dealer, hands[dealer], list(counts), [], cands[i], obs.seat)
                first = heuristic.suggest(view, play_rng)
                total = playout(
                    view, hands, cands[i], obs.seat, first, heuristic.suggest, play_rng, (0, 0)
                )
                row.append(result(total))
            for i, v in zip(alive, row, strict=True):
                values[i].append(v)
        if r < rounds - 1:
            # drop the worse half (by mean so far); the heuristic's bury (0) stays
            ranked = sorted(alive[1:], key=lambda i: -sum(values[i]) / len(values[i]))
            alive = [0, *ranked[: max(1, len(ranked) // 2)]]
    return values


def candidates(obs: Observation, own: list[int]) -> list[list[int]]:
    """Distinct buries worth comparing, the heuristic's first.

    Each variant is a set of off-suits to bury whole (none, or one or two that fit in
    the kitty) filled up by an order of preference: the heuristic's (off-suit, no points,
    no pairs, not the suit's top, short suits, low), points first (for a hand that
    expects to win the last trick), pairs and tops kept at any price, or trumps allowed
    in place of off-suit points and pairs.
    """
    ctx = obs.ctx
    hand = obs.hand
    counts = Counter(hand)
    by_class = Counter(ctx.suit_class[c] for c in hand)

    def top(c: int) -> bool:
        return ctx.order[c] >= ctx.class_top[ctx.suit_class[c]] - 1

    def trump(c: int) -> bool:
        return ctx.suit_class[c] == TRUMP

    def base(c: int) -> tuple[int, ...]:
        return (
            trump(c),
            POINTS[c] > 0,
            counts[c] > 1,
            top(c),
            by_class[ctx.suit_class[c]],
            ctx.order[c],
        )

    def points_first(c: int) -> tuple[int, ...]:
        return (
            trump(c),
            counts[c] > 1,
            top(c),
            -POINTS[c],
            by_class[ctx.suit_class[c]],
            ctx.order[c],
        )

    def keep_shape(c: int) -> tuple[int, ...]:
        return (
            trump(c),
            counts[c] > 1,
            top(c),
            POINTS[c] > 0,
            by_class[ctx.suit_class[c]],
            ctx.order[c],
        )

    def low_trumps(c: int) -> tuple[int, ...]:
        # a low single trump is cheaper than an off-suit point, pair or top card
        high = trump(c) and ctx.order[c] >= ctx.class_top[TRUMP] - 5
        dear = POINTS[c] > 0 or counts[c] > 1 or top(c) or high
        return (dear, trump(c), by_class[ctx.suit_class[c]], ctx.order[c])

    keys: list[Key] = [base, points_first, keep_shape, low_trumps]
    classes = sorted({ctx.suit_class[c] for c in hand} - {TRUMP})
    void_sets: list[frozenset[int]] = [frozenset()]
    for i, a in enumerate(classes):
        if by_class[a] <= KITTY_CARDS:
            void_sets.append(frozenset({a}))
        for b in classes[i + 1 :]:
            if by_class[a] + by_class[b] <= KITTY_CARDS:
                void_sets.append(frozenset({a, b}))
    out: dict[tuple[int, ...], list[int]] = {tuple(sorted(own)): own}
    # the cheapest voids first, so the cap keeps the likeliest
    void_sets.sort(key=lambda s: (len(s) != 1, sum(by_class[k] for k in s)))
    for key in keys:
        for voids in void_sets:
            bury = fill(hand, voids, key, ctx.suit_class)
            out.setdefault(tuple(sorted(bury)), bury)
    return list(out.values())[:MAX_CANDIDATES]


def fill(
    hand: list[int], voids: frozenset[int], key: Key, suit_class: tuple[int, ...]
) -> list[int]:
    """Every card of the ``voids`` classes, then the rest by ``key`` up to 8 cards."""
    bury = [c for c in hand if suit_class[c] in voids]
    rest = sorted((c for c in hand if suit_class[c] not in voids), key=key)
    return bury + rest[: KITTY_CARDS - len(bury)]
