"""Presses are read without the pressed message's keyboard (bot/edges/updates.py)."""

import copy
import json

import pytest
from telegram import Update

from bot.edges.presses import CallbackPress, PressBot
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
                seen.append(update)
                return await real(update)

            app.process_update = process_update
            game_id = await start_with_computers(world, group, [alice])
            await play_out(
                world, app, game_id, {0: alice}, stop=lambda g: g.match.hand.phase == "done"
            )
            assert service(app).games[game_id].match.hand.phase == "done"
            # every press came lean (no PTB Update was built for one), without its keyboard
            presses = [u for u in seen if isinstance(u, CallbackPress)]
            assert len(presses) > 10
            assert not any(isinstance(u, Update) and u.callback_query for u in seen)
            assert all(isinstance(p.source, dict) for p in presses)
            assert all("reply_markup" not in p.source["callback_query"]["message"] for p in presses)
            assert {p.user_id for p in presses} == {alice.id}
            assert find(hand_message(world, alice, game_id), "T") is None


PRESS = {
    "update_id": 7,
    "callback_query": {
        "id": "41",
        "from": {"id": 5, "is_bot": False, "first_name": "Ann", "language_code": "zh-hans"},
        "chat_instance": "c",
        "data": "T|1|1|a|x0",
        "message": {"message_id": 9, "date": 0, "chat": {"id": 5, "type": "private"}},
    },
}


def test_a_lean_press_reads_what_ptbs_update_says():
    press = CallbackPress.of_json(copy.deepcopy(PRESS))
    assert press is not None
    ptb = CallbackPress.of_update(Update.de_json(copy.deepcopy(PRESS), None))
    fields = ("update_id", "query_id", "user_id", "language_code", "data")
    fields += ("chat_id", "chat_type", "message_id")
    assert [getattr(press, f) for f in fields] == [getattr(ptb, f) for f in fields]
    assert [getattr(press, f) for f in fields] == [
        7,
        "41",
        5,
        "zh-hans",
        "T|1|1|a|x0",
        5,
        "private",
        9,
    ]
    assert press.private and ptb.private
    # PTB's objects when a rare path wants them: built once, from the same JSON
    update = press.update(None)
    assert update.callback_query.from_user.first_name == "Ann"
    assert press.update(None) is update
    # a press on an inline message has no chat
    inline = copy.deepcopy(PRESS)
    del inline["callback_query"]["message"]
    inline["callback_query"]["inline_message_id"] = "im"
    lean_inline = CallbackPress.of_json(inline)
    assert lean_inline is not None and lean_inline.chat_id is None and not lean_inline.private


@pytest.mark.parametrize(
    "change",
    [
        lambda u: u.update({"message": {"message_id": 1}}),  # more than a press
        lambda u: u["callback_query"].pop("from"),
        lambda u: u["callback_query"].pop("id"),
        lambda u: u["callback_query"].update({"id": 41}),
        lambda u: u["callback_query"]["from"].update({"id": "5"}),
        lambda u: u["callback_query"]["from"].update({"language_code": 3}),
        lambda u: u["callback_query"].update({"data": ["x"]}),
        lambda u: u["callback_query"]["message"].pop("chat"),
        lambda u: u["callback_query"]["message"]["chat"].update({"id": True}),
        lambda u: u["callback_query"].update({"message": "nine"}),
        lambda u: u.update({"update_id": None}),
    ],
)
def test_what_is_not_only_a_well_formed_press_is_left_to_ptb(change):
    raw = copy.deepcopy(PRESS)
    change(raw)
    assert CallbackPress.of_json(raw) is None


async def test_polling_reads_presses_lean_and_everything_else_as_ptb_does():
    message = {
        "update_id": 8,
        "message": {
            "message_id": 1,
            "date": 0,
            "text": "/start",
            "chat": {"id": 5, "type": "private"},
        },
    }
    odd = copy.deepcopy(PRESS)
    odd["update_id"] = 9
    odd["callback_query"]["from"]["id"] = "five"  # PTB's to judge
    async with FakeTelegram() as world:
        bot = PressBot(world.token, request=world.request(), get_updates_request=world.request())
        world.core.updates.extend([copy.deepcopy(PRESS), message, odd])
        await bot.initialize()
        try:
            got = await bot.get_updates(timeout=0)
        finally:
            await bot.shutdown()
    assert [type(u) for u in got] == [CallbackPress, Update, Update]
    assert [u.update_id for u in got] == [7, 8, 9]
    assert got[1].message.text == "/start"
