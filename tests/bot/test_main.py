import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.request import urlopen

from tests.sandbox.process import sandbox_process

ROOT = Path(__file__).resolve().parents[2]


def run(args, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "BOT_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=tmp_path,  # no .env here
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_help_explains_the_sandbox_telegram_and_simulate(tmp_path):
    r = run(["--help"], tmp_path)
    assert r.returncode == 0, r.stderr
    for words in ("without BOT_TOKEN: the sandbox", "with BOT_TOKEN", "--simulate", "--port"):
        assert words in r.stdout
    assert "--seed" in r.stdout and "--preset" in r.stdout  # the simulation's options
    assert "deal the sandbox's games from seeds N" in r.stdout  # the sandbox's --seed


def test_without_a_token_run_serves_the_sandbox_page_and_stops_on_sigterm(tmp_path):
    with sandbox_process(tmp_path, "--lang", "en") as address:
        page = urlopen(address, timeout=10).read().decode()
        assert "/static/app.js" in page
        with urlopen(address + "api/events?user=1", timeout=10) as events:
            first = json.loads(events.readline().decode().removeprefix("data: "))
    assert first["type"] == "snapshot"
    assert [p["name"] for p in first["people"]] == ["Alice", "Bob", "Carol", "Dave"]
    assert [c["type"] for c in first["chats"]] == ["group", "private"]


def test_on_a_server_telegram_without_a_token_is_an_error_in_one_sentence(tmp_path):
    r = run(["--telegram"], tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "BOT_TOKEN" in r.stderr


def test_simulate_runs_a_computer_match_without_a_token(tmp_path):
    r = run(["--simulate", "--start-level", "A", "--hands", "3", "--lang", "en"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Hand 1 · levels: N–S (seats 1+3) A · E–W (seats 2+4) A" in r.stdout


def test_simulate_reads_like_the_bot_seats_one_to_four_in_chinese(tmp_path):
    """Seats 1-4 and teams A/B as in the group, the bot's card labels (jokers too),
    throws, failed throws and ruffs marked; Chinese by default."""
    r = run(["--simulate", "--seed", "5", "--hands", "6"], tmp_path)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith("第1局 · 级别：南北（1、3号座）2 · 东西（2、4号座）2")
    seats = set(re.findall(r"(\d)号座", out))
    assert seats == {"1", "2", "3", "4"}
    for mark in ("（甩牌）", "（毙）", "大王", "小王", "底牌：", "闲家得"):
        assert mark in out, mark
    assert "seat" not in out and "BJ" not in out and "team" not in out
