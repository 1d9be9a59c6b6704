"""What arrives over HTTP: form bodies with JSON-string values, JSON bodies, multipart."""

import json
from collections.abc import AsyncIterator

import aiohttp
import pytest

from bot.fake_telegram import FakeTelegram


@pytest.fixture
async def http(fake_telegram: FakeTelegram) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


def url(world: FakeTelegram, method: str, token: str | None = None) -> str:
    return f"{world.base_url}{token or world.token}/{method}"


async def test_form_body_with_json_encoded_values(
    fake_telegram: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    alice = fake_telegram.user("Alice", started=True)
    markup = {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}
    form = {"chat_id": str(alice.id), "text": "<i>x</i>", "parse_mode": "HTML",
            "reply_markup": json.dumps(markup)}  # fmt: skip
    async with http.post(url(fake_telegram, "sendMessage"), data=form) as response:
        body = await response.json()
    assert response.status == 200 and body["ok"] is True
    assert body["result"]["reply_markup"] == markup
    assert body["result"]["entities"] == [{"type": "italic", "offset": 0, "length": 1}]


async def test_json_body_and_case_insensitive_method(
    fake_telegram: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    alice = fake_telegram.user("Alice", started=True)
    payload = {"chat_id": alice.id, "text": "hi", "reply_parameters": {"message_id": 5,
               "allow_sending_without_reply": True}}  # fmt: skip
    async with http.post(url(fake_telegram, "sendmessage"), json=payload) as response:
        body = await response.json()
    assert body["result"]["text"] == "hi"


async def test_multipart_upload(fake_telegram: FakeTelegram, http: aiohttp.ClientSession) -> None:
    alice = fake_telegram.user("Alice", started=True)
    form = aiohttp.FormData()
    form.add_field("chat_id", str(alice.id))
    form.add_field("photo", b"PNGDATA", filename="hand.png", content_type="image/png")
    async with http.post(url(fake_telegram, "sendPhoto"), data=form) as response:
        body = await response.json()
    file_id = body["result"]["photo"][0]["file_id"]
    assert fake_telegram.core.files[file_id] == b"PNGDATA"


@pytest.mark.parametrize(
    ("method", "token", "status", "description"),
    [
        ("sendTelepathy", None, 404, "Not Found"),
        ("getMe", "1:wrong", 401, "Unauthorized"),
        ("sendMessage", None, 400, "Bad Request: chat_id is empty"),
    ],
)
async def test_error_shape(
    fake_telegram: FakeTelegram,
    http: aiohttp.ClientSession,
    method: str,
    token: str | None,
    status: int,
    description: str,
) -> None:
    async with http.post(url(fake_telegram, method, token)) as response:
        body = await response.json()
    assert response.status == status
    assert body == {"ok": False, "error_code": status, "description": description}


async def test_migrate_and_retry_parameters_on_the_wire(
    fake_telegram: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    group = fake_telegram.group("G")
    new = fake_telegram.migrate_group(group)
    async with http.post(url(fake_telegram, "sendMessage"),
                         data={"chat_id": str(group.id), "text": "x"}) as response:  # fmt: skip
        body = await response.json()
    assert body == {
        "ok": False,
        "error_code": 400,
        "description": "Bad Request: group chat was upgraded to a supergroup chat",
        "parameters": {"migrate_to_chat_id": new.id},
    }


async def test_get_updates_long_poll_offset_limit_and_webhook_conflict(
    fake_telegram: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    world = fake_telegram
    alice = world.user("Alice", started=True)
    for text in ("/a", "/b", "/c"):
        await alice.send(text)
    async with http.post(url(world, "getUpdates"), data={"limit": "2"}) as response:
        first = (await response.json())["result"]
    assert [u["message"]["text"] for u in first] == ["/a", "/b"]
    offset = first[-1]["update_id"] + 1
    async with http.post(url(world, "getUpdates"), data={"offset": str(offset)}) as response:
        rest = (await response.json())["result"]
    assert [u["message"]["text"] for u in rest] == ["/c"]
    # An empty long poll waits for its timeout, then answers [].
    body = {"offset": str(offset + 1), "timeout": "1"}
    async with http.post(url(world, "getUpdates"), data=body) as response:
        assert (await response.json())["result"] == []
    # allowed_updates filters what Telegram stores from now on.
    body = {"offset": str(offset + 1), "allowed_updates": json.dumps(["callback_query"])}
    async with http.post(url(world, "getUpdates"), data=body) as response:
        await response.json()
    await alice.send("/d")
    assert world.core.updates == []
    await http.post(url(world, "setWebhook"), data={"url": "https://example.com/hook"})
    async with http.post(url(world, "getUpdates")) as response:
        assert response.status == 409
