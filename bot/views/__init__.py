"""What each reader is shown, as facts and then as words: the projection of a table for
one reader (``projection``), the message model (``messages``), the typed callback data
of every button family (``codec``), and the renderers: the DM hand (``dm_hand``), the
group's table (``group_table``), the lobby, /settings, /last and /stats, the level chart,
the Mini App's JSON (``miniapp``), and what a person is told, in words (``answers``: the
table's and the edges' ``Answer``, a key with its facts, in the reader's language). Views compute no rule: the engine decides, a view
picks the words (``bot.i18n``).

May import: the engine, ``bot.table``, ``bot.data``, ``bot.infra``, ``bot.i18n`` and
this folder."""
