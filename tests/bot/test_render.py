"""What each chat shows, rendered from real engine states: the group's live table, a
player's DM hand, the result; names cut without breaking an emoji."""

import json
import random
import re

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.data.saved import GameRecord, Seat
from bot.i18n import t
from bot.views import codec
from bot.views.card_labels import card_label, cards_label, hand_lines, rank_label, suit_label
from bot.views.dm_hand import ROW, card_button_label, hand_message
from bot.views.group_table import group_messages, result_of, table_message
from bot.views.lobby_message import lobby
from bot.views.messages import (
    ROW_UNITS,
    Button,
    Content,
    Keyboard,
    WebAppButton,
    even_rows,
    label_units,
    per_row,
)
from bot.views.miniapp import table_view
from bot.views.names import clip, isolate
from bot.views.projection import project
from engine.cards import BJ, LJ
from engine.hand import Bury, Deal, HandState, Pass, Play, Show
from engine.match import MatchState
from engine.players import choose_action, choose_bury, suggest
from engine.ranking import TRUMP
from engine.rules import RuleSet
from engine.tricks import trick_winner

NAMES = ("Ann", "Ben", "Cai", "Dee")
SHOWN = tuple(isolate(n) for n in NAMES)  # as the texts show them (bidi-isolated)


def record(lang="en"):
    seats = [Seat(user_id=i + 1, name=NAMES[i]) for i in range(4)]
    return GameRecord(
        id=1, chat_id=-1, creator_id=1, lang=lang, seats=seats, chat_title="T", status="running"
    )


def dm_message(rec, m, seat):
    """The seat's DM as the publisher renders it: from the seat's projection."""
    return hand_message(rec, project(rec, m, seat))


def group_table(rec, m, **kw):
    return table_message(rec, project(rec, m, None), **kw)


def group_messages_of(rec, m, *args):
    return group_messages(rec, project(rec, m, None), *args)


def buried_match(seed=11):
    m = MatchState.new(RuleSet.from_preset("classic"), seed)
    m.apply(Deal(n=100))
    for s in range(4):
        m.apply(Pass(seat=s))
    dealer = m.hand.turn
    m.apply(Bury(seat=dealer, cards=choose_bury(m.observation(dealer))))
    return m, dealer


def play_one(m, rng):
    m.apply(choose_action(m.observation(m.hand.turn), rng))


def table_text(rec, m):
    return group_table(rec, m).text


def card_buttons(content):
    return [
        [b for b in row if b.callback_data.startswith("T|")]
        for row in content.markup.inline_keyboard
        if any(b.callback_data.startswith("T|") for b in row)
    ]


def test_only_the_dealer_sees_the_kitty_they_buried():
    m, dealer = buried_match()
    rec = record()
    for seat in range(4):
        content, _ = dm_message(rec, m, seat)
        assert ("Kitty you buried" in content.text) == (seat == dealer)
    for _, content in group_messages_of(rec, m):
        assert "Kitty" not in content.text


def test_the_hand_keyboard_has_trumps_first_and_each_suit_in_rows_of_its_own():
    for seed in range(11, 31):
        m, dealer = buried_match(seed)
        content, my_turn = dm_message(record(), m, dealer)
        assert my_turn
        rows = content.markup.inline_keyboard
        assert sum(len(r) for r in rows) <= 100 and all(len(r) <= ROW for r in rows)
        for row in rows:
            for b in row:
                assert len(b.callback_data.encode()) <= 64
        ctx = m.hand.ctx
        labels = {card_button_label(c, "en"): c for c in range(54)}
        cards = [[labels[b.text] for b in row] for row in card_buttons(content)]
        assert sum(len(r) for r in cards) == 25
        classes = [{ctx.suit_class[c] for c in row} for row in cards]
        assert all(len(k) == 1 for k in classes)  # a row never mixes suit classes
        order = [k.pop() for k in classes]
        # trumps first, then the side suits in order, each starting its own row
        assert order == sorted(order, key=lambda k: -1 if k == TRUMP else k)
        # the jokers and level cards are grouped ahead of the trump suit's own cards
        trumps = [c for row, k in zip(cards, order, strict=True) if k == TRUMP for c in row]
        level = [c for c in trumps if c >= LJ or c % 13 == ctx.level]
        assert trumps[: len(level)] == level
        if level and len(level) < len(trumps) and ctx.trump is not None:
            rows_of_level = [r for r in cards if set(r) & set(level)]
            assert all(set(r) <= set(level) for r in rows_of_level)


