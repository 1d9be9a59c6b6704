"""Which event loop the bot runs on (issue 34): uvloop where it is installed (Linux and
macOS on CPython; a dependency there, see pyproject.toml), asyncio's own elsewhere or when
``EVENT_LOOP=asyncio`` asks for it. uvloop runs the loop's own work (sockets, TLS, timers,
callbacks) in C: the same bot, less CPU a press (docs/scaling.md measures it). Everything
the bot does on a loop is plain asyncio API, so either loop runs it unchanged.

``bot.hosting`` makes the loop python-telegram-bot runs on with :func:`new_event_loop`;
the sandbox runs its main coroutine on one (:func:`run`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Literal, TypeVar

log = logging.getLogger(__name__)

EventLoop = Literal["uvloop", "asyncio"]
T = TypeVar("T")


def loop_factory(choice: EventLoop) -> Callable[[], asyncio.AbstractEventLoop]:
    """The factory of the loop ``choice`` names; uvloop asked for but not installed: asyncio's
    (said once in the log: the bot works the same, at some more CPU a press)."""
    if choice == "uvloop":
        try:
            import uvloop
        except ImportError:
            log.info("EVENT_LOOP=uvloop but uvloop is not installed: asyncio's event loop")
        else:
            return uvloop.new_event_loop
    return asyncio.new_event_loop


def new_event_loop(choice: EventLoop) -> asyncio.AbstractEventLoop:
    """A new loop of the kind ``choice`` names (see :func:`loop_factory`)."""
    return loop_factory(choice)()


def run(main: Coroutine[Any, Any, T], choice: EventLoop) -> T:
    """``asyncio.run(main)`` on the loop ``choice`` names (``asyncio.Runner``'s factory:
    Python 3.11 has no ``loop_factory`` on ``asyncio.run``)."""
    with asyncio.Runner(loop_factory=loop_factory(choice)) as runner:
        return runner.run(main)
