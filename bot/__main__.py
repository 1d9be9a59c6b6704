"""Entry point: ``python -m bot`` (what ``./run`` runs).

With ``BOT_TOKEN`` set: the bot on Telegram (long polling or webhook, ``bot.hosting``).
Without it: the sandbox (``bot.sandbox``), the same bot on the built-in fake Telegram,
played in a local web page. ``--simulate``: a computer-only match printed as a log
(``bot.simulate``); ``backup [FILE]`` copies the database while the bot runs (``bot.infra.backup``).
"""

from __future__ import annotations

import argparse
import logging
import sys

from pydantic import ValidationError

from bot.infra.config import NO_TOKEN_MESSAGE, Settings
from bot.infra.version import __version__

DESCRIPTION = """\
Shengji (升级 / 拖拉机) for Telegram group chats.

  ./run               without BOT_TOKEN: the sandbox. The real bot runs against a built-in
                      fake Telegram and a local web page (address printed at start) shows
                      the group chat and your private chat with the bot side by side: play
                      seat 1 with three computer players, or be several people at once.
                      Nothing is sent over the internet; the games are not kept.
  ./run               with BOT_TOKEN (environment or .env; see README): the bot on Telegram,
                      by long polling, or as a webhook when WEBHOOK_URL is set.
  ./run --simulate    a match between computer players, printed as a log (no token needed).
  ./run backup [FILE] copy the database while the bot runs (./run backup --help).

Servers (Docker, systemd) run `python -m bot --telegram`: there a missing token is an error."""

EPILOG = """\
--simulate takes its own options: --seed N, --preset classic|joker_declare|tournament,
--hands N, --start-level RANK, --lang zh|en (./run --simulate --help explains them).

Settings (BOT_TOKEN, pacing, timeouts, ...) come from the environment or .env: see
.env.example. The sandbox uses them too, except the token and the database."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="./run",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"shengji-bot {__version__}")
    parser.add_argument(
        "--simulate",
        action="store_true",
        help="print a computer-only match instead of running the bot (options below)",
    )
    parser.add_argument(
        "--telegram",
        action="store_true",
        help="run the bot on Telegram; without BOT_TOKEN, stop with an error (no sandbox)",
    )
    sandbox = parser.add_argument_group("the sandbox (no BOT_TOKEN)")
    sandbox.add_argument(
        "--sandbox",
        action="store_true",
        help="run the sandbox even if BOT_TOKEN is set (the token is not used)",
    )
    sandbox.add_argument(
        "--host", default="127.0.0.1", help="address of the page (default: %(default)s)"
    )
    sandbox.add_argument(
        "--port",
        type=int,
        help="port of the page (default: 8765, or the next free one; 0: any free port)",
    )
    sandbox.add_argument(
        "--lang",
        choices=["zh", "en"],
        default="zh",
        help="language of the sandbox's people, i.e. of their Telegram apps (default: zh)",
    )
    sandbox.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="deal the sandbox's games from seeds N, N+1, ... (the same N, the same deals; "
        "default: random)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["backup"]:  # its own options and --help
        from bot.infra.backup import main as backup

        return backup(argv[1:])
    if "--simulate" in argv:  # its own options and --help
        from bot.simulate import main as simulate

        return simulate(argv)
    args = build_parser().parse_args(argv)
    try:
        settings = Settings()
    except ValidationError as e:
        print(config_error(e), file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)  # a line per timer otherwise
    if args.telegram and not settings.bot_token:
        print(NO_TOKEN_MESSAGE, file=sys.stderr)
        return 2
    if args.sandbox or not settings.bot_token:
        from bot.sandbox import run as run_sandbox
        from bot.sandbox import seeds_from

        return run_sandbox(
            settings,
            host=args.host,
            port=args.port,
            lang=args.lang,
            seed_source=None if args.seed is None else seeds_from(args.seed),
        )
    from bot.app import build_application
    from bot.hosting import run

    return run(build_application(settings), settings)


def config_error(error: ValidationError) -> str:
    """Invalid settings in one line: which variable and why (never the value given: it
    may be a secret)."""
    problems = [
        f"{'.'.join(map(str, e['loc'])).upper() or 'settings'}: {e['msg']}"
        for e in error.errors(include_url=False, include_input=False)
    ]
    return "Configuration error (environment or .env): " + "; ".join(problems)


if __name__ == "__main__":
    sys.exit(main())