def test_card_rows_fit_a_phone_and_never_leave_a_lone_card_when_a_suit_wraps():
    assert [len(r) for r in even_rows(list(range(9)), 8)] == [5, 4]
    assert [len(r) for r in even_rows(list(range(13)), 6)] == [5, 4, 4]
    assert per_row(["✓♦️10"]) < per_row(["✓♦️9"]) <= ROW
    wrapped = 0
    for seed in range(11, 41):
        m, dealer = buried_match(seed)
        for lang in ("en", "zh"):
            rows = card_buttons(dm_message(record(lang), m, dealer)[0])
            labels = {card_button_label(c, lang): c for c in range(54)}
            for row in rows:  # the row's widest label, selected (✓), fits the row
                assert len(row) * max(label_units("✓" + b.text) for b in row) <= ROW_UNITS
            # the rows of a side suit: as even as can be (trumps have two parts)
            ctx = m.hand.ctx
            by_class: dict[int, list[int]] = {}
            for row in rows:
                by_class.setdefault(ctx.suit_class[labels[row[0].text]], []).append(len(row))
            for klass, sizes in by_class.items():
                if klass != TRUMP:
                    wrapped += len(sizes) > 1
                    assert max(sizes) - min(sizes) <= 1, sizes
    assert wrapped  # suits long enough to wrap were seen


def test_the_hand_counts_each_suit_class_with_its_unit():
    m, dealer = buried_match()
    hand = m.hand
    ctx = hand.ctx
    seat = (dealer + 1) % 4
    cards = hand.hands[seat]
    trumps = sum(ctx.suit_class[c] == TRUMP for c in cards)
    zh, _ = dm_message(record("zh"), m, seat)
    en, _ = dm_message(record("en"), m, seat)
    assert f"你的牌（{len(cards)}张）：主{trumps}张" in zh.text
    assert f"Your {len(cards)} cards: Trumps ×{trumps}" in en.text
    counts = next(x for x in en.text.splitlines() if x.startswith("Your ")).split()
    for suit in range(4):
        n = sum(ctx.suit_class[c] == suit for c in cards)
        assert (f"{suit_label(suit, 'en')}×{n}" in counts) == (n > 0)


def test_jokers_read_as_players_say_them():
    assert card_label(BJ, "zh") == "大王" and card_label(LJ, "zh") == "小王"
    assert card_label(BJ, "en") == "BJ" and card_label(LJ, "en") == "SJ"


def test_chinese_rendering_has_no_english_leftovers():
    m, dealer = buried_match()
    content, _ = dm_message(record("zh"), m, dealer)
    assert "轮到你" in content.text and "Your turn" not in content.text
    table = table_text(record("zh"), m)
    assert "25张" in table and "cards" not in table


def test_the_header_tells_level_trump_dealer_and_both_teams_levels():
    m, dealer = buried_match()
    rec = record()
    hand = m.hand
    trump = suit_label(hand.trump, "en")
    content, _ = dm_message(rec, m, 1)
    assert f"trump <b>{trump}</b> · dealer {SHOWN[dealer]}" in content.text
    assert "Levels: N–S 2 · E–W 2" in content.text
    assert "seat 2 (E–W)" in content.text
    table = table_text(rec, m)
    assert f"trump <b>{trump}</b> · dealer {SHOWN[dealer]}" in table
    assert "Levels: N–S 2 · E–W 2" in table


