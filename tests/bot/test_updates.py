"""Presses are read without the pressed message's keyboard (bot/edges/updates.py)."""

import json

from telegram import Update

from bot.edges.updates import UpdatesRequest, lean
from bot.fake_telegram import FakeTelegram
from tests.e2e.harness import find, hand_message, play_out, running_bot, service
from tests.e2e.test_resilience import start_with_computers


def test_a_press_is_read_without_the_keyboard_of_its_message_and_nothing_else_changes():
    press = {
        "update_id": 7,
        "callback_query": {
            "id": "1",
            "from": {"id": 5, "is_bot": False, "first_name": "Ann"},
            "chat_instance": "c",
            "data": "T|1|1|a|x0",
            "message": {
                "message_id": 9,
                "date": 0,
                "chat": {"id": 5, "type": "private"},
                "text": "hand",
                "entities": [{"type": "bold", "offset": 0, "length": 4}],
                "reply_markup": {"inline_keyboard": [[{"text": "♠️A", "callback_data": "x"}]]},
            },
        },
    }
    other = {
        "update_id": 8,
        "message": {
            "message_id": 1,
            "date": 0,
            "text": "/start",
            "chat": {"id": 5, "type": "private"},
            "reply_markup": {"inline_keyboard": []},
        },
    }
    body = json.dumps({"ok": True, "result": [press, other]}).encode()
    data = UpdatesRequest(None, None).parse_json_payload(body)  # type: ignore[arg-type]
    pressed, message = data["result"]
    assert "reply_markup" not in pressed["callback_query"]["message"]
    assert "entities" not in pressed["callback_query"]["message"]
    assert pressed["callback_query"]["data"] == "T|1|1|a|x0"
    assert message == other  # only a press's message loses its keyboard
    update = Update.de_json(pressed, None)
    assert update.callback_query.message.text == "hand"
    assert update.callback_query.message.reply_markup is None
    assert lean({"update_id": 1}) == {"update_id": 1}


async def test_the_bot_plays_a_hand_from_lean_presses(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            seen = []
            real = app.process_update

            async def process_update(update):
                if update.callback_query is not None and update.callback_query.message:
                    seen.append(update.callback_query.message.reply_markup)
                return await real(update)

            app.process_update = process_update
            game_id = await start_with_computers(world, group, [alice])
            await play_out(
                world, app, game_id, {0: alice}, stop=lambda g: g.match.hand.phase == "done"
            )
            assert service(app).games[game_id].match.hand.phase == "done"
            assert seen and all(markup is None for markup in seen)
            assert find(hand_message(world, alice, game_id), "T") is None
