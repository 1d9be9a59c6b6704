"""The table as a Telegram Mini App (issue 17): a live card table inside Telegram.

``auth``   Telegram's signed launch data (initData): who is asking
``view``   what one reader sees (the engine's seat or public view) as JSON
``live``   every change of a game pushed to its open apps (from the one change path)
``server`` the page, the API (actions go through the DM buttons' own path), the events
``static`` the page itself: plain HTML, CSS and JS, no build step
"""
