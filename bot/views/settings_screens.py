"""The /settings screens: the group's options in one screen, one screen per option, and
the summary of a rule set that /rules and a running match show. No logic: the values come
from :mod:`bot.data.options`."""

from __future__ import annotations

from html import escape
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.data.options import OPTIONS, Option, codes_of, is_changed, value_of
from bot.data.saved import ChatSettings
from bot.i18n import LANGS, t
from bot.views.codec import SettingsButton
from engine.rules import PRESETS, RuleSet

CHANGED = "✱"


def value_text(lang: str, opt: Option, value: Any) -> str:
    """The option's value in the HTML of a screen (a label such as ``♠ > ♥`` escaped)."""
    return escape(_label(lang, opt, value), quote=False)


def _label(lang: str, opt: Option, value: Any) -> str:
    codes = codes_of(opt, value)
    if opt.multi:
        labels = [opt.text(lang, c) for c in opt.choices if c in codes]
        return t(lang, "list.sep").join(labels) or t(lang, "opt.none")
    if codes:
        return opt.text(lang, next(iter(codes)))
    return opt.text(lang, _number(value)) if opt.label is not None else str(value)


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def rule_lines(lang: str, rules: RuleSet) -> list[str]:
    """One line per rule option, the ones changed from the preset marked ✱."""
    lines = [
        t(lang, "opt.line", name=t(lang, "opt.preset"), value=t(lang, f"preset.{rules.preset}"))
    ]
    for opt in OPTIONS:
        if opt.rule:
            mark = f" {CHANGED}" if is_changed(opt, rules) else ""
            value = value_text(lang, opt, getattr(rules, opt.name))
            lines.append(t(lang, "opt.line", name=t(lang, f"opt.{opt.code}"), value=value) + mark)
    return lines


def running_lines(lang: str, running: RuleSet, rules: RuleSet) -> list[str]:
    """What the match in play plays by where it differs from the group's rules now."""
    lines = [t(lang, "settings.running")]
    if running.preset != rules.preset:
        preset = t(lang, f"preset.{running.preset}")
        lines.append(t(lang, "opt.line", name=t(lang, "opt.preset"), value=preset))
    for o in OPTIONS:
        if o.rule and getattr(running, o.name) != getattr(rules, o.name):
            value = value_text(lang, o, getattr(running, o.name))
            lines.append(t(lang, "opt.line", name=t(lang, f"opt.{o.code}"), value=value))
    return lines


def changed_line(lang: str, rules: RuleSet) -> str | None:
    """The options a game plays by that differ from its preset (the lobby shows them)."""
    changed = [
        t(
            lang,
            "opt.line",
            name=t(lang, f"opt.{o.code}"),
            value=value_text(lang, o, getattr(rules, o.name)),
        )
        for o in OPTIONS
        if o.rule and o.name != "start_level" and is_changed(o, rules)
    ]
    return f"{CHANGED} " + " · ".join(changed) if changed else None


def home_text(
    lang: str, s: ChatSettings, rules: RuleSet, bot_settings: Any, running: RuleSet | None
) -> str:
    lines = [t(lang, "settings.title"), *rule_lines(lang, rules)]
    for opt in OPTIONS:
        if not opt.rule:
            value = value_text(lang, opt, value_of(opt, s, rules, bot_settings))
            lines.append(t(lang, "opt.line", name=t(lang, f"opt.{opt.code}"), value=value))
    lines += ["", t(lang, "settings.changed_mark", mark=CHANGED), t(lang, "settings.when")]
    if running is not None and running != rules:
        lines += ["", *running_lines(lang, running, rules)]
    return "\n".join(lines)


def home_keyboard(lang: str, s: ChatSettings) -> InlineKeyboardMarkup:
    langs = [
        InlineKeyboardButton(
            ("✓ " if s.lang == code else "") + t(code, "lang.name"),
            callback_data=SettingsButton("lang", code).pack(),
        )
        for code in LANGS
    ]
    presets = [
        InlineKeyboardButton(
            ("✓ " if s.preset == p else "") + t(lang, f"preset.{p}"),
            callback_data=SettingsButton("preset", p).pack(),
        )
        for p in PRESETS
    ]
    opts = [
        InlineKeyboardButton(
            t(lang, f"opt.{o.code}"), callback_data=SettingsButton("open", o.code).pack()
        )
        for o in OPTIONS
    ]
    return InlineKeyboardMarkup([langs, presets, *_rows(opts, 2)])


def option_text(lang: str, opt: Option, value: Any) -> str:
    return "\n".join(
        [
            f"⚙️ <b>{escape(t(lang, f'opt.{opt.code}'))}</b>",
            t(lang, f"opt.{opt.code}.help"),
            t(lang, "opt.now", value=value_text(lang, opt, value)),
        ]
    )


def option_keyboard(lang: str, opt: Option, value: Any) -> InlineKeyboardMarkup:
    codes = codes_of(opt, value)
    buttons = []
    for code in opt.choices:
        on = code in codes
        data = code + ("-" if on else "+") if opt.multi else code
        label = ("✓ " if on else "") + opt.text(lang, code)
        buttons.append(
            InlineKeyboardButton(label, callback_data=SettingsButton(opt.code, data).pack())
        )
    back = InlineKeyboardButton(
        t(lang, "btn.back"), callback_data=SettingsButton("home", "-").pack()
    )
    return InlineKeyboardMarkup([*_rows(buttons, opt.columns), [back]])


def _rows(buttons: list[InlineKeyboardButton], n: int) -> list[list[InlineKeyboardButton]]:
    return [buttons[i : i + n] for i in range(0, len(buttons), n)]
