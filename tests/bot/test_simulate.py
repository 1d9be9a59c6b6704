"""The simulation log marks a failed throw as the group table does (the computer
players rarely risk one, so the trick is made up here)."""

import io

import pytest

from bot.simulate import Narrator, main
from engine.cards import parse_cards
from engine.hand import PlayRecord, Trick
from engine.match import MatchState
from engine.rules import RuleSet


def test_a_failed_throw_shows_what_was_tried_and_what_was_played():
    match = MatchState.new(RuleSet.from_preset("classic", start_level="2"), 7)
    out = io.StringIO()
    narrator = Narrator("en", out)
    hand = match.hand
    tried, forced = parse_cards("♥A ♥K"), parse_cards("♥K")
    trick = Trick(
        leader=0,
        plays=[
            PlayRecord(seat=0, cards=forced, attempted=tried),
            *(PlayRecord(seat=s, cards=parse_cards("♥3")) for s in (1, 2, 3)),
        ],
        winner=0,
        points=10,
    )
    narrator.trick(hand, 1, trick)
    assert out.getvalue().startswith("  Trick 1: seat 1 ♥️K (failed throw: tried ♥️A ♥️K) · seat 2 ♥️3")


def test_a_ruff_is_marked_only_where_the_engine_calls_it_one():
    """Trumps on an off-suit pair are a ruff (毙) only as a pair: two odd trumps are a
    discard, as the group table says (``engine.tricks.play_kind``)."""
    match = MatchState.new(RuleSet.from_preset("classic", start_level="2"), 7)
    out = io.StringIO()
    narrator = Narrator("en", out)
    lead = PlayRecord(seat=0, cards=parse_cards("♥10 ♥10"))
    trick = Trick(
        leader=0,
        plays=[
            lead,
            PlayRecord(seat=1, cards=parse_cards("SJ BJ")),
            PlayRecord(seat=2, cards=parse_cards("SJ SJ")),
            PlayRecord(seat=3, cards=parse_cards("♥3 ♥4")),
        ],
        winner=2,
        points=20,
    )
    narrator.trick(match.hand, 1, trick)
    plays = out.getvalue().split(":", 1)[1].split(" · ")
    assert [p.endswith("(ruff)") for p in plays[:3]] == [False, False, True], plays


@pytest.mark.parametrize("hands", ["0", "-2", "x"])
def test_a_count_of_hands_below_one_is_refused_in_one_line_and_nothing_is_played(hands, capsys):
    out = io.StringIO()
    with pytest.raises(SystemExit) as stop:
        main(["--simulate", "--hands", hands, "--lang", "en"], out)
    assert stop.value.code == 2
    assert out.getvalue() == ""  # no hand dealt
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--hands" in error and ("at least 1" in error or "whole number" in error), error
