"""The DM and the Mini App say the same thing: both render one projection
(``bot.views.projection``). Whole hands are played by the engine's computer players (with
some throws that fail, for their penalties) and at every step each seat's DM text and
Mini App document are read back and compared: the turn, the points, the tricks, the
levels."""

from __future__ import annotations

import random
import re
from typing import Any

from bot.data.saved import GameRecord, Seat
from bot.i18n import t
from bot.views.card_labels import cards_label
from bot.views.dm_hand import hand_message
from bot.views.group_table import signed
from bot.views.miniapp import table_view
from bot.views.projection import project
from engine.cards import parse_cards
from engine.errors import IllegalAction
from engine.hand import Deal, Pass, Play, Show
from engine.match import MatchState
from engine.players import choose_action
from engine.records import PlayRecord, Trick
from engine.rules import RuleSet
from tests.bot.test_render import buried_match
from tests.e2e.scripted import throws
from tests.e2e.truth import TURN_PROMPTS, _pattern, _plain

NAMES = ("Ann", "Ben", "Cat", "Dan")
LANG = "en"


def record() -> GameRecord:
    seats = [Seat(user_id=i + 1, name=name, lang=LANG) for i, name in enumerate(NAMES)]
    return GameRecord(
        id=1, chat_id=-1, chat_title="T", creator_id=1, status="running", lang=LANG, seats=seats
    )


def steps(seed: int, hands: int = 2):
    """A classic match from ``seed`` played by the computer players, ``hands`` hands,
    yielding after every action; a leader sometimes tries a throw that fails."""
    rng = random.Random(seed)
    match = MatchState.new(RuleSet.from_preset("classic"), seed)
    for n in range(hands):
        if n:
            match.start_next_hand()
        hand = match.hand
        while hand.phase != "done":
            to = match.next_actor()
            if to.kind == "deal":
                match.apply(Deal(n=4 * 25))
                for seat in range(4):
                    action = choose_action(hand.observation(seat), rng)
                    if isinstance(action, Show) and hand.phase == "dealing":
                        match.apply(action)
            elif to.kind == "window":
                for seat in to.seats:
                    if hand.phase == "after_deal" and hand.can_pass(seat):
                        try:
                            match.apply(choose_action(hand.observation(seat), rng))
                        except IllegalAction:
                            match.apply(Pass(seat=seat))
            else:
                seat = to.seat
                assert seat is not None
                trick = hand.current_trick
                leads = hand.phase == "playing" and trick is not None and not trick.plays
                failing = [c for c, forced in throws(hand, seat) if forced is not None]
                if leads and failing and rng.random() < 0.5:
                    match.apply(Play(seat=seat, cards=failing[0]))
                else:
                    match.apply(choose_action(hand.observation(seat), rng))
            yield match


# ---------------------------------------------------------------------- reading back
def _lines(text: str) -> dict[str, dict[str, str]]:
    """The DM's statements: catalog key -> the values of its placeholders."""
    keys = (
        *TURN_PROMPTS,
        "dm.not_your_turn",
        "dm.burying",
        "table.chaodi",
        "dm.trick.now",
        "dm.trick.mine",
        "dm.trick.done",
        "dm.trick.you_lead",
        "dm.points.after",
        "dm.points.start",
    )
    header = [_pattern(part) for part in t(LANG, "dm.header").split("\n")]
    out: dict[str, dict[str, str]] = {}
    bare = _plain(text).replace("\u2068", "").replace("\u2069", "")  # names' isolates
    for line in bare.split("\n"):
        for i, pattern in enumerate(header):
            m = pattern.match(line)
            if m is not None:
                out[f"dm.header.{i}"] = m.groupdict()
        for key in keys:
            m = _pattern(t(LANG, key)).match(line)
            if m is not None:
                out[key] = {**m.groupdict(), "line": line}
    return out


def _plays(text: str) -> list[str]:
    """A trick line's plays (a failed throw's penalty stays with its play)."""
    out: list[str] = []
    for part in text.split(" · "):
        if out and part.startswith("penalty "):
            out[-1] += " · " + part
        else:
            out.append(part)
    return out


def _ids(cards: list[dict[str, Any]]) -> list[int]:
    return [c["id"] for c in cards]


