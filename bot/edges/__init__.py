"""Where input enters and is parsed whole into a table command: Telegram's updates
(``updates``, ``processor``, the handlers in ``telegram/``), a seat's buttons (``seat``),
the lobby, the chats' own changes (``chats``), time (``timers``) with the computers' one
decider (``computer``), the Mini App's HTTP side (``miniapp/``), the metrics endpoint,
and python-telegram-bot's typed context (``context``) the handlers read.

May import: every layer below (the engine, ``bot.delivery``, ``bot.service``,
``bot.views``, ``bot.table``, ``bot.data``, ``bot.infra``, ``bot.i18n``) and this
folder; never ``bot.app`` or ``bot.hosting``."""
