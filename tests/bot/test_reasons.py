"""Why: the line a Hint shows and "Why?" on the last trick tells of each computer's play
(bot.views.reason_line), in the reader's words, from the reason kept with the play."""

from __future__ import annotations

import random

import pytest

from bot.i18n import t
from bot.table import apply
from bot.table.commands import Why
from bot.views.card_labels import card_label
from bot.views.codec import Kind
from bot.views.dm_hand import hand_message
from bot.views.messages import Button, Keyboard
from bot.views.miniapp import table_view
from bot.views.projection import project
from bot.views.reason_line import reason_line, said_points, said_share
from engine.cards import parse_cards
from engine.players.search import SearchPlayer
from engine.reasons import Odds, Reason
from tests.engine.test_players_search import hidden_swapped, positions
from tests.table.test_commands import ann_follows
from tests.table.test_table import PACE, at_seat, hint, until

ACES = parse_cards("AS AS")


def searched(wins: float, taken: float, given: float, attacking: bool, **kw: object) -> Reason:
    total = 60.0
    return Reason(
        kind="search",
        attacking=attacking,
        best=Odds(deals=30, total=total, wins=wins, taken=taken, given=given),
        **kw,  # type: ignore[arg-type]
    )


def test_the_issues_example_reads_as_a_player_says_it():
    reason = searched(0.9, 19.0, 2.0, attacking=False)
    assert reason_line("en", ACES, reason) == (
        "♠️A ♠️A: takes the trick in 9 of 10 deals; keeps 20 points from the attackers"
    )
    assert reason_line("zh", ACES, reason) == "♠️A ♠️A：十次里9次拿下这一轮，保住20分"


def test_numbers_are_rounded_as_said_and_each_side_reads_its_own_way():
    assert [said_share(x) for x in (0.04, 0.05001, 0.349, 0.96)] == [0, 1, 3, 10]
    assert [said_points(x) for x in (2.4, 2.6, 12.4, 13.0, 97.6)] == [0, 5, 10, 15, 100]
    attackers = searched(0.97, 31.0, 0.4, attacking=True)
    assert reason_line("en", ACES, attackers).endswith("in every deal; takes 30 points")
    lost = searched(0.02, 0.0, 10.0, attacking=True, trumps=True)
    assert reason_line("en", ACES, lost) == (
        "♠️A ♠️A: lets the other side take the trick; the defenders keep 10 points; draws trumps"
    )
    assert reason_line("zh", ACES, lost) == "♠️A ♠️A：这一轮让对方拿，庄家方保住10分，吊主"
    fed = searched(0.3, 0.0, 15.0, attacking=False)
    assert "gives the attackers 15 points" in reason_line("en", ACES, fed)
    # the runner-up: the points it gives up for the team, said only when 5 or more
    better = searched(0.5, 0.0, 0.0, attacking=False)
    better.runner_up = Odds(deals=30, total=72.0, wins=0.5, taken=0, given=0)  # attackers +12
    assert reason_line("en", ACES, better).endswith("10 points better than the next best play")
    better.runner_up.total = 61.0
    assert "better" not in reason_line("en", ACES, better)


def test_a_play_kept_back_is_said_only_to_its_own_player():
    reason = searched(0.5, 0.0, 0.0, attacking=True, control=True)
    assert "joker or level card" in reason_line("en", ACES, reason, own=True)
    assert "joker" not in reason_line("en", ACES, reason, own=False)


@pytest.mark.parametrize("kind", ["duck", "ruff", "lead_master", "bury_void", "only_play"])
def test_every_rule_of_the_heuristic_has_its_words_in_both_languages(kind):
    for lang in ("en", "zh"):
        assert f"why.kind.{kind}" not in reason_line(lang, ACES, Reason(kind=kind))


def test_reason_text_never_depends_on_hidden_cards():
    # the blind test, to the words: the same position with the hidden cards swapped
    # among the other seats (and the kitty) gives the same figures and the same line,
    # which names no card but the play's own
    player = SearchPlayer(budget_ms=60)
    rng = random.Random(8)
    checked = 0
    for state, seat in positions(2, every=5, first=5):
        obs = state.observation(seat)
        other = hidden_swapped(state, seat, rng)
        if other is None:
            continue
        twin = other.observation(seat)
        cards, reason = player.play_reasoned(obs, random.Random(3))
        twin_cards, twin_reason = player.play_reasoned(twin, random.Random(3))
        assert (cards, reason) == (twin_cards, twin_reason)
        for lang in ("en", "zh"):
            line = reason_line(lang, obs.ctx.sorted(cards), reason)
            assert line == reason_line(lang, twin.ctx.sorted(twin_cards), twin_reason)
            named = {c for c in range(54) if card_label(c, lang) in line}
            assert named <= set(cards), (line, cards)
        checked += reason.kind == "search"
    assert checked > 5


