"""Languages: the group's explicit setting wins; without one, each player's DMs and
button answers follow their own Telegram language and the group the creator's."""

from bot import codec
from bot.fake_telegram import FakeTelegram
from tests.e2e.harness import hand_message, running_bot, service
from tests.e2e.test_resilience import start_with_computers


async def test_each_player_reads_their_dms_in_their_language_until_the_group_chooses(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="zh-hans")
        bob = world.user("Bob", language_code="en")
        group = world.group("Table", members=[bob], admins=[alice])
        async with running_bot(world, tmp_path / "db", default_language="en") as app:
            game_id = await start_with_computers(world, group, [alice, bob])
            await world.settle()
            # the group follows the creator (Alice, zh); each DM its reader
            assert "第1局" in world.last_message(group, from_bot=True).text
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

            # an admin sets the group to English: everything follows the group
            await alice.send(group, "/settings")
            await world.settle()
            menu = world.last_message(group, from_bot=True)
            await alice.press(menu, text="English")
            await world.settle()
            game = service(app).games[game_id]
            assert game.rec.group_lang == "en"
            a_hand = hand_message(world, alice, game_id)
            assert "hand 1" in a_hand.text and "第1局" not in a_hand.text
            a_ans = world.core.callback(alice.user, a_hand, forged)
            await world.settle()
            assert a_ans.text == "This button is out of date."
            tables = [t for t in world.texts(group) if t.startswith("🀄")]
            assert "Hand 1" in tables[-1] and "第1局" not in tables[-1]
            # DM replies follow the group too
            await alice.open_link(
                f"https://t.me/ShengjiTestBot?start={codec.open_payload(game_id)}"
            )
            await world.settle()
            assert any("Welcome back" in t for t in world.texts(alice)[-2:])
