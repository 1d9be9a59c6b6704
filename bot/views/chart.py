"""The level progression of a match as a PNG (Pillow): each team's level before hand 1
and after every hand, in the group's language.

The y axis always runs from 2 at the bottom to A at the top, whatever the start level;
under ``wrap`` a team going past A climbs on into a second lap (2 … A again above it).
Chinese text needs a CJK font: one is looked up through fontconfig (``fc-match``, e.g.
Noto Sans CJK from Debian's ``fonts-noto-cjk``). Without one the picture is drawn with
Pillow's own font and its words in English (a warning is logged once); the caption,
which Telegram renders, stays in the group's language.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
from functools import cache
from io import BytesIO

from PIL import Image, ImageDraw, ImageFont

from bot.i18n import t
from engine.cards import RANKS

log = logging.getLogger(__name__)

WIDTH, HEIGHT = 720, 400
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 24, 48, 44
_COLOURS = ((200, 50, 50), (40, 90, 200))  # North–South red, East–West blue
_GRID = (225, 225, 225)
_INK = (40, 40, 40)
_LAP = len(RANKS)
_SIZE = 15

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@cache
def cjk_font_file() -> tuple[str, int] | None:
    """A font file (and its index in a collection) that has Chinese, from fontconfig."""
    fc_match = shutil.which("fc-match")
    if fc_match is None:
        return None
    try:
        out = subprocess.run(
            [fc_match, "-f", "%{file}\n%{index}\n%{lang}", "sans-serif:lang=zh-cn"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        return None
    if len(out) < 3 or "zh-cn" not in out[2].split("|"):
        return None  # fontconfig's best match has no Chinese
    return out[0], int(out[1] or 0)


@cache
def _font(lang: str) -> tuple[Font, str]:
    """The font for ``lang`` and the language the picture can be written in."""
    found = cjk_font_file()
    if found is not None:
        try:
            return ImageFont.truetype(found[0], _SIZE, index=found[1]), lang
        except OSError:
            pass
    if lang != "en":
        log.warning("no CJK font found (fc-match sans-serif:lang=zh-cn): charts in English")
    return ImageFont.load_default(size=_SIZE), "en"


def axis_top(progression: list[list[int]]) -> int:
    """The highest level on the axis: A, or A of the last lap a team reached."""
    high = max(v for point in progression for v in point)
    return (high // _LAP + 1) * _LAP - 1


def level_chart(progression: list[list[int]], lang: str = "en") -> bytes:
    """``progression``: per point (before hand 1, after hand 1, …) the two teams' levels,
    counted on past A (13 = 2 again under ``wrap``)."""
    font, lang = _font(lang)
    img = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(img)
    low, high = 0, axis_top(progression)
    hands = max(len(progression) - 1, 1)
    plot_w, plot_h = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM

    def xy(i: int, level: int) -> tuple[float, float]:
        return (
            _LEFT + plot_w * i / hands,
            _TOP + plot_h * (1 - (level - low) / (high - low)),
        )

    for level in range(low, high + 1):  # one grid line per level, labelled with its rank
        _, y = xy(0, level)
        draw.line([(_LEFT, y), (WIDTH - _RIGHT, y)], fill=_GRID)
        if high >= _LAP and level % 2:
            continue  # two laps: every other rank labelled (2 4 … Q A), lest they overlap
        draw.text((_LEFT - 8, y), RANKS[level % _LAP], fill=_INK, font=font, anchor="rm")
    step = max(1, hands // 12)
    for i in range(0, hands + 1, step):
        x, _ = xy(i, low)
        draw.text((x, HEIGHT - _BOTTOM + 8), str(i), fill=_INK, font=font, anchor="mt")
    draw.line(
        [(_LEFT, _TOP), (_LEFT, HEIGHT - _BOTTOM), (WIDTH - _RIGHT, HEIGHT - _BOTTOM)], fill=_INK
    )
    legend_x = WIDTH - _RIGHT
    for team in (1, 0):  # the legend right-aligned: North–South, then East–West
        colour = _COLOURS[team]
        # the two lines sit a little apart where they overlap
        points = [
            (x, y + (team * 2 - 1) * 2)
            for x, y in (xy(i, p[team]) for i, p in enumerate(progression))
        ]
        draw.line(points, fill=colour, width=3)
        for x, y in points:
            draw.ellipse([x - 4, y - 4, x + 4, y + 4], fill=colour)
        name = t(lang, f"team.short.{team}")
        legend_x -= int(draw.textlength(name, font=font))
        draw.text((legend_x, 23), name, fill=_INK, font=font, anchor="lm")
        legend_x -= 20
        draw.rectangle([legend_x, 16, legend_x + 14, 30], fill=colour)
        legend_x -= 16
    draw.text((_LEFT, 23), t(lang, "chart.title"), fill=_INK, font=font, anchor="lm")
    draw.text(
        (WIDTH - _RIGHT, HEIGHT - 8), t(lang, "chart.hand"), fill=_INK, font=font, anchor="rb"
    )
    out = BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()
