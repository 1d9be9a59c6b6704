"""A simple card-sense heuristic: hints, auto-play (托管) and computer players.

It sees only an :class:`~engine.hand.Observation` and asks the rules modules
for legality, so every play it returns is legal. Habits that measured well for
Shengji bots (../shared/notes/computer-players.md): lead high pairs and
tractors, don't open with trumps, feed points only to a partner who is winning,
win cheaply, bury short off-suits without points.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache

from engine.cards import POINTS, suit_of
from engine.hand import Action, Bury, Observation, Pass, Play, Show, team_of
from engine.players.candidates import Contest, follow_candidates, is_special, strength, winner
from engine.players.knowledge import higher_cards, inferences, seen_counts
from engine.ranking import TRUMP, TrumpContext
from engine.reasons import Reason, ReasonKind
from engine.tricks import play_kind
from engine.units import Unit, decompose

VOID_VALUE = 5  # a void made by burying, against the cards it costs (see _voids_to_make)


def choose_action(obs: Observation, rng: random.Random) -> Action:
    """The computer's action for this seat now (the seat must be able to act).

    During the deal a seat acts only by showing: a ``Pass`` returned then means
    "not now" and is not to be applied (the deal goes on by itself).
    """
    if obs.phase in ("dealing", "after_deal", "chaodi"):
        show = choose_show(obs)
        if show is not None:
            return Show(seat=obs.seat, cards=show)
        return Pass(seat=obs.seat)
    if obs.phase == "burying":
        return Bury(seat=obs.seat, cards=choose_bury(obs))
    cards, reason = suggest_reasoned(obs, rng)
    return Play(seat=obs.seat, cards=cards, reason=reason)


def choose_show(obs: Observation) -> list[int] | None:
    """Show when the suit it would make trump is long enough to be worth it."""
    if not obs.show_options:
        return None
    best: tuple[int, list[int]] | None = None
    for option in obs.show_options:
        suit = suit_of(option[0])
        if suit is None:  # joker pair: no-trump, only with a strong, balanced hand
            score = 3 if len(option) == 2 and option[0] == option[1] else 0
        else:
            score = sum(1 for c in obs.hand if suit_of(c) == suit or c >= 52)
        need = 6 if obs.phase == "dealing" and obs.dealt < 60 else 8
        if not obs.trump_decided:
            need = 3 if obs.dealt < 60 else 4
        if score >= need and (best is None or score > best[0]):
            best = (score, option)
    return None if best is None else best[1]


def choose_bury(obs: Observation) -> list[int]:
    """Bury 8 cards: void whole short off-suits where it costs little (no aces, points or
    pairs lost), then off-suit, no points, no pairs, shortest suits first, lowest first."""
    ctx = obs.ctx
    hand = obs.hand
    counts = Counter(hand)
    by_suit = Counter(ctx.suit_class[c] for c in hand)

    def cost(c: int) -> tuple[int, ...]:
        cls = ctx.suit_class[c]
        return (
            cls == TRUMP,
            POINTS[c] > 0,
            counts[c] > 1,
            ctx.order[c] >= ctx.class_top[cls] - 1,
            by_suit[cls],
            ctx.order[c],
        )

    voided = _voids_to_make(ctx, hand, counts)
    rest = sorted((c for c in hand if ctx.suit_class[c] not in voided), key=cost)
    return [c for c in hand if ctx.suit_class[c] in voided] + rest[
        : 8 - sum(by_suit[k] for k in voided)
    ]


def choose_bury_reasoned(obs: Observation) -> tuple[list[int], Reason]:
    """:func:`choose_bury`'s cards and the rule that chose them (voids made or not)."""
    cards = choose_bury(obs)
    voids = _voids_to_make(obs.ctx, obs.hand, Counter(obs.hand))
    return cards, rule_reason(obs, cards, "bury_void" if voids else "bury_low")


