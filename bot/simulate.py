"""``python -m bot --simulate``: a match between computer players, narrated like the bot.

    python -m bot --simulate [--seed N] [--preset classic|joker_declare|tournament]
                             [--hands N] [--start-level RANK] [--lang zh|en]

Seats 1-4 (partners 1+3 are North–South, 2+4 East–West), cards as the bot shows them, every
show, the kitty, each trick with throws, failed throws and ruffs marked, the result of
each hand and the winner; in Chinese or English through the bot's message catalogs.
"""

from __future__ import annotations

import argparse
import html
import random
import re
import sys
from typing import TextIO

from bot.i18n import LANGS, has, plural, t
from bot.views.card_labels import cards_label, rank_label, suit_label
from engine.events import (
    Buried,
    Declared,
    Event,
    KittyTaken,
    Overturned,
    Reinforced,
    TrickWon,
)
from engine.hand import Action, Bury, Deal, HandState, Trick
from engine.match import MatchState
from engine.players import choose_action
from engine.rules import PRESETS, RuleSet
from engine.seats import SEATS, team_of
from engine.tricks import play_kind


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    ap = argparse.ArgumentParser(
        prog="./run --simulate", description="A match between computer players, as a log."
    )
    ap.add_argument("--simulate", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=1, help="the deals (default: 1)")
    ap.add_argument("--preset", choices=PRESETS, default="classic", help="the rules")
    ap.add_argument(
        "--hands", type=at_least_one, default=200, help="stop after this many hands (1 or more)"
    )
    ap.add_argument("--start-level", default="2", help="both teams' level at the start")
    ap.add_argument("--lang", choices=LANGS, default="zh", help="language (default: zh)")
    args = ap.parse_args(argv)
    rules = RuleSet.from_preset(args.preset, start_level=args.start_level)
    match = MatchState.new(rules, args.seed)
    Narrator(args.lang, out).match(match, random.Random(args.seed), args.hands)
    return 0


def at_least_one(value: str) -> int:
    """A count of hands: a whole number, 1 or more (0 would still deal the first hand)."""
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {n}")
    return n


class Narrator:
    def __init__(self, lang: str, out: TextIO) -> None:
        self.lang, self.out = lang, out
        self.trump_told = False  # this hand's trump line was written

    def say(self, key: str, **kw: object) -> None:
        if has(self.lang, f"{key}.other"):  # a count: its plural form
            n = kw.pop("n")
            assert isinstance(n, int)
            text = plural(self.lang, key, n, **kw)
        else:
            text = t(self.lang, key, **kw)
        print(html.unescape(re.sub(r"<[^>]+>", "", text)), file=self.out)

    def cards(self, hand: HandState, cards: list[int]) -> str:
        return cards_label(hand.ctx.sorted(list(cards)), self.lang)

    def match(self, match: MatchState, rng: random.Random, hands: int) -> None:
        while True:
            hand = match.hand
            self.say(
                "sim.hand",
                n=hand.hand_number,
                a=rank_label(match.levels[0]),
                b=rank_label(match.levels[1]),
            )
            self.hand(match, rng)
            if match.finished or match.hand_number >= hands:
                break
            match.start_next_hand()
        if match.winner is not None:
            team = match.winner
            a, b = (seat + 1 for seat in SEATS if team_of(seat) == team)
            self.say(
                "sim.won",
                team=t(self.lang, f"team.short.{team}"),
                a=a,
                b=b,
                n=match.hand_number,
            )
        else:
            self.say("sim.stopped", n=match.hand_number)

    def hand(self, match: MatchState, rng: random.Random) -> None:
        """Play the current hand to its end with the computer players, narrating what
        the engine says happened (its events)."""
        self.trump_told = False
        while match.hand.phase != "done":
            action = _next_action(match.hand, rng)
            for event in match.apply(action):
                self.event(match.hand, action, event)
        self.result(match.hand)

    def event(self, hand: HandState, action: Action, event: Event) -> None:
        if isinstance(event, Declared | Reinforced | Overturned):
            trump = suit_label(hand.trump, self.lang)
            cards = self.cards(hand, list(event.cards))
            self.say("sim.show", seat=event.seat + 1, cards=cards, trump=trump)
        elif isinstance(event, Buried) and isinstance(action, Bury):
            # the log knows every hand: it names what was buried
            self.say("sim.bury", seat=event.seat + 1, cards=self.cards(hand, action.cards))
        elif isinstance(event, KittyTaken) and not self.trump_told:
            # the declaring is over (炒底 aside): trump, level and dealer are known
            self.trump_told = True
            kitty = "sim.trump.kitty" if hand.declaring.from_kitty else "sim.trump"
            trump = suit_label(hand.trump, self.lang)
            self.say(kitty, trump=trump, level=rank_label(hand.level), seat=event.seat + 1)
        elif isinstance(event, TrickWon):
            self.trick(hand, event.trick + 1, hand.tricks[event.trick])

    def trick(self, hand: HandState, number: int, trick: Trick) -> None:
        ctx = hand.ctx
        lead = trick.plays[0]
        plays = []
        for play in trick.plays:
            text = t(self.lang, "sim.play", seat=play.seat + 1, cards=self.cards(hand, play.cards))
            if play.attempted is not None:
                tried = self.cards(hand, play.attempted)
                text += " " + t(self.lang, "sim.failed_throw", cards=tried)
            elif kind := play_kind(ctx, lead.cards, play.cards, play is lead):
                text += " " + t(self.lang, f"sim.{kind}")
            plays.append(text)
        self.say(
            "sim.trick",
            n=number,
            plays=" · ".join(plays),
            seat=(trick.winner or 0) + 1,
            points=trick.points,
            total=hand.attackers_points,
        )

    def result(self, hand: HandState) -> None:
        r = hand.result
        assert r is not None
        self.say(
            "sim.kitty",
            cards=self.cards(hand, r.kitty),
            points=r.kitty_points,
            bonus=r.kitty_bonus,
        )
        side = t(self.lang, f"result.winner.{r.winner}")
        self.say(
            "sim.result",
            points=r.attackers_points,
            outcome=plural(self.lang, "result.outcome", r.steps, side=side),
            a=rank_label(r.levels_after[0]),
            b=rank_label(r.levels_after[1]),
            dealer=r.next_dealer + 1,
        )


def _next_action(hand: HandState, rng: random.Random) -> Action:
    """What the computer players do next: show while dealing when they like, pass the
    windows, then bury and play (the same player the bot uses for its computer seats)."""
    if hand.phase == "dealing":
        for seat in range(4):
            obs = hand.observation(seat)
            if obs.show_options:
                action = choose_action(obs, rng)
                if action.kind == "show":
                    return action
        return Deal(n=4)
    if hand.phase == "after_deal":
        seat = next(s for s in range(4) if hand.can_pass(s))
        return choose_action(hand.observation(seat), rng)
    assert hand.turn is not None
    return choose_action(hand.observation(hand.turn), rng)
