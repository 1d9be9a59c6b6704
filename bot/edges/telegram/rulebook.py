"""/rules and /rules <topic>: the rule book (RULES.md) in the chat's language, for the
group's actual rules (its preset and every option changed one by one, marked ✱; the rules
of a match in play when they differ)."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ParseMode

from bot.data import options
from bot.edges.context import Context
from bot.edges.telegram import chat_lang, reply, service
from bot.edges.telegram.settings import running_rules
from bot.i18n import t
from bot.views.card_labels import rank_label
from bot.views.settings_screens import CHANGED, rule_lines, running_lines
from engine.rules import RuleSet

TOPICS = ("cards", "declaring", "kitty", "following", "throws", "scoring", "levels")
_ALIASES = {
    "牌": "cards",
    "报主": "declaring",
    "亮主": "declaring",
    "反主": "declaring",
    "底牌": "kitty",
    "扣底": "kitty",
    "跟牌": "following",
    "甩牌": "throws",
    "得分": "scoring",
    "分": "scoring",
    "升级": "levels",
    "级": "levels",
}


def rules_text(lang: str, rules: RuleSet, topic: str | None, running: RuleSet | None = None) -> str:
    preset = t(lang, f"preset.{rules.preset}")
    if topic is None:
        lines = [t(lang, "rules.index", preset=preset), "", *rule_lines(lang, rules)]
        lines.append(t(lang, "settings.changed_mark", mark=CHANGED))
        if running is not None and running != rules:
            lines += ["", *running_lines(lang, running, rules)]
        return "\n".join(lines)
    if topic == "cards" and rules.permanent_twos:
        body = t(lang, "rules.cards") + "\n" + t(lang, "rules.permanent_twos")
        return t(lang, "rules.title.cards", preset=preset) + "\n\n" + body
    if topic == "declaring":
        body = t(lang, "rules.declaring.joker" if rules.declare_with_joker else "rules.declaring")
        order = " &gt; ".join("♠♥♣♦"[s] for s in rules.overturn_suit_order)
        body += "\n" + t(lang, "rules.overturn", order=order)
        later = "rules.later.chaodi" if rules.later_overturn == "chaodi" else "rules.later.before"
        body += "\n" + t(lang, later)
        if rules.later_declare == "dealer_team":
            body += "\n" + t(lang, "rules.later_declare.team")
        if rules.redeal:
            body += "\n" + t(lang, "rules.redeal")
    elif topic == "scoring":
        body = (
            t(lang, "rules.scoring") + "\n" + t(lang, f"rules.multiplier.{rules.kitty_multiplier}")
        )
        if rules.throw_penalty == "points_per_card":
            body += "\n" + t(lang, "rules.penalty")
    elif topic == "levels":
        body = t(lang, f"rules.levels.{rules.level_table}")
        target = rules.target_level
        if target is None:
            body += "\n" + t(lang, "rules.end.wrap")
        else:
            body += "\n" + t(lang, "rules.end.target", level=rank_label(target))
        if rules.must_play:
            ranks = t(lang, "list.sep").join(rank_label(r) for r in rules.must_play)
            body += "\n" + t(lang, "rules.must_play", ranks=ranks)
        if rules.time_limit_min:
            body += "\n" + t(lang, "rules.time_limit", minutes=rules.time_limit_min)
    else:
        body = t(lang, f"rules.{topic}")
    return t(lang, f"rules.title.{topic}", preset=preset) + "\n\n" + body


async def rules_cmd(update: Update, context: Context) -> None:
    msg, chat = update.effective_message, update.effective_chat
    if msg is None or chat is None:
        return
    lang = await chat_lang(context, update)
    rules, running = RuleSet(), None
    if chat.type != "private":
        svc = service(context)
        rules = options.group_rules(await context.bot_data.chats.settings(chat.id))
        running = running_rules(svc, chat.id)
    topic = None
    if context.args:
        word = context.args[0].lower()
        topic = _ALIASES.get(word, word)
        if topic not in TOPICS:
            await reply(context, msg, t(lang, "rules.unknown", topics=", ".join(TOPICS)))
            return
    text = rules_text(lang, rules, topic, running)
    await reply(context, msg, text, parse_mode=ParseMode.HTML)