def test_a_hint_shows_why_in_the_dm_and_the_mini_app_in_the_readers_words():
    table, at = ann_follows()
    out = apply(table, hint(table), PACE, at.moment)
    assert out.answer.key == "hint.done"
    rec, match = table.rec, table.match
    p = project(rec, match, 0)
    assert p.own is not None and p.own.hint is not None
    line = reason_line("en", match.hand.ctx.sorted(list(p.own.selection)), p.own.hint, own=True)
    dm = hand_message(rec, p)[0].text
    assert t("en", "dm.hint.why", line=line) in dm
    assert table_view(rec, p, "en")["me"]["hint"]["line"] == line
    rec.lang = rec.seats[0].lang = "zh"
    zh = reason_line("zh", match.hand.ctx.sorted(list(p.own.selection)), p.own.hint, own=True)
    assert t("zh", "dm.hint.why", line=zh) in hand_message(rec, project(rec, match, 0))[0].text
    # another selection: the hint's why is gone
    rec.seats[0].ui.selection = []
    assert project(rec, match, 0).own.hint is None  # type: ignore[union-attr]


def test_why_on_the_last_trick_tells_each_computers_play_and_托管s_in_the_dm_and_the_app():
    table, at = ann_follows()
    # on: Ann's own turns play by 托管 while the timers run
    until(table, at, lambda t: t.match.hand.phase == "playing" and len(t.match.hand.tricks) > 3)
    rec, match = table.rec, table.match
    p = project(rec, match, 0)
    last = p.last
    assert last is not None
    assert all(play.reason is not None for play in last.plays if rec.seats[play.seat].computer)
    markup = hand_message(rec, p)[0].markup
    assert isinstance(markup, Keyboard)
    buttons = [b for row in markup.inline_keyboard for b in row if isinstance(b, Button)]
    why = [b for b in buttons if b.callback_data.startswith(Kind.WHY.value + "|")]
    assert [b.text for b in why] == [t("en", "btn.why")]
    auto = rec.seats[0].auto
    out = apply(table, at_seat(table, Why), PACE, at.moment)
    assert rec.seats[0].auto == auto  # asking why is not being back from 托管
    assert [e.kind for e in out.events] == ["selected"]
    p = project(rec, match, 0)
    dm = hand_message(rec, p)[0].text
    assert t("en", "dm.why.title", n=last.number) in dm
    view = table_view(rec, p, "en")
    for play, shown in zip(last.plays, view["last"]["plays"], strict=True):
        if play.reason is None:
            assert shown["why"] is None
            continue
        line = reason_line("en", play.cards, play.reason, own=play.seat == 0)
        # the page's: the same words, its suits as text (the theme's colour, dark mode)
        assert line in dm and shown["why"] == line.replace("\ufe0f", "")
    # asked again: closed
    apply(table, at_seat(table, Why), PACE, at.moment)
    assert (
        t("en", "dm.why.title", n=last.number)
        not in hand_message(rec, project(rec, match, 0))[0].text
    )
    # the reasons were decided when played and saved with the match
    again = type(match).model_validate_json(match.model_dump_json())
    assert [p.reason for p in again.hand.tricks[last.number - 1].plays] == [
        play.reason for play in last.plays
    ]


def test_over_whole_hands_every_line_says_the_searchs_own_figures_and_only_its_cards():
    # a whole hand by the search (every seat): each play's line, in both languages, states
    # the share and the points the search computed, as said, and names no other card
    import re

    from engine.hand import Deal, HandState, Play
    from engine.rules import RuleSet
    from tests.engine.test_players import seat_to_act

    player = SearchPlayer(budget_ms=50, declare=0, bury=0)
    state = HandState.new(RuleSet.from_preset("classic"), 77, 2, 1, [3, 3])
    state.apply(Deal(n=100))
    rng = random.Random(77)
    said = 0
    while state.phase != "done":
        obs = state.observation(seat_to_act(state))
        action = player(obs, rng)
        if isinstance(action, Play):
            reason = action.reason
            assert reason is not None
            cards = obs.ctx.sorted(list(action.cards))
            en = reason_line("en", cards, reason)
            zh = reason_line("zh", cards, reason)
            for lang, line in (("en", en), ("zh", zh)):
                named = {c for c in range(54) if card_label(c, lang) in line}
                assert named <= set(cards), line
            best = reason.best
            if reason.kind == "search" and best is not None and best.wins is not None:
                n = said_share(best.wins)
                expect = "every deal" if n == 10 else "take the trick" if n == 0 else f"{n} of 10"
                assert expect in en, en
                assert (f"十次里{n}次" in zh) == (0 < n < 10), zh
                for points in re.findall(r"(\d+) points", en):
                    assert int(points) % 5 == 0 and int(points) > 0
                taken, given = said_points(best.taken or 0), said_points(best.given or 0)
                side = "attacking" if reason.attacking else "defending"
                took = t("en", "why.takes" if reason.attacking else "why.keeps", points=taken)
                gave = t("en", f"why.gives.{side}", points=given)
                assert (took in en) == (taken > 0) and (gave in en) == (given > 0), en
                said += 1
        state.apply(action)
    assert said > 20
