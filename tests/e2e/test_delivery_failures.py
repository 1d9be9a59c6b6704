"""A failure at any step of delivering a chat's message (before the request reaches
Telegram, after Telegram posted it but before the bot could read the answer, in saving
the message id) is logged once, the chat's output goes on, and no message is posted
twice (bot/delivery/outbox.py, "Failures")."""

import json
import logging

import pytest

from bot.fake_telegram import FakeRequest, FakeTelegram
from tests.e2e.harness import buttons, running_bot


def lobby_messages(world, group):
    return [m for m in world.transcript(group) if m.from_bot and any(b.url for b in buttons(m))]


def delivery_logs(caplog, chat_id):
    return [
        r
        for r in caplog.records
        if r.name == "bot.delivery.outbox"
        and r.levelno >= logging.WARNING
        and str(chat_id) in r.getMessage()
    ]


def fail_once(monkeypatch, api_method: str, chat_id: int, step: str) -> list[str]:
    """The next ``api_method`` call to ``chat_id`` fails at ``step``: "request" (it never
    reaches Telegram) or "answer" (Telegram carries it out; the bot gets an answer it
    cannot read)."""
    real = FakeRequest.do_request
    armed = [step]

    async def do_request(self, url, method, request_data=None, **kwargs):
        hit = (
            armed
            and url.endswith("/" + api_method)
            and request_data is not None
            and request_data.parameters.get("chat_id") == chat_id
        )
        if hit and armed.pop() == "request":
            raise ConnectionResetError("the connection dropped before the request was sent")
        status, body = await real(self, url, method, request_data, **kwargs)
        if hit:
            result = json.loads(body)["result"]
            return status, json.dumps({"ok": True, "result": {"id": result["message_id"]}}).encode()
        return status, body

    monkeypatch.setattr(FakeRequest, "do_request", do_request)
    return armed


async def test_a_lobby_whose_message_id_could_not_be_saved_is_edited_not_posted_again(
    tmp_path, caplog
):
    """The lobby is posted, saving its message id fails once (the database is locked):
    the players still see one lobby, updated as they join, also after a restart."""
    async with FakeTelegram(auto_settle=True) as world:
        alice, bob, cai = world.user("Alice"), world.user("Bob"), world.user("Cai")
        group = world.group("Table", members=[bob, cai], admins=[alice])
        db = tmp_path / "db"
        async with running_bot(world, db) as app:
            outboxes = app.bot_data.outboxes
            save = outboxes.on_shown
            failed = []

            async def save_shown(chat_id, key, message_id, digest):
                if not failed and key.endswith(":lobby"):
                    failed.append(key)
                    raise OSError("database is locked")
                await save(chat_id, key, message_id, digest)

            outboxes.on_shown = save_shown
            await alice.send(group, "/newgame")
            assert failed and len(lobby_messages(world, group)) == 1
            [log] = delivery_logs(caplog, group.id)
            assert log.levelno == logging.ERROR and failed[0] in log.getMessage()
            lobby = lobby_messages(world, group)[0]
            link = next(b for b in buttons(lobby) if b.url and b.url.endswith("_1"))
            await bob.press(lobby, text=link.text)
            [lobby] = lobby_messages(world, group)
            assert "Bob" in lobby.text
        async with running_bot(world, db):
            link = next(b for b in buttons(lobby) if b.url and b.url.endswith("_2"))
            await cai.press(lobby, text=link.text)
            [lobby] = lobby_messages(world, group)
            assert "Bob" in lobby.text and "Cai" in lobby.text
        assert len(world.requests("sendMessage", chat=group)) == 1
        assert len(delivery_logs(caplog, group.id)) == 1


async def test_a_lobby_whose_answer_was_lost_is_not_posted_a_second_time(
    tmp_path, caplog, monkeypatch
):
    """Telegram posts the lobby but the bot cannot read the answer (no message id): that
    state is never posted again; the next one comes as a new message (there is no id to
    edit), and from then on the lobby is edited."""
    async with FakeTelegram(auto_settle=True) as world:
        alice, bob, cai = world.user("Alice"), world.user("Bob"), world.user("Cai")
        group = world.group("Table", members=[bob, cai], admins=[alice])
        async with running_bot(world, tmp_path / "db"):
            armed = fail_once(monkeypatch, "sendMessage", group.id, "answer")
            await alice.send(group, "/newgame")
            assert not armed
            [first] = lobby_messages(world, group)
            [log] = delivery_logs(caplog, group.id)
            assert log.levelno == logging.ERROR and ":lobby" in log.getMessage()
            for who, seat in ((bob, 1), (cai, 2)):
                lobby = lobby_messages(world, group)[-1]
                link = next(b for b in buttons(lobby) if b.url and b.url.endswith(f"_{seat}"))
                await who.press(lobby, text=link.text)
            first_again, live = lobby_messages(world, group)
            assert first_again.text == first.text and "Bob" not in first.text
            assert "Bob" in live.text and "Cai" in live.text
            texts = [r.params["text"] for r in world.requests("sendMessage", chat=group)]
            assert len(texts) == len(set(texts)) == 2
            assert len(delivery_logs(caplog, group.id)) == 1


@pytest.mark.parametrize("step", ["request", "answer"])
async def test_a_failed_lobby_edit_is_given_up_and_the_next_one_shows_everyone(
    tmp_path, caplog, monkeypatch, step
):
    """An edit whose answer cannot be read is not retried, and logged with its chat; one
    that never reached Telegram (the connection dropped: Telegram unreachable) is an
    outage, logged once (bot.infra.reach), and the edit is tried again a second later (an
    edit is safe to repeat). Either way the lobby keeps going: the next player to join
    sees every seated name."""
    async with FakeTelegram(auto_settle=True) as world:
        alice, bob, cai = world.user("Alice"), world.user("Bob"), world.user("Cai")
        group = world.group("Table", members=[bob, cai], admins=[alice])
        async with running_bot(world, tmp_path / "db"):
            await alice.send(group, "/newgame")
            [lobby] = lobby_messages(world, group)
            armed = fail_once(monkeypatch, "editMessageText", group.id, step)
            link = next(b for b in buttons(lobby) if b.url and b.url.endswith("_1"))
            await bob.press(lobby, text=link.text)
            assert not armed
            logged = 1 if step == "answer" else 0
            assert len(delivery_logs(caplog, group.id)) == logged
            outage = [r.getMessage() for r in caplog.records if r.name == "bot.infra.reach"]
            if step == "request":  # the outage began and ended, in two lines
                assert len(outage) == 2 and "Telegram unreachable" in outage[0]
                assert "reachable again" in outage[1]
            # delivered once: read but not understood, or tried again
            assert len(world.requests("editMessageText", chat=group)) == 1
            assert "Bob" in lobby_messages(world, group)[0].text
            link = next(b for b in buttons(lobby) if b.url and b.url.endswith("_2"))
            await cai.press(lobby, text=link.text)
            [lobby] = lobby_messages(world, group)
            assert "Bob" in lobby.text and "Cai" in lobby.text
            assert len(world.requests("sendMessage", chat=group)) == 1
            assert len(delivery_logs(caplog, group.id)) == logged
