"""Entry point: ``python -m bot`` runs the bot; ``python -m bot --simulate`` a computer match;
``python -m bot backup FILE`` copies the database while the bot runs."""

from __future__ import annotations

import logging
import sys

from bot.config import NO_TOKEN_MESSAGE, Settings


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["backup"]:
        from bot.backup import main as backup

        return backup(argv[1:])
    if "--simulate" in argv:
        from bot.simulate import main as simulate

        return simulate(argv)
    settings = Settings()
    if not settings.bot_token:
        print(NO_TOKEN_MESSAGE, file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)
    from bot.app import build_application
    from bot.hosting import run

    run(build_application(settings), settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
