"""Rule scenario runner (../shared/rules/CONFORMANCE.md).

    python -m engine.conformance FILE.jsonl [...]            check mode
    python -m engine.conformance --answer FILE.jsonl [...]   answer mode

Every answer is computed by the engine; unknown kinds and malformed cases are
reported as failures with a reason, never a crash. Beside the shared kinds, this
project's own scenarios (tests/engine/scenarios/) use ``throw_shown``: for a throw
and the next seats' hands, the forced play and what a failed throw shows (RULES 13):
``shown_by``, the index in ``others`` of the hand that shows it (null: none), and
``shown``, its unit.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

from engine.cards import NotationError, format_cards, parse_cards, parse_rank, parse_suit
from engine.ranking import TrumpContext
from engine.rules import RuleSet

Answer = dict[str, Any]


class CaseError(ValueError):
    """A case the runner cannot evaluate (malformed input or unknown kind)."""


def _rules(context: dict[str, Any]) -> RuleSet:
    return RuleSet.from_preset(context.get("preset", "classic"), **context.get("options", {}))


def _ctx(context: dict[str, Any], rules: RuleSet) -> TrumpContext:
    trump = context.get("trump", "none")
    suit = None if trump == "none" else parse_suit(trump)
    return TrumpContext(parse_rank(context["level"]), suit, rules.permanent_twos)


def _compare(ctx: TrumpContext, rules: RuleSet, inp: dict[str, Any]) -> Answer:
    (a,), (b,) = parse_cards(inp["a"]), parse_cards(inp["b"])
    return {"result": ctx.compare(a, b)}


def _shape(ctx: TrumpContext, rules: RuleSet, inp: dict[str, Any]) -> Answer:
    from engine.units import decompose, shape_names

    units = decompose(ctx, parse_cards(inp["cards"]))
    return {"valid": units is not None, "shape": shape_names(units) if units else []}


def _follow(ctx: TrumpContext, rules: RuleSet, inp: dict[str, Any]) -> Answer:
    from engine.tricks import is_legal_follow

    lead, hand, play = (parse_cards(inp[k]) for k in ("lead", "hand", "play"))
    return {"legal": is_legal_follow(ctx, lead, hand, play)}


def _trick(ctx: TrumpContext, rules: RuleSet, inp: dict[str, Any]) -> Answer:
    from engine.tricks import trick_winner

    plays = [parse_cards(p) for p in inp["plays"]]
    if len(plays) != 4:
        raise CaseError("a trick needs four plays")
    return {"winner": trick_winner(ctx, plays)}


def _throw(ctx: TrumpContext, rules: RuleSet, inp: dict[str, Any]) -> Answer:
    from engine.tricks import check_throw

    forced = check_throw(ctx, parse_cards(inp["throw"]), [parse_cards(h) for h in inp["others"]])
    return {"ok": forced is None, "forced": "" if forced is None else format_cards(forced)}


def _throw_shown(ctx: TrumpContext, rules: RuleSet, inp: dict[str, Any]) -> Answer:
    """This project's kind (RULES 13): what a failed throw shows and which hand shows it."""
    from engine.tricks import check_throw, throw_beater

    others = [parse_cards(h) for h in inp["others"]]
    forced = check_throw(ctx, parse_cards(inp["throw"]), others)
    shown = None if forced is None else throw_beater(ctx, forced, others)
    return {
        "forced": "" if forced is None else format_cards(forced),
        "shown_by": None if shown is None else shown.holder,
        "shown": "" if shown is None else format_cards(ctx.sorted(shown.cards)),
    }


def _kitty(ctx: TrumpContext, rules: RuleSet, inp: dict[str, Any]) -> Answer:
    from engine.scoring import kitty_bonus_for_lead

    bonus = kitty_bonus_for_lead(
        ctx,
        rules,
        parse_cards(inp["kitty"]),
        parse_cards(inp["last_lead"]),
        bool(inp["attackers_won_last"]),
    )
    return {"bonus": bonus}


