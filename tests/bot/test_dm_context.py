"""What a DM tells besides the cards (issue 16): the kitty cards picked up to bury, the
points against 80 and the level table's next threshold, ruffs and throws marked."""

from bot.i18n import t
from bot.views.card_labels import cards_label
from bot.views.dm_hand import card_button_label
from bot.views.group_table import play_text, table_message
from bot.views.projection import project, trick_view
from engine.cards import parse_cards
from engine.hand import Deal, Pass, Play
from engine.match import MatchState
from engine.players import suggest
from engine.records import PlayRecord, Trick
from engine.rules import RuleSet
from tests.bot.test_render import buried_match, dm_message, record


def test_the_kitty_cards_picked_up_come_first_in_a_row_of_their_own_while_burying():
    m = MatchState.new(RuleSet.from_preset("classic"), 11)
    m.apply(Deal(n=100))
    for s in range(4):
        m.apply(Pass(seat=s))
    dealer = m.hand.turn
    picked = m.hand.picked_up(dealer)
    assert len(picked) == 8
    content, mine = dm_message(record(), m, dealer)
    assert mine
    first: list[str] = []  # the rows of its own (as many as the phone's width needs)
    for row in content.markup.inline_keyboard:
        if len(first) >= 8:
            break
        first += [b.text for b in row]
    assert first == [card_button_label(c, "en") for c in picked]
    assert t("en", "dm.picked_up", cards=cards_label(picked, "en")) in content.text
    for seat in range(4):  # nobody else is told which cards they were
        if seat != dealer:
            assert "From the kitty" not in dm_message(record(), m, seat)[0].text


def test_the_points_say_what_80_means_and_the_next_threshold_of_the_level_table():
    m, _ = buried_match()
    text = dm_message(record(), m, 0)[0].text
    assert "Attackers (" in text and "before the first trick is won: <b>0</b>" in text
    # classic table: 0 → the defenders go up 3, from 5 only 2
    assert "80 takes over (80 to go) · from 5: defenders up only 2" in text
    while len(m.hand.tricks) < 5 or m.hand.current_trick.plays:
        seat = m.hand.turn
        m.apply(Play(seat=seat, cards=suggest(m.observation(seat))))
    view = m.hand.public_observation()
    points = view.points_after(4)
    text = dm_message(record(), m, 0)[0].text
    assert f"after trick 4: <b>{points}</b> points" in text
    if points < 80:
        assert f"80 takes over ({80 - points} to go)" in text
    # the group's live table: the points as they stand, in the same context
    live = m.hand.public_observation().attackers_points
    table = table_message(record(), project(record(), m, None)).text
    if live < 80:
        assert f"<b>{live}</b>\n80 takes over ({80 - live} to go)" in table


def test_a_ruff_and_a_throw_that_stood_are_marked_in_the_trick_line():
    m, _ = buried_match()
    view = m.hand.public_observation()
    trump = view.trump
    side = next(s for s in range(4) if s != trump)
    ace = parse_cards("AS AH AC AD")[side]
    king = parse_cards("KS KH KC KD")[side]
    low_trump = parse_cards("3S 3H 3C 3D")[trump] if trump is not None else None
    view.tricks = [Trick(leader=0, plays=[PlayRecord(seat=0, cards=[ace, king])])]
    assert play_text(record(), trick_view(view, 1).plays[0], "zh").endswith("（甩牌）")
    if low_trump is not None:
        ruff = PlayRecord(seat=1, cards=[low_trump])
        view.tricks = [Trick(leader=0, plays=[PlayRecord(seat=0, cards=[ace]), ruff])]
        play = trick_view(view, 1).plays[1]
        assert play_text(record(), play, "en").endswith(" (ruff)")
        assert play_text(record(), play, "zh").endswith("（毙）")
