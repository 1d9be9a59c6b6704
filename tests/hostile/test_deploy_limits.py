"""The host gives the bot descriptors enough for a public Mini App (issue 28): every
connection holds one, and the default soft limit of 1024 is what made the server fail."""

import re
from pathlib import Path

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
ENOUGH = 8192


def test_the_systemd_unit_raises_the_descriptor_limit():
    service = (DEPLOY / "shengji-bot.service").read_text().split("[Service]")[1]
    [limit] = re.findall(r"^LimitNOFILE=(\d+)(?::(\d+))?$", service, re.M)
    assert all(int(n) >= ENOUGH for n in limit if n)


def test_the_compose_service_raises_the_descriptor_limit():
    compose = (DEPLOY / "compose.yaml").read_text()
    block = re.search(r"^    ulimits:\n      nofile:\n((?:        \w+: \d+\n)+)", compose, re.M)
    assert block is not None, "no ulimits: nofile: under the service"
    limits = dict(re.findall(r"(\w+): (\d+)", block.group(1)))
    assert set(limits) == {"soft", "hard"} and int(limits["soft"]) >= ENOUGH