def test_each_seat_reads_its_dm_in_its_own_language_whatever_the_groups():
    m, dealer = buried_match()
    rec = record("zh")
    rec.seats[0].lang, rec.seats[1].lang = "zh", "en"
    zh, _ = dm_message(rec, m, 0)
    en, _ = dm_message(rec, m, 1)
    other, _ = dm_message(rec, m, 2)  # no language of its own: the group's
    assert "第1局" in zh.text and "hand 1" in en.text and "第1局" in other.text
    rec.lang = "en"  # the group changes its language: DMs stay their readers'
    zh_now, _ = dm_message(rec, m, 0)
    assert "第1局" in zh_now.text
    assert rec.user_lang(99, "zh-hans") == "zh" and rec.user_lang(2, None) == "en"
    assert rec.user_lang(99, None) == "en"


def _nobody_declared(seed):
    m = MatchState.new(RuleSet.from_preset("classic"), seed)
    m.apply(Deal(n=100))
    for s in range(4):
        m.apply(Pass(seat=s))
    return m


def test_when_nobody_declared_the_group_sees_the_kitty_and_the_trump_it_set():
    seen = set()
    for seed in range(200):
        m = _nobody_declared(seed)
        kitty = m.hand.revealed_kitty
        assert kitty is not None and len(kitty) == 8
        no_trump = m.hand.trump is None
        if no_trump in seen:
            continue
        seen.add(no_trump)
        rec = record()
        dealer = m.hand.turn
        line = f"the kitty was shown: {cards_label(kitty, 'en')}"
        text = table_text(rec, m)
        assert line in text
        if no_trump:
            assert "— no-trump." in text
        else:
            assert f"— {suit_label(m.hand.trump, 'en')} is trump." in text
        assert "Nobody has declared yet" not in text
        # still shown once play has started, in the group and in the DMs
        m.apply(Bury(seat=dealer, cards=choose_bury(m.observation(dealer))))
        assert line in table_text(rec, m)
        if seen == {True, False}:
            break
    assert seen == {True, False}


