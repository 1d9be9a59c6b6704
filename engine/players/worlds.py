"""Sampled worlds: hidden hands consistent with everything one seat has seen.

A *world* gives every other seat a hand of its known size and (when the seat
did not bury it) the kitty 8 cards, drawn from the cards the seat has not seen,
such that:

- a seat known to be void in a suit class gets none of it (8.1: it did not follow);
- a seat known to hold no pair of a class gets no two equal cards of it (it did not
  match pairs it was led);
- cards shown when declaring stay with whoever showed them until played (or in the
  kitty, if that seat buried after showing);
- the kitty is known to whoever buried it, and the kitty shown when nobody declared
  went to the dealer's hand (or back into the kitty).

Only the :class:`~engine.hand.Observation` is read, so nothing here depends on cards
the seat may not see. Cards are placed most-constrained first, each to a location
drawn in proportion to the room left; a dead end retries, then drops the pair
constraint, then the voids (a world is always produced).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from engine.cards import KITTY_SIZE, NUM_DISTINCT
from engine.hand import Observation
from engine.players.knowledge import inferences, played_cards
from engine.ranking import TrumpContext

KITTY = 4  # the kitty's index among the locations (seats are 0..3)
TRIES = 12


@dataclass(slots=True)
class Knowledge:
    """What one seat knows about the hidden cards (computed once per decision)."""

    seat: int
    pool: list[int]  # unseen cards, with multiplicity
    room: list[int]  # per location (4 seats + kitty): how many hidden cards it holds
    voids: list[set[int]]
    no_pairs: list[set[int]]
    held: list[Counter[int]]  # per location: cards known to be there (shown, not played)
    may_bury: set[int]  # seats whose shown cards may have gone into the kitty


def knowledge(ctx: TrumpContext, obs: Observation) -> Knowledge:
    me = obs.seat
    unseen = Counter({c: 2 for c in range(NUM_DISTINCT)})
    unseen.subtract(obs.hand)
    played = played_cards(obs)
    unseen.subtract(played)
    kitty_known = obs.kitty is not None
    if kitty_known:
        unseen.subtract(obs.kitty or ())
    pool = sorted(c for c, n in unseen.items() for _ in range(max(0, n)))
    room = [0 if s == me else obs.card_counts[s] for s in range(4)]
    room.append(0 if kitty_known or obs.phase == "done" else KITTY_SIZE)
    voids, no_pairs = inferences(ctx, obs)
    # what each seat played since declaring (so its shown cards still held are known)
    by_seat: list[Counter[int]] = [Counter() for _ in range(4)]
    for t in obs.tricks:
        for p in t.plays:
            by_seat[p.seat].update(p.cards)
    shown: list[Counter[int]] = [Counter() for _ in range(5)]
    for seat, cards in obs.shows:
        for c, n in Counter(cards).items():
            shown[seat][c] = max(shown[seat][c], n)
    if obs.revealed_kitty and obs.dealer is not None:
        for c, n in Counter(obs.revealed_kitty).items():
            shown[obs.dealer][c] = max(shown[obs.dealer][c], n)
    held: list[Counter[int]] = [Counter() for _ in range(5)]
    left = Counter(pool)
    for seat in range(4):
        if seat == me:
            continue
        for c, n in shown[seat].items():
            k = min(n - by_seat[seat][c], left[c])
            if k > 0:
                held[seat][c] = k
                left[c] -= k
    may_bury = {obs.dealer} if obs.dealer is not None else set()
    if obs.hand_number > 1 and obs.rules.later_overturn == "chaodi":
        may_bury |= {s for s, _ in obs.shows}
    return Knowledge(me, pool, room, voids, no_pairs, held, may_bury)


def sample(ctx: TrumpContext, k: Knowledge, rng: random.Random) -> list[list[int]]:
    """Hidden hands for the 3 other seats and the kitty (index 4); the seat's own is empty."""
    for strict in (2, 2, 1, 0):
        for _ in range(TRIES if strict == 2 else 3):
            world = _try(ctx, k, rng, strict)
            if world is not None:
                return world
    raise AssertionError("unreachable: without constraints every placement fits")


def _try(
    ctx: TrumpContext, k: Knowledge, rng: random.Random, strict: int
) -> list[list[int]] | None:
    cls = ctx.suit_class
    hands: list[list[int]] = [[], [], [], [], []]
    room = list(k.room)
    rest = Counter(k.pool)
    # shown cards first: with their seat, or (if it may have buried them) maybe the kitty
    for loc in range(4):
        for c, n in k.held[loc].items():
            for _ in range(n):
                if room[loc] > 0:
                    where = loc
                elif room[KITTY] > 0 and loc in k.may_bury:
                    where = KITTY
                else:
                    continue
                hands[where].append(c)
                room[where] -= 1
                rest[c] -= 1
    cards = [c for c, n in rest.items() for _ in range(n)]
    rng.shuffle(cards)

    def allowed(c: int, loc: int) -> bool:
        if room[loc] <= 0:
            return False
        if loc == KITTY or strict == 0:
            return True
        if cls[c] in k.voids[loc]:
            return False
        return strict < 2 or cls[c] not in k.no_pairs[loc] or c not in hands[loc]

    def options(c: int) -> int:
        return sum(1 for loc in range(5) if allowed(c, loc))

    cards.sort(key=options)  # most constrained first (a stable sort keeps the shuffle)
    for c in cards:
        locs = [loc for loc in range(5) if allowed(c, loc)]
        if not locs:
            return None
        total = sum(room[loc] for loc in locs)
        pick = rng.randrange(total)
        for loc in locs:
            pick -= room[loc]
            if pick < 0:
                break
        hands[loc].append(c)
        room[loc] -= 1
    return hands
