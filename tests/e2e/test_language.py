"""Languages: a group has one language (its setting; the first game's creator's until an
admin changes it): every message and answer in the group follows it. DMs follow their
reader."""

from bot.fake_telegram import FakeTelegram
from bot.views import codec
from tests.e2e.harness import hand_message, running_bot, service
from tests.e2e.test_resilience import start_with_computers


async def test_each_player_reads_their_dms_in_their_language_and_the_group_has_one(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="zh-hans")
        bob = world.user("Bob", language_code="en")
        group = world.group("Table", members=[bob], admins=[alice])
        async with running_bot(world, tmp_path / "db", default_language="en") as app:
            game_id = await start_with_computers(world, group, [alice, bob])
            await world.settle()
            # the group follows the creator (Alice, zh); each DM its reader
            assert "第1局" in world.last_message(group, from_bot=True).text
            assert (await app.bot_data.chats.settings(group.id)).lang == "zh"
            assert any("你已加入" in t for t in world.texts(alice))
            assert any("You joined" in t for t in world.texts(bob))
            a_hand = hand_message(world, alice, game_id)
            b_hand = hand_message(world, bob, game_id)
            assert "第1局" in a_hand.text and "hand 1" not in a_hand.text
            assert "hand 1" in b_hand.text and "第1局" not in b_hand.text
            # a stale press is answered in the presser's own language
            forged = codec.Press("P", game_id, 7, 0).encode()
            a_ans = world.core.callback(alice.user, a_hand, forged)
            b_ans = world.core.callback(bob.user, b_hand, forged)
            await world.settle()
            assert a_ans.text == "这个按钮已过期。"
            assert b_ans.text == "This button is out of date."

            # Bob (English) asks in the Chinese group: the group's language answers
            for command, chinese in (("/help", "怎么玩"), ("/newgame", "本群已经有一局")):
                await bob.send(group, command)
                await world.settle()
                reply = world.last_message(group, from_bot=True)
                assert chinese in reply.text, (command, reply.text)
            # ... while /help in his DM is English
            await bob.send(bob, "/help")
            await world.settle()
            assert "how to play" in world.last_message(bob, from_bot=True).text

            # an admin sets the group to English: the group follows, the DMs do not
            await alice.send(group, "/settings")
            await world.settle()
            menu = world.last_message(group, from_bot=True)
            await alice.press(menu, text="English")
            await world.settle()
            game = service(app).games[game_id]
            assert game.rec.lang == "en"
            tables = [t for t in world.texts(group) if t.startswith("🀄") and "/newgame" not in t]
            assert "Hand 1" in tables[-1] and "第1局" not in tables[-1]
            a_hand = hand_message(world, alice, game_id)
            assert "第1局" in a_hand.text and "hand 1" not in a_hand.text
            a_ans = world.core.callback(alice.user, a_hand, forged)
            await world.settle()
            assert a_ans.text == "这个按钮已过期。"
            await alice.send(group, "/help")
            await world.settle()
            assert "how to play" in world.last_message(group, from_bot=True).text


async def test_a_group_without_a_game_answers_in_the_asker_s_language_until_its_first_game(
    tmp_path,
):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en")
        bob = world.user("Bob", language_code="zh-hans")
        group = world.group("Table", members=[bob], admins=[alice])
        async with running_bot(world, tmp_path / "db", default_language="zh") as app:
            await bob.send(group, "/help")
            await world.settle()
            assert "怎么玩" in world.last_message(group, from_bot=True).text
            await alice.send(group, "/newgame")  # the first game: English from now on
            await world.settle()
            assert (await app.bot_data.chats.settings(group.id)).lang == "en"
            await bob.send(group, "/help")
            await world.settle()
            assert "how to play" in world.last_message(group, from_bot=True).text