def _trick_lines(text, n):
    """The lines of trick ``n`` in a group table (its title, then one line per play)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"<b>Trick {n}</b>"))
    out = [lines[start]]
    for line in lines[start + 1 :]:
        if not line or line.startswith("<b>Trick"):
            break
        out.append(line)
    return out


def test_the_group_table_shows_the_trick_as_it_grows_with_who_is_winning_it():
    m, _ = buried_match()
    rec = record()
    rng = random.Random(5)
    for _ in range(40):  # ten tricks, checked after every card
        play_one(m, rng)
        hand = m.hand
        text = table_text(rec, m)
        trick = hand.current_trick
        n = len(hand.tricks)
        if trick is None or not trick.plays:
            continue
        lines = _trick_lines(text, n)
        best = trick.plays[trick_winner(hand.ctx, [p.cards for p in trick.plays])].seat
        marked = [line for line in lines if line.endswith("⬅ winning")]
        assert len(marked) == 1 and marked[0].startswith(SHOWN[best] + ":")
        assert lines[-1] == f"… {SHOWN[hand.turn]} to play"
        attackers = "E–W" if hand.dealer in (0, 2) else "N–S"
        assert f"Attackers' points ({attackers}): <b>{hand.attackers_points}</b>" in text


def test_every_group_table_holds_the_last_completed_trick_in_full():
    m, _ = buried_match()
    rec = record()
    rng = random.Random(7)
    while m.hand.phase == "playing":
        play_one(m, rng)
        hand = m.hand
        done = [i for i, tr in enumerate(hand.tricks) if tr.winner is not None]
        if not done:
            continue
        last = hand.tricks[done[-1]]
        text = table_text(rec, m)
        lines = _trick_lines(text, done[-1] + 1)
        assert f"🏆 {SHOWN[last.winner]} wins (+{last.points})" in lines[0]
        for play, line in zip(last.plays, lines[1:], strict=True):
            cards = cards_label(hand.ctx.sorted(list(play.cards)), "en")
            assert line.startswith(f"{SHOWN[play.seat]}: ") and cards in line
        # a render skipped by delivery loses nothing: this one is whole
        assert len(re.findall(r"<b>Trick \d+</b>", text)) <= 2


def test_a_table_told_what_the_group_saw_repeats_every_trick_it_missed_in_full():
    m, _ = buried_match()
    rec = record()
    rng = random.Random(7)
    while sum(1 for tr in m.hand.tricks if tr.winner is not None) < 5:
        play_one(m, rng)
    play_one(m, rng)  # trick 6 led: five tricks done
    hand = m.hand
    for seen, expected in ((4, [5]), (2, [3, 4, 5]), (5, [5]), (None, [5]), (0, [1, 2, 3, 4, 5])):
        text = group_table(rec, m, seen=seen).text
        won = [int(x) for x in re.findall(r"<b>Trick (\d+)</b> · 🏆", text)]
        assert won == expected, (seen, won)
        for n in won:  # each in full: the winner, the points, every play
            trick = hand.tricks[n - 1]
            lines = _trick_lines(text, n)
            assert f"🏆 {SHOWN[trick.winner]} wins (+{trick.points})" in lines[0]
            assert len(lines) == 5
        assert "<b>Trick 6</b>" in text  # and the trick being played


def test_the_dm_shows_the_last_trick_as_finished_until_the_next_one_completes():
    m, _ = buried_match()
    rng = random.Random(9)
    rec = record()
    while len(m.hand.tricks) < 3 or m.hand.current_trick.plays:
        play_one(m, rng)
    hand = m.hand
    first_done = hand.tricks[-2]
    for _ in range(3):  # the next trick grows: the finished one stays in view
        for seat in range(4):
            content, _ = dm_message(rec, m, seat)
            line = next(x for x in content.text.splitlines() if x.startswith("Trick 2 (finished):"))
            assert line.endswith(f"→ 🏆 {SHOWN[first_done.winner]} +{first_done.points}")
        play_one(m, rng)
    content, _ = dm_message(rec, m, hand.turn)
    assert "Trick 3 (now): " in content.text
    best = hand.current_trick.plays[
        trick_winner(hand.ctx, [p.cards for p in hand.current_trick.plays])
    ].seat
    assert re.search(rf"{SHOWN[best]} [^·]*⬅ winning", content.text)
    play_one(m, rng)  # the trick completes: it is now the last one shown
    content, _ = dm_message(rec, m, 0)
    assert "Trick 2 " not in content.text and "Trick 3 (finished)" in content.text


def test_between_turns_the_dm_shows_the_trick_only_up_to_the_readers_play():
    """What others play later would make a live line false: a DM shows the trick in
    progress up to its reader's own play, no winning mark, no "waiting for"."""
    m, _ = buried_match()
    rng = random.Random(4)
    rec = record()
    while len(m.hand.tricks) < 2 or len(m.hand.current_trick.plays) != 2:
        play_one(m, rng)
    trick = m.hand.current_trick
    first, second = trick.plays[0].seat, trick.plays[1].seat
    text = dm_message(rec, m, first)[0].text
    line = next(x for x in text.splitlines() if x.startswith("Trick 2 up to your play:"))
    assert NAMES[second] not in line and "winning" not in text
    assert t("en", "dm.not_your_turn") in text
    text = dm_message(rec, m, second)[0].text
    assert NAMES[first] in next(x for x in text.splitlines() if "up to your play" in x)
    waiting = (s for s in range(4) if s not in (first, second) and s != m.hand.turn)
    for seat in waiting:  # not played in it yet: the trick is not shown
        assert "Trick 2" not in dm_message(rec, m, seat)[0].text


def test_the_turn_is_unmistakable_and_the_others_are_told_when_it_comes():
    m, _ = buried_match()
    rec = record()
    turn = m.hand.turn
    for seat in range(4):
        content, mine = dm_message(rec, m, seat)
        assert mine == (seat == turn)
        last = content.text.splitlines()[-1]
        if seat == turn:
            assert last.startswith("👉 <b>Your turn to lead.</b>")
        else:
            assert last == t("en", "dm.not_your_turn")


