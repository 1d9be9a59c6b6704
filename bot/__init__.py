"""The Telegram layer of the Shengji bot."""

import os

# PTB 22.2 deprecated time periods as numbers (``RetryAfter.retry_after`` and the like);
# v23 returns them as ``datetime.timedelta`` only. The bot opts in to that form now, so
# it reads one type and no deprecation warning is raised on every 429.
os.environ["PTB_TIMEDELTA"] = "true"
