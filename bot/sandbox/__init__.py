"""The sandbox: the real bot on the built-in fake Telegram, played in a local web page.

``./run`` without ``BOT_TOKEN`` (or ``./run --sandbox``) starts it: the Application that
production builds (``bot.app.build_application``, same settings from the environment or
``.env``) polls the in-process fake Telegram (``bot.fake_telegram``, with Telegram's rate
limits), and ``bot.sandbox.web`` serves a chat client on 127.0.0.1: the group and your
private chat with the bot side by side. Nothing leaves the machine; the database is a
temporary file, gone when the sandbox stops (the fake world is not kept either).
``./run --seed N`` deals the games from fixed seeds (:func:`seeds_from`): the same N, the
same cards, e.g. for a browser test that needs a particular deal.
"""

from __future__ import annotations

import asyncio
import errno
import itertools
import signal
import sys

from bot.infra import eventloop
from bot.infra.config import Settings
from bot.sandbox.web import serve
from bot.sandbox.world import Sandbox
from bot.service.game import SeedSource

DEFAULT_PORT = 8765
PORT_TRIES = 20  # the default port is busy: take the next free one


def seeds_from(first: int) -> SeedSource:
    """The seed of each new game, in turn: ``first``, ``first + 1``, ... (``--seed``)."""
    return itertools.count(first).__next__


def run(
    settings: Settings,
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    lang: str = "zh",
    seed_source: SeedSource | None = None,
) -> int:
    """Run the sandbox until Ctrl-C (or SIGTERM); prints the page's address. On the
    event loop the bot runs on (``EVENT_LOOP``, bot.infra.eventloop)."""
    return eventloop.run(_main(settings, host, port, lang, seed_source), settings.event_loop)


async def _main(
    settings: Settings,
    host: str,
    port: int | None,
    lang: str,
    seed_source: SeedSource | None,
) -> int:
    sandbox = Sandbox(settings, lang)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with sandbox.running(seed_source):
        tries = range(DEFAULT_PORT, DEFAULT_PORT + PORT_TRIES) if port is None else [port]
        for candidate in tries:
            try:
                runner = await serve(sandbox, host, candidate)
                break
            except OSError as e:
                if e.errno != errno.EADDRINUSE or candidate == tries[-1]:
                    print(f"sandbox: cannot listen on {host}:{candidate}: {e}", file=sys.stderr)
                    return 1
        address = runner.addresses[0]
        shown_host = f"[{address[0]}]" if ":" in address[0] else address[0]
        print(
            f"Sandbox: open http://{shown_host}:{address[1]}/ in a browser "
            "(the bot on a built-in fake Telegram; Ctrl-C stops).",
            flush=True,
        )
        try:
            await stop.wait()
        finally:
            sandbox.close_pages()
            await runner.cleanup()
    return 0