def _level(ctx: TrumpContext, rules: RuleSet, inp: dict[str, Any]) -> Answer:
    from engine.cards import RANKS
    from engine.scoring import settle_hand

    levels = inp["levels"]
    s = settle_hand(
        rules,
        int(inp["points"]),
        int(inp["dealer"]),
        parse_rank(levels["defenders"]),
        parse_rank(levels["attackers"]),
    )
    return {
        "next_dealer": s.next_dealer,
        "levels": {
            "defenders": RANKS[s.defender_level],
            "attackers": RANKS[s.attacker_level],
        },
        "match_winner": s.match_winner,
    }


def _declare(ctx: TrumpContext, rules: RuleSet, inp: dict[str, Any]) -> Answer:
    from engine.declaring import replay_events

    events = [(int(e["seat"]), parse_cards(e["show"])) for e in inp["events"]]
    valid, trump, dealer = replay_events(
        rules,
        ctx.level,
        int(inp["hand_number"]),
        int(inp["dealer"]),
        events,
        parse_cards(inp["kitty"]),
    )
    return {"valid": valid, "trump": "none" if trump is None else "SHCD"[trump], "dealer": dealer}


KINDS: dict[str, Callable[[TrumpContext, RuleSet, dict[str, Any]], Answer]] = {
    "compare": _compare,
    "shape": _shape,
    "follow": _follow,
    "trick": _trick,
    "throw": _throw,
    "throw_shown": _throw_shown,
    "kitty": _kitty,
    "level": _level,
    "declare": _declare,
}


def answer(case: dict[str, Any]) -> Answer:
    """Compute a case's answer from the engine; raise CaseError if it can't be evaluated."""
    kind = case.get("kind")
    if kind not in KINDS:
        raise CaseError(f"unknown kind {kind!r}")
    try:
        context = case.get("context", {})
        rules = _rules(context)
        return KINDS[kind](_ctx(context, rules), rules, case["input"])
    except NotationError as e:
        raise CaseError(f"bad card notation {e.token!r}") from e
    except (KeyError, TypeError, ValueError) as e:
        raise CaseError(f"malformed case: {type(e).__name__}: {e}") from e


def read_cases(path: str) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """Yield (line number, case) or (line number, error message) for each case line."""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            try:
                case = json.loads(s)
            except json.JSONDecodeError as e:
                yield n, f"invalid JSON: {e}"
                continue
            yield n, case if isinstance(case, dict) else "a case must be a JSON object"


def check(paths: list[str], out: Any = sys.stdout) -> tuple[int, int]:
    passed = failed = 0
    for path in paths:
        for n, case in read_cases(path):
            label = f"{path}:{n}"
            if isinstance(case, str):
                failed += 1
                print(f"FAIL {label}: {case}", file=out)
                continue
            label = f"{path}:{n} {case.get('id', '?')}"
            try:
                got = answer(case)
            except CaseError as e:
                failed += 1
                print(f"FAIL {label}: {e}", file=out)
                continue
            expect = case.get("expect")
            if got == expect:
                passed += 1
            else:
                failed += 1
                print(
                    f"FAIL {label}: expected {json.dumps(expect)}, got {json.dumps(got)}", file=out
                )
    print(f"{passed} passed, {failed} failed", file=out)
    return passed, failed


def answer_all(paths: list[str], out: Any = sys.stdout) -> int:
    errors = 0
    for path in paths:
        for n, case in read_cases(path):
            cid = case.get("id") if isinstance(case, dict) else None
            try:
                if isinstance(case, str):
                    raise CaseError(case)
                result: dict[str, Any] = {"id": cid, "answer": answer(case)}
            except CaseError as e:
                errors += 1
                result = {"id": cid, "error": f"{path}:{n}: {e}"}
            print(json.dumps(result, ensure_ascii=False), file=out)
    return errors


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    answer_mode = "--answer" in args
    paths = [a for a in args if a != "--answer"]
    if not paths:
        print("usage: python -m engine.conformance [--answer] FILE.jsonl [...]", file=sys.stderr)
        return 2
    if answer_mode:
        return 1 if answer_all(paths) else 0
    _, failed = check(paths)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
