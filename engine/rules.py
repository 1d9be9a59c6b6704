"""The rule set: presets and every option (RULES.md sections 11 and 12).

A preset only fills defaults; each option may be overridden one by one.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from engine.cards import RANKS, parse_rank


class RuleConflict(ValueError):
    """Options that cannot go together; ``reason`` is a key the bot explains."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


Preset = Literal["classic", "joker_declare", "tournament"]
PRESETS: tuple[Preset, ...] = ("classic", "joker_declare", "tournament")


class RuleSet(BaseModel):
    """Every option of RULES.md. Ranks are stored as rank indexes (0 = '2' .. 12 = 'A')."""

    model_config = ConfigDict(frozen=True)

    preset: Preset = "classic"
    permanent_twos: bool = False
    kitty_multiplier: Literal["linear", "doubling"] = "linear"
    throw_penalty: Literal["points_per_card", "none"] = "points_per_card"
    level_table: Literal["classic", "fine", "tournament"] = "classic"
    must_play: tuple[int, ...] = ()
    # "pass_a", "wrap" or "target_N" (N a rank, e.g. "target_10")
    match_end: str = "pass_a"
    time_limit_min: int | None = None
    start_level: int = 0
    # declaring (section 12)
    declare_with_joker: bool = False
    later_declare: Literal["anyone", "dealer_team"] = "anyone"
    # overturn priority of level pairs, strongest suit first (suit indexes S H C D = 0..3)
    overturn_suit_order: tuple[int, ...] = (0, 1, 2, 3)
    # after hand 1: 炒底 in every preset (RULES 7, 12); ``before_kitty`` is a variant no
    # preset uses: overturns in the after-deal window, before the dealer takes the kitty
    later_overturn: Literal["chaodi", "before_kitty"] = "chaodi"
    redeal: bool = False

    @field_validator("must_play", mode="before")
    @classmethod
    def _ranks(cls, v: Any) -> Any:
        return tuple(parse_rank(x) if isinstance(x, str) else x for x in v)

    @field_validator("start_level", mode="before")
    @classmethod
    def _rank(cls, v: Any) -> Any:
        return parse_rank(v) if isinstance(v, str) else v

    @field_validator("match_end")
    @classmethod
    def _match_end(cls, v: str) -> str:
        if v in ("pass_a", "wrap"):
            return v
        if v.startswith("target_"):
            parse_rank(v.removeprefix("target_"))
            return v
        raise ValueError(f"unknown match_end: {v!r}")

    @field_validator("time_limit_min")
    @classmethod
    def _minutes(cls, v: int | None) -> int | None:
        if v is not None and v <= 0:
            raise ValueError("time_limit_min must be positive")
        return v

    @model_validator(mode="after")
    def _coherent(self) -> RuleSet:
        """A match must be winnable from where it starts: the target level is not below
        the start level (starting on it is fine: the first successful defence wins)."""
        target = self.target_level
        if target is not None and target < self.start_level:
            raise RuleConflict("target_below_start")
        return self

    @classmethod
    def from_preset(cls, preset: Preset = "classic", **overrides: Any) -> RuleSet:
        base: dict[str, Any] = dict(PRESET_DEFAULTS[preset])
        base.update(overrides)
        return cls(preset=preset, **base)

    @property
    def target_level(self) -> int | None:
        """The level a team must defend to win, or None for `wrap`."""
        if self.match_end == "pass_a":
            return RANKS.index("A")
        if self.match_end == "wrap":
            return None
        return parse_rank(self.match_end.removeprefix("target_"))

    @property
    def stops(self) -> tuple[int, ...]:
        """Levels nobody may jump past: must-play levels plus the target level."""
        t = self.target_level
        return tuple(sorted(set(self.must_play) | ({t} if t is not None else set())))


PRESET_DEFAULTS: dict[str, dict[str, Any]] = {
    "classic": {},
    "joker_declare": {
        "declare_with_joker": True,
        "later_declare": "dealer_team",
        "redeal": True,
    },
    "tournament": {
        "kitty_multiplier": "doubling",
        "level_table": "tournament",
        "match_end": "target_10",
        "must_play": (8,),
        "time_limit_min": 60,
        "overturn_suit_order": (0, 1, 3, 2),
    },
}
