"""The simple player: a yardstick for the heuristic (duplicate evaluation only).

It follows cheaply (the cheapest legal follow, points kept back), dumps its lowest
card without points when it cannot follow, and leads its highest side card (its
lowest trump when it holds only trumps). It declares and buries like the heuristic,
so that a comparison measures card play.
"""

from __future__ import annotations

import random

from engine.hand import Action, Observation, Play
from engine.players.candidates import cost, follow_candidates
from engine.players.heuristic import choose_action
from engine.ranking import TRUMP


def simple_action(obs: Observation, rng: random.Random) -> Action:
    if obs.phase != "playing":
        return choose_action(obs, rng)
    return Play(seat=obs.seat, cards=simple_play(obs, rng))


def simple_play(obs: Observation, rng: random.Random) -> list[int]:
    ctx = obs.ctx
    hand = obs.hand
    trick = obs.current_trick
    assert trick is not None
    if trick.plays:
        dear = cost(ctx, hand)
        follows = follow_candidates(ctx, trick.plays[0].cards, hand, rng)
        return min(follows, key=lambda play: sorted((dear[c] for c in play), reverse=True))
    side = [c for c in hand if ctx.suit_class[c] != TRUMP]
    if side:
        return [max(side, key=lambda c: (ctx.order[c], -c))]
    return [min(hand, key=lambda c: (ctx.order[c], c))]
