"""Computer players: a heuristic (hints, 托管 auto-play) and random legal players."""

from engine.players.heuristic import choose_action, choose_bury, choose_show, suggest

__all__ = ["choose_action", "choose_bury", "choose_show", "suggest"]
