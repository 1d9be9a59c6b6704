"""The search player: determinised Monte Carlo over hidden hands (../shared/notes/computer-players.md).

For a play, it lists distinct candidate plays (every outcome class of a follow; for a
lead every pair and tractor, the highest and cheapest single of each suit class and
the heuristic's own lead, which may be a safe throw), samples worlds consistent with
what the seat has seen (:mod:`engine.players.worlds`), plays every candidate out in
every world with the heuristic for all four seats (:mod:`engine.players.playout`) and
picks the best mean of its team's points (the attackers' final total, or minus it) when
it beats the heuristic's own play by more than ``CONFIDENCE`` standard errors.
Worlds are weighted by how likely the other seats' plays in the current and the last
trick were under the heuristic (policy-based inference): a world in which the heuristic
would have played otherwise counts ``MISMATCH`` as much. With ``ducked`` below 100, over
the whole hand a world also counts ``ducked``/100 as much per card it gives a seat that
ducked a point trick the card would have won (:func:`engine.players.knowledge.ducked`;
off by default: it measured neutral, see ``bench/duplicate_eval.py``). With ``withheld``
below 100, likewise per point card it gives a seat that, last to a trick its partner had
won, gave no points (:func:`engine.players.knowledge.withheld`; off by default until
measured). With ``halving=1`` the candidates are pruned by successive halving (as the
search bury's): after each round the worse half by weighted mean goes, the heuristic's
own play stays, and the rest of the budget samples new worlds for those still in (at
300 ms: 80 worlds a decision instead of 36 for the same CPU, ``bench/bench_search.py
--halving 1``). It is off by default: neutral at the default budget (+1.27 ± 7.22 points
per deal pair, 200 pairs; ``bench/duplicate_eval.py``). ``halving=2`` takes fewer rounds
where the budget cannot give every candidate 2 worlds in each (measured neutral against
``halving=1`` at 50 ms). ``tricks`` is how many recent tricks weigh a world (tuned with
CONFIDENCE and MISMATCH on kept-apart seeds: the defaults stay).

The budget is work, not wall time: ``budget_ms`` buys ``budget_ms * PLAYS_PER_MS``
simulated plays (measured with ``bench/bench_search.py``: the CPU time of today's
plays at 300 ms is what 32 plays a millisecond cost before the playouts got faster,
so the same budget now buys about 1.4 times the worlds), so a decision is
a function of the observation and the random stream alone: reproducible, and blind
to hidden cards (a loaded machine thinks longer, not less). Forced plays skip the
search, and so do choices between single cards that nothing still in play can tell
apart (:func:`~engine.players.candidates.interchangeable`). The bury is searched
(:mod:`engine.players.bury`, which thinks ``bury.BURY_SCALE`` budgets, of ``bury_ms`` if
given; ``bury=0``: the heuristic's bury), and so are declaring, overturning and 炒底
(:mod:`engine.players.declare`, with the same budget a decision; ``declare=0``: the
heuristic's). Each part was measured alone against the heuristic's before it became
the default (``bench/duplicate_eval.py``).

Endgames (no hand holds more than ``ENDGAME_CARDS``) compare every legal play and solve
each sampled world exactly (:mod:`engine.players.endgame`) instead of playing it out;
worlds are drawn until the solvers have visited the budget's worth of positions
(``NODES_PER_PLAY`` positions cost about one simulated play). Each of the first two worlds
gets half of those positions at most; an endgame too big for that is played out as
earlier in the hand (at 50 ms a solve of two whole worlds took 84 ms median, 278 ms p95).

A decision may also be given a wall-clock :class:`~engine.players.deadline.Deadline`
(the bot does, on a loaded host): every search then stops at its budget of work or at
the deadline, whichever comes first, and decides from the worlds it has met
(:mod:`engine.players.deadline`). Without one the decision is as described above.
"""

from __future__ import annotations

import random
from collections import Counter

from engine.hand import Action, Bury, Observation, Play, team_of
from engine.players import declare, heuristic
from engine.players.bury import BURY_SCALE, search_bury
from engine.players.candidates import (
    cost,
    distinct_in_effect,
    follow_candidates,
    is_special,
    lead_candidates,
)
from engine.players.deadline import Deadline, OutOfTime, passed
from engine.players.endgame import Solver, TooBig, plays_for
from engine.players.knowledge import ducked, played_cards, withheld
from engine.players.paired import choose
from engine.players.playout import SimPlay, SimTrick, playout, seat_view, totals_so_far
from engine.players.worlds import KITTY, knowledge, sample
from engine.ranking import TRUMP
from engine.reasons import Reason, odds

