"""Every command a person gives the table (``bot.table.commands``), and every way the
table refuses one, applied to the state machine directly: a refused command tells no
event and changes nothing, and its answer is what the person is told, in facts: a
catalog key and the plain data its text may quote (the edge picks the words)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.table import Answer, Outcome, Table, apply, due, turn_clock
from bot.table.commands import (
    AddComputer,
    AtSeat,
    Away,
    Back,
    Cancel,
    Clear,
    DmLost,
    Hint,
    Join,
    Leave,
    LeaveGroup,
    NextHand,
    Pass,
    Play,
    Redeal,
    RemoveComputer,
    Select,
    Show,
    Start,
    Tally,
    Why,
)
from engine import hand as rules
from engine.errors import IllegalAction
from engine.players import choose_bury
from tests.table.test_table import (
    BEN,
    CREATOR,
    PACE,
    START,
    At,
    at_seat,
    follows_one_card,
    hint,
    kinds,
    seen,
    timer,
    until,
)
from tests.table.test_table import new_table as new_table_in_zh
from tests.table.test_table import started as started_in_zh


def new_table() -> Table:
    """A lobby in a group that speaks English (as Ann does)."""
    table = new_table_in_zh()
    table.rec.lang = "en"
    return table


def started(seed: int = 7) -> tuple[Table, At]:
    table, at = started_in_zh(seed)
    table.rec.lang = "en"
    return table, at


ARGLESS = [Play, Pass, Redeal, Hint, Clear, Back, Away, Tally, NextHand]


def every_seat_command(table: Table, user: int = CREATOR) -> list[AtSeat]:
    """One command of each kind by ``user`` on what the table shows now."""
    n, v = seen(table)
    hand = table.match.hand.hands[0] if table.match else [0]
    card = hand[0] if hand else 0
    return [
        *(cls(user, n, v) for cls in ARGLESS),
        Select(user, n, v, card, 0),
        Show(user, n, v, (card,)),
    ]


def state(table: Table) -> tuple[str, str]:
    match = table.match.model_dump_json() if table.match else ""
    return table.rec.model_dump_json(), match


def refused(table: Table, at: At, command: object) -> Outcome:
    """``command`` changes nothing and tells no event: its answer."""
    before = state(table)
    out = apply(table, command, PACE, at.moment)
    assert out.events == [] and state(table) == before, (command, kinds(out))
    return out


def engine_says(table: Table, action: rules.Action) -> Answer:
    """The engine's refusal of ``action`` now as the table answers it: the reason's key,
    with the reason's code and the facts the engine gave, as an alert."""
    assert table.match is not None
    try:
        table.match.model_copy(deep=True).apply(action)
    except IllegalAction as e:
        details = {k: tuple(v) if isinstance(v, list) else v for k, v in e.details.items()}
        return Answer(f"reason.{e.reason}", {"reason": e.reason, **details}, alert=True)
    raise AssertionError(f"{action} is legal")


def said(out: Outcome) -> tuple[str, bool]:
    """The key of what the person is told, and whether it is an alert."""
    return out.answer.key, out.answer.alert


def ann_buries() -> tuple[Table, At]:
    """Seed 1: Ann declares in the window after the deal and buries the kitty."""
    table, at = started(seed=1)
    until(table, at, lambda t: t.match.hand.phase == "after_deal")
    option = table.match.hand.observation(0).show_options[0]
    out = apply(table, at_seat(table, Show, CREATOR, tuple(option)), PACE, at.moment)
    assert kinds(out) == ["declared"] and out.answer.key == "ack.show"
    until(table, at, lambda t: t.match.hand.phase == "burying")
    assert table.match.hand.turn == 0
    return table, at


def ann_follows() -> tuple[Table, At]:
    """Ann's turn, following a lead with one card, her own again (not on 托管)."""
    table, at = started()
    until(table, at, follows_one_card)
    if table.rec.seats[0].auto:
        apply(table, at_seat(table, Back), PACE, at.moment)
    return table, at


