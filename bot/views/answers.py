"""What a person is told, in words: the one place an :class:`~bot.table.Answer` (an
i18n key with its facts, as the table and the edges say it) becomes text in the
reader's language. Its callers pick the reader: a lobby's button is answered in the
group's language, a seat's button (a DM, the Mini App, the group's "Next hand") in the
presser's (``GameRecord.user_lang``), a deep link in the language its reply is in."""

from __future__ import annotations

from dataclasses import dataclass

from bot.i18n import t
from bot.table import Answer
from bot.table.state import Fact

# an engine's refusal is said by its reason's own key; a reason the catalogs do not
# know yet is said as this one, with the reason's code
UNKNOWN_REASON = "reason.unknown"


@dataclass(frozen=True, slots=True)
class Reply:
    """A button's answer as Telegram's ``answerCallbackQuery`` (and the Mini App's
    answer) shows it: words, and whether they are an alert."""

    text: str = ""
    alert: bool = False


def words(lang: str, answer: Answer, **known: Fact) -> str:
    """``answer`` in ``lang``: its key's text filled with its facts. ``known``: what
    the edge adds that the table does not know (a deep link's group as HTML, its seat
    as people count them); the answer's own facts come first."""
    if not answer.key:
        return ""
    facts = {**known, **answer.facts}
    text = t(lang, answer.key, **facts)
    if text == answer.key and answer.key.startswith("reason."):
        return t(lang, UNKNOWN_REASON, reason=facts.get("reason", answer.key))
    return text


def reply_in(lang: str, answer: Answer) -> Reply:
    """A button's ``answer`` as the reader reads it."""
    return Reply(words(lang, answer), answer.alert)