def _same_play(shown: str, play: dict[str, Any], best: bool) -> str | None:
    """Whether a DM's play (``name cards marks``) says what the app's play says."""
    name = NAMES[play["seat"]]
    if not shown.startswith(name + " "):
        return f"{shown!r} is not {name}'s"
    rest = shown[len(name) + 1 :]
    winning = _plain(t(LANG, "table.best"))
    if rest.endswith(winning) != best:
        return f"{shown!r}: the winning mark differs"
    rest = rest.removesuffix(winning)
    if "attempted" in play:
        tried = cards_label(_ids(play["attempted"]), LANG)
        forced = cards_label(_ids(play["cards"]), LANG)
        penalty = signed(play["penalty"]) if play["penalty"] else ""
        ok = tried in rest and forced in rest and penalty in rest
        return None if ok else f"{shown!r}: another failed throw"
    mark = play["mark"]
    suffix = _plain(t(LANG, f"mark.{mark}")) if mark else ""
    if suffix and not rest.endswith(suffix):
        return f"{shown!r}: no {mark} mark"
    for other in ("ruff", "throw"):
        if other != mark and rest.endswith(_plain(t(LANG, f"mark.{other}"))):
            return f"{shown!r}: marked {other}, the app says {mark}"
    cards = rest.removesuffix(suffix)
    expected = cards_label(_ids(play["cards"]), LANG)
    return None if cards == expected else f"{shown!r}: cards {expected!r} in the app"


def _same_trick(plays: str, trick: dict[str, Any], upto: int, live: bool) -> str | None:
    shown = _plays(plays)
    if len(shown) != upto:
        return f"{len(shown)} plays in the DM, {upto} expected"
    for text, play in zip(shown, trick["plays"][:upto], strict=True):
        best = live and trick["winner"] is None and trick["best"] == play["seat"]
        why = _same_play(text, play, best)
        if why:
            return why
    return None


def disagreements(text: str, doc: dict[str, Any]) -> list[str]:
    """What the DM says otherwise than the app (both in English, for the same seat)."""
    lines, me = _lines(text), doc["me"]
    seat, out = me["seat"], []
    # the turn: whose, and the DM's prompt
    my_turn = any(key in lines for key in TURN_PROMPTS)
    if my_turn != me["my_turn"]:
        out.append(f"turn: DM {my_turn}, app {me['my_turn']}")
    if me["my_turn"] and doc["to_act"]["seats"] != [seat]:
        out.append("the app's turn is someone else's")
    for key in ("dm.burying", "table.chaodi"):
        if key in lines and lines[key]["name"] != NAMES[doc["to_act"]["seats"][0]]:
            out.append(f"{key}: {lines[key]['name']} acts in the DM")
    if doc["phase"] == "playing" and not me["my_turn"] and "dm.not_your_turn" not in lines:
        out.append("the DM does not say it is not the reader's turn")
    # the levels
    a, b = lines["dm.header.2"]["a"], lines["dm.header.2"]["b"]
    if [a, b] != doc["levels"] or lines["dm.header.1"]["level"] != doc["level"]:
        out.append(f"levels: DM {lines['dm.header.1']['level']} {a} {b}, app {doc['levels']}")
    # the points
    said = lines.get("dm.points.after") or lines.get("dm.points.start")
    if doc["phase"] == "playing":
        points = doc["points"]
        if said is None:
            out.append("the DM has no points line")
        else:
            total = said["points"]
            m = re.search(r"\((\d+) in tricks, (\S+) penalty\)", said["line"])
            tricks, penalty = m.groups() if m is not None else (None, None)
            if int(total) != points["points"]:
                out.append(f"points: DM {total}, app {points['points']}")
            if (penalty or "") != (signed(points["penalty"]) if points["penalty"] else ""):
                out.append(f"penalty: DM {penalty}, app {points['penalty']}")
            if penalty and int(tricks) != points["tricks"]:
                out.append(f"trick points: DM {tricks}, app {points['tricks']}")
            if int(said.get("k", 0)) != doc["tricks_done"]:
                out.append(f"tricks done: DM {said.get('k')}, app {doc['tricks_done']}")
    # the tricks: the last finished one, the one in progress (as far as the DM shows it)
    last, trick = doc["last"], doc["trick"]
    done = lines.get("dm.trick.done")
    if (done is None) != (last is None or doc["phase"] not in ("playing", "done")):
        out.append("the last trick: shown in one only")
    elif done is not None:
        if int(done["n"]) != last["number"] or done["name"] != NAMES[last["winner"]]:
            out.append(f"last trick: DM {done['n']} won by {done['name']}")
        if int(done["points"]) != last["points"]:
            out.append(f"last trick's points: DM {done['points']}, app {last['points']}")
        why = _same_trick(done["plays"], last, len(last["plays"]), live=False)
        if why:
            out.append("last trick: " + why)
    now, mine = lines.get("dm.trick.now"), lines.get("dm.trick.mine")
    if now is not None or mine is not None:
        shown = now or mine
        assert shown is not None and trick is not None
        if int(shown["n"]) != trick["number"]:
            out.append(f"trick in progress: DM {shown['n']}, app {trick['number']}")
        seats = [p["seat"] for p in trick["plays"]]
        upto = len(seats) if now is not None else seats.index(seat) + 1
        why = _same_trick(shown["plays"], trick, upto, live=now is not None)
        if why:
            out.append("trick in progress: " + why)
    elif me["my_turn"] and doc["phase"] == "playing":
        if trick["plays"] or "dm.trick.you_lead" not in lines:
            out.append("the reader's turn without the trick in progress")
    return out


