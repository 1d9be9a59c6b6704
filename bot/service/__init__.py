"""The game service around the table: a game in memory with its lock and saved state
(``live``), and the one path every change takes (``game``: lock, apply, save, publish,
arm). It is given what it publishes and arms through (protocols it declares) and knows
none of its callers.

May import: the engine, ``bot.views``, ``bot.table``, ``bot.data``, ``bot.infra``,
``bot.i18n`` and this folder."""
