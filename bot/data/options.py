"""A group's options: every rule option of RULES.md 11–12 and the bot's own (language,
turn time, deal pace), as a list of rows the /settings screen shows one by one.

The preset fills the defaults; each rule option the group changed is kept as an override
(``ChatSettings.rules``) and the engine's :class:`~engine.rules.RuleSet` is built from
both. A combination the engine refuses (:class:`~engine.rules.RuleConflict`, for example
a target level below the start level) is never saved. Changes reach a lobby that has not
started; a running match keeps the rules it started with.

To add a row (for example the computers' strength), append an :class:`Option` to
``OPTIONS`` with its choices and the i18n keys ``opt.<code>`` (its name) and
``opt.<code>.help`` (what it means, one line).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from bot.data.saved import ChatSettings, GameRecord
from bot.i18n import t
from engine.cards import RANKS
from engine.rules import PRESET_DEFAULTS, Preset, RuleConflict, RuleSet

# how strong computers (and 托管) play: a group's choice, the host's default
# (``COMPUTER_STRENGTH``); ``bot.edges.computer`` says what each costs and plays
STRENGTHS = ("easy", "normal", "hard")

_RANK_CODES = {str(i): i for i in range(len(RANKS))}


@dataclass(frozen=True)
class Option:
    """One row of /settings. ``choices`` maps the value's code (in callback data, short)
    to the value; ``rule`` options are RuleSet fields, the others ChatSettings fields."""

    code: str
    name: str  # RuleSet or ChatSettings field
    choices: dict[str, Any]
    rule: bool = True
    multi: bool = False  # several values at once (must-play levels)
    label: Callable[[str, str], str] | None = None  # (lang, code) -> button label
    columns: int = 3
    bot_default: Callable[[Any], Any] = field(default=lambda st: None)

    def text(self, lang: str, code: str) -> str:
        if self.label is not None:
            return self.label(lang, code)
        return t(lang, f"opt.{self.code}.{code}")


def _rank(lang: str, code: str) -> str:
    return RANKS[int(code)]  # the notation's name, as render.cards.rank_label shows a rank


def _seconds(lang: str, code: str) -> str:
    return t(lang, "opt.seconds", n=code)


def _minutes(lang: str, code: str) -> str:
    return t(lang, "opt.tl.off") if code == "off" else t(lang, "opt.minutes", n=code)


def _match_end(lang: str, code: str) -> str:
    if code.startswith("t"):
        return t(lang, "opt.me.target", level=RANKS[int(code[1:])])
    return t(lang, f"opt.me.{code}")


OPTIONS: list[Option] = [
    Option("p2", "permanent_twos", {"on": True, "off": False}, columns=2),
    Option("dj", "declare_with_joker", {"lvl": False, "jkr": True}, columns=1),
    Option("ld", "later_declare", {"any": "anyone", "team": "dealer_team"}, columns=1),
    Option("lo", "later_overturn", {"chaodi": "chaodi", "before": "before_kitty"}, columns=1),
    Option("oo", "overturn_suit_order", {"shcd": (0, 1, 2, 3), "shdc": (0, 1, 3, 2)}, columns=2),
    Option("rd", "redeal", {"on": True, "off": False}, columns=2),
    Option("km", "kitty_multiplier", {"linear": "linear", "doubling": "doubling"}, columns=1),
    Option("tp", "throw_penalty", {"10": "points_per_card", "0": "none"}, columns=2),
    Option("lt", "level_table", {k: k for k in ("classic", "fine", "tournament")}),
    Option("mp", "must_play", _RANK_CODES, multi=True, label=_rank, columns=5),
    Option(
        "me",
        "match_end",
        {"a": "pass_a", "w": "wrap"} | {f"t{i}": f"target_{RANKS[i]}" for i in range(1, 12)},
        label=_match_end,
        columns=4,
    ),
    Option(
        "tl",
        "time_limit_min",
        {"off": None} | {str(m): m for m in (30, 45, 60, 90, 120)},
        label=_minutes,
    ),
    Option("sl", "start_level", _RANK_CODES, label=_rank, columns=5),
    Option(
        "tt",
        "turn_seconds",
        {str(s): float(s) for s in (20, 30, 45, 60, 90, 120, 180)},
        rule=False,
        label=_seconds,
        columns=4,
        bot_default=lambda st: st.turn_timeout_seconds,
    ),
    Option(
        "dp",
        "deal_pace",
        {s: float(s) for s in ("0.5", "1", "1.5", "2", "3")},
        rule=False,
        label=_seconds,
        columns=5,
        bot_default=lambda st: st.deal_pace_seconds,
    ),
    Option(
        "cc",
        "card_counter",
        {"on": True, "off": False},
        rule=False,
        columns=2,
        bot_default=lambda st: True,  # on unless the group turns it off
    ),
    Option(
        "cs",
        "computer_strength",
        {s: s for s in STRENGTHS},
        rule=False,
        bot_default=lambda st: st.computer_strength,  # the host's COMPUTER_STRENGTH
    ),
]
BY_CODE = {o.code: o for o in OPTIONS}


class Refused(Exception):
    """A change that is not saved; ``reason`` is an i18n key under ``conflict.``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def ruleset(preset: Preset, start_level: int, overrides: dict[str, Any]) -> RuleSet:
    """The rules of a group or a game: the preset's defaults, the start level and the
    options changed one by one."""
    try:
        return RuleSet.from_preset(preset, start_level=start_level, **overrides)
    except ValidationError as e:
        error = e.errors()[0].get("ctx", {}).get("error")
        if isinstance(error, RuleConflict):
            raise Refused(error.reason) from None
        raise