def _finished_hand(seed=11):
    m, _ = buried_match(seed)
    while m.hand.phase == "playing":
        seat = m.hand.turn
        m.apply(Play(seat=seat, cards=suggest(m.observation(seat))))
    return m


def test_the_dm_result_tells_the_outcome_the_levels_and_the_next_dealer():
    m = _finished_hand()
    r = m.hand.result
    side = "The attackers take over" if r.winner == "attackers" else "The defenders hold"
    for seat in range(4):
        content, mine = dm_message(record(), m, seat)
        assert not mine and content.markup is None
        text = content.text
        assert "Hand 1 is over" in text
        gained = {0: "no level gained", 1: "+1 level"}.get(r.steps, f"+{r.steps} levels")
        assert f"{side}: {gained}." in text
        a, b = (rank_label(x) for x in r.levels_after)
        assert f"Levels now: N–S {a} · E–W {b}" in text
        assert f"Next dealer: {SHOWN[r.next_dealer]}." in text
        assert f"<b>{r.attackers_points}</b>" in text


def test_a_seat_on_auto_play_gets_a_take_over_link_on_the_table():
    m, dealer = buried_match()
    rec = record()
    assert all(c.markup is None for _, c in group_messages_of(rec, m, "B"))
    rec.seats[2].auto = True
    (_, table), *_ = group_messages_of(rec, m, "B")
    urls = [b.url for row in table.markup.inline_keyboard for b in row]
    assert urls == ["https://t.me/B?start=t1_2"]


def test_a_result_says_the_next_hand_starts_shortly_only_while_it_has_not_started():
    m = _finished_hand()
    rec = record()
    live = result_of(rec, m.public_observation())
    final = result_of(rec, m.public_observation(), live=False)
    assert "starts shortly" in live.text and live.markup is not None
    assert "starts shortly" not in final.text and final.markup is None
    assert "Next dealer: " in final.text
    zh = result_of(record("zh"), m.public_observation(), live=False)
    assert "稍后" not in zh.text and "下一局庄家" in zh.text
    # the hand's table keeps its last trick and loses its buttons
    table = table_text(rec, m)
    assert f"<b>Trick {len(m.hand.tricks)}</b> · 🏆" in table


def test_the_old_lobby_does_not_announce_the_end_before_the_result_does():
    rec = record()
    rec.status = "finished"
    text = lobby(rec, "B").text
    assert "over" not in text and "The game has started." in text


FAMILY = "👨\u200d👩\u200d👧\u200d👦"


def test_names_are_cut_by_graphemes_never_inside_an_emoji():
    assert clip("Alice", 16) == "Alice"
    name = "Ann" + FAMILY * 20
    cut = clip(name, 8)
    assert cut == "Ann" + FAMILY * 4 + "…"
    assert not cut.rstrip("…").endswith("\u200d")
    flags = "🇨🇳🇬🇧🇫🇷"
    assert clip(flags, 2) == "🇨🇳…"
    for n in range(1, 30):
        cut = clip(name, n)
        assert "\u200d…" not in cut and cut.count("\u200d") % 3 == 0


def test_each_show_button_says_what_the_show_does():
    labels = {"en": set(), "zh": set()}
    for seed in range(30):
        m = MatchState.new(RuleSet.from_preset("classic"), seed)
        m.apply(Deal(n=100))
        hand = m.hand
        for _ in range(3):  # a few shows in the after-deal window
            offered = []
            for seat in range(4):
                for lang in ("en", "zh"):
                    content, _ = dm_message(record(lang), m, seat)
                    for row in content.markup.inline_keyboard:
                        for b in row:
                            if b.callback_data.startswith("D|"):
                                cards = codec.decode(b.callback_data).cards
                                action = hand.show_action(seat, cards)
                                word = t(lang, f"btn.show.{action}")
                                label = f"{word} {cards_label(cards, lang)}"
                                if b.style == "danger":  # a red suit's: its suit as text
                                    label = label.replace("\ufe0f", "")
                                assert b.text == label
                                labels[lang].add(word.split()[-1])
                                offered.append((seat, cards))
            if not offered:
                break
            seat, cards = offered[seed % len(offered)]
            m.apply(Show(seat=seat, cards=cards))
    assert {"亮主", "反主"} <= labels["zh"] and {"Declare", "Overturn"} <= labels["en"]


