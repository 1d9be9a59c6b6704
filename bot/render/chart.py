"""The level progression of a match as a PNG (Pillow): each team's level before hand 1
and after every hand. Labels are ASCII only (ranks, "A"/"B", hand numbers), so the
picture needs no CJK font; names go in the caption, which Telegram renders."""

from __future__ import annotations

from io import BytesIO

from PIL import Image, ImageDraw, ImageFont

from engine.cards import RANKS

WIDTH, HEIGHT = 720, 400
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 24, 48, 44
_COLOURS = ((200, 50, 50), (40, 90, 200))  # team A red, team B blue
_GRID = (225, 225, 225)
_INK = (40, 40, 40)


def level_chart(progression: list[list[int]], title: str = "Levels by hand") -> bytes:
    """``progression``: per point (before hand 1, after hand 1, …) the two teams' levels,
    counted on past A (13 = 2 again under ``wrap``)."""
    img = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=15)
    values = [v for point in progression for v in point]
    low, high = min(values), max(max(values), min(values) + 1)
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
        draw.text((_LEFT - 8, y), RANKS[level % len(RANKS)], fill=_INK, font=font, anchor="rm")
    step = max(1, hands // 12)
    for i in range(0, hands + 1, step):
        x, _ = xy(i, low)
        draw.text((x, HEIGHT - _BOTTOM + 8), str(i), fill=_INK, font=font, anchor="mt")
    draw.line(
        [(_LEFT, _TOP), (_LEFT, HEIGHT - _BOTTOM), (WIDTH - _RIGHT, HEIGHT - _BOTTOM)], fill=_INK
    )
    for team, colour in enumerate(_COLOURS):
        # the two lines sit a little apart where they overlap
        points = [
            (x, y + (team * 2 - 1) * 2)
            for x, y in (xy(i, p[team]) for i, p in enumerate(progression))
        ]
        draw.line(points, fill=colour, width=3)
        for x, y in points:
            draw.ellipse([x - 4, y - 4, x + 4, y + 4], fill=colour)
        lx = WIDTH - _RIGHT - 120 + team * 60
        draw.rectangle([lx, 16, lx + 14, 30], fill=colour)
        draw.text((lx + 20, 23), "AB"[team], fill=_INK, font=font, anchor="lm")
    draw.text((_LEFT, 23), title, fill=_INK, font=font, anchor="lm")
    draw.text((WIDTH - _RIGHT, HEIGHT - 8), "hand", fill=_INK, font=font, anchor="rb")
    out = BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()
