"""The one-tap rule of a DM's card buttons, in one place: the prompt that announces it
(``bot.render.hand``) and the press that applies it (``bot.hand_input``) both ask here.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.hand import HandState


def one_tap(hand: HandState, seat: int, selection: Sequence[int]) -> bool:
    """A tap on a card plays it: it is ``seat``'s turn to follow a one-card lead
    (the engine's count) and nothing is selected (a selection is being built)."""
    return hand.phase == "playing" and hand.cards_to_play(seat) == 1 and not selection
