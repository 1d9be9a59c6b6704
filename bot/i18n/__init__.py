"""Message catalogs (zh_CN, en) and the lookup.

Every user-facing sentence lives in ``zh_CN.json`` and ``en.json`` under the same key;
``{name}`` placeholders are filled by :func:`t`. The language is the group's setting,
else the user's Telegram language, else the configured default.

May import: nothing of ``bot`` (the bottom layer).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

LANGS = ("zh", "en")
_FILES = {"zh": "zh_CN.json", "en": "en.json"}


@cache
def catalog(lang: str) -> dict[str, str]:
    path = Path(__file__).with_name(_FILES[lang])
    texts: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return texts


def normalize(code: str | None) -> str | None:
    """Telegram's language_code (``zh-hans``, ``en-US``...) to one of LANGS, or None."""
    if not code:
        return None
    code = code.lower()
    if code.startswith("zh"):
        return "zh"
    if code.startswith("en"):
        return "en"
    return None


def pick(group_lang: str | None, user_code: str | None, default: str = "zh") -> str:
    return group_lang or normalize(user_code) or (default if default in LANGS else "zh")


def t(lang: str, key: str, **kw: Any) -> str:
    text = catalog(lang if lang in LANGS else "zh").get(key) or catalog("en").get(key) or key
    return text.format(**kw) if kw else text


def plural(lang: str, key: str, count: int, /, **kw: Any) -> str:
    """``key`` for ``count`` (filled in as ``{n}`` unless ``kw`` gives ``n``):
    ``key.one`` for one where the language has a singular, ``key.zero`` for none where
    the catalog has it, else ``key.other``."""
    form = "other"
    if count == 0 and has(lang, f"{key}.zero"):
        form = "zero"
    elif count == 1 and has(lang, f"{key}.one"):
        form = "one"
    return t(lang, f"{key}.{form}", **({"n": count} | kw))


def has(lang: str, key: str) -> bool:
    return key in catalog(lang)