def test_the_prompt_says_when_one_tap_plays():
    m, _ = buried_match()
    rng = random.Random(2)
    rec = record()
    seen = set()
    for _ in range(120):
        hand = m.hand
        if hand.phase != "playing":
            break
        content, mine = dm_message(rec, m, hand.turn)
        last = content.text.splitlines()[-1]
        trick = hand.current_trick
        one = bool(trick.plays) and len(trick.plays[0].cards) == 1
        assert mine and ("one tap plays it" in last) == one
        need = hand.cards_to_play(hand.turn)
        if need is None:
            assert "Your turn to lead" in last
        elif need > 1:
            assert f"follow with {need} cards (0 selected)" in last
            assert any(
                f"▶️ Play 0/{need}" == b.text for row in content.markup.inline_keyboard for b in row
            )
        seen.add(one)
        play_one(m, rng)
    assert seen == {True, False}


def test_the_dm_keyboard_is_sent_and_digested_exactly_as_ptbs_would_be():
    """The hand's keyboard is plain data; its JSON (what is sent, and the digest stored
    of what a message shows) is PTB's, so messages saved before need no re-edit."""
    m, _ = buried_match()
    rec = record()
    rec.seats[0].ui.selection = [m.hand.hands[0][0]]
    for seat in range(4):
        content, _ = dm_message(rec, m, seat)
        rows = content.markup.inline_keyboard
        ptb = InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(b.text, callback_data=b.callback_data, style=b.style)
                    for b in r
                ]
                for r in rows
            ]
        )
        assert content.markup_json == json.dumps(ptb.to_dict(), sort_keys=True)
        assert codec.decode(rows[0][0].callback_data).kind == "T"
        # the red suits' buttons are red (the Bot API's style), the others the client's colour
        for row in rows:
            for b in row:
                red = any(mark in b.text for mark in ("♥", "♦"))
                assert b.style == ("danger" if red else None), (b.text, b.style)
                # on the red, the suit as text (white): the red emoji would vanish
                assert not red or "\ufe0f" not in b.text, b.text


def test_a_keyboard_of_every_kind_of_label_and_button_is_sent_as_ptbs_json():
    """Labels in Chinese, with emoji, quotes and backslashes, and the Mini App's button:
    the keyboard's JSON is the one PTB's markup gives, character for character."""
    labels = ["✓♠️A", "出牌 0/2", 'say "hi" \\ now', "大王"]
    rows = [[Button(x, f"T|1|2|3|{i}") for i, x in enumerate(labels)]]
    rows.append([WebAppButton("牌桌 🃏", 'https://example.org/app/?g=1&q="x"')])
    content = Content("text", Keyboard.of(rows))
    ptb = InlineKeyboardMarkup(
        [[InlineKeyboardButton(x, callback_data=f"T|1|2|3|{i}") for i, x in enumerate(labels)]]
        + [
            [
                InlineKeyboardButton(
                    "牌桌 🃏", web_app=WebAppInfo('https://example.org/app/?g=1&q="x"')
                )
            ]
        ]
    )
    assert content.markup_json == json.dumps(ptb.to_dict(), sort_keys=True)


