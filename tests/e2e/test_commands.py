"""Timers (托管, lobby expiry) and the /rules, /settings commands."""

import asyncio

from bot.fake_telegram import FakeTelegram
from bot.infra.version import __version__
from tests.e2e.harness import find, hand_message, running_bot, service, wait_for
from tests.e2e.test_resilience import start_with_computers


async def test_a_silent_player_is_played_for_until_they_come_back(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice")
        group = world.group("Table", admins=[alice])
        async with running_bot(
            world, tmp_path / "db", turn_timeout_seconds=0.2, overturn_window_seconds=0.1
        ) as app:
            game_id = await start_with_computers(world, group, [alice])
            game = service(app).games[game_id]
            await wait_for(
                world, lambda: "Auto-play" in hand_message(world, alice, game_id).text, timeout=20
            )
            assert game.rec.seats[0].auto
            await world.settle()
            msg = hand_message(world, alice, game_id)
            await alice.press(msg, data=find(msg, "A").data)
            await world.settle()
            assert not game.rec.seats[0].auto


async def test_an_abandoned_lobby_expires_by_itself(tmp_path):
    async with FakeTelegram(auto_settle=True) as world:
        alice = world.user("Alice")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db", lobby_expiry_minutes=0.002):
            await alice.send(group, "/newgame")
            await asyncio.sleep(0.3)
            await world.settle()
            lobby = world.last_message(group, from_bot=True)
            assert "expired" in lobby.text and not lobby.buttons()
            await alice.send(group, "/newgame")  # the chat is free again: a new lobby
            again = world.last_message(group, from_bot=True)
            assert again.message_id != lobby.message_id
            # it may have expired too by now on a loaded machine (it lives 0.12 s)
            assert find(again, "S") is not None or "expired" in again.text, again.text


async def test_rules_and_settings_follow_the_groups_language_and_preset(tmp_path):
    async with FakeTelegram(auto_settle=True) as world:
        alice = world.user("Alice", language_code="en")
        bob = world.user("Bob", language_code="en")
        group = world.group("Table", members=[bob], admins=[alice])
        async with running_bot(world, tmp_path / "db", default_language="zh"):
            await alice.send(group, "/rules levels")
            assert "Levels" in world.last_message(group, from_bot=True).text
            await alice.send(group, "/settings")
            menu = world.last_message(group, from_bot=True)
            answer = await bob.press(menu, text="中文")
            assert answer.show_alert  # only admins
            await alice.press(menu, text="中文")
            menu = world.last_message(group, from_bot=True)
            await alice.press(menu, text="竞赛")
            await bob.send(group, "/rules levels")
            text = world.last_message(group, from_bot=True).text
            assert "竞赛" in text and "10" in text  # tournament: target 10, in Chinese
            await alice.send(group, "/rules nonsense")
            assert "cards" in world.last_message(group, from_bot=True).text


async def test_help_start_and_rules_in_a_dm_and_a_pointer_for_anything_else(tmp_path):
    async with FakeTelegram(auto_settle=True) as world:
        ann = world.user("Ann", language_code="en")
        li = world.user("Li", language_code="zh-hans")
        async with running_bot(world, tmp_path / "db", default_language="zh"):
            await ann.start_bot()
            welcome = world.last_message(ann, from_bot=True).text
            assert "how to play" in welcome and "/newgame" in welcome
            await ann.send("/help")  # the same, and which version answers
            version = f"shengji-bot {__version__}, free software (MIT licence)"
            assert world.last_message(ann, from_bot=True).text == f"{welcome}\n\n{version}"
            await ann.send("hello?")
            pointer = world.last_message(ann, from_bot=True).text
            assert "/help" in pointer and "buttons" in pointer
            await ann.send("/nonsense")
            assert world.last_message(ann, from_bot=True).text == pointer
            await ann.send("/rules")
            assert "Shengji rules" in world.last_message(ann, from_bot=True).text
            await ann.send("/rules throws")
            assert "Throws" in world.last_message(ann, from_bot=True).text
            # RULES 7 (反主反打): in hand 1 the overturner, not the first declarer, is dealer
            await ann.send("/rules declaring")
            declaring = world.last_message(ann, from_bot=True).text
            assert "then the overturner is dealer" in declaring, declaring
            assert "In the first hand the overturner becomes dealer" in declaring, declaring
            await li.start_bot()
            assert "怎么玩" in world.last_message(li, from_bot=True).text
            await li.send("/rules 反主")
            assert "反主的人坐庄（反主反打）" in world.last_message(li, from_bot=True).text
            await li.send("/help")
            assert (
                f"shengji-bot {__version__}，自由软件" in world.last_message(li, from_bot=True).text
            )
            await li.send("你好")
            assert "/help" in world.last_message(li, from_bot=True).text
