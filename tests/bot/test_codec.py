import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.views import codec


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
    assert codec.decode_cards(codec.decode(data).arg) == cards


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
    assert codec.parse_link(payload) == codec.SitLink(123456, 3)
    assert codec.parse_link(codec.open_payload(77)) == codec.OpenLink(77)
    assert codec.parse_link(codec.take_payload(5, 0)) == codec.TakeLink(5, 0)
    link = codec.deep_link("shengji_bot", codec.take_payload(36, 1))
    assert link == "https://t.me/shengji_bot?start=t10_1"
    for bad in ("", "j1_4", "hello", "g", "j_1"):
        with pytest.raises(codec.BadData):
            codec.parse_link(bad)


BUTTONS = st.one_of(
    st.builds(
        codec.LobbyButton,
        st.sampled_from(sorted(codec.LOBBY_KINDS)),
        st.integers(0, 10**12),
    ),
    st.builds(codec.EndButton, st.booleans(), st.integers(0, 10**12), st.integers(0, 10**4)),
    st.builds(
        codec.NextHandButton,
        st.integers(0, 10**12),
        st.integers(0, 10**4),
        st.integers(0, 10**6),
    ),
    st.builds(
        codec.HandButton,
        st.sampled_from([codec.Kind(k) for k in "PHONVA"]),
        st.integers(0, 10**12),
        st.integers(0, 10**4),
        st.integers(0, 10**6),
    ),
    st.builds(
        codec.CardButton,
        st.integers(0, 10**12),
        st.integers(0, 10**4),
        st.integers(0, 10**6),
        st.integers(0, 53),
        st.integers(0, 1),
    ),
    st.builds(
        codec.ShowButton,
        st.integers(0, 10**12),
        st.integers(0, 10**4),
        st.integers(0, 10**6),
        st.lists(st.integers(0, 53), min_size=1, max_size=3).map(tuple),
    ),
    st.builds(codec.SettingsButton, st.sampled_from(["lang", "open", "tp"]), st.just("1+")),
)


@given(button=BUTTONS)
def test_every_button_family_packs_within_64_bytes_and_parses_back_to_itself(button):
    data = button.pack()
    assert len(data.encode()) <= codec.MAX_BYTES
    assert codec.parse(data) == button


@pytest.mark.parametrize(
    "data",
    [
        "L|1|1|0|",  # a lobby button has no hand
        "L|1|0|0|x",  # ... nor an argument
        "E|1|1|5|",  # the /endgame question has no version
        "G|1|1|1|a",  # "Next hand" has no argument
        "P|1|1|1|ab",  # play plays the selection: no cards in the data
        "T|1|1|1|a",  # a card and its copy
        "T|1|1|1|a2",
        "T|1|1|1|Z0",  # no card has that letter
        "T|1|1|1|a01",
        "D|1|1|1|",  # a show names its cards
        "D|1|1|1|aZ",
        "cfg|lang",
        "cfg|lang|en|x",
        "cfg||en",
        "cfg|lang|e n",
        "cfg|" + "a" * 30 + "|1",
    ],
)
def test_data_of_a_known_kind_but_not_its_family_shape_is_refused(data):
    with pytest.raises(codec.BadData):
        codec.parse(data)


def test_a_button_becomes_the_tables_command_with_who_pressed_it():
    from bot.table import commands as c

    assert codec.parse("T|1|2|3|a1").command(7, "en") == c.Select(7, 2, 3, 10, 1, code="en")
    assert codec.parse("D|1|2|3|ab").command(7, None) == c.Show(7, 2, 3, (10, 11))
    assert codec.parse("P|1|2|3|").command(7, None) == c.Play(7, 2, 3, None)
    assert codec.parse("G|1|2|3|").command(7, None) == c.NextHand(7, 2, 3)
    assert codec.parse("S|1|0|0|").command(7, True) == c.Start(7, admin=True)


def test_a_button_of_another_familys_kind_or_too_long_cannot_be_built():
    with pytest.raises(ValueError):
        codec.LobbyButton(codec.Kind.PLAY, 1)
    with pytest.raises(ValueError):
        codec.HandButton(codec.Kind.TOGGLE, 1, 1, 1)
    with pytest.raises(ValueError):
        codec.ShowButton(10**40, 1, 1, (1,) * 40).pack()
    with pytest.raises(ValueError):
        codec.SettingsButton("lang", "e n").pack()


@given(
    game=st.integers(0, 10**12),
    hand=st.integers(0, 10**4),
    version=st.integers(0, 10**6),
    card=st.integers(0, 53),
    copy=st.integers(0, 1),
)
def test_a_keyboards_card_packer_packs_as_the_card_button_does(game, hand, version, card, copy):
    data = codec.CardButton.packer(game, hand, version)(card, copy)
    assert data == codec.CardButton(game, hand, version, card, copy).pack()
    assert codec.parse(data) == codec.CardButton(game, hand, version, card, copy)
