"""The table answers in facts (``bot.table.Answer``): a catalog key and the plain data
its text may quote, never a word; the edge says it in the reader's language
(``bot.views.answers``). Every key an Answer can carry, in the table or at an edge, is in
both catalogs, and its text formats with the facts it is given."""

from __future__ import annotations

import ast
import json
import re
import string
from pathlib import Path
from typing import get_args

import pytest

from bot.i18n import t
from bot.table import Answer, Outcome, apply
from bot.table.commands import (
    AddComputer,
    Back,
    Hint,
    Join,
    Leave,
    Play,
    Select,
    Start,
    TakeOver,
)
from bot.table.state import Fact
from bot.views.answers import Reply, reply_in, words
from engine import errors
from engine.hand import Action
from tests.table.test_commands import ann_follows, refused
from tests.table.test_table import (
    BEN,
    CREATOR,
    PACE,
    START,
    At,
    at_seat,
    hint,
    new_table,
    started,
    until,
)

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = {
    lang: json.loads((ROOT / "bot" / "i18n" / name).read_text(encoding="utf-8"))
    for lang, name in (("en", "en.json"), ("zh", "zh_CN.json"))
}
# what a deep link's reply is told by the edge that sends it (bot.edges.telegram.joining):
# the group's name as HTML and the seat as people count them
DEEP_LINK = {"group", "seat"}
DEEP_LINK_FAMILIES = ("join.", "take.", "open.")


def _plain(fact: Fact) -> bool:
    """A fact is data: a number, a code (no word of any language), or a tuple of those."""
    if isinstance(fact, tuple):
        return all(_plain(f) for f in fact)
    if isinstance(fact, str):
        return re.fullmatch(r"[a-z0-9_]*", fact) is not None
    return fact is None or isinstance(fact, int | float | bool)


def told(out: Outcome) -> Answer:
    """What the person is told, checked to be facts only."""
    for answer in (out.answer, out.said):
        assert all(_plain(f) for f in answer.facts.values()), answer
    return out.answer if out.answer.key else out.said


# ---------------------------------------------------------------------- refusals as facts
def test_a_play_out_of_turn_is_the_engines_reason_with_whose_turn_it_is():
    table, at = started()
    until(table, at, lambda t: t.match.hand.phase == "playing" and t.match.hand.turn != 0)
    if table.rec.seats[0].auto:
        apply(table, at_seat(table, Back), PACE, at.moment)
    hand = table.match.hand
    out = refused(table, at, at_seat(table, Play, CREATOR, (hand.hands[0][0],)))
    expected = {"reason": "not_your_turn", "turn": hand.turn}
    assert told(out) == Answer("reason.not_your_turn", expected, alert=True)


def test_a_card_not_in_hand_is_refused_with_the_cards_in_question():
    table, at = ann_follows()
    missing = next(c for c in range(54) if c not in table.match.hand.hands[0])
    out = refused(table, at, at_seat(table, Play, CREATOR, (missing,)))
    expected = {"reason": "not_in_hand", "cards": (missing,)}
    assert told(out) == Answer("reason.not_in_hand", expected, alert=True)


def test_a_stale_button_says_what_it_was_for_and_what_is_now():
    table, at = ann_follows()
    n, v = table.match.hand.hand_number, table.match.hand.version
    out = refused(table, at, Play(CREATOR, n, v - 2, ()))
    assert told(out) == Answer("stale", {"version": v - 2, "current": v})
    out = refused(table, at, Play(CREATOR, n + 1, v, ()))
    assert told(out) == Answer("stale", {"hand": n + 1, "current": n})
    card = table.match.hand.hands[0][0]
    out = refused(table, at, Select(CREATOR, n, v, card, 5))  # a fifth copy: none held
    assert told(out) == Answer("stale", {"card": card, "copy": 5})


def test_joining_a_full_or_started_table_is_a_key_and_taking_a_seat_in_use_too():
    table = new_table()
    for seat, user in enumerate((CREATOR, BEN, 103, 104)):
        assert told(apply(table, Join(seat, user, f"p{seat}", "en"), PACE, START)).key == "join.ok"
    out = apply(table, Join(2, 105, "Eve", "en"), PACE, START)
    assert out.events == [] and told(out) == Answer("join.taken")
    out = refused(table, At(), Start(BEN))
    assert told(out) == Answer("lobby.only_creator", alert=True)
    apply(table, Start(CREATOR), PACE, START)
    out = apply(table, Join(1, 105, "Eve", "en"), PACE, START)
    assert out.events == [] and told(out) == Answer("join.closed", {"status": "running"})
    out = apply(table, TakeOver(1, 105, "Eve", "en"), PACE, START)  # Ben is here
    assert out.events == [] and told(out) == Answer("take.not_free")


def test_a_start_short_of_four_says_how_many_sit():
    table = new_table()
    apply(table, Join(0, CREATOR, "Ann", "en"), PACE, START)
    apply(table, AddComputer(CREATOR, name="🤖"), PACE, START)
    out = refused(table, At(), Start(CREATOR))
    assert told(out) == Answer("lobby.need_four", {"seated": 2}, alert=True)


