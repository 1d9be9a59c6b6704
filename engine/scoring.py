"""Points, kitty bonus, level tables, next dealer, match end (RULES.md sections 9, 10, 11).

Everything here is a pure function of the rule set and a few numbers.

Decisions the rule book leaves open (**[decided]** here):

- Points are multiples of 5 in play; a table row starts at its lowest listed
  total and runs up to the next row, so an odd total falls in the row below.
  Negative totals count as 0.
- The throw-penalty clamp is applied once, to the hand's total
  (:func:`attackers_total`): penalties are a debt the attackers' later points
  pay off, whatever order they came in.
- ``pass_a`` / ``target_N``: the target is a ceiling; no level goes above it.
- A stop (a must-play level or the target) is left only by defending there: a
  team standing on a stop that gains levels as attackers (taking over) stays on
  it and plays it next hand as the defenders. That is what 逢X必打 means: X must
  actually be played.
- ``wrap``: after A a team continues from 2; there is no target, A is a stop
  only if it is listed in ``must_play``, must-play levels still stop a team on
  every lap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from engine.cards import total_points
from engine.ranking import TrumpContext
from engine.rules import RuleSet

Side = Literal["defenders", "attackers"]
DEFENDERS: Side = "defenders"
ATTACKERS: Side = "attackers"

TAKE_OVER = 80  # the attackers' total from which the defenders step down
THROW_PENALTY_PER_CARD = 10
NUM_RANKS = 13

# Level tables (section 11): rows (lowest attackers' total, winning side, steps),
# ascending; a total uses the last row whose lowest total it reaches.
_D, _A = DEFENDERS, ATTACKERS
LEVEL_TABLES: dict[str, tuple[tuple[int, Side, int], ...]] = {
    "classic": (
        (0, _D, 3),
        (5, _D, 2),
        (40, _D, 1),
        (80, _A, 0),
        (120, _A, 1),
        (160, _A, 2),
        (200, _A, 3),
        (240, _A, 4),
        (280, _A, 5),
        (320, _A, 6),
    ),
    "fine": (
        (0, _D, 6),
        (5, _D, 5),
        (15, _D, 4),
        (25, _D, 3),
        (35, _D, 2),
        (40, _D, 1),
        (80, _A, 0),
        (120, _A, 1),
        (125, _A, 2),
        (165, _A, 3),
        (205, _A, 4),
        (245, _A, 5),
        (285, _A, 6),
    ),
    "tournament": (
        (0, _D, 4),
        (5, _D, 3),
        (30, _D, 2),
        (55, _D, 1),
        (80, _A, 0),
        (100, _A, 1),
    ),
}
# Tables without a cap: beyond the last row, one more step per this many points.
_OPEN_ENDED_STEP = {"tournament": 20}


# ---- points and the kitty (sections 9, 10) -----------------------------------


def kitty_multiplier(rules: RuleSet, lead_largest_pairs: int) -> int:
    """The multiplier for a last lead whose largest unit has ``lead_largest_pairs`` pairs.

    ``linear``: single x2, pair x4, tractor of k pairs x4k.
    ``doubling``: x2^(k+1), i.e. single x2, pair x4, tractor of k pairs x2^(k+1).
    """
    k = lead_largest_pairs
    if rules.kitty_multiplier == "doubling":
        return 1 << (k + 1)  # 2 ** (k + 1)
    return 2 if k == 0 else 4 * k


def kitty_bonus(
    rules: RuleSet, kitty: Sequence[int], lead_largest_pairs: int, attackers_won_last: bool
) -> int:
    """Points the attackers add for the kitty (0 unless they won the last trick)."""
    if not attackers_won_last:
        return 0
    return total_points(kitty) * kitty_multiplier(rules, lead_largest_pairs)


def kitty_bonus_for_lead(
    ctx: TrumpContext,
    rules: RuleSet,
    kitty: Sequence[int],
    last_lead: Sequence[int],
    attackers_won_last: bool,
) -> int:
    """:func:`kitty_bonus` for the last trick's lead (a throw counts by its largest unit).

    After a failed throw, pass the forced play: it is the lead.
    """
    if not attackers_won_last:
        return 0
    from engine.units import decompose

    units = decompose(ctx, list(last_lead))
    if not units:
        raise ValueError("the last lead is not one suit class")
    return kitty_bonus(rules, kitty, max(u.pairs for u in units), True)


def throw_penalty(rules: RuleSet, cards_taken_back: int, thrower_is_attacker: bool) -> int:
    """Change to the attackers' points for a failed throw (section 8.3).

    ``points_per_card``: 10 per card taken back, added when a defender failed,
    subtracted when an attacker failed. Clamp the total with :func:`attackers_total`.
    """
    if rules.throw_penalty == "none":
        return 0
    points = THROW_PENALTY_PER_CARD * cards_taken_back
    return -points if thrower_is_attacker else points


def attackers_total(trick_points: int, kitty_bonus: int = 0, penalties: int = 0) -> int:
    """The attackers' total for the hand (section 9), never below 0."""
    return max(0, trick_points + kitty_bonus + penalties)


