"""Random legal players: they drive property tests and benchmarks.

They see only observations (the system's ``Deal`` aside) and sometimes try a
throw, so failed throws and penalties get exercised too.
"""

from __future__ import annotations

import random

from engine.hand import Action, Bury, Deal, HandState, Observation, Pass, Play, Show
from engine.tricks import random_follow, random_lead


def random_action(state: HandState, rng: random.Random) -> Action:
    """A random legal action for whoever must act now."""
    if state.phase == "dealing":
        seat = rng.randrange(4)
        options = state.show_options(seat)
        if options and rng.random() < 0.3:
            return Show(seat=seat, cards=rng.choice(options))
        return Deal(n=rng.choice((1, 4, 8, 12)))
    if state.phase == "after_deal":
        seats = [s for s in range(4) if state.can_pass(s)]
        seat = rng.choice(seats)
        return random_seat_action(state.observation(seat), rng)
    assert state.turn is not None
    return random_seat_action(state.observation(state.turn), rng)


def random_seat_action(obs: Observation, rng: random.Random) -> Action:
    seat = obs.seat
    if obs.phase in ("dealing", "after_deal", "chaodi"):
        if obs.show_options and rng.random() < 0.3:
            return Show(seat=seat, cards=rng.choice(obs.show_options))
        return Pass(seat=seat)
    if obs.phase == "burying":
        return Bury(seat=seat, cards=rng.sample(obs.hand, 8))
    return Play(seat=seat, cards=random_play(obs, rng))


def random_play(obs: Observation, rng: random.Random) -> list[int]:
    ctx = obs.ctx
    trick = obs.current_trick
    if trick is not None and trick.plays:
        return random_follow(ctx, trick.plays[0].cards, obs.hand, rng)
    if rng.random() < 0.15:
        # try a throw: a few cards of one suit class
        cls = ctx.suit_class[rng.choice(obs.hand)]
        same = [c for c in obs.hand if ctx.suit_class[c] == cls]
        if len(same) >= 2:
            return rng.sample(same, rng.randint(2, min(5, len(same))))
    return random_lead(ctx, obs.hand, rng)
