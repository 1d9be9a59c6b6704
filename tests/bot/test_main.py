import os
import re
import subprocess
import sys
from pathlib import Path

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


def test_without_a_token_the_bot_refuses_to_start_with_one_sentence(tmp_path):
    r = run([], tmp_path)
    assert r.returncode != 0
    assert r.stderr.strip().count("\n") == 0 and "BOT_TOKEN" in r.stderr


def test_simulate_runs_a_computer_match_without_a_token(tmp_path):
    r = run(["--simulate", "--start-level", "A", "--hands", "3", "--lang", "en"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Hand 1 · levels: A (seats 1+3) A · B (seats 2+4) A" in r.stdout


def test_simulate_reads_like_the_bot_seats_one_to_four_in_chinese(tmp_path):
    """Seats 1-4 and teams A/B as in the group, the bot's card labels (jokers too),
    throws, failed throws and ruffs marked; Chinese by default."""
    r = run(["--simulate", "--seed", "5", "--hands", "6"], tmp_path)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith("第1局 · 级别：A队（1、3号位）2 · B队（2、4号位）2")
    seats = set(re.findall(r"(\d)号位", out))
    assert seats == {"1", "2", "3", "4"}
    for mark in ("（甩牌）", "（毙）", "大王", "小王", "底牌：", "闲家得"):
        assert mark in out, mark
    assert "seat" not in out and "BJ" not in out and "team" not in out