def _voids_to_make(ctx: TrumpContext, hand: list[int], counts: Counter[int]) -> set[int]:
    """The off-suits to bury whole: the most voids (8 cards at most) worth their cost."""

    def loss(c: int) -> int:
        top = ctx.order[c] >= ctx.class_top[ctx.suit_class[c]]
        return 4 * top + 2 * (POINTS[c] > 0) + 2 * (counts[c] > 1)

    classes = sorted({ctx.suit_class[c] for c in hand} - {TRUMP})
    best: tuple[int, set[int]] = (0, set())
    for mask in range(1, 1 << len(classes)):
        chosen = {k for i, k in enumerate(classes) if mask >> i & 1}
        cards = [c for c in hand if ctx.suit_class[c] in chosen]
        if len(cards) > 8:
            continue
        value = VOID_VALUE * len(chosen) - sum(loss(c) for c in cards)
        if value > best[0]:
            best = (value, chosen)
    return best[1]


def suggest(obs: Observation, rng: random.Random | None = None) -> list[int]:
    """A good legal play for this seat's turn."""
    rng = rng or random.Random(obs.version * 31 + obs.seat)
    trick = obs.current_trick
    if trick is None or not trick.plays:
        return _lead(obs)[0]
    return _follow(obs, rng)[0]


def suggest_reasoned(
    obs: Observation, rng: random.Random | None = None
) -> tuple[list[int], Reason]:
    """:func:`suggest`'s play (the same one, from the same random stream) and the rule
    that chose it (:class:`~engine.reasons.Reason`)."""
    rng = rng or random.Random(obs.version * 31 + obs.seat)
    trick = obs.current_trick
    if trick is None or not trick.plays:
        cards, kind = _lead(obs)
    else:
        cards, kind = _follow(obs, rng, explain=True)
    return cards, rule_reason(obs, cards, kind)


def rule_reason(obs: Observation, cards: list[int], kind: ReasonKind) -> Reason:
    """The reason record of a play chosen by a rule (no odds)."""
    trick = obs.current_trick
    leading = obs.phase == "playing" and (trick is None or not trick.plays)
    trumps = leading and all(obs.ctx.suit_class[c] == TRUMP for c in cards)
    attacking = None if obs.dealer is None else team_of(obs.seat) != team_of(obs.dealer)
    return Reason(kind=kind, attacking=attacking, trumps=trumps)


def _units_of_hand(ctx: TrumpContext, hand: list[int]) -> list[Unit]:
    units: list[Unit] = []
    by_class: dict[int, list[int]] = {}
    for c in hand:
        by_class.setdefault(ctx.suit_class[c], []).append(c)
    for cards in by_class.values():
        units.extend(_class_units(ctx, tuple(sorted(cards))))
    return units


@lru_cache(maxsize=1 << 14)
def _class_units(ctx: TrumpContext, cards: tuple[int, ...]) -> tuple[Unit, ...]:
    """The decomposition of one class's cards (it depends on the multiset alone)."""
    return tuple(decompose(ctx, cards) or ())


def _lead(obs: Observation) -> tuple[list[int], ReasonKind]:
    ctx = obs.ctx
    units = _units_of_hand(ctx, obs.hand)
    known = seen_counts(obs)

    def master(u: Unit) -> bool:
        """Nobody else can hold a higher unit of its kind (counting seen cards)."""
        need = 1 if u.pairs == 0 else 2
        for c in higher_cards(ctx, ctx.suit_class[u.cards[0]], u.top):
            if 2 - known[c] >= need:
                return False
        return True

    off = [u for u in units if ctx.suit_class[u.cards[0]] != TRUMP]
    masters = [u for u in (off or units) if master(u)]
    if masters:
        # throw every master unit of the class holding the biggest one (all provably highest)
        best = max(masters, key=lambda u: (u.pairs, u.top))
        cls = ctx.suit_class[best.cards[0]]
        return [
            c for u in masters if ctx.suit_class[u.cards[0]] == cls for c in u.cards
        ], "lead_master"
    tractors = [u for u in off if u.pairs >= 2]
    if tractors:
        return list(max(tractors, key=lambda u: (u.pairs, u.top)).cards), "lead_tractor"
    if off:
        # a low card of the shortest off-suit, keeping points and pairs back
        length = Counter(ctx.suit_class[c] for c in obs.hand)
        u = min(
            off,
            key=lambda u: (
                POINTS[u.cards[0]] > 0,
                u.pairs,
                length[ctx.suit_class[u.cards[0]]],
                u.top,
            ),
        )
        return list(u.cards), "lead_short"
    # only trumps: the lowest unit, pairs first
    return list(max(units, key=lambda u: (u.pairs, -u.top)).cards), "lead_trumps"


