"""One live hand message per DM: when a player's hand is sent anew (back through the
table's link, a seat taken in the game again), the older hand message goes, keyboard
and all, within the DM's budget; a tap on an older one is told so and changes nothing."""

from bot.fake_telegram import FakeTelegram
from bot.views import codec
from tests.e2e.harness import buttons, hand_message, play_out, press_of, running_bot, service
from tests.e2e.test_resilience import start_with_computers


def keyboards(world, user, game_id):
    """The bot's messages in ``user``'s DM that carry this game's hand buttons."""
    return [
        m
        for m in world.transcript(user)
        if m.from_bot and any((p := press_of(b)) and p.game == game_id for b in buttons(m))
    ]


async def test_back_in_the_dm_the_old_hand_message_goes_and_a_tap_on_it_changes_nothing(
    tmp_path,
):
    async with FakeTelegram() as world:
        alice, bob = world.user("Alice"), world.user("Bob")
        group = world.group("Table", members=[bob], admins=[alice])
        # the DM paced as in production: 1 call a second, a burst of 3
        async with running_bot(world, tmp_path / "db", dm_interval_seconds=1.0) as app:
            game_id = await start_with_computers(world, group, [alice, bob])
            await play_out(
                world,
                app,
                game_id,
                {0: alice, 1: bob},
                stop=lambda g: g.match.hand.phase == "playing",
            )
            game = service(app).games[game_id]
            old = hand_message(world, alice, game_id)
            assert len(keyboards(world, alice, game_id)) == 1
            deletes = len(world.requests("deleteMessage"))
            since = world.core.clock.now()
            link = f"https://t.me/ShengjiTestBot?start={codec.open_payload(game_id)}"
            for _ in range(2):  # "Welcome back", twice
                await alice.open_link(link)
                await world.settle()
                assert any("Welcome back" in x for x in world.texts(alice)[-2:])
                live = keyboards(world, alice, game_id)
                assert len(live) == 1 and live[0].message_id != old.message_id
            assert len(world.requests("deleteMessage")) == deletes + 2
            # within the DM's budget: a burst of 3, then 1 a second
            times = [r.time for r in world.requests(chat=world.chat_of(alice)) if r.time >= since]
            assert times and all(sum(t <= u < t + 1.0 for u in times) <= 3 for t in times), times

            # a tap on the old message (still on a phone that did not refresh): refused
            before = game.match.model_dump_json(), list(game.rec.seats[0].ui.selection)
            card = next(b for b in buttons(old) if b.data and b.data.startswith("T"))
            press = codec.decode(card.data)
            fresh = codec.Press(
                press.kind, game_id, game.match.hand.hand_number, game.match.hand.version, press.arg
            ).encode()
            answer = world.core.callback(alice.user, old, fresh)
            await world.settle()
            assert "old" in answer.text and answer.show_alert
            assert (game.match.model_dump_json(), game.rec.seats[0].ui.selection) == before[:1] + (
                before[1],
            )
            # the same tap on the live message is taken
            new = hand_message(world, alice, game_id)
            answer = world.core.callback(alice.user, new, fresh)
            await world.settle()
            assert "old" not in (answer.text or "")
            assert game.rec.seats[0].ui.selection != before[1]
