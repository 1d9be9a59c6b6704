"""What a show would do, asked before it is made: the show buttons say 亮主 (declare),
加固 (reinforce) or 反主 (overturn) by the engine's answer (RULES.md sections 5 and 7)."""

from __future__ import annotations

import pytest

from engine.cards import parse_cards, parse_rank
from engine.declaring import Declaring
from engine.errors import IllegalAction
from engine.hand import Deal, HandState, Show
from engine.rules import RuleSet

CLASSIC = RuleSet.from_preset("classic")


def test_a_show_says_whether_it_declares_reinforces_or_overturns_and_changes_nothing():
    d = Declaring.start(CLASSIC, parse_rank("2"), 1, None)
    assert d.action_of(0, parse_cards("2H"), "deal") == "declare"
    d.show(0, parse_cards("2H"), "deal")
    before = d.model_dump()
    assert d.action_of(0, parse_cards("2H 2H"), "deal") == "reinforce"
    assert d.action_of(1, parse_cards("2S 2S"), "after_deal") == "overturn"
    with pytest.raises(IllegalAction):  # hand 1: overturns wait for the deal's end
        d.action_of(1, parse_cards("2S 2S"), "deal")
    assert d.model_dump() == before


@pytest.mark.parametrize("preset", ["classic", "tournament", "joker_declare"])
def test_every_offered_show_does_what_the_engine_said_it_would(preset: str):
    rules = RuleSet.from_preset(preset)
    checked = set()
    for seed in range(40):
        hand = HandState.new(rules, seed)
        while hand.phase in ("dealing", "after_deal"):
            offered = [(s, cards) for s in range(4) for cards in hand.show_options(s)]
            if not offered:
                if hand.phase != "dealing":
                    break
                hand.apply(Deal(n=12))
                continue
            seat, cards = offered[seed % len(offered)]
            said = hand.show_action(seat, cards)
            hand.apply(Show(seat=seat, cards=cards))
            assert hand.declaring.shows[-1].kind == said
            checked.add(said)
            if hand.phase == "dealing":
                hand.apply(Deal(n=12))
    assert {"declare", "overturn"} <= checked
