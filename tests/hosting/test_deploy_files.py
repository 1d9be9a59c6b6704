"""The Mini App hosted in one command (issue 28): deploy/compose.yaml's ``https`` profile
puts Caddy (deploy/Caddyfile) in front of the bot, HTTPS for the DOMAIN set in .env, and
the bot derives its webhook's and Mini App's addresses from that DOMAIN (bot/infra/config.py).

Docker cannot run here, so the files are read: the compose file and the Caddyfile are
parsed (a small reader of the YAML and Caddyfile they are written in), their routes are
checked against the addresses the bot derives, and a stand-in for Caddy that follows the
parsed Caddyfile carries Telegram's update and the Mini App's page to the real bot
(``python -m bot --telegram`` with nothing but BOT_TOKEN and DOMAIN)."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest
from aiohttp import web
from pydantic import ValidationError

from bot.fake_telegram import FakeTelegram
from bot.infra.config import Settings, derived_webhook_secret
from tests.hosting.test_deploy import dockerignore_excludes, env_of, instructions
from tests.hosting.test_faults import bot_env
from tests.hosting.test_webhook import free_port, wait_until

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
TOKEN = "123456:AAE-the-token"


# ------------------------------------------------------------------- the readers
def read_yaml(text: str) -> Any:
    """The YAML of deploy/compose.yaml: block mappings and sequences by indentation,
    plain, quoted and flow-list scalars, comments."""
    lines = []
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        lines.append((len(raw) - len(raw.lstrip(" ")), stripped))

    def scalar(value: str) -> Any:
        value = re.sub(r"\s+#.*$", "", value) if not value.startswith(('"', "'")) else value
        if value.startswith("["):
            return json.loads(value)
        if value[:1] in "\"'" and value[-1:] == value[:1]:
            return value[1:-1]
        return value

    def block(i: int, indent: int) -> tuple[Any, int]:
        if lines[i][1].startswith("- "):
            items = []
            while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
                items.append(scalar(lines[i][1][2:].strip()))
                i += 1
            return items, i
        mapping: dict[str, Any] = {}
        while i < len(lines) and lines[i][0] == indent:
            key, _, value = lines[i][1].partition(":")
            value = value.strip()
            i += 1
            if value:
                mapping[key] = scalar(value)
            elif i < len(lines) and lines[i][0] > indent:
                mapping[key], i = block(i, lines[i][0])
            else:
                mapping[key] = None
        return mapping, i

    parsed, end = block(0, 0)
    assert end == len(lines), f"not read: {lines[end]}"
    return parsed


@dataclass
class Directive:
    args: list[str]
    block: list[Directive] = field(default_factory=list)

    def find(self, name: str) -> list[Directive]:
        return [d for d in self.block if d.args[0] == name]


def read_caddyfile(text: str) -> Directive:
    """A Caddyfile as a tree of directives: each line's words (quotes kept together),
    a ``{`` ending a line opening the block of that line's directive."""
    root = Directive(["(root)"])
    stack = [root]
    for raw in text.splitlines():
        tokens = re.findall(r'"(?:[^"\\]|\\.)*"|[^\s"]+', raw)
        comment = next((i for i, w in enumerate(tokens) if w.startswith("#")), len(tokens))
        words = [w[1:-1] if w.startswith('"') else w for w in tokens[:comment]]
        if not words:
            continue
        if words == ["}"]:
            stack.pop()
            continue
        opens = words[-1] == "{"
        directive = Directive(words[:-1] if opens else words)
        stack[-1].block.append(directive)
        if opens:
            stack.append(directive)
    assert len(stack) == 1, "unbalanced braces"
    return root


COMPOSE = read_yaml((DEPLOY / "compose.yaml").read_text())
CADDYFILE = read_caddyfile((DEPLOY / "Caddyfile").read_text())
IMAGE_ENV = env_of(DEPLOY / "Dockerfile")


def site() -> Directive:
    [only] = CADDYFILE.block
    assert only.args == ["{$DOMAIN}"], only.args  # one site: the domain from .env
    return only


def route(path: str) -> Directive:
    """The ``handle`` block Caddy picks for ``path``: the first whose path matcher
    matches (exact, or a prefix ending in ``*``), else the one without a matcher."""
    handles = site().find("handle")
    for h in handles:
        if len(h.args) == 2:
            matcher = h.args[1]
            if path == matcher or (matcher.endswith("*") and path.startswith(matcher[:-1])):
                return h
    [fallback] = [h for h in handles if len(h.args) == 1]
    return fallback


def upstream(handle: Directive) -> str | None:
    proxies = handle.find("reverse_proxy")
    return proxies[0].args[1] if proxies else None


def derived() -> Settings:
    return Settings(_env_file=None, bot_token=TOKEN, domain="cards.example.org")  # type: ignore[call-arg]


# ------------------------------------------------------------------ the settings
def test_domain_alone_gives_the_webhook_and_the_mini_app_their_addresses():
    s = derived()
    assert s.webhook_url == "https://cards.example.org/telegram/webhook"
    assert s.webapp_url == "https://cards.example.org/app/"
    # a secret only the token's holder can compute, stable across restarts, in Telegram's
    # alphabet, which does not reveal the token
    assert s.webhook_secret == derived_webhook_secret(TOKEN) == derived().webhook_secret
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,256}", s.webhook_secret)
    assert "AAE" not in s.webhook_secret and s.webhook_secret != derived_webhook_secret("1:x")
    # what is set explicitly wins
    own = Settings(  # type: ignore[call-arg]
        _env_file=None,
        bot_token=TOKEN,
        domain="cards.example.org",
        webhook_url="https://hooks.example.org/x",
        webhook_secret="mine",
        webapp_url="https://cards.example.org/table/",
    )
    assert (own.webhook_url, own.webhook_secret, own.webapp_url) == (
        "https://hooks.example.org/x",
        "mine",
        "https://cards.example.org/table/",
    )
    # no domain: nothing derived (long polling, no Mini App), as before
    plain = Settings(_env_file=None, bot_token=TOKEN)  # type: ignore[call-arg]
    assert (plain.webhook_url, plain.webapp_url, plain.webhook_secret) == ("", "", "")


