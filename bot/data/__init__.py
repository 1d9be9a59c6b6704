"""What is saved: a game's record with its lobby, seats and message ids (``saved``), the
store (aiosqlite), what a group remembers of finished hands and matches (``history``)
and a group's options (``options``: every rule option and the bot's own).

May import: the engine, ``bot.i18n``, ``bot.infra`` and this folder."""
