from tests.e2e.harness import find, play_out, running_bot, seat_players, service
from tests.fakes.telegram import FakeTelegram


async def test_a_short_match_with_computers_reaches_its_winner(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db", next_hand_delay_seconds=0.01) as app:
            await alice.send(group, "/startlevel A")
            await world.settle()
            game_id, lobby = await seat_players(world, group, [alice])
            for _ in range(3):
                lobby = world.last_message(group, from_bot=True)
                await alice.press(lobby, data=find(lobby, "C").data)
                await world.settle()
            lobby = world.last_message(group, from_bot=True)
            await alice.press(lobby, data=find(lobby, "S").data)
            await play_out(world, app, game_id, {0: alice})
            game = service(app).games[game_id]
            assert game.rec.status == "finished"
            assert game.match.winner is not None
            await world.settle()
            texts = "\n".join(world.texts(group))
            assert "wins the match" in texts or "赢得比赛" in texts
