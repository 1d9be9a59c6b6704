import os
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
    r = run(["--simulate", "--start-level", "A", "--hands", "3"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Hand 1" in r.stdout
