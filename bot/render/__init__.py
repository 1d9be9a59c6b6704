"""Text and keyboards for the lobby, the group table, the DM hand and results. No game logic."""