# ---------------------------------------------------------------------- the lobby
def test_leave_is_anyones_and_the_rest_of_the_lobby_only_the_creators_or_an_admins():
    table, at = new_table(), At()
    assert refused(table, at, Leave(BEN)).answer.key == "lobby.not_seated"
    apply(table, Join(1, BEN, "Ben", None), PACE, START)
    for command in (AddComputer(BEN), RemoveComputer(BEN), Start(BEN), Cancel(BEN)):
        out = refused(table, at, command)
        assert said(out) == ("lobby.only_creator", True)
    out = apply(table, Leave(BEN), PACE, START)
    assert kinds(out) == ["left"] and out.answer.key == "lobby.left"
    assert refused(table, at, RemoveComputer(CREATOR)).answer == Answer()  # none to remove
    for _ in range(4):
        assert kinds(apply(table, AddComputer(BEN, admin=True), PACE, START)) == ["computer_seated"]
    assert refused(table, at, AddComputer(CREATOR)).answer.key == "lobby.no_empty"
    out = refused(table, at, Start(CREATOR))
    assert said(out) == ("lobby.need_human", True)
    out = apply(table, RemoveComputer(CREATOR), PACE, START)
    assert kinds(out) == ["left"] and table.rec.seats[3].empty
    out = refused(table, at, Start(CREATOR))
    assert said(out) == ("lobby.need_four", True)
    out = apply(table, Cancel(BEN, admin=True), PACE, START)
    assert kinds(out) == ["closed"] and table.rec.status == "cancelled"
    assert out.answer.key == "lobby.cancelled"
    for command in (Leave(CREATOR), AddComputer(CREATOR), Start(CREATOR), Cancel(CREATOR)):
        assert refused(table, at, command).answer.key == "stale"


def test_lobby_buttons_of_a_running_game_are_out_of_date():
    table, at = started()
    for cls in (Leave, AddComputer, RemoveComputer, Start, Cancel):
        assert refused(table, at, cls(CREATOR, admin=True)).answer.key == "stale"


# ---------------------------------------------------------------------- who and when
def test_a_seat_command_before_the_match_is_out_of_date():
    table, at = new_table(), At()
    apply(table, Join(0, CREATOR, "Ann", "en"), PACE, START)
    for command in every_seat_command(table):
        assert refused(table, at, command).answer.key == "stale"


def test_a_person_not_at_the_table_is_told_so_whatever_they_press():
    table, at = started()
    for command in every_seat_command(table, BEN):
        out = refused(table, at, command)
        assert said(out) == ("not_your_game", True)


def test_a_command_of_another_hand_is_out_of_date_and_of_an_old_message_is_told_so():
    table, at = ann_follows()
    n, v = seen(table)
    for command in every_seat_command(table):
        older = type(command)(**{**_fields(command), "hand": n - 1})
        assert refused(table, at, older).answer.key == "stale"
        out = refused(table, at, type(command)(**{**_fields(command), "old_message": True}))
        assert said(out) == ("dm.old_message", True)


def _fields(command: AtSeat) -> dict[str, object]:
    return {name: getattr(command, name) for name in command.__dataclass_fields__}


def test_a_paused_table_refuses_everything_but_back_from_托管():
    table, at = ann_follows()
    table.rec.seats[0].auto = True
    apply(table, DmLost(CREATOR), PACE, at.moment)
    for command in every_seat_command(table):
        if isinstance(command, Back):
            continue
        out = refused(table, at, command)
        assert said(out) == ("paused", True)
    out = apply(table, at_seat(table, Back), PACE, at.moment)
    assert kinds(out) == ["auto_off"] and out.answer.key == "auto.off"
    assert table.rec.paused  # still waiting for the lost DM
    apply(table, LeaveGroup(), PACE, at.moment)
    out = refused(table, at, at_seat(table, Hint))
    assert said(out) == ("paused.group", True)


def test_any_command_but_a_card_tap_or_next_hand_ends_托管():
    for cls in (Play, Pass, Redeal, Hint, Clear, Back):
        table, at = ann_follows()
        table.rec.seats[0].auto = True
        out = apply(table, at_seat(table, cls), PACE, at.moment)
        assert kinds(out)[:1] == ["auto_off"] and not table.rec.seats[0].auto, cls
    for make in (
        lambda table: at_seat(table, Select, CREATOR, table.match.hand.hands[0][0], 0),
        lambda table: at_seat(table, NextHand),
    ):
        table, at = ann_follows()
        table.rec.seats[0].auto = True
        out = apply(table, make(table), PACE, at.moment)
        assert "auto_off" not in kinds(out) and table.rec.seats[0].auto