def test_the_dm_and_the_mini_app_say_the_same_turn_points_tricks_and_levels():
    rec = record()
    compared, failed_throws = 0, 0
    for seed in range(3):
        for match in steps(seed):
            for seat in range(4):
                projection = project(rec, match, seat)
                text = hand_message(rec, projection)[0].text
                doc = table_view(rec, projection, LANG)
                why = disagreements(text, doc)
                assert not why, (seed, seat, why, _plain(text))
                compared += 1
            trick = match.hand.current_trick
            if trick is not None and trick.plays and trick.plays[0].attempted is not None:
                failed_throws += 1
    assert compared > 1500 and failed_throws > 10  # the penalties were compared too


def test_a_failed_throw_counts_at_once_in_the_dm_as_in_the_mini_app():
    """RULES 8.3: the throw fails at once and its penalty is the attackers' at once;
    the DM said 0 (the points after the last finished trick) while the app said 10."""
    rec = record()
    for match in steps(0):
        hand = match.hand
        trick = hand.current_trick
        if trick is None or len(trick.plays) != 1 or trick.plays[0].attempted is None:
            continue
        view = hand.public_observation()
        penalty = view.failed_throws[-1].penalty
        if not penalty or view.points_after(view.tricks_done) == view.attackers_points:
            continue
        seat = hand.turn
        projection = project(rec, match, seat)
        said = _lines(hand_message(rec, projection)[0].text)
        said = said.get("dm.points.after") or said["dm.points.start"]
        assert int(said["points"]) == view.attackers_points
        assert f"{signed(view.penalties_after(len(view.tricks)))} penalty" in said["line"]
        assert table_view(rec, projection, LANG)["points"]["points"] == view.attackers_points
        return
    raise AssertionError("no failed throw with a penalty to check")


def test_an_all_trump_answer_that_does_not_match_the_lead_is_no_ruff_in_the_app():
    """A pair led, two unpaired trumps answered: a discard (RULES 8.2), not a ruff; the
    app called any all-trump answer to a side-suit lead a ruff."""
    m, _ = buried_match()
    view = m.hand.public_observation()
    trump = view.trump
    assert trump is not None
    side = next(s for s in range(4) if s != trump)
    ace = parse_cards("AS AH AC AD")[side]
    threes, fours = parse_cards("3S 3H 3C 3D"), parse_cards("4S 4H 4C 4D")
    lead = PlayRecord(seat=0, cards=[ace, ace])
    answer = PlayRecord(seat=1, cards=[threes[trump], fours[trump]])
    pair = PlayRecord(seat=2, cards=[threes[trump], threes[trump]])
    m.hand.tricks[-1] = Trick(leader=0, plays=[lead, answer, pair])
    plays = table_view(record(), project(record(), m, None), LANG)["trick"]["plays"]
    assert [p["mark"] for p in plays] == [None, None, "ruff"]
    assert [p["ruff"] for p in plays] == [False, False, True]
