"""The bot's saved records (pydantic): a game with its lobby, seats and message ids.

The match itself is the engine's ``MatchState`` JSON (``match_json``); the bot never
re-implements a rule, it only remembers who sits where. Which message shows what is
the outboxes' business (``Store.save_shown``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from bot.i18n import normalize
from engine.reasons import Reason
from engine.rules import Preset

Status = Literal["lobby", "running", "finished", "cancelled", "expired", "ended"]
RUNNING_STATES: tuple[Status, ...] = ("lobby", "running")


class Hinted(BaseModel):
    """The last Hint of a seat: its cards and why (``engine.reasons``), at the moment
    (hand and version) it was asked; shown while those cards are the selection."""

    hand: int
    version: int
    cards: list[int]
    reason: Reason


class SeatUI(BaseModel):
    """What the seat's reader has on screen, apart from the rules' state: the table
    keeps it (a restart shows the DM as it was) but no rule decides by it, except that
    a tap plays at once only while nothing is selected (``bot.table.state.one_tap``)."""

    # cards tapped in the DM keyboard, not yet submitted
    selection: list[int] = Field(default_factory=list)
    # the last Hint, shown with its reason while its cards are the selection
    hint: Hinted | None = None
    # the DM shows why the computers played as they did in this trick (its number)
    why: int | None = None
    # the DM shows the card counter (记牌器) line
    tally: bool = False


_UI = tuple(SeatUI.model_fields)


class Seat(BaseModel):
    user_id: int | None = None
    name: str = ""
    computer: bool = False
    lang: str | None = None
    # 托管: the computer plays for this seat until the player acts again (RULES.md 13).
    auto: bool = False
    # the 托管 is the player's own choice ("I'm away"), not a time-out's
    away: bool = False
    # the player's DM failed (blocked / never started): the game waits for them
    dm_failed: bool = False
    # what the seat's reader has on screen (not the rules' state)
    ui: SeatUI = Field(default_factory=SeatUI)

    @model_validator(mode="before")
    @classmethod
    def _ui_of_a_flat_seat(cls, data: Any) -> Any:
        """A seat saved before its screen's state had a name of its own kept it flat."""
        if isinstance(data, dict) and "ui" not in data and any(k in data for k in _UI):
            data = dict(data)
            data["ui"] = {k: data.pop(k) for k in _UI if k in data}
        return data

    @property
    def empty(self) -> bool:
        return self.user_id is None and not self.computer

    @property
    def human(self) -> bool:
        return self.user_id is not None and not self.computer


class ChatSettings(BaseModel):
    chat_id: int
    lang: str | None = None
    preset: Preset = "classic"
    # start level (rank index 0 = '2' .. 12 = 'A')
    start_level: int = 0
    # rule options changed one by one from the preset's defaults (RuleSet field -> value)
    rules: dict[str, Any] = Field(default_factory=dict)
    # the bot's pace for this group's matches; None: the bot's configured default
    turn_seconds: float | None = None
    deal_pace: float | None = None
    # how strong the computers play (bot.edges.computer.STRENGTHS); None: the default
    computer_strength: str | None = None
    # the card counter (记牌器) in the Mini App and the DM; None: on
    card_counter: bool | None = None


_MATCH = {"match_json"}


class GameRecord(BaseModel):
    id: int = 0
    chat_id: int
    thread_id: int | None = None
    chat_title: str = ""
    creator_id: int
    status: Status = "lobby"
    # the group's language (its setting; the first game's creator chose it): every
    # message and answer in the group; each player's DMs follow their own (Seat.lang)
    lang: str = "zh"
    preset: Preset = "classic"
    start_level: int = 0
    # the group's rule overrides and pace when the match started (bot.data.options)
    rules: dict[str, Any] = Field(default_factory=dict)
    turn_seconds: float | None = None
    deal_pace: float | None = None
    computer_strength: str | None = None
    card_counter: bool | None = None
    seed: int = 0
    seats: list[Seat] = Field(default_factory=lambda: [Seat() for _ in range(4)])
    # wall-clock seconds (the service's clock): lobby expiry, a tournament's time limit
    created_at: float = 0.0
    started_at: float | None = None
    # the engine's MatchState as JSON (saved in a column of its own: ``record_json``)
    match_json: str | None = None
    # number of the hand in the match (1-based), for stale-button detection
    hand_no: int = 0
    paused: bool = False
    # the bot was removed from the group: the game waits (paused) until it is back
    group_gone: bool = False

    def record_json(self) -> str:
        """The record as the store writes it: without the match, which has a column of
        its own (written only when it changed)."""
        return self.model_dump_json(exclude=_MATCH)

    @classmethod
    def restore(cls, record: str, match: str | None) -> GameRecord:
        """The record from :meth:`record_json` and its match's JSON."""
        rec = cls.model_validate_json(record)
        rec.match_json = match
        return rec

    def seat_lang(self, seat: int) -> str:
        """The language of a seat's DMs and button answers: the player's own."""
        return self.seats[seat].lang or self.lang

    def user_lang(self, user_id: int, code: str | None) -> str:
        """The language for a user's DM reply or button answer (seated or not)."""
        seat = self.seat_of(user_id)
        own = self.seats[seat].lang if seat is not None else None
        return own or normalize(code) or self.lang

    def seat_of(self, user_id: int) -> int | None:
        for i, s in enumerate(self.seats):
            if s.user_id == user_id and not s.computer:
                return i
        return None

    @property
    def full(self) -> bool:
        return all(not s.empty for s in self.seats)