def test_im_away_puts_the_seat_on_托管_as_a_time_out_does_until_any_press():
    table, at = ann_follows()
    n, v = seen(table)  # a tap on an older keyboard selects (one tap would play)
    apply(table, Select(CREATOR, n, v - 1, table.match.hand.hands[0][0], 0), PACE, at.moment)
    assert table.rec.seats[0].ui.selection
    out = apply(table, at_seat(table, Away), PACE, at.moment)
    assert kinds(out) == ["auto_on"] and out.answer.key == "auto.away"
    s = table.rec.seats[0]
    assert s.auto and s.away and s.ui.selection == []
    # the timers see a robot's seat: no turn clock, the computer moves for Ann now
    assert due(table, PACE, at.moment)[0][2] == "robot" and turn_clock(table) is None
    # asked again: already so, nothing changes
    out = refused(table, at, at_seat(table, Away))
    assert out.answer.key == "auto.already"
    held = len(table.match.hand.hands[0])
    out = timer(table, at)
    assert "played" in kinds(out) and table.rec.seats[0].auto
    assert len(table.match.hand.hands[0]) == held - 1  # the computer played Ann's card
    # views of the table (Why, the counter, a card tap) keep 托管; any other press ends it
    for view in (Why, Tally):
        out = apply(table, at_seat(table, view), PACE, at.moment)
        assert "auto_off" not in kinds(out) and table.rec.seats[0].auto
    out = apply(table, at_seat(table, Clear), PACE, at.moment)
    assert kinds(out)[:1] == ["auto_off"]
    assert not table.rec.seats[0].auto and not table.rec.seats[0].away


def test_the_counter_button_shows_and_hides_the_dm_counter():
    table, at = ann_follows()
    out = apply(table, at_seat(table, Tally), PACE, at.moment)
    assert kinds(out) == ["selected"] and table.rec.seats[0].ui.tally
    apply(table, at_seat(table, Tally), PACE, at.moment)
    assert not table.rec.seats[0].ui.tally


# ---------------------------------------------------------------------- each command
def test_select_toggles_one_copy_and_a_copy_not_held_is_out_of_date():
    table, at = ann_buries()
    hand = table.match.hand.hands[0]
    card = next(c for c in hand if hand.count(c) == 1)
    out = apply(table, at_seat(table, Select, CREATOR, card, 0), PACE, at.moment)
    assert kinds(out) == ["selected"] and table.rec.seats[0].ui.selection == [card]
    out = apply(table, at_seat(table, Select, CREATOR, card, 0), PACE, at.moment)
    assert kinds(out) == ["selected"] and table.rec.seats[0].ui.selection == []
    out = refused(table, at, at_seat(table, Select, CREATOR, card, 1))
    assert out.answer == Answer("stale", {"card": card, "copy": 1})
    missing = next(c for c in range(54) if c not in hand)
    for which, copy in ((missing, 0), (card, -1), (card, 2)):
        out = refused(table, at, at_seat(table, Select, CREATOR, which, copy))
        assert out.answer.key == "stale"


def test_a_tap_on_an_older_keyboard_only_selects_even_when_one_card_would_play():
    table, at = ann_follows()
    n, v = seen(table)
    card = table.match.hand.hands[0][0]
    out = apply(table, Select(CREATOR, n, v - 1, card, 0), PACE, at.moment)
    assert kinds(out) == ["selected"] and table.rec.seats[0].ui.selection == [card]


def test_the_dealer_buries_with_play_and_the_engine_says_why_not_first():
    table, at = ann_buries()
    n, v = seen(table)
    out = refused(table, at, Play(CREATOR, n, v - 1, (0,)))  # an older keyboard's button
    assert out.answer == Answer("stale", {"version": v - 1, "current": v})
    three = tuple(table.match.hand.hands[0][:3])
    out = refused(table, at, Play(CREATOR, n, v, three))
    assert out.answer == engine_says(table, rules.Bury(seat=0, cards=list(three)))
    assert out.answer == Answer(
        "reason.wrong_bury_count",
        {"reason": "wrong_bury_count", "need": 8, "got": 3},
        alert=True,
    )
    out = apply(table, hint(table), PACE, at.moment)
    assert out.answer.key == "hint.done" and kinds(out) == ["selected"]
    chosen = table.rec.seats[0].ui.selection
    assert sorted(chosen) == sorted(choose_bury(table.match.hand.observation(0)))
    out = apply(table, at_seat(table, Play), PACE, at.moment)  # None: the selection
    assert out.answer.key == "ack.bury" and "buried" in kinds(out)
    assert table.rec.seats[0].ui.selection == []


