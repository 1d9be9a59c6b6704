"""Group options (bot.data.options): the preset fills the defaults, each option is an override,
conflicting combinations are refused, callback data stays within Telegram's 64 bytes."""

import contextlib
import random

import pytest

from bot.data import options
from bot.data.saved import ChatSettings
from bot.views import codec
from engine.cards import RANKS
from engine.hand import Deal
from engine.match import MatchState
from engine.players import choose_action
from engine.rules import PRESETS, RuleSet


def test_an_option_back_at_its_preset_default_is_no_override():
    s = options.choose(ChatSettings(chat_id=-1), "p2", "on")
    assert s.rules == {"permanent_twos": True}
    assert options.choose(s, "p2", "off").rules == {}


def test_a_preset_fills_the_defaults_and_drops_the_overrides():
    s = options.choose(ChatSettings(chat_id=-1), "lt", "fine")
    s = options.choose(s, "preset", "tournament")
    assert s.rules == {} and options.group_rules(s) == RuleSet.from_preset("tournament")
    s = options.choose(s, "km", "linear")  # differs from the tournament's doubling
    assert options.group_rules(s).kitty_multiplier == "linear"
    assert options.group_rules(s).level_table == "tournament"


def test_must_play_levels_are_added_and_removed_one_by_one():
    s = options.choose(ChatSettings(chat_id=-1), "mp", "3+")
    s = options.choose(s, "mp", "8+")
    s = options.choose(s, "mp", "8+")  # a stale press changes nothing more
    assert options.group_rules(s).must_play == (3, 8)
    assert options.group_rules(options.choose(s, "mp", "3-")).must_play == (8,)


@pytest.mark.parametrize(("start", "end"), [("K", "t8"), ("Q", "t1"), ("A", "t11")])
def test_a_target_below_the_start_level_is_refused_either_way(start, end):
    s = options.choose(ChatSettings(chat_id=-1), "sl", str(RANKS.index(start)))
    with pytest.raises(options.Refused) as e:
        options.choose(s, "me", end)
    assert e.value.reason == "target_below_start"
    s = options.choose(ChatSettings(chat_id=-1), "me", end)
    with pytest.raises(options.Refused):
        options.choose(s, "sl", str(RANKS.index(start)))


def test_starting_on_the_target_is_allowed_and_wrap_has_no_target():
    s = options.choose(ChatSettings(chat_id=-1), "sl", "12")
    assert options.group_rules(s).target_level == 12
    assert options.group_rules(options.choose(s, "me", "w")).target_level is None


@pytest.mark.parametrize(
    ("code", "value"), [("p2", "yes"), ("zz", "on"), ("mp", "3"), ("mp", "99+"), ("preset", "x")]
)
def test_garbage_is_no_choice(code, value):
    with pytest.raises(ValueError):
        options.choose(ChatSettings(chat_id=-1), code, value)


def test_every_button_fits_in_callback_data():
    for opt in options.OPTIONS:
        data = codec.SettingsButton("open", opt.code).pack()
        assert len(data.encode()) <= codec.MAX_BYTES
        assert codec.parse(data) == codec.SettingsButton("open", opt.code)
        for code in opt.choices:
            for value in (code + "+", code + "-") if opt.multi else (code,):
                data = codec.SettingsButton(opt.code, value).pack()
                assert len(data.encode()) <= codec.MAX_BYTES
                assert codec.parse(data) == codec.SettingsButton(opt.code, value)


def test_any_combination_the_screens_allow_plays_whole_hands():
    """Random choices on every screen (a refused one is skipped), then two hands played by
    the computer under the resulting rules: no combination breaks the engine."""
    rng = random.Random(5)
    for i in range(20):
        s = options.choose(ChatSettings(chat_id=-1), "preset", rng.choice(PRESETS))
        for opt in options.OPTIONS:
            code = rng.choice(list(opt.choices)) + ("+" if opt.multi else "")
            with contextlib.suppress(options.Refused):
                s = options.choose(s, opt.code, code)
        match = MatchState.new(options.group_rules(s), seed=i)
        for n in range(2):
            if match.finished:
                break
            if n:
                match.start_next_hand()
            while (hand := match.hand).result is None:
                if hand.phase == "dealing":
                    match.apply(Deal(n=12))
                    continue
                # after the deal, a seat that passed waits for the others (the bot's window)
                seat = hand.next_actor().seats[0]
                match.apply(choose_action(hand.observation(seat), rng))
