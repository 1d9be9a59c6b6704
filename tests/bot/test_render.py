from bot.models import GameRecord, Seat
from bot.render.hand import hand_message
from bot.render.table import group_messages, result_message
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


def test_without_a_group_language_each_seat_reads_its_own_and_the_group_setting_wins():
    m, dealer = buried_match()
    rec = record("zh")
    rec.seats[0].lang, rec.seats[1].lang = "zh", "en"
    zh, _ = hand_message(rec, m, 0)
    en, _ = hand_message(rec, m, 1)
    other, _ = hand_message(rec, m, 2)  # no language of its own: the group's
    assert "第1局" in zh.text and "hand 1" in en.text and "第1局" in other.text
    rec.group_lang = rec.lang = "en"
    zh_now, _ = hand_message(rec, m, 0)
    assert "hand 1" in zh_now.text
    assert rec.user_lang(99, "zh-hans") == "en"
    rec.group_lang = None
    assert rec.user_lang(99, "zh-hans") == "zh" and rec.user_lang(2, None) == "en"


def _nobody_declared(seed):
    m = MatchState.new(RuleSet.from_preset("classic"), seed)
    m.apply(Deal(n=100))
    for s in range(4):
        m.apply(Pass(seat=s))
    return m


def test_when_nobody_declared_the_group_sees_the_kitty_and_its_third_card():
    from bot.render.cards import card_label, cards_label, suit_label
    from engine.cards import BJ, LJ

    seen = set()
    for seed in range(200):
        m = _nobody_declared(seed)
        kitty = m.hand.revealed_kitty
        assert kitty is not None and len(kitty) == 8
        joker = kitty[2] in (BJ, LJ)
        if joker in seen:
            continue
        seen.add(joker)
        rec = record()
        dealer = m.hand.turn
        texts = [c.text for _, c in group_messages(rec, m)]
        line = f"the kitty was shown: {cards_label(kitty, 'en')}"
        assert any(line in text for text in texts)
        third = card_label(kitty[2], "en")
        if joker:
            assert any(f"third card {third} is a joker: no-trump" in x for x in texts)
        else:
            assert any(
                f"{third} makes {suit_label(kitty[2] // 13, 'en')} trump" in x for x in texts
            )
        assert not any("Nobody has declared yet" in x for x in texts)
        # still shown once play has started
        m.apply(Bury(seat=dealer, cards=choose_bury(m.observation(dealer))))
        assert any(line in c.text for _, c in group_messages(rec, m))
        if seen == {True, False}:
            break
    assert seen == {True, False}


def test_a_trick_message_counts_points_as_of_its_trick():
    import random

    from bot.render.table import points_after
    from engine.players import choose_action

    m, dealer = buried_match()
    rng = random.Random(3)
    while m.hand.phase == "playing":
        hand = m.hand
        assert points_after(hand, len(hand.tricks)) == hand.attackers_points
        m.apply(choose_action(hand.observation(hand.turn), rng))
    assert points_after(m.hand, 0) == 0


def test_a_seat_on_auto_play_gets_a_take_over_link_on_the_newest_table_only():
    m, dealer = buried_match()
    rec = record()
    rec.status = "running"
    assert all(c.markup is None for _, c in group_messages(rec, m, "B"))
    rec.seats[2].auto = True
    messages = group_messages(rec, m, "B")
    *older, (_, newest) = messages
    urls = [b.url for row in newest.markup.inline_keyboard for b in row]
    assert urls == ["https://t.me/B?start=t1_2"]
    assert all(c.markup is None for _, c in older)


def test_a_result_says_the_next_hand_starts_shortly_only_while_it_has_not_started():
    from engine.hand import Play
    from engine.players import suggest

    m, _ = buried_match()
    while m.hand.phase == "playing":
        seat = m.hand.turn
        m.apply(Play(seat=seat, cards=suggest(m.observation(seat))))
    rec = record()
    rec.status = "running"
    live = result_message(rec, m)
    final = result_message(rec, m, live=False)
    assert "starts shortly" in live.text and live.markup is not None
    assert "starts shortly" not in final.text and final.markup is None
    assert "Next dealer: P" in final.text
    zh = result_message(record("zh"), m, live=False)
    assert "稍后" not in zh.text and "下一局庄家" in zh.text