@pytest.mark.parametrize("wrong", ["https://cards.example.org", "cards.example.org/app", "cards"])
def test_a_domain_that_is_not_a_bare_host_name_is_a_configuration_error(wrong):
    with pytest.raises(ValidationError, match="DOMAIN is the bare host name"):
        Settings(_env_file=None, bot_token=TOKEN, domain=wrong)  # type: ignore[call-arg]


# ------------------------------------------------------------------- the Caddyfile
def test_caddy_routes_the_derived_addresses_to_the_bot_and_nothing_else():
    s = derived()
    webhook, app = urlsplit(s.webhook_url).path, urlsplit(s.webapp_url).path
    hook_port, app_port = IMAGE_ENV["WEBHOOK_PORT"], IMAGE_ENV["WEBAPP_PORT"]
    assert upstream(route(webhook)) == f"shengji-bot:{hook_port}"
    for path in (app, f"{app}api/view", f"{app}api/events", f"{app}static/app.js"):
        handle = route(path)
        assert upstream(handle) == f"shengji-bot:{app_port}", path
    # the live table's events are passed on at once
    [proxy] = route(app).find("reverse_proxy")
    assert ["flush_interval", "-1"] in [d.args for d in proxy.block]
    # Caddy lets an idle connection to the bot go before the bot closes it (a request
    # sent on a connection being closed would fail)
    [transport] = proxy.find("transport")
    [keepalive] = transport.find("keepalive")
    assert keepalive.args[0] == "keepalive" and keepalive.args[1].endswith("s")
    assert float(keepalive.args[1][:-1]) < Settings.model_fields["webapp_idle_seconds"].default
    # the health and metrics port, and any other path, stay private: 404
    for path in ("/", "/metrics", "/healthz", "/readyz", "/telegram", "/app", "/apps/"):
        handle = route(path)
        assert upstream(handle) is None and handle.find("respond")[0].args[1:] == ["404"], path
    # the bot listens where Caddy forwards, inside the container
    assert IMAGE_ENV["WEBHOOK_LISTEN"] == IMAGE_ENV["WEBAPP_LISTEN"] == "0.0.0.0"
    [expose] = [a for n, a in instructions(DEPLOY / "Dockerfile") if n == "EXPOSE"]
    assert {hook_port, app_port} <= set(expose.split())