DEFAULT_BUDGET_MS = 300
PLAYS_PER_MS = 44  # simulated plays per CPU millisecond of one core (bench/bench_search.py)
MAX_CANDIDATES = 10
MISMATCH = 0.5  # weight of a world per observed play the heuristic would not have made
WEIGHTED_TRICKS = 2  # the current trick and the last finished one
CONFIDENCE = 1.0  # standard errors by which a candidate must beat the heuristic's play
DUCKED = 1.0  # weight of a world per card it gives a seat that ducked a trick it would win
WITHHELD = 1.0  # weight per point card it gives a seat that gave its partner's trick none
ENDGAME_CARDS = 4  # solve each world exactly once no hand holds more cards than this
NODES_PER_PLAY = 2  # solver positions that cost about one simulated play


class SearchPlayer:
    """``(observation, rng) -> action``; picklable, so it can run in a process pool."""

    def __init__(
        self,
        budget_ms: int = DEFAULT_BUDGET_MS,
        max_worlds: int = 200,
        weighting: bool = True,
        endgame: int = ENDGAME_CARDS,
        declare: int = 1,
        cardplay: int = 1,
        bury: int = 1,
        bury_ms: int = 0,
        declare_ms: int = 0,
        mismatch: int = round(MISMATCH * 100),
        confidence: int = round(CONFIDENCE * 100),
        ducked: int = round(DUCKED * 100),
        withheld: int = round(WITHHELD * 100),
        halving: int = 0,
        tricks: int = WEIGHTED_TRICKS,
    ) -> None:
        self.budget_ms = budget_ms
        self.max_worlds = max_worlds
        self.weighting = weighting
        self.endgame = endgame  # 0: play endgames out with the heuristic too
        self.declare = declare  # 1: declare, overturn and 炒底 by search (engine.players.declare)
        self.cardplay = cardplay  # 0: play cards with the heuristic (to measure the other parts)
        self.bury = bury  # 1: bury by search (engine.players.bury)
        self.bury_ms = bury_ms or budget_ms  # the bury's budget (0: the card play's)
        self.declare_ms = declare_ms or budget_ms  # declaring's budget (0: the card play's)
        # inference and confidence, in hundredths (duplicate_eval's specs take integers)
        self.mismatch = mismatch / 100
        self.confidence = confidence / 100
        self.ducked = ducked / 100  # 1.0: the ducking inference off
        self.withheld = withheld / 100  # 1.0: the point-signal inference off
        # 1: successive halving of the candidates (neutral at 300 ms: off); 2: as 1, with
        # fewer rounds where the budget cannot give every candidate 2 worlds in each
        self.halving = halving
        self.tricks = tricks  # the recent tricks whose plays weight a world

    def __repr__(self) -> str:
        return f"SearchPlayer(budget_ms={self.budget_ms})"

    def __call__(
        self, obs: Observation, rng: random.Random, deadline: Deadline | None = None
    ) -> Action:
        """The seat's action; with a ``deadline``, searched until the budget's work is
        done or the deadline has passed, whichever comes first."""
        if obs.phase in declare.PHASES and self.declare:
            plays = self.declare_ms * PLAYS_PER_MS * declare.BUDGET_FACTOR
            return declare.choose(obs, rng, plays, self.max_worlds, deadline)
        if obs.phase == "burying" and self.bury:
            cards = search_bury(obs, rng, self.bury_ms, PLAYS_PER_MS, deadline)
            return Bury(seat=obs.seat, cards=cards)
        if obs.phase != "playing" or not self.cardplay:
            return heuristic.choose_action(obs, rng)
        cards, reason = self.play_reasoned(obs, rng, deadline)
        return Play(seat=obs.seat, cards=cards, reason=reason)

    def work_ms(self, obs: Observation) -> float:
        """The budget of the decision ``obs`` asks for, in milliseconds of work (what a
        wall-clock ceiling is measured against); 0 for what the heuristic decides."""
        if obs.phase in declare.PHASES and self.declare:
            return self.declare_ms * declare.BUDGET_FACTOR if obs.show_options else 0.0
        if obs.phase == "burying" and self.bury:
            return self.bury_ms * BURY_SCALE
        if obs.phase == "playing" and self.cardplay:
            return float(self.budget_ms)
        return 0.0

    def play(
        self, obs: Observation, rng: random.Random, deadline: Deadline | None = None
    ) -> list[int]:
        return self.play_reasoned(obs, rng, deadline)[0]

    def play_reasoned(
        self, obs: Observation, rng: random.Random, deadline: Deadline | None = None
    ) -> tuple[list[int], Reason]:
        """The play and why (:mod:`engine.reasons`): the odds the search computed for it
        and its runner-up, or the heuristic's rule where nothing was searched."""
        own, because = heuristic.suggest_reasoned(obs, rng)
        if max(obs.card_counts) <= self.endgame:
            solved = self.solve(obs, own, rng, deadline, because)
            if solved is not None:
                return solved  # else too big to solve twice in the budget: played out
        cands = candidates(obs, own, rng)
        if len(cands) == 1:
            return cands[0], because
        cands = distinct_in_effect(obs.ctx, obs.hand, gone(obs), cands)
        if len(cands) == 1:
            return own, because
        remaining = sum(obs.card_counts)
        evaluations = self.budget_ms * PLAYS_PER_MS // remaining  # candidate playouts
        rounds = max(1, (len(cands) - 1).bit_length()) if self.halving else 1
        while self.halving == 2 and rounds > 1 and evaluations // rounds // len(cands) < 2:
            rounds -= 1  # fewer rounds rather than no search: 2 worlds a candidate first
        if min(self.max_worlds, evaluations // rounds // len(cands)) < 2:
            return own, because
        ctx = obs.ctx
        know = knowledge(ctx, obs)
        ducks = ducked(ctx, obs)
        holds = withheld(ctx, obs) if self.withheld != 1.0 else None
        base = totals_so_far(obs)
        burier = obs.seat if obs.kitty is not None else obs.dealer
        sign = 1 if obs.dealer is None or team_of(obs.seat) != team_of(obs.dealer) else -1
        values: list[list[float]] = [[] for _ in cands]
        outcomes: list[list[tuple[bool, int]]] = [[] for _ in cands]  # the trick, per world
        weights: list[float] = []
        alive = list(range(len(cands)))
        for r in range(rounds):
            worlds = min(self.max_worlds - len(weights), evaluations // rounds // len(alive))
            for _ in range(worlds):
                if passed(deadline):
                    break
                world = sample(ctx, know, rng)
                world[obs.seat] = list(obs.hand)
                kitty = world[KITTY] if obs.kitty is None else list(obs.kitty)
                row = []
                told: list[tuple[bool, int]] = []  # the trick's outcome, per candidate
                for i in alive:
                    if passed(deadline):
                        break  # the world is dropped: not every candidate met it
                    hands = [list(h) for h in world[:4]]
                    total = playout(
                        obs,
                        hands,
                        kitty,
                        burier,
                        cands[i],
                        heuristic.suggest,
                        rng,
                        base,
                        told,
                    )
                    row.append(sign * total)
                if len(row) < len(alive):
                    break
                weights.append(self.weight(obs, world, ducks, holds))
                for i, v, outcome in zip(alive, row, told, strict=True):
                    values[i].append(v)
                    outcomes[i].append(outcome)
            if passed(deadline):
                break
            if r < rounds - 1:
                # successive halving: the worse half by weighted mean goes (the heuristic's
                # own play, 0, stays), the budget left goes to those still in
                ranked = sorted(alive[1:], key=lambda i: -_mean(values[i], weights))
                alive = [0, *ranked[: max(1, len(ranked) // 2)]]
        if len(values[0]) < 2:
            return own, because  # the deadline came before two worlds
        # the candidates still in met the same worlds (a deadline stops between worlds)
        pick = alive[choose([values[i] for i in alive], weights, self.confidence)]
        second = _runner_up(values, weights, alive, pick)
        reason = Reason(
            kind="search",
            attacking=sign == 1,
            trumps=_leads_trumps(obs, cands[pick]),
            control=second is not None and _keeps_control(obs, cands[pick], cands[second]),
            best=odds(values[pick], weights, sign, outcomes[pick]),
            runner_up=None
            if second is None
            else odds(values[second], weights, sign, outcomes[second]),
        )
        return cands[pick], reason

    def weight(
        self,
        obs: Observation,
        world: list[list[int]],
        ducks: list[set[int]],
        holds: list[set[int]] | None = None,
    ) -> float:
        """How much a sampled world counts: the policy likelihood of the recent plays,
        times ``ducked`` per card held by a seat that ducked a trick it would have won,
        times ``withheld`` per point card held by a seat that gave its partner's won trick
        no points (:func:`engine.players.knowledge.withheld`)."""
        w = likelihood(obs, world, self.mismatch, self.tricks) if self.weighting else 1.0
        for seat, cards in enumerate(ducks):
            if cards:
                w *= self.ducked ** len(cards.intersection(world[seat]))
        for seat, cards in enumerate(holds or ()):
            if cards:
                w *= self.withheld ** len(cards.intersection(world[seat]))
        return w

    def solve(
        self,
        obs: Observation,
        own: list[int],
        rng: random.Random,
        deadline: Deadline | None = None,
        because: Reason | None = None,
    ) -> tuple[list[int], Reason] | None:
        """The endgame: every legal play, each world solved exactly (:mod:`.endgame`);
        worlds are drawn until the solvers have spent the budget (or the deadline has
        passed: a world being solved then is dropped). Each of the first two worlds may
        take half the budget's positions, a later one what is left; None if the first two
        do not fit (the caller plays the endgame out instead): the solvers' work stays
        within the budget. ``because``: the heuristic's reason for ``own``, kept when
        there is nothing to compare."""
        trick = obs.current_trick
        so_far = [(p.seat, tuple(p.cards)) for p in trick.plays] if trick else []
        lead = so_far[0][1] if so_far else None
        out = {tuple(sorted(own)): own}
        for play in plays_for(obs.ctx, tuple(sorted(obs.hand)), lead):
            out.setdefault(play, list(play))
        cands = distinct_in_effect(obs.ctx, obs.hand, gone(obs), list(out.values()))
        because = because or heuristic.rule_reason(obs, own, "only_play")
        if len(cands) == 1:
            return own, because
        assert obs.dealer is not None  # cards are played only once there is a dealer
        know = knowledge(obs.ctx, obs)
        ducks = ducked(obs.ctx, obs)
        holds = withheld(obs.ctx, obs) if self.withheld != 1.0 else None
        points, penalty = totals_so_far(obs)
        sign = 1 if team_of(obs.seat) != team_of(obs.dealer) else -1
        budget = self.budget_ms * PLAYS_PER_MS * NODES_PER_PLAY
        values: list[list[float]] = [[] for _ in cands]
        weights: list[float] = []
        nodes = 0
        while len(weights) < 2 or (nodes < budget and len(weights) < self.max_worlds):
            if passed(deadline):
                break
            world = sample(obs.ctx, know, rng)
            world[obs.seat] = list(obs.hand)
            kitty = world[KITTY] if obs.kitty is None else list(obs.kitty)
            limit = budget // 2 if len(weights) < 2 else budget - nodes
            solver = Solver(obs.ctx, obs.rules, kitty, team_of(obs.dealer), deadline, limit)
            hands = [tuple(sorted(h)) for h in world[:4]]
            try:
                row = [solver.value(hands, so_far, obs.seat, tuple(cand)) for cand in cands]
            except OutOfTime:
                break
            except TooBig:
                if len(weights) < 2:
                    return None
                break
            weights.append(self.weight(obs, world, ducks, holds))
            for i, rest in enumerate(row):
                values[i].append(sign * max(0, points + penalty + rest))
            nodes += solver.nodes
        if len(weights) < 2:
            return own, because  # the deadline came before two worlds were solved
        pick = choose(values, weights, self.confidence)
        second = _runner_up(values, weights, list(range(len(cands))), pick)
        reason = Reason(
            kind="endgame",
            attacking=sign == 1,
            trumps=_leads_trumps(obs, cands[pick]),
            control=second is not None and _keeps_control(obs, cands[pick], cands[second]),
            best=odds(values[pick], weights, sign),
            runner_up=None if second is None else odds(values[second], weights, sign),
        )
        return cands[pick], reason


def gone(obs: Observation) -> list[int]:
    """Per card id, the copies out of play for this seat: played, or buried by it."""
    out = [0] * 54
    for c, n in played_cards(obs).items():
        out[c] += n
    for c in obs.kitty or ():
        out[c] += 1
    return out


def _runner_up(
    values: list[list[float]], weights: list[float], alive: list[int], pick: int
) -> int | None:
    """The candidate still in with the best weighted mean after ``pick`` (None: no other)."""
    others = [i for i in alive if i != pick]
    return max(others, key=lambda i: _mean(values[i], weights)) if others else None


def _leads_trumps(obs: Observation, play: list[int]) -> bool:
    """Whether ``play`` is a lead of trumps (it draws the others' trumps)."""
    trick = obs.current_trick
    leading = trick is None or not trick.plays
    return leading and all(obs.ctx.suit_class[c] == TRUMP for c in play)


def _keeps_control(obs: Observation, play: list[int], other: list[int]) -> bool:
    """Whether ``play`` keeps back a joker or level card that ``other`` would spend."""
    spent = [c for c in other if is_special(obs.ctx, c)]
    return bool(spent) and not any(is_special(obs.ctx, c) for c in play)


def _mean(values: list[float], weights: list[float]) -> float:
    """The weighted mean of a candidate's values over the worlds it met (the first ones)."""
    met = weights[: len(values)]
    return sum(w * v for w, v in zip(met, values, strict=True)) / sum(met)


def candidates(obs: Observation, own: list[int], rng: random.Random) -> list[list[int]]:
    """Distinct plays worth comparing, the heuristic's own first (it wins ties)."""
    ctx = obs.ctx
    trick = obs.current_trick
    out: dict[tuple[int, ...], list[int]] = {tuple(sorted(own)): own}
    if trick is not None and trick.plays:
        follows = follow_candidates(ctx, trick.plays[0].cards, obs.hand, rng)
        for play in follows:
            out.setdefault(tuple(sorted(play)), play)
        return list(out.values())[: MAX_CANDIDATES + 4]
    dear = cost(ctx, obs.hand)
    units = lead_candidates(ctx, obs.hand)
    multi = sorted((u for u in units if u.pairs), key=lambda u: (-u.pairs, -u.top))
    singles: dict[int, list[int]] = {}
    for u in units:
        if not u.pairs:
            singles.setdefault(ctx.suit_class[u.cards[0]], []).append(u.cards[0])
    for u in multi:
        out.setdefault(tuple(sorted(u.cards)), list(u.cards))
    # per class, off-suits first: the highest single and the cheapest
    for klass in sorted(singles, key=lambda k: k == TRUMP):
        cs = singles[klass]
        for c in (max(cs, key=ctx.order.__getitem__), min(cs, key=dear.__getitem__)):
            out.setdefault((c,), [c])
    return list(out.values())[:MAX_CANDIDATES]


def likelihood(
    obs: Observation,
    world: list[list[int]],
    mismatch: float = MISMATCH,
    tricks: int = WEIGHTED_TRICKS,
) -> float:
    """How likely the other seats' plays in the last ``tricks`` tricks (the current one
    counting) were under the heuristic, in this world."""
    weight = 1.0
    recent = obs.tricks[-tricks:]
    first = len(obs.tricks) - len(recent)
    # each seat's hand before the recent plays: its cards now plus what it played since
    back: list[Counter[int]] = [Counter(h) for h in world[:4]]
    for t in recent:
        for p in t.plays:
            back[p.seat].update(p.cards)
    rng = random.Random(0)
    for n, t in enumerate(recent):
        for j, p in enumerate(t.plays):
            if p.seat != obs.seat and j > 0 and len(p.cards) <= 2:
                hand = sorted(back[p.seat].elements())
                past = _past(obs, first + n, j, p.seat, hand)
                if sorted(heuristic.suggest(past, rng)) != sorted(p.cards):
                    weight *= mismatch
            back[p.seat].subtract(p.cards)
    return weight


def _past(obs: Observation, index: int, plays: int, seat: int, hand: list[int]) -> Observation:
    """The view ``seat`` had before its play in trick ``index`` (after ``plays`` plays)."""
    t = obs.tricks[index]
    tricks = [
        *obs.tricks[:index],
        SimTrick(t.leader, [SimPlay(p.seat, p.cards) for p in t.plays[:plays]]),
    ]
    return seat_view(obs, seat, hand, obs.card_counts, tricks, None, None)
