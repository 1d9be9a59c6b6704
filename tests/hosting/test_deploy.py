"""The deployment files say what a host relies on (Docker cannot run in the test
environment, so the files are read, not built): a non-root image with a health check and
the database on a volume, a .env.example that overrides none of it, units that run the
bot from a virtualenv as an unprivileged user."""

import re
import shlex
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.config import Settings

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
        assert ("ExecStart", f"{bot} --telegram") in service or any(
            k == "ExecStart" and v.startswith("/opt/shengji-bot/.venv/bin/python -m bot backup ")
            for k, v in service
        )
        assert ("Environment", "DATABASE_PATH=/var/lib/shengji-bot/shengji.sqlite3") in service
        assert ("StateDirectory", "shengji-bot") in service
    unit = (DEPLOY / "shengji-bot.service").read_text()
    # how the virtualenv is made is written down in the unit itself
    assert "python3 -m venv /opt/shengji-bot/.venv" in unit
    assert "/opt/shengji-bot/.venv/bin/pip install /opt/shengji-bot" in unit
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