def test_joker_declare_everyone_reads_whether_the_dealers_team_could_declare():
    """RULES 12: when a later hand's deal ends with nothing declared, the table says at
    once whether the dealer's team can declare (叫不起: then the attackers may)."""
    rules = RuleSet.from_preset("joker_declare")
    lines = {
        False: {"en": "The dealer's team cannot declare", "zh": "庄家方叫不起"},
        True: {"en": "The dealer's team can declare", "zh": "庄家方叫得起"},
    }
    seen = set()
    for seed in range(100):
        m = MatchState.new(rules, seed)
        m.hand = HandState.new(rules, seed, 2, 0, m.levels)
        m.apply(Deal(n=96))
        for lang in ("en", "zh"):  # not before the deal ends
            assert not any(w[lang] in table_text(record(lang), m) for w in lines.values())
        m.apply(Deal(n=4))
        can = m.hand.public_observation().dealer_team_can_declare
        if can is None or can in seen:
            continue
        seen.add(can)
        for lang in ("en", "zh"):
            rec = record(lang)
            for _, content in group_messages_of(rec, m):
                assert lines[can][lang] in content.text
                assert lines[not can][lang] not in content.text
            for seat in range(4):
                assert lines[can][lang] in dm_message(rec, m, seat)[0].text
            for seat in (None, 0, 1, 2, 3):  # the Mini App: a spectator, each seat
                assert (
                    lines[can][lang] in table_view(rec, project(rec, m, seat), lang)["dealer_team"]
                )
    assert seen == {True, False}


def test_the_hand_as_text_uses_the_readers_punctuation():
    m, dealer = buried_match()
    cards = m.hand.hands[dealer]
    zh, en = hand_lines(m.hand.ctx, cards, "zh"), hand_lines(m.hand.ctx, cards, "en")
    assert zh[0].startswith("主：") and ": " not in "".join(zh)
    assert en[0].startswith("Trumps: ")


def test_the_dm_says_a_炒底_window_left_to_run_out_counts_as_a_pass_not_托管():
    from bot.views.dm_hand import _clock_line
    from bot.views.projection import Deadline

    turn = Deadline(60, 0.0, 0.0)
    chaodi = Deadline(60, 0.0, 0.0, optional=True)
    for lang in ("en", "zh"):
        assert "托管" in _clock_line(turn, lang)
        assert "托管" not in _clock_line(chaodi, lang)
    # running out is 炒底's own pass, as its button says it: 不炒 / "Don't overturn"
    for lang in ("en", "zh"):
        assert t(lang, "btn.pass.chaodi") in _clock_line(chaodi, lang)


def test_the_attackers_points_read_as_one_amount_with_what_went_into_it():
    """Issue 36: "得分：0 甩牌罚分 -20" read as two amounts and "+ -20" as nonsense: the
    total is said once; only a kitty bonus or a penalty brings the sum that makes it,
    each term once with its sign; a sum below zero says why the total is 0."""
    from bot.views.group_table import result_points

    def plain(html: str) -> str:
        return re.sub("<[^>]+>", "", html)

    assert plain(result_points(65, 0, 0, 65, "zh")) == "闲家得分：65"
    assert plain(result_points(20, 40, 0, 60, "en")) == (
        "Attackers' points: 20 in tricks + 40 kitty bonus = 60"
    )
    assert plain(result_points(30, 0, -20, 10, "en")) == (
        "Attackers' points: 30 in tricks \u2212 20 throw penalty = 10"
    )
    assert plain(result_points(0, 0, -20, 0, "zh")) == (
        "闲家得分：牌分 0 \u2212 甩牌罚分 20，不计负分 = 0"
    )
    assert plain(result_points(40, 0, 20, 60, "zh")) == "闲家得分：牌分 40 + 甩牌罚分 20 = 60"
    for lang in ("zh", "en"):
        assert "-" not in result_points(0, 0, -20, 0, lang)


def test_the_lobby_names_each_computer_as_the_table_does():
    """Issue 36: the lobby listed "🤖 电脑" three times where the table says 电脑2/3/4."""
    rec = record()
    for i in (1, 2, 3):
        rec.seats[i] = Seat(computer=True, name=t("zh", "computer_name"))
    text = lobby(rec, "bot").text
    for i in (1, 2, 3):
        assert f"{i + 1}. {t(rec.lang, 'computer_seat', n=i + 1)}" in text
