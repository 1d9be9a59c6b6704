"""Infrastructure, at the bottom: the host's settings (``config``), the version, the
event loop, the Bot API client (``request``: python-telegram-bot's ``BaseRequest`` on
aiohttp), whether Telegram answers (``reach``) and the database's online backup.

May import: the engine is not needed here; nothing else of ``bot`` but this folder."""
