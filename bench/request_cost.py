"""Client CPU per ``editMessageText`` with a ~2.5 KB keyboard, as the outbox edits a DM's
hand (``Bot.do_api_request``): python-telegram-bot's ``HTTPXRequest`` against the bot's
``bot.infra.request.AiohttpRequest`` (issue 34).

    .venv/bin/python bench/request_cost.py [--edits 2000] [--repeats 3] [--tls]

The fake Telegram (``bot.fake_telegram``'s HttpServer, a real aiohttp server on loopback)
runs in a process of its own; only this process's CPU (``time.process_time``) is counted,
over ``--edits`` edits made one after another after a warm-up, repeated ``--repeats``
times per client in turn; the median of the repeats is printed. ``--tls``: over TLS with
a throwaway self-signed certificate (``openssl``), which the client trusts.

Figures (2 cores shared with other sessions, load average 8-9; sniffio installed; 2,000
edits, a 2,652-byte keyboard; µs of client CPU an edit, median of 3 runs, runs in brackets):

    loopback HTTP:  HTTPXRequest 1,208 (1,254 1,208 1,177)   AiohttpRequest 410 (416 410 363)
                    x0.34
    loopback TLS:   HTTPXRequest 1,369 (1,369 1,375 1,210)   AiohttpRequest 453 (495 451 453)
                    x0.33
"""

from __future__ import annotations

import argparse
import asyncio
import json
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from telegram import Bot  # noqa: E402
from telegram.request import BaseRequest, HTTPXRequest  # noqa: E402

import bot.delivery.outbox  # noqa: E402, F401  (it silences PTB's warning on do_api_request edits)
from bot.infra.request import AiohttpRequest  # noqa: E402


def keyboard_json() -> str:
    """A DM hand's keyboard as the bot serialises it (``bot.views.messages.Keyboard.to_json``:
    ``json.dumps(..., sort_keys=True)``): 39 card buttons and a row of actions, ~2.5 KB."""
    ranks = "2 3 4 5 6 7 8 9 10 J Q K A".split()
    cards = [f"{s}{r}" for s in "♠♥♣" for r in ranks]
    rows = [
        [{"text": c, "callback_data": f"c:48151623:{i:02d}:{c}"} for i, c in enumerate(row)]
        for row in (cards[i : i + 6] for i in range(0, len(cards), 6))
    ]
    rows.append([{"text": t, "callback_data": f"a:4815:{t}"} for t in ("play", "hint", "clear")])
    return json.dumps({"inline_keyboard": rows}, sort_keys=True)


async def serve(tls_dir: str | None) -> None:
    """The fake Telegram on a free port; prints what the client needs, then serves until
    its stdin closes."""
    from bot.fake_telegram import FakeTelegram, HttpServer

    context = None
    if tls_dir is not None:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(f"{tls_dir}/cert.pem", f"{tls_dir}/key.pem")
    async with FakeTelegram(http=False) as world:
        person = world.user("Alice", started=True)
        server = HttpServer(world.core)
        await server.start(ssl_context=context)
        print(json.dumps({"url": server.base_url, "token": world.token, "chat": person.id}))
        sys.stdout.flush()
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        await server.stop()


async def cost(request: BaseRequest, url: str, token: str, chat: int, edits: int) -> float:
    """Client CPU seconds per edit."""
    markup = keyboard_json()
    async with Bot(token, base_url=url, request=request) as bot:
        sent = await bot.do_api_request("sendMessage", api_kwargs={"chat_id": chat, "text": "0"})
        params = {
            "chat_id": chat,
            "message_id": sent["message_id"],
            "parse_mode": "HTML",
            "reply_markup": markup,
            "link_preview_options": {"is_disabled": True},
        }
        for i in range(100):  # warm-up: connections open, caches filled
            await bot.do_api_request("editMessageText", api_kwargs=params | {"text": f"w{i}"})
        start = time.process_time()
        for i in range(edits):
            await bot.do_api_request(
                "editMessageText", api_kwargs=params | {"text": f"<b>hand</b> {i}"}
            )
        return (time.process_time() - start) / edits


def certificate(folder: str) -> None:
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", f"{folder}/key.pem", "-out", f"{folder}/cert.pem", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip


async def measure(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, __file__, "--serve"]
        ca_file = None
        if args.tls:
            certificate(folder)
            command += ["--tls-dir", folder]
            ca_file = f"{folder}/cert.pem"
        server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert server.stdout is not None and server.stdin is not None
        where = json.loads(server.stdout.readline())
        verify = {"verify": ssl.create_default_context(cafile=ca_file)} if ca_file else {}
        clients = {
            "HTTPXRequest": lambda: HTTPXRequest(256, httpx_kwargs=verify),
            "AiohttpRequest": lambda: AiohttpRequest(256, ca_file=ca_file),
        }
        figures: dict[str, list[float]] = {name: [] for name in clients}
        try:
            for _ in range(args.repeats):
                for name, make in clients.items():
                    seconds = await cost(
                        make(), where["url"], where["token"], where["chat"], args.edits
                    )
                    figures[name].append(seconds)
        finally:
            server.stdin.close()
            server.wait(10)
    print(
        f"{'TLS' if args.tls else 'HTTP'} over loopback, {args.edits} edits, a"
        f" {len(keyboard_json().encode())}-byte keyboard; client CPU an edit:"
    )
    medians = {name: statistics.median(v) for name, v in figures.items()}
    for name, runs in figures.items():
        each = ", ".join(f"{s * 1e6:,.0f}" for s in runs)
        print(f"  {name:15} median {medians[name] * 1e6:7,.0f} µs  (runs: {each})")
    ratio = medians["AiohttpRequest"] / medians["HTTPXRequest"]
    print(f"  AiohttpRequest / HTTPXRequest: x{ratio:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tls", action="store_true", help="over TLS (a throwaway certificate)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tls-dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(args.tls_dir))
    else:
        asyncio.run(measure(args))


if __name__ == "__main__":
    main()