# ---- levels (section 11) --------------------------------------------------------


def hand_outcome(rules: RuleSet, attackers_points: int) -> tuple[Side, int]:
    """Look the attackers' total up in the rule set's level table: (side going up, steps).

    Attackers taking over without going up is ``("attackers", 0)``.
    """
    table = LEVEL_TABLES[rules.level_table]
    points = max(0, attackers_points)
    lowest, side, steps = table[0]
    for row in table:
        if points < row[0]:
            break
        lowest, side, steps = row
    step = _OPEN_ENDED_STEP.get(rules.level_table)
    if step is not None and lowest == table[-1][0]:
        steps += (points - lowest) // step
    return side, steps


def next_threshold(rules: RuleSet, attackers_points: int) -> tuple[int, Side, int] | None:
    """The lowest attackers' total above ``attackers_points`` that the level table
    settles otherwise: ``(total, side, steps)``; None above a capped table's last row."""
    table = LEVEL_TABLES[rules.level_table]
    now = hand_outcome(rules, attackers_points)
    starts = [row[0] for row in table if row[0] > attackers_points]
    step = _OPEN_ENDED_STEP.get(rules.level_table)
    if step is not None:  # beyond the last row: a step every ``step`` points
        last = table[-1][0]
        starts.append(last + step * max(1, (attackers_points - last) // step + 1))
    for total in starts:
        side, steps = hand_outcome(rules, total)
        if (side, steps) != now:
            return total, side, steps
    return None


def advance(rules: RuleSet, level: int, steps: int, *, defended: bool = True) -> int:
    """A team's level after going up ``steps`` levels from ``level``.

    The team stops on the first stop it reaches (must-play levels, and the target
    under ``pass_a`` / ``target_N``), which it never goes beyond. ``defended``: the
    team played this hand as the defenders; otherwise (taking over) a team that
    stands on a stop stays there. Under ``wrap`` A is followed by 2.
    """
    level += climb(rules, level, steps, defended=defended)
    return level % NUM_RANKS if rules.target_level is None else level


def climb(rules: RuleSet, level: int, steps: int, *, defended: bool = True) -> int:
    """How many levels a team going up ``steps`` from ``level`` actually climbs (the
    stops of :func:`advance` cut it short); under ``wrap`` 13 is a full round to the
    same rank, not 0."""
    stops = rules.stops
    target = rules.target_level
    if steps <= 0 or (level in stops and not defended):
        return 0
    if target is not None and level >= target:
        return 0
    for done in range(1, steps + 1):
        if (level + done) % NUM_RANKS in stops:
            return done
    return steps


@dataclass(frozen=True, slots=True)
class HandSettlement:
    """The result of one hand for the match: who went up, the new levels, who deals next."""

    winner: Side  # the side that went up (or held / took over)
    steps: int
    defender_level: int  # the levels after the hand, per side as it was in this hand
    attacker_level: int
    next_dealer: int
    match_winner: Side | None


def settle_hand(
    rules: RuleSet, attackers_points: int, dealer: int, defender_level: int, attacker_level: int
) -> HandSettlement:
    """Settle a hand (section 11).

    Defenders went up → the dealer's partner deals next; attackers took over →
    the dealer's next seat. Under ``pass_a`` / ``target_N`` the defenders win the
    match when they defend (attackers under 80) at the target level; ``wrap``
    never ends by itself.
    """
    winner, steps = hand_outcome(rules, attackers_points)
    target = rules.target_level
    match_winner: Side | None = None
    if winner == DEFENDERS:
        if target is not None and defender_level >= target:
            match_winner = DEFENDERS
        defender_level = advance(rules, defender_level, steps)
        next_dealer = (dealer + 2) % 4
    else:
        attacker_level = advance(rules, attacker_level, steps, defended=False)
        next_dealer = (dealer + 1) % 4
    return HandSettlement(winner, steps, defender_level, attacker_level, next_dealer, match_winner)


def time_limit_winner(levels_by_team: Sequence[int], defenders_team: int) -> int:
    """The team that wins when the time limit strikes: the higher level, equal → the defenders."""
    a, b = levels_by_team[0], levels_by_team[1]
    if a == b:
        return defenders_team
    return 0 if a > b else 1
