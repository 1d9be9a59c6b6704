"""The table as a Telegram Mini App (issue 17), its HTTP side: an edge like Telegram's.

``auth``    Telegram's signed launch data (initData): who is asking
``actions`` what the app may ask, parsed whole into the table's own commands
``server``  the page, the API (actions go through the seat's input, ``bot.edges.seat``)
``streams`` every change of a game pushed to its open apps (from the one change path)
``net``     the server's connections: bounded, and who is on the other end
``static``  the page itself: plain HTML, CSS and JS, no build step

What one reader sees as JSON is a view: ``bot.views.miniapp``.
"""