def header_fields() -> dict[str, list[str]]:
    """The site's ``header`` directives: field (with its ``?``/``-`` prefix) → values.
    One field a directive: Caddy applies a block of ``?`` defaults only when all of its
    fields are missing (a Mini App answer with its own policy would then get none)."""
    fields = {}
    for d in site().find("header"):
        assert not d.block and len(d.args) in (2, 3), d.args
        fields[d.args[1]] = d.args[2:]
    return fields


def test_caddy_sets_the_security_headers_and_keeps_no_access_log():
    fields = header_fields()
    [hsts] = fields["Strict-Transport-Security"]
    assert int(re.search(r"max-age=(\d+)", hsts)[1]) >= 365 * 24 * 3600
    # defaults ("?"): the Mini App's own stricter policy wins where it sets one
    [csp] = fields["?Content-Security-Policy"]
    ancestors = re.search(r"frame-ancestors ([^;]+)", csp)[1].split()
    assert "https://web.telegram.org" in ancestors and "*" not in ancestors
    assert fields["?X-Content-Type-Options"] == ["nosniff"]
    assert fields["?Referrer-Policy"] == ["no-referrer"]
    assert "-Server" in fields

    # launch data travels in the event stream's address: no access log anywhere
    def directives(d: Directive):
        yield d
        for child in d.block:
            yield from directives(child)

    assert not [d for d in directives(CADDYFILE) if d.args[0] == "log"]


# ------------------------------------------------------------------- the compose file
def test_compose_runs_caddy_with_the_https_profile_on_80_and_443_with_its_certificates_kept():
    services = COMPOSE["services"]
    caddy, bot = services["caddy"], services["shengji-bot"]
    assert caddy["image"].startswith("caddy:2")
    assert caddy["profiles"] == ["https"]  # the bot alone runs without it, as before
    assert {"80:80", "443:443"} <= set(caddy["ports"])
    mounts = {v.split(":")[1]: v for v in caddy["volumes"]}
    source = mounts["/etc/caddy/Caddyfile"].split(":")[0]
    assert (DEPLOY / source).resolve() == DEPLOY / "Caddyfile"
    assert mounts["/etc/caddy/Caddyfile"].endswith(":ro")
    data = mounts["/data"].split(":")[0]  # certificates and the ACME account survive
    assert data in COMPOSE["volumes"]
    # Caddy is given the domain and nothing else: the bot's .env (its token) stays out
    assert caddy["environment"] == {"DOMAIN": "${DOMAIN:-}"}
    assert "env_file" not in caddy
    assert caddy["depends_on"] == ["shengji-bot"]
    assert caddy["restart"] == bot["restart"] == "unless-stopped"
    # Caddy forwards to the bot's service by its name on the compose network; the bot
    # publishes nothing itself
    hosts = {upstream(h).split(":")[0] for h in site().find("handle") if upstream(h)}
    assert hosts == {"shengji-bot"}
    assert "ports" not in bot
    assert bot["env_file"] == "../.env"
    assert bot["ulimits"]["nofile"]["soft"] == bot["ulimits"]["nofile"]["hard"]


def test_no_secret_or_data_enters_the_image_build_context():
    for path in (".env", "deploy/.env", "data/shengji.sqlite3", "games.db", "x/y.db",
                 "secrets/bot_token", "caddy-data/x"):  # fmt: skip
        assert dockerignore_excludes(path), path
    assert COMPOSE["services"]["shengji-bot"]["build"]["context"] == ".."


