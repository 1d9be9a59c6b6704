"""Tournament time limit (RULES.md 11): checked when a hand ends, against the match's
start saved in the game record, on the bot's clock; the result is announced by levels."""

from bot.fake_telegram import FakeTelegram
from tests.e2e.harness import FakeTime, find, play_out, running_bot, service
from tests.e2e.test_resilience import start_with_computers


async def test_a_tournament_match_past_its_time_limit_ends_on_levels_when_the_hand_ends(
    tmp_path,
):
    async with FakeTelegram() as world:
        alice = world.user("Alice")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db", clock=FakeTime(world)) as app:
            await alice.send(group, "/settings")
            await world.settle()
            await alice.press(world.last_message(group, from_bot=True), text="tournament")
            await world.settle()
            game_id = await start_with_computers(world, group, [alice])
            game = service(app).games[game_id]
            assert game.match.rules.time_limit_min == 60
            saved = await service(app).store.load_game(game_id)
            assert saved.started_at == game.rec.started_at
            assert abs(game.rec.started_at - world.clock.now()) < 60
            await play_out(
                world,
                app,
                game_id,
                {0: alice},
                stop=lambda g: g.match.hand.phase == "playing" and len(g.match.hand.tricks) >= 2,
            )
            assert game.rec.status == "running"  # mid-hand nothing happens
            world.clock.advance(61 * 60)
            await play_out(world, app, game_id, {0: alice}, group=group)
            await world.settle()
            match = game.match
            assert game.rec.status == "finished" and match.ended_by_time
            assert match.hand_number == 1
            a, b = match.levels
            if a != b:
                assert match.winner == (0 if a > b else 1)
            # the result (the level chart follows it)
            result = next(m for m in reversed(world.transcript(group)) if m.from_bot and m.text)
            assert "60-minute time limit" in result.text and "wins the match" in result.text
            assert find(result, "G") is None  # no next hand
