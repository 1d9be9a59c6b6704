import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot import codec


@given(
    kind=st.sampled_from(sorted(codec.Kind)),
    game=st.integers(0, 10**12),
    hand=st.integers(0, 10**4),
    version=st.integers(0, 10**6),
    cards=st.lists(st.integers(0, 53), max_size=12),
)
def test_press_round_trips_within_64_bytes(kind, game, hand, version, cards):
    press = codec.Press(kind, game, hand, version, codec.encode_cards(cards))
    data = press.encode()
    assert len(data.encode()) <= 64
    assert codec.decode(data) == press
    assert codec.decode(data).cards == cards


def test_the_largest_show_fits_in_callback_data():
    # a show is at most three cards (level pair + joker)
    press = codec.Press("D", 10**9, 999, 10**6, codec.encode_cards([53, 53, 12]))
    assert len(press.encode()) <= 64


@pytest.mark.parametrize(
    "data",
    ["", "x", "P|1|2|3", "Z|1|1|1|", "P|-1|1|1|", "P|1|1|1|!!", "P|" + "9" * 60 + "|1|1|", None],
)
def test_forged_callback_data_is_refused(data):
    with pytest.raises(codec.BadData):
        codec.decode(data)


def test_deep_link_payloads_are_valid_telegram_payloads():
    payload = codec.join_payload(123456, 3)
    assert len(payload) <= 64 and payload.replace("_", "").isalnum()
    assert codec.decode_payload(payload) == ("join", 123456, 3)
    assert codec.decode_payload(codec.open_payload(77)) == ("open", 77, None)
    link = codec.deep_link("shengji_bot", codec.take_payload(36, 1))
    assert link == "https://t.me/shengji_bot?start=t10_1"
    for bad in ("", "j1_4", "hello", "g", "j_1"):
        with pytest.raises(codec.BadData):
            codec.decode_payload(bad)


def test_the_press_encoder_gives_the_same_data_as_a_press():
    encode = codec.press_encoder(12345, 7, 301)
    for kind in codec.Kind:
        for arg in ("", "3a0", codec.encode_cards([0, 1, 2])):
            press = codec.Press(kind, 12345, 7, 301, arg)
            assert encode(kind.value, arg) == press.encode()
            assert codec.decode(encode(kind.value, arg)) == press
    with pytest.raises(ValueError):
        encode("?")
    with pytest.raises(ValueError):
        encode("T", "a" * 64)