# ------------------------------------------------------- through the Caddyfile's routes
async def stand_in_for_caddy(ports: dict[str, int]) -> web.AppRunner:
    """An HTTP server doing what the parsed Caddyfile says for each path: forward it to
    the upstream of its route (``shengji-bot:<port>`` → 127.0.0.1:``ports[port]``), or
    answer what the route responds; the headers of the site's ``header`` block added."""
    fields = header_fields()

    async def handle(request: web.Request) -> web.StreamResponse:
        h = route(request.path)
        target = upstream(h)
        if target is None:
            answer = web.Response(status=int(h.find("respond")[0].args[1]))
        else:
            port = ports[target.split(":")[1]]
            url = f"http://127.0.0.1:{port}{request.path_qs}"
            body = await request.read()
            try:
                async with aiohttp.ClientSession() as http:
                    async with http.request(
                        request.method, url, data=body, headers=request.headers
                    ) as r:
                        answer = web.Response(status=r.status, body=await r.read())
                        for name in ("Content-Type", "Content-Security-Policy"):
                            if name in r.headers:
                                answer.headers[name] = r.headers[name]
            except aiohttp.ClientConnectionError:  # not listening (yet): as Caddy answers
                answer = web.Response(status=502)
        for name, values in fields.items():
            if name.startswith("?") and name[1:] not in answer.headers:
                answer.headers[name[1:]] = values[0]
            elif not name.startswith(("?", "-")):
                answer.headers[name] = values[0]
        return answer

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    return runner


async def test_with_only_the_token_and_the_domain_telegram_and_the_mini_app_reach_the_bot(
    tmp_path,
):
    hook_port, app_port = free_port(), free_port()
    async with FakeTelegram(settle_timeout=30) as world:
        env = bot_env(
            world,
            tmp_path / "db",
            DOMAIN="cards.example.org",
            # where the image listens, on this machine's free ports instead of 8443/8081
            WEBHOOK_LISTEN="127.0.0.1",
            WEBHOOK_PORT=str(hook_port),
            WEBAPP_LISTEN="127.0.0.1",
            WEBAPP_PORT=str(app_port),
        )
        ports = {IMAGE_ENV["WEBHOOK_PORT"]: hook_port, IMAGE_ENV["WEBAPP_PORT"]: app_port}
        caddy = await stand_in_for_caddy(ports)
        domain = f"http://127.0.0.1:{caddy.addresses[0][1]}"
        bot = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "--telegram", cwd=tmp_path, env=env,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        try:
            async with aiohttp.ClientSession() as http:

                async def registered():
                    assert bot.returncode is None, "the bot exited"
                    return world.core.webhook_url != ""

                await wait_until(registered, what="the webhook registered")
                assert world.core.webhook_url == "https://cards.example.org/telegram/webhook"
                alice = world.user("Alice", started=True)
                await alice.send("/help", settle=False)
                update = json.dumps(world.core.updates.pop())
                secret = derived_webhook_secret(world.token)
                post = dict(data=update, headers={"Content-Type": "application/json"})

                async def refused():  # without the secret; python-telegram-bot registers
                    # the webhook a moment before it listens (Telegram retries meanwhile)
                    async with http.post(f"{domain}/telegram/webhook", **post) as r:
                        assert r.status in (403, 502), r.status
                        return r.status == 403

                await wait_until(refused, what="the webhook's 403 without the secret")
                post["headers"]["X-Telegram-Bot-Api-Secret-Token"] = secret
                async with http.post(f"{domain}/telegram/webhook", **post) as r:
                    assert r.status == 200
                    assert r.headers["Strict-Transport-Security"].startswith("max-age=")

                async def answered():
                    return any(m.from_bot for m in world.transcript(alice))

                await wait_until(answered, what="the answer to /help")

                async def page():
                    async with http.get(f"{domain}/app/") as r:
                        return r.status == 200 and "<html" in (await r.text()).lower()

                await wait_until(page, what="the Mini App's page")
                async with http.get(f"{domain}/app/") as r:
                    csp = r.headers["Content-Security-Policy"]
                    assert "script-src" in csp  # the app's own policy, not Caddy's default
                    assert r.headers["X-Content-Type-Options"] == "nosniff"
                for private in ("/metrics", "/healthz", "/"):
                    async with http.get(f"{domain}{private}") as r:
                        assert r.status == 404, private
        finally:
            if bot.returncode is None:
                bot.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(bot.communicate(), 60)
            await caddy.cleanup()
    stderr = err.decode()
    assert bot.returncode == 0, stderr[-3000:]
    assert "webhook mode: https://cards.example.org/telegram/webhook" in stderr
    assert "Traceback" not in stderr and secret not in stderr and world.token not in stderr
