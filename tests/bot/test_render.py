from bot.models import GameRecord, Seat
from bot.render.hand import hand_message
from bot.render.table import group_messages
from engine.hand import Bury, Deal, Pass
from engine.match import MatchState
from engine.players import choose_bury
from engine.rules import RuleSet


def record(lang="en"):
    seats = [Seat(user_id=i + 1, name=f"P{i}") for i in range(4)]
    return GameRecord(id=1, chat_id=-1, creator_id=1, lang=lang, seats=seats, chat_title="T")


def buried_match():
    m = MatchState.new(RuleSet.from_preset("classic"), 11)
    m.apply(Deal(n=100))
    for s in range(4):
        m.apply(Pass(seat=s))
    dealer = m.hand.turn
    m.apply(Bury(seat=dealer, cards=choose_bury(m.observation(dealer))))
    return m, dealer


def test_only_the_dealer_sees_the_kitty_they_buried():
    m, dealer = buried_match()
    rec = record()
    for seat in range(4):
        content, _ = hand_message(rec, m, seat)
        assert ("Kitty you buried" in content.text) == (seat == dealer)
    for _, content in group_messages(rec, m):
        assert "Kitty" not in content.text


def test_the_hand_keyboard_fits_telegram_limits_and_sorts_trumps_first():
    m, dealer = buried_match()
    content, my_turn = hand_message(record(), m, dealer)
    assert my_turn
    rows = content.markup.inline_keyboard
    assert sum(len(r) for r in rows) <= 100 and all(len(r) <= 8 for r in rows)
    for row in rows:
        for b in row:
            assert len(b.callback_data.encode()) <= 64
    cards = [b for row in rows for b in row if b.callback_data.startswith("T|")]
    assert len(cards) == 25


def test_chinese_rendering_has_no_english_leftovers():
    m, dealer = buried_match()
    content, _ = hand_message(record("zh"), m, dealer)
    assert "轮到你" in content.text and "Your turn" not in content.text
