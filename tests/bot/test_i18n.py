import re

from bot import i18n
from engine import errors


def test_both_catalogs_have_the_same_keys_and_placeholders():
    en, zh = i18n.catalog("en"), i18n.catalog("zh")
    assert set(en) == set(zh)
    for key in en:
        assert set(re.findall(r"{(\w+)}", en[key])) == set(re.findall(r"{(\w+)}", zh[key])), key


def test_every_engine_reason_code_is_translated():
    codes = [v for k, v in vars(errors).items() if k.isupper() and isinstance(v, str)]
    assert codes
    for code in codes:
        for lang in i18n.LANGS:
            assert i18n.has(lang, f"reason.{code}"), (lang, code)


def test_language_is_the_group_setting_else_the_users_else_the_default():
    assert i18n.pick("en", "zh-hans") == "en"
    assert i18n.pick(None, "zh-hans") == "zh"
    assert i18n.pick(None, "en-US") == "en"
    assert i18n.pick(None, "de", default="en") == "en"
    assert i18n.pick(None, None) == "zh"


def test_lookup_fills_placeholders():
    assert "3" in i18n.t("en", "btn.sit", n=3)
    assert i18n.t("zh", "btn.sit", n=3) == "🪑 3号座"