def test_play_sends_the_cards_or_the_selection_and_the_engine_refuses_illegal_ones():
    table, at = ann_follows()
    hand = table.match.hand
    missing = next(c for c in range(54) if c not in hand.hands[0])
    out = refused(table, at, at_seat(table, Play, CREATOR, (missing,)))
    assert out.answer == Answer(
        "reason.not_in_hand", {"reason": "not_in_hand", "cards": (missing,)}, alert=True
    )
    two = tuple(hand.hands[0][:2])
    out = refused(table, at, at_seat(table, Play, CREATOR, two))
    assert out.answer == engine_says(table, rules.Play(seat=0, cards=list(two)))
    out = refused(table, at, at_seat(table, Play))  # nothing selected
    assert out.answer == engine_says(table, rules.Play(seat=0, cards=[]))
    apply(table, hint(table), PACE, at.moment)
    card = table.rec.seats[0].ui.selection[0]
    out = apply(table, at_seat(table, Play, CREATOR, (card,)), PACE, at.moment)
    assert out.answer.key == "ack.play" and kinds(out)[0] == "played"


def test_out_of_turn_a_play_is_not_yours_and_a_hint_has_nothing_to_suggest():
    table, at = started()
    until(table, at, lambda t: t.match.hand.phase == "playing" and t.match.hand.turn != 0)
    if table.rec.seats[0].auto:
        apply(table, at_seat(table, Back), PACE, at.moment)
    card = table.match.hand.hands[0][0]
    out = refused(table, at, at_seat(table, Play, CREATOR, (card,)))
    turn = table.match.hand.turn
    assert out.answer == Answer(
        "reason.not_your_turn", {"reason": "not_your_turn", "turn": turn}, alert=True
    )
    out = refused(table, at, at_seat(table, Hint))
    assert out.answer.key == "hint.not_now"


def test_show_pass_and_redeal_are_the_engines_to_allow():
    table, at = started(seed=8)  # Ann cannot declare after this deal
    until(table, at, lambda t: t.match.hand.phase == "after_deal")
    hand = table.match.hand
    missing = next(c for c in range(54) if c not in hand.hands[0])
    out = refused(table, at, at_seat(table, Show, CREATOR, (missing,)))
    assert out.answer == engine_says(table, rules.Show(seat=0, cards=[missing]))
    assert out.answer.alert
    assert not hand.observation(0).can_redeal
    out = refused(table, at, at_seat(table, Redeal))
    assert out.answer == engine_says(table, rules.Redeal(seat=0))
    out = apply(table, at_seat(table, Pass), PACE, at.moment)
    assert out.answer.key == "ack.pass" and out.events
    # passing again, or in the middle of the tricks, is the engine's to refuse
    until(table, at, lambda t: t.match.hand.phase == "playing")
    if table.rec.seats[0].auto:
        apply(table, at_seat(table, Back), PACE, at.moment)
    out = refused(table, at, at_seat(table, Pass))
    assert out.answer == engine_says(table, rules.Pass(seat=0))


def test_clear_unselects_everything_and_back_without_托管_changes_nothing():
    table, at = ann_follows()
    apply(table, hint(table), PACE, at.moment)
    assert table.rec.seats[0].ui.selection
    out = apply(table, at_seat(table, Clear), PACE, at.moment)
    assert kinds(out) == ["selected"] and table.rec.seats[0].ui.selection == []
    assert refused(table, at, at_seat(table, Back)).answer.key == "auto.off"


def test_next_hand_starts_the_next_hand_only_once_the_hand_is_done():
    table, at = ann_follows()
    assert refused(table, at, at_seat(table, NextHand)).answer.key == "stale"
    until(table, at, lambda t: t.match.hand.phase == "done")
    command = at_seat(table, NextHand)
    out = apply(table, command, PACE, at.moment)
    assert kinds(out)[:2] == ["hand_closed", "hand_started"] and table.rec.hand_no == 2
    assert refused(table, at, command).answer.key == "stale"  # pressed twice


def test_a_command_the_table_does_not_know_is_a_bug_not_a_silent_no_op():
    table, at = started()

    class Dance:
        user_id = CREATOR

    with pytest.raises(AssertionError):
        apply(table, Dance(), PACE, at.moment)


def test_a_hint_for_a_moment_that_has_passed_changes_nothing_and_one_without_a_suggestion_is_not_now():
    """The table decides no Hint itself (the edge's decider does, before the change): a
    suggestion made at an older version of the hand is dropped, and a Hint that arrives
    with none is answered "nothing to suggest"."""
    table, at = ann_follows()
    stale = hint(table)
    assert stale.suggestion is not None
    before = (table.rec.model_dump_json(), table.match.model_dump_json())
    older = replace(
        stale, suggestion=replace(stale.suggestion, version=stale.suggestion.version - 1)
    )
    out = apply(table, older, PACE, at.moment)
    assert out.events == [] and out.answer == Answer()
    assert (table.rec.model_dump_json(), table.match.model_dump_json()) == before
    out = apply(table, at_seat(table, Hint), PACE, at.moment)
    assert out.events == [] and out.answer.key == "hint.not_now"
