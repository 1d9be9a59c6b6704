"""The words of the game (bot/i18n/glossary.json): one word per idea and language, the
same idea named in both catalogs, Chinese punctuation in Chinese, no (s) plurals."""

import html
import json
import re
from pathlib import Path

import pytest

from bot import i18n

GLOSSARY = json.loads((Path(i18n.__file__).with_name("glossary.json")).read_text(encoding="utf-8"))
CJK = r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]"
IDEOGRAPH = r"[\u3400-\u9fff]"
ASCII_PUNCT = r"[:,()!?;]"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_catalog_string_uses_a_forbidden_variant(lang):
    bad = []
    for key, text in i18n.catalog(lang).items():
        for pattern, why in GLOSSARY[lang]["forbidden"].items():
            if re.search(pattern, text):
                bad.append(f"{key}: {text!r} — {why}")
    assert not bad, "\n".join(bad)


def test_an_idea_named_in_one_language_is_named_with_its_word_in_the_other():
    en, zh = i18n.catalog("en"), i18n.catalog("zh")
    bad = []
    for pair in GLOSSARY["pairs"]:
        for key in en:
            in_en = re.search(pair["en"], en[key]) is not None
            in_zh = re.search(pair["zh"], zh[key]) is not None
            if in_en and not in_zh:
                bad.append(f"{key}: en names /{pair['en']}/ but zh lacks /{pair['zh']}/")
    assert not bad, "\n".join(bad)


def test_the_kitty_bonus_and_burying_are_two_words_in_chinese():
    en, zh = i18n.catalog("en"), i18n.catalog("zh")
    for key, text in zh.items():
        if "抠底" in text:
            assert re.search(r"kitty bonus|multiplier|kitty's points", en[key]), key
        if "扣底" in text:
            assert re.search(r"\b[Bb]ur(y|ies|ied|ying)\b", en[key]), key


def test_chinese_strings_use_full_width_punctuation():
    bad = []
    for key, text in i18n.catalog("zh").items():
        plain = html.unescape(re.sub(r"<[^>]+>", "", text))  # what the reader sees
        if re.search(f"{IDEOGRAPH}\\s*{ASCII_PUNCT}|{ASCII_PUNCT}\\s*{IDEOGRAPH}", plain):
            bad.append(f"{key}: {text!r}")
    assert not bad, "\n".join(bad)


def test_english_strings_keep_chinese_words_in_brackets_after_their_english():
    bad = []
    for key, text in i18n.catalog("en").items():
        outside = re.sub(r"\([^)]*\)", "", text)
        if re.search(CJK, outside):
            bad.append(f"{key}: {text!r}")
    assert not bad, "\n".join(bad)


def test_english_team_names_cannot_be_read_as_ranks():
    for team in (0, 1):
        for key in (f"team.{team}", f"team.short.{team}"):
            name = i18n.t("en", key)
            assert not re.fullmatch(r"(Team )?(A|K|Q|J|10|[2-9])", name), (key, name)
            assert name not in ("A", "B")


def test_english_counts_use_the_plural_form_that_fits():
    assert i18n.plural("en", "stats.me.title", 1, name="Ann") == "📊 <b>Ann</b> — in 1 group"
    assert i18n.plural("en", "stats.me.title", 3, name="Ann") == "📊 <b>Ann</b> — in 3 groups"
    assert i18n.plural("zh", "stats.me.title", 3, name="安") == "📊 <b>安</b> — 共 3 个群"
    # the count decides the form; another number may fill {n}
    one = i18n.plural("en", "dm.your_turn.follow", 1, need=1, n=0)
    assert "follow with 1 card (0 selected)" in one
    assert i18n.plural("en", "table.count", 1) == "1 card"


def test_english_counts_of_things_are_plural_forms():
    """ "{n} cards" must read "1 card" for one: such a string is a .one/.other pair.
    (Points come in fives; the Mini App's strings are formatted by its own script.)"""
    bad = [
        key
        for key, text in i18n.catalog("en").items()
        if re.search(r"\{\w+\} (cards|hands|groups|levels|tricks|overturns)\b", text)
        and not key.endswith((".other", ".zero"))
        and not key.startswith("webapp.")
    ]
    assert not bad, bad
