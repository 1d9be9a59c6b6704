"""The deployment files say what a host relies on (Docker cannot run in the test
environment, so the files are read, not built): a non-root image with a health check and
the database on a volume, a .env.example that overrides none of it, units that run the
bot from a virtualenv as an unprivileged user."""

import json
import re
import shlex
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.infra.config import Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def instructions(dockerfile: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    text = re.sub(r"\\\n", " ", dockerfile.read_text())
    lines = [
        ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")
    ]
    return [(ln.split(None, 1)[0].upper(), ln.split(None, 1)[1]) for ln in lines]


def env_of(dockerfile: Path) -> dict[str, str]:
    env: dict[str, str] = {}
    for name, args in instructions(dockerfile):
        if name == "ENV":
            env.update(part.split("=", 1) for part in shlex.split(args))
    return env


def uncommented_settings(path: Path) -> dict[str, str]:
    lines = [ln.strip() for ln in path.read_text().splitlines()]
    return dict(ln.split("=", 1) for ln in lines if ln and not ln.startswith("#"))


def test_the_image_runs_as_an_unprivileged_user_with_a_health_check():
    steps = instructions(DEPLOY / "Dockerfile")
    users = [args for name, args in steps if name == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0")
    [health] = [args for name, args in steps if name == "HEALTHCHECK"]
    assert "/healthz" in health and "METRICS_PORT" in health
    assert env_of(DEPLOY / "Dockerfile")["METRICS_PORT"] != "0"
    assert steps[-1][0] == "CMD" and "bot" in steps[-1][1]
    assert "--telegram" in steps[-1][1]  # a missing token is an error, not a sandbox


def test_the_image_keeps_the_database_on_its_volume():
    steps = instructions(DEPLOY / "Dockerfile")
    [volume] = [args for name, args in steps if name == "VOLUME"]
    database = Path(env_of(DEPLOY / "Dockerfile")["DATABASE_PATH"])
    assert str(database.parent) in volume
    compose = (DEPLOY / "compose.yaml").read_text()
    assert re.search(rf"^\s+- \S+:{database.parent}$", compose, re.M)


def test_env_example_sets_only_the_token_so_it_overrides_no_default_of_the_image():
    example = ROOT / ".env.example"
    assert uncommented_settings(example) == {"BOT_TOKEN": ""}
    text = example.read_text()
    for field in Settings.model_fields:  # every setting is documented, commented out
        if field != "bot_token":
            assert re.search(rf"^# {field.upper()}=", text, re.M), field


def test_the_systemd_units_run_the_bot_from_a_virtualenv_as_an_unprivileged_user():
    for unit in ("shengji-bot.service", "shengji-bot-backup.service"):
        lines = (DEPLOY / unit).read_text().split("[Service]")[1].splitlines()
        service = [tuple(ln.split("=", 1)) for ln in lines if "=" in ln]
        assert ("User", "shengji") in service
        bot = "/opt/shengji-bot/.venv/bin/python -m bot"
        assert ("ExecStart", f"{bot} --telegram") in service or (
            "ExecStart",
            f"{bot} backup",
        ) in service
        assert ("Environment", "DATABASE_PATH=/var/lib/shengji-bot/shengji.sqlite3") in service
        assert ("StateDirectory", "shengji-bot") in service
        # what the bot and its backups create is readable by the service user only
        assert ("UMask", "0077") in service and ("StateDirectoryMode", "0700") in service
    unit = (DEPLOY / "shengji-bot.service").read_text()
    # how the virtualenv is made is written down in the unit itself: the locked dependencies
    # with their hashes, then the bot
    assert "python3 -m venv /opt/shengji-bot/.venv" in unit
    pip = "/opt/shengji-bot/.venv/bin/pip install"
    assert f"{pip} --require-hashes -r /opt/shengji-bot/requirements.lock" in unit
    assert f"{pip} --no-deps /opt/shengji-bot" in unit
    assert "EnvironmentFile=/etc/shengji-bot.env" in unit


def test_a_webhook_needs_a_secret():
    with pytest.raises(ValidationError, match="WEBHOOK_SECRET") as refused:
        Settings(_env_file=None, bot_token="123:TOKEN", webhook_url="https://bot.example.org/hook")
    assert "TOKEN" not in str(refused.value)  # the message may end up in a log
    with pytest.raises(ValidationError):
        Settings(_env_file=None, webhook_url="https://x/hook", webhook_secret="no spaces")
    ok = Settings(_env_file=None, webhook_url="https://x/hook", webhook_secret="a-Z_9")
    assert ok.webhook_secret == "a-Z_9"


def test_the_token_and_the_webhook_secret_can_come_from_files(tmp_path, monkeypatch):
    (tmp_path / "token").write_text("123:FROM-FILE\n")  # as `echo` writes it
    (tmp_path / "secret").write_text("s3cret_-\n")
    monkeypatch.setenv("BOT_TOKEN_FILE", str(tmp_path / "token"))
    monkeypatch.setenv("WEBHOOK_SECRET_FILE", str(tmp_path / "secret"))
    monkeypatch.delenv("BOT_TOKEN", raising=False)
    monkeypatch.delenv("WEBHOOK_SECRET", raising=False)
    settings = Settings(_env_file=None, webhook_url="https://bot.example.org/hook")
    assert (settings.bot_token, settings.webhook_secret) == ("123:FROM-FILE", "s3cret_-")
    # an empty BOT_TOKEN= (as .env.example has it) is not a conflict
    assert Settings(_env_file=None, bot_token="").bot_token == "123:FROM-FILE"


def test_a_secret_set_twice_or_an_unreadable_secret_file_is_an_error_that_shows_no_secret(
    tmp_path, monkeypatch
):
    token = tmp_path / "token"
    token.write_text("123:FROM-FILE")
    monkeypatch.setenv("BOT_TOKEN_FILE", str(token))
    with pytest.raises(ValidationError, match="both BOT_TOKEN and BOT_TOKEN_FILE") as twice:
        Settings(_env_file=None, bot_token="123:FROM-ENV")
    assert "FROM" not in str(twice.value)
    monkeypatch.setenv("BOT_TOKEN_FILE", str(tmp_path / "missing"))
    with pytest.raises(ValidationError, match="BOT_TOKEN_FILE: cannot read .*missing"):
        Settings(_env_file=None)
    token.write_text("\n")
    monkeypatch.setenv("BOT_TOKEN_FILE", str(token))
    with pytest.raises(ValidationError, match="BOT_TOKEN_FILE: .* is empty"):
        Settings(_env_file=None)
    # the secret from a file is checked as if it were set directly
    monkeypatch.delenv("BOT_TOKEN_FILE")
    token.write_text("no spaces allowed")
    with pytest.raises(ValidationError) as bad:
        Settings(_env_file=None, webhook_url="https://x/hook", webhook_secret_file=str(token))
    assert "webhook_secret" in str(bad.value) and "allowed" not in str(bad.value)


def test_the_backup_timer_keeps_a_dated_series_in_the_state_directory():
    backup = (DEPLOY / "shengji-bot-backup.service").read_text()
    assert "Environment=BACKUP_DIR=/var/lib/shengji-bot/backups" in backup
    assert re.search(r"^Environment=BACKUP_KEEP=[1-9]\d*$", backup, re.M)
    assert "OnCalendar=daily" in (DEPLOY / "shengji-bot-backup.timer").read_text()


def test_the_image_starts_from_a_base_pinned_by_digest_and_installs_the_lock_with_hashes():
    steps = instructions(DEPLOY / "Dockerfile")
    [base] = [args for name, args in steps if name == "FROM"]
    assert re.fullmatch(r"python:3\.11[\w.-]*@sha256:[0-9a-f]{64}", base), base
    runs = [args for name, args in steps if name == "RUN"]
    copies = [args for name, args in steps if name == "COPY"]
    lock = next(i for i, c in enumerate(copies) if c.split()[0] == "requirements.lock")
    assert any("pip install --require-hashes -r requirements.lock" in r for r in runs)
    # the bot goes in without dependencies: nothing but the lock decides what is installed
    pip_runs = [r for r in runs if "pip install" in r]
    assert pip_runs[-1].endswith("pip install --no-deps .")
    assert len(pip_runs) == 2
    assert lock == 0  # the lock's layer comes before the code's: a code change reuses it


def test_the_image_runs_tini_as_pid_1():
    steps = instructions(DEPLOY / "Dockerfile")
    assert any(
        re.search(r"apt-get install [^&]*\btini\b", args) for name, args in steps if name == "RUN"
    )
    [entrypoint] = [args for name, args in steps if name == "ENTRYPOINT"]
    assert json.loads(entrypoint) == ["/usr/bin/tini", "--"]
    compose = (DEPLOY / "compose.yaml").read_text()
    assert "init: true" not in compose  # one init, not two


def dockerignore_excludes(path: str) -> bool:
    """Whether Docker leaves ``path`` (relative to the context) out of the build context,
    by the rules of .dockerignore: the last pattern matching the path or one of its parent
    directories decides; ``!`` re-includes; ``*`` stays within a directory, ``**`` does not."""
    excluded = False
    for line in (ROOT / ".dockerignore").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keep = line.startswith("!")
        pattern = line.lstrip("!").strip("/")
        regex = ""
        for token in re.split(r"(\*\*/|\*\*|\*|\?|\[[^]]*\])", pattern):
            regex += {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}.get(
                token, token if token.startswith("[") else re.escape(token)
            )
        parts = path.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        if any(re.fullmatch(regex, p) for p in prefixes):
            excluded = not keep
    return excluded


def test_no_secret_or_local_state_can_enter_the_build_context():
    for path in (
        ".env",
        ".env.production",
        "bot/.env",
        "secrets/bot_token",
        "deploy/secrets/bot_token",
        "shengji.sqlite3",
        "shengji.sqlite3-wal",
        "data/shengji.sqlite3",
        "bot/shengji.sqlite3",
        "engine/games.db",
        "bot/games.db-journal",
        "backups/shengji-20261201-030000.sqlite3",
        ".venv/bin/python",
        ".git/config",
        "artifacts/sandbox.png",
        ".pytest_cache/v/cache/lastfailed",
        ".hypothesis/examples/x",
        "bot/__pycache__/app.cpython-311.pyc",
        "tests/e2e/test_chaos.py",
        "shengji_bot.egg-info/PKG-INFO",
    ):
        assert dockerignore_excludes(path), path


def test_the_build_context_has_every_file_the_image_copies():
    needed = ["bot/__main__.py", "bot/i18n/en.json", "bot/sandbox/static/index.html"]
    for name, args in instructions(DEPLOY / "Dockerfile"):
        if name == "COPY":
            needed += args.split()[:-1]
    assert "requirements.lock" in needed and "pyproject.toml" in needed
    for path in needed:
        assert (ROOT / path).exists(), path
        assert not dockerignore_excludes(path), path


def test_compose_rotates_the_log_and_shows_the_token_as_a_docker_secret():
    compose = (DEPLOY / "compose.yaml").read_text()
    logging = re.search(r"^    logging:\n((?:      .*\n)+)", compose, re.M)
    assert logging, "no logging section in the service"
    assert re.search(r"^      driver: json-file$", logging[1], re.M)
    assert re.search(r'^        max-size: "\d+m"$', logging[1], re.M)
    assert re.search(r'^        max-file: "\d+"$', logging[1], re.M)
    # the secret (commented out: a host opts in, so an existing .env with BOT_TOKEN goes on)
    assert "#   BOT_TOKEN_FILE: /run/secrets/bot_token" in compose
    assert "#   - bot_token" in compose and "#     file: ../secrets/bot_token" in compose
    assert "secrets/" in (ROOT / ".gitignore").read_text().splitlines()