def _follow(
    obs: Observation, rng: random.Random, explain: bool = False
) -> tuple[list[int], ReasonKind]:
    """The follow, and (``explain``: else "only_play" unasked) the rule that chose it."""
    ctx = obs.ctx
    trick = obs.current_trick
    assert trick is not None
    lead = trick.plays[0].cards
    plays = [p.cards for p in trick.plays]
    legal = follow_candidates(ctx, lead, obs.hand, rng)
    if len(legal) == 1:
        return legal[0], "only_play"
    current = winner(ctx, plays) if len(plays) > 1 else 0
    contest = Contest(ctx, plays, current)
    partner_winning = trick.plays[current].seat == (obs.seat + 2) % 4
    last = len(plays) == 3
    trick_points = sum(POINTS[c] for p in plays for c in p)
    secure = threatened = False
    if partner_winning:
        # the partner's play is safe unless the opponent still to play can beat it
        secure = last or not _threat(obs, trick.plays[current].cards, (obs.seat + 1) % 4)
        threatened = not secure

    def score(play: list[int]) -> tuple[float, ...]:
        wins = contest.wins(play)
        pts = sum(POINTS[c] for c in play)
        spent = strength(ctx, play)
        if partner_winning:
            if not wins:
                # our trick already: feed points only when the partner's win is secure
                return (2, pts if secure else -pts, -spent)
            if threatened and (trick_points >= 10 or not any(is_special(ctx, c) for c in play)):
                # worth contesting: take it over, as cheaply as possible
                return (2.5, -spent, pts)
            return (1, -spent, pts)  # overtaking for nothing: only when forced
        if wins:
            # take points, or the last word; cheaply; never a joker or level card for nothing
            worth = trick_points + pts > 0 or (last and not any(is_special(ctx, c) for c in play))
            return (3 if worth else 0.5, -spent, pts)
        return (0, -pts, -spent)

    best = max(legal, key=score)
    if not explain:  # the playouts' path: no more work than the play
        return best, "only_play"
    rule = score(best)[0]
    kind: ReasonKind
    if partner_winning:
        fed = secure and rule == 2 and any(POINTS[c] for c in best)
        kind = (
            "feed_partner"
            if fed
            else "follow_low_partner"
            if rule == 2
            else "cover_partner"
            if rule == 2.5
            else "overtake"
        )
    elif rule == 3:
        kind = "ruff" if play_kind(ctx, lead, best, False) == "ruff" else "win_cheap"
    else:
        kind = "win_lead" if rule == 0.5 else "duck"
    return best, kind


def _threat(obs: Observation, cards: list[int], seat: int) -> bool:
    """Whether ``seat`` (yet to play) may beat this play: a higher unseen card, or a ruff."""
    ctx = obs.ctx
    klass = ctx.suit_class[cards[0]]
    if not _is_master(obs, cards):
        return True
    if klass == TRUMP or any(ctx.suit_class[c] == TRUMP for c in cards):
        return False
    voids, _ = inferences(ctx, obs)
    return klass in voids[seat] and TRUMP not in voids[seat]


def _is_master(obs: Observation, cards: list[int]) -> bool:
    """No unseen card of that class ranks above this play's top card (a cheap card count)."""
    ctx = obs.ctx
    seen = seen_counts(obs)
    cls = ctx.suit_class[cards[0]]
    top = max(ctx.order[c] for c in cards)
    if cls != TRUMP and any(ctx.suit_class[c] == TRUMP for c in cards):
        cls = TRUMP
    return all(seen[c] >= 2 for c in higher_cards(ctx, cls, top))
