"""Where the Mini App opens: the DM's button (a ``web_app`` URL) and the group's direct
link (``t.me/<bot>/<short name>?startapp=``, a spectator's view)."""

from __future__ import annotations

from bot import codec


def table_url(webapp_url: str, game_id: int) -> str | None:
    """The DM button's address of a game's table; None without a Mini App."""
    if not webapp_url:
        return None
    base = webapp_url if webapp_url.endswith("/") else webapp_url + "/"
    return f"{base}?game={game_id}"


def direct_link(bot_username: str, short_name: str, game_id: int) -> str | None:
    """The group's link to watch a game in the Mini App; None without a short name."""
    if not short_name:
        return None
    return f"https://t.me/{bot_username}/{short_name}?startapp={codec.open_payload(game_id)}"