def group_rules(s: ChatSettings) -> RuleSet:
    return ruleset(s.preset, s.start_level, s.rules)


def game_rules(rec: GameRecord) -> RuleSet:
    """The rules a game's match starts with (what the group had when it started)."""
    return ruleset(rec.preset, rec.start_level, rec.rules)


def to_game(s: ChatSettings, rec: GameRecord) -> None:
    """A lobby takes the group's rules and the bot's options (until its match starts);
    a bot option's field has the same name in ChatSettings and GameRecord."""
    rec.preset = s.preset
    rec.start_level = s.start_level
    rec.rules = dict(s.rules)
    for opt in OPTIONS:
        if not opt.rule:
            setattr(rec, opt.name, getattr(s, opt.name))


def value_of(opt: Option, s: ChatSettings, rules: RuleSet, bot_settings: Any) -> Any:
    if opt.rule:
        return getattr(rules, opt.name)
    value = getattr(s, opt.name)
    return opt.bot_default(bot_settings) if value is None else value


def codes_of(opt: Option, value: Any) -> set[str]:
    """The choice codes that stand for ``value`` (several for a multi option)."""
    values = value if opt.multi else (value,)
    return {code for code, v in opt.choices.items() if v in values}


def is_changed(opt: Option, rules: RuleSet) -> bool:
    """The rule differs from its preset's default (marked in /settings and /rules)."""
    return opt.rule and getattr(rules, opt.name) != getattr(
        RuleSet.from_preset(rules.preset), opt.name
    )


def choose(s: ChatSettings, code: str, value_code: str) -> ChatSettings:
    """The settings with one option changed; :class:`Refused` if not allowed, ValueError if
    the value is no choice of the option (garbage)."""
    if code == "preset":
        if value_code not in PRESET_DEFAULTS:
            raise ValueError(value_code)
        new = s.model_copy(update={"preset": value_code, "rules": {}})
        group_rules(new)
        return new
    opt = BY_CODE.get(code)
    if opt is None:
        raise ValueError(code)
    if opt.multi:  # "<code>+" adds, "<code>-" removes: a stale press says what it meant
        sign, value_code = value_code[-1:], value_code[:-1]
        if sign not in "+-" or value_code not in opt.choices:
            raise ValueError(value_code)
        current = set(getattr(group_rules(s), opt.name))
        v = opt.choices[value_code]
        value: Any = tuple(sorted(current | {v} if sign == "+" else current - {v}))
    elif value_code in opt.choices:
        value = opt.choices[value_code]
    else:
        raise ValueError(value_code)
    if not opt.rule:
        return s.model_copy(update={opt.name: value})
    if opt.name == "start_level":
        new = s.model_copy(update={"start_level": value})
    else:
        rules = dict(s.rules)
        default = getattr(RuleSet.from_preset(s.preset), opt.name)
        if value == default:
            rules.pop(opt.name, None)
        else:
            rules[opt.name] = list(value) if isinstance(value, tuple) else value
        new = s.model_copy(update={"rules": rules})
    group_rules(new)
    return new
