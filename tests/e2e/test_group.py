"""The group itself changes: upgraded to a supergroup, the bot removed and added back."""

from bot.fake_telegram import FakeTelegram
from bot.views import codec
from tests.e2e.harness import find, hand_message, play_out, running_bot, service
from tests.e2e.test_resilience import start_with_computers


async def test_a_group_upgraded_mid_hand_keeps_its_game_lobby_settings_and_plays_on(tmp_path):
    async with FakeTelegram() as world:
        alice, bob = world.user("Alice"), world.user("Bob")
        group = world.group("Table", members=[bob], admins=[alice])
        users = {0: alice, 1: bob}
        async with running_bot(world, tmp_path / "db") as app:
            await alice.send(group, "/settings")
            await world.settle()
            await alice.press(world.last_message(group, from_bot=True), text="English")
            game_id = await start_with_computers(world, group, [alice, bob])
            await play_out(
                world,
                app,
                game_id,
                users,
                stop=lambda g: g.match.hand.phase == "playing" and len(g.match.hand.tricks) >= 3,
            )
            svc = service(app)
            game = svc.games[game_id]
            sent_before = len([r for r in world.requests("sendMessage", chat=group) if r.ok])
            supergroup = world.migrate_group(group)
            await world.settle()
            assert game.rec.chat_id == supergroup.id
            assert (await svc.store.load_game(game_id)).chat_id == supergroup.id
            assert (await svc.store.chat_settings(supergroup.id)).lang == "en"
            # the table is posted in the supergroup; nothing more goes to the old id
            assert any(t.startswith("🀄 Hand 1") for t in world.texts(supergroup))
            await play_out(world, app, game_id, users, stop=lambda g: g.match.hand.phase == "done")
            await world.settle()
            assert (
                len([r for r in world.requests("sendMessage", chat=group) if r.ok]) == sent_before
            )
            result = world.last_message(supergroup, from_bot=True)
            assert "Hand 1 is over" in result.text
            # the game goes on in the supergroup, and it is still "the" game there
            await alice.press(result, data=find(result, "G").data)
            await world.settle()
            assert game.match.hand_number == 2
            await bob.send(supergroup, "/newgame")
            await world.settle()
            assert "already" in world.last_message(supergroup, from_bot=True).text


async def test_removing_the_bot_cancels_a_lobby_and_pauses_a_game_until_it_is_back(tmp_path):
    async with FakeTelegram() as world:
        alice, bob = world.user("Alice"), world.user("Bob")
        lobby_group = world.group("Lobby", admins=[alice])
        group = world.group("Table", members=[bob], admins=[alice])
        users = {0: alice, 1: bob}
        async with running_bot(world, tmp_path / "db") as app:
            svc = service(app)
            # an open lobby is cancelled when the bot goes
            await alice.send(lobby_group, "/newgame")
            await world.settle()
            lobby_id = next(iter(svc.games))
            world.kick_bot(lobby_group)
            await world.settle()
            assert (await svc.store.load_game(lobby_id)).status == "cancelled"
            assert lobby_id not in svc.games  # a cancelled lobby leaves memory

            # a running game is paused, not lost
            game_id = await start_with_computers(world, group, [alice, bob])
            await play_out(
                world,
                app,
                game_id,
                users,
                stop=lambda g: g.match.hand.phase == "playing" and len(g.match.hand.tricks) >= 2,
            )
            game = svc.games[game_id]
            world.kick_bot(group)
            await world.settle()
            assert game.rec.paused and game.rec.group_gone
            state = game.match.model_dump_json()
            assert (await svc.store.load_game(game_id)).group_gone
            msg = hand_message(world, alice, game_id)
            hand = game.match.hand
            data = codec.Press("H", game_id, hand.hand_number, hand.version).encode()
            answer = world.core.callback(alice.user, msg, data)
            await world.settle()
            assert answer.show_alert and "not in the group" in answer.text
            assert "removed from" in hand_message(world, alice, game_id).text
            await world.settle()
            assert game.match.model_dump_json() == state  # nothing moved

            # back in the group: the table is posted again and the game goes on
            before = len(world.transcript(group))
            world.add_bot(group)
            await world.settle()
            assert not game.rec.paused and not game.rec.group_gone
            fresh = [m.text for m in world.transcript(group)[before:] if m.from_bot]
            assert any(t.startswith("🀄 Hand 1") and "Trick" in t for t in fresh)
            assert "removed from" not in hand_message(world, alice, game_id).text
            await play_out(world, app, game_id, users, stop=lambda g: g.match.hand.phase == "done")
            await world.settle()
            assert "Hand 1 is over" in world.last_message(group, from_bot=True).text
