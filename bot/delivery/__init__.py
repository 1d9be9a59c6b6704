"""Output: which reader needs a new message now (``publish``), each chat's paced,
coalesced outbox (``outbox``) and the per-chat rate limits behind every write
(``ratelimit``).

May import: the engine, ``bot.service``, ``bot.views``, ``bot.table``, ``bot.data``,
``bot.infra``, ``bot.i18n`` and this folder."""
