"""Each view is rendered only when what it shows may have changed (issue 26): a
selection (Hint) is the presser's alone, so the group's table is not rendered again for
it; a play renders it once, when the group's outbox delivers it (issue 34)."""

from bot.fake_telegram import FakeTelegram
from bot.views import group_table as render_table
from tests.e2e.harness import (
    find,
    hand_message,
    play_out,
    press,
    running_bot,
    seat_players,
    service,
    wait_for,
)


async def test_a_selection_renders_no_group_message_and_a_play_renders_them_once(
    tmp_path, monkeypatch
):
    async with FakeTelegram() as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        async with running_bot(world, tmp_path / "db") as app:
            game_id, lobby = await seat_players(world, group, people)
            lobby = world.last_message(group, from_bot=True)
            await people[0].press(lobby, data=find(lobby, "S").data)
            users = dict(enumerate(people))

            def playing(game) -> bool:  # noqa: ANN001
                hand = game.match.hand
                return hand.phase == "playing" and hand.turn is not None

            await play_out(world, app, game_id, users, stop=playing)
            renders: list[int] = []
            render = render_table.table_message

            def counted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
                renders.append(1)
                return render(*args, **kwargs)

            monkeypatch.setattr(render_table, "table_message", counted)
            game = service(app).games[game_id]
            user = users[game.match.hand.turn]
            await press(user, hand_message(world, user, game_id), "H")
            assert game.rec.seats[game.match.hand.turn].ui.selection  # the hint selected
            assert renders == []
            await press(user, hand_message(world, user, game_id), "P")
            await wait_for(world, lambda: renders)  # the group's turn came (its calm)
            await world.settle()
            assert len(renders) == 1
