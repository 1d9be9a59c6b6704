"""The level chart: 2 at the bottom and A at the top whatever the start level, a lap more
under wrap, and its words in the group's language (a CJK font from fontconfig, else
English and a warning)."""

import logging
from io import BytesIO

import pytest
from PIL import Image

from bot.views import chart
from bot.views.chart import _BOTTOM, _LEFT, _TOP, HEIGHT, axis_top, level_chart

RED = (200, 50, 50)


def picture(progression, lang="en"):
    return Image.open(BytesIO(level_chart(progression, lang))).convert("RGB")


def y_of(level, top):
    return _TOP + (HEIGHT - _TOP - _BOTTOM) * (1 - level / top)


def is_red(pixel):
    r, g, b = pixel
    return r > 150 and g < 110 and b < 110


@pytest.mark.parametrize("start", [0, 5, 12])
def test_the_axis_runs_from_2_at_the_bottom_to_a_at_the_top_whatever_the_start(start):
    progression = [[start, start], [start, start]]  # nobody went up
    assert axis_top(progression) == 12
    image = picture(progression)
    # North–South's line (red, drawn 2 px above its level) at its level's height
    x = _LEFT + 1
    y = round(y_of(start, 12)) - 2
    assert any(is_red(image.getpixel((x, y + d))) for d in range(-2, 3)), (start, y)
    for level in range(13):  # and nowhere else on the left edge
        if abs(level - start) > 1:
            y = round(y_of(level, 12)) - 2
            assert not is_red(image.getpixel((x, y))), level


def test_under_wrap_a_second_lap_goes_on_above_a():
    assert axis_top([[12, 3], [14, 3]]) == 25  # 2 … A, then 2 … A again
    assert axis_top([[0, 0], [12, 4]]) == 12


def test_chinese_text_is_drawn_with_a_cjk_font_from_fontconfig():
    found = chart.cjk_font_file()
    assert found is not None, "no CJK font (Debian: fonts-noto-cjk)"
    zh = picture([[0, 0], [1, 0]], "zh")
    en = picture([[0, 0], [1, 0]], "en")
    assert zh.tobytes() != en.tobytes()  # the title, the legend and the axis in Chinese


def test_without_a_cjk_font_the_chart_is_english_and_says_so(monkeypatch, caplog):
    monkeypatch.setattr(chart, "cjk_font_file", lambda: None)
    chart._font.cache_clear()
    try:
        with caplog.at_level(logging.WARNING, logger="bot.views.chart"):
            zh = picture([[0, 0], [1, 0]], "zh")
        en = picture([[0, 0], [1, 0]], "en")
        assert zh.tobytes() == en.tobytes()
        assert "no CJK font" in caplog.text
    finally:
        chart._font.cache_clear()