def test_a_computer_is_seated_with_the_name_the_edge_gives_it():
    table = new_table()
    apply(table, Join(0, CREATOR, "Ann", "en"), PACE, START)
    apply(table, AddComputer(CREATOR, name="Robo"), PACE, START)
    assert table.rec.seats[1].computer and table.rec.seats[1].name == "Robo"
    assert told(apply(table, Leave(BEN), PACE, START)) == Answer("lobby.not_seated")


def test_a_hint_selected_says_which_cards_and_one_out_of_turn_nothing_to_suggest():
    table, at = ann_follows()
    out = apply(table, hint(table), PACE, at.moment)
    assert told(out) == Answer("hint.done", {"cards": tuple(table.rec.seats[0].ui.selection)})
    out = refused(table, at, at_seat(table, Hint))  # no suggestion came with it
    assert told(out) == Answer("hint.not_now")


# ---------------------------------------------------------------------- the edge's words
def test_the_edge_says_an_answer_in_the_readers_language_with_its_facts():
    assert words("en", Answer("stale")) == CATALOGS["en"]["stale"]
    assert words("zh", Answer("stale", {"version": 3})) == CATALOGS["zh"]["stale"]
    assert words("en", Answer()) == "" and reply_in("zh", Answer()) == Reply("", False)
    said = words("en", Answer("join.ok"), group="<b>G</b>", seat=2)
    assert said == CATALOGS["en"]["join.ok"].format(group="<b>G</b>", seat=2)
    assert reply_in("en", Answer("lobby.need_four", {"seated": 2}, alert=True)) == Reply(
        CATALOGS["en"]["lobby.need_four"], True
    )


def test_a_reason_the_catalogs_do_not_know_is_said_as_unknown_with_its_code():
    refusal = Answer("reason.new_rule", {"reason": "new_rule"}, alert=True)
    for lang in ("en", "zh"):
        assert words(lang, refusal) == t(lang, "reason.unknown", reason="new_rule")
    known = Answer("reason.not_your_turn", {"reason": "not_your_turn", "turn": 2}, alert=True)
    assert words("zh", known) == CATALOGS["zh"]["reason.not_your_turn"]


# ---------------------------------------------------------------------- every key, every word
def _codes(path: Path, call: str) -> list[str]:
    """The string codes ``path`` passes to ``call(...)``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == call:
            if node.args and isinstance(node.args[0], ast.Constant):
                found.append(node.args[0].value)
    return found


# a key built at run time: its prefix and every code it may end with
EXPANDED = {
    "reason.": [v for k, v in vars(errors).items() if k.isupper() and isinstance(v, str)],
    "ack.": [cls.model_fields["kind"].default for cls in get_args(get_args(Action)[0])],
    "conflict.": _codes(ROOT / "engine" / "rules.py", "RuleConflict"),
}


def _argument(call: ast.Call, position: int, name: str) -> ast.expr | None:
    if len(call.args) > position:
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == name), None)


def answers_in_source() -> list[tuple[str, str, set[str]]]:
    """Every ``Answer(...)`` bot/ builds: where, its key (run-time keys expanded), the
    names of the facts it surely has (a ``**`` spread adds none a text may count on)."""
    out = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Answer"):
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            key, facts = _argument(node, 0, "key"), _argument(node, 1, "facts")
            names: set[str] = set()
            if isinstance(facts, ast.Dict):
                names = {k.value for k in facts.keys if isinstance(k, ast.Constant)}
            else:
                assert facts is None, f"{where}: facts the test cannot read"
            if key is None:
                continue  # Answer(): nothing to say
            if isinstance(key, ast.Constant):
                out.append((where, key.value, names))
            elif isinstance(key, ast.JoinedStr) and isinstance(key.values[0], ast.Constant):
                prefix = key.values[0].value
                assert prefix in EXPANDED and len(key.values) == 2, f"{where}: key {prefix}…"
                out += [(where, prefix + code, names) for code in EXPANDED[prefix]]
            elif isinstance(key, ast.IfExp):  # a or b
                branches = (key.body, key.orelse)
                assert all(isinstance(k, ast.Constant) for k in branches), where
                out += [(where, k.value, names) for k in branches if isinstance(k, ast.Constant)]
            else:
                raise AssertionError(f"{where}: a key the test cannot read")
    return out


def test_the_source_is_read_the_table_and_the_edges_alike():
    found = {key for _, key, _ in answers_in_source()}
    # the table's refusals and acks, an edge's own, a deep link's, the engine's reasons
    assert {"stale", "not_your_game", "lobby.need_four", "paused.group", "ack.bury"} <= found
    assert {"error.undone", "hint.thinking", "join.no_game", "join.taken"} <= found
    assert {"reason.not_your_turn", "reason.wrong_bury_count"} <= found


@pytest.mark.parametrize("lang", sorted(CATALOGS))
def test_every_key_an_answer_carries_is_in_both_catalogs_and_formats_with_its_facts(lang):
    catalog = CATALOGS[lang]
    for where, key, names in answers_in_source():
        assert key in catalog, (where, key, lang)
        quoted = {f for _, f, _, _ in string.Formatter().parse(catalog[key]) if f}
        given = set(names)
        if key.startswith(DEEP_LINK_FAMILIES):
            given |= DEEP_LINK
        assert quoted <= given, (where, key, lang, sorted(quoted - given))
        catalog[key].format(**dict.fromkeys(given, 1))
    assert "reason" in {f for _, f, _, _ in string.Formatter().parse(catalog["reason.unknown"])}
