"""Slot keys: one message of a game each, with the text the store keeps for it."""

import pytest

from bot.views.messages import SlotKey
from bot.views.messages import slot_key as key


def test_each_message_of_a_game_keeps_its_stored_key():
    # the store's ``shown`` table holds these keys: a restart finds its messages by them
    assert [key(7, kind) for kind in ("lobby", "hand", "ended", "chart")] == [
        "g7:lobby",
        "g7:hand",
        "g7:ended",
        "g7:chart",
    ]
    assert key(7, "dmfail", seat=2) == "g7:dmfail:2" and key(7, "take", seat=0) == "g7:take:0"
    assert key(7, "table", hand=4) == "g7:h4:table" and key(7, "result", hand=4) == "g7:h4:result"


def test_only_a_games_hand_tables_form_a_family():
    tables = {SlotKey(7, "table", hand=n).family for n in (1, 2, 3)}
    assert tables == {"g7:table"} and SlotKey(8, "table", hand=1).family == "g8:table"
    assert SlotKey(7, "result", hand=1).family is None and SlotKey(7, "lobby").family is None


@pytest.mark.parametrize(
    "kind, hand, seat", [("table", None, None), ("lobby", 1, None), ("take", None, None)]
)
def test_a_slot_names_its_hand_or_seat_exactly_when_its_kind_has_one(kind, hand, seat):
    with pytest.raises(ValueError):
        SlotKey(7, kind, hand, seat)
