from bot.fake_telegram import FakeTelegram
from tests.e2e.harness import find, game_of, play_out, running_bot, seat_players


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
            game = await game_of(app, game_id)
            assert game.rec.status == "finished"
            assert game.match.winner is not None
            await world.settle()
            texts = "\n".join(world.texts(group))
            assert "wins the match" in texts or "赢得比赛" in texts


async def test_four_people_play_a_short_match_to_its_winner(tmp_path):
    """Teams start at A (must be defended), so the first successful defence wins the match."""
    async with FakeTelegram() as world:
        people = [
            world.user("Alice", started=True),
            world.user("Bob", started=True),
            world.user("陈", language_code="zh-hans", started=True),
            world.user("Dana"),  # never started the bot: joins through the deep link
        ]
        group = world.group("Table", members=people[1:], admins=people[:1])
        async with running_bot(world, tmp_path / "db", next_hand_delay_seconds=0.01) as app:
            await people[0].send(group, "/startlevel A")
            await world.settle()
            game_id, _ = await seat_players(world, group, people)
            lobby = world.last_message(group, from_bot=True)
            await people[0].press(lobby, data=find(lobby, "S").data)
            await world.settle()
            await play_out(world, app, game_id, dict(enumerate(people)), group=group)
            game = await game_of(app, game_id)
            assert game.rec.status == "finished"
            match = game.match
            last = match.results[-1]
            assert match.winner == last.defenders and last.attackers_points < 80
            assert all(r.levels_before[r.defenders] == 12 for r in match.results)  # A every hand
            await world.settle()
            texts = "\n".join(world.texts(group))
            assert "wins the match" in texts
            # nothing is left to press on the finished game's messages
            assert find(world.last_message(group, from_bot=True), "G") is None
