"""/settings' strength help states what duplicate play measured of 普通 against 简单."""

from __future__ import annotations

import re
import statistics
from pathlib import Path

from bot import i18n

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results"
NORMAL_VS_EASY = RESULTS / "issue29-normal-vs-heuristic-50ms.txt"


def test_the_strength_help_gives_normals_measured_lead_over_easy_in_both_languages():
    rows = [line.split() for line in NORMAL_VS_EASY.read_text().splitlines() if line.strip()]
    lead = statistics.fmean(int(r[1]) + int(r[2]) for r in rows)  # points per deal pair
    for lang, name in (("en", "Normal"), ("zh", "普通")):
        help_text = i18n.t(lang, "opt.cs.help")
        said = re.search(rf"{name}\D*(\d+)", help_text)
        assert said is not None, (lang, help_text)
        # rounded the way a player says it: to the nearest 5 points
        assert int(said.group(1)) == 5 * round(lead / 5), (lang, lead)
