"""What the group sees of a hand: each trick's message is self-consistent, the kitty
shown when nobody declared, and no stale "Next hand" button once the next hand runs."""

import re

from bot.fake_telegram import FakeTelegram
from bot.render.cards import cards_label
from tests.e2e.harness import find, play_out, running_bot, seat_players, service
from tests.e2e.test_resilience import start_with_computers

COUNT = re.compile(r"^[▶ ]*(\d)\. .* · (\d+)$", re.M)


def counts_in(text):
    return {int(seat) - 1: int(n) for seat, n in COUNT.findall(text)}


async def test_each_trick_message_shows_the_counts_of_its_own_moment_and_old_buttons_go(
    tmp_path,
):
    async with FakeTelegram() as world:
        alice = world.user("Alice")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            game_id = await start_with_computers(world, group, [alice])
            users = {0: alice}
            await play_out(world, app, game_id, users, stop=lambda g: g.match.hand.phase == "done")
            await world.settle()
            game = service(app).games[game_id]
            hand = game.match.hand
            tables = [m.text for m in world.transcript(group) if m.text.startswith("🀄 Hand 1")]
            # the table before the first lead shows 25 cards each, whatever came later
            assert counts_in(tables[0]) == {0: 25, 1: 25, 2: 25, 3: 25}
            played = [0, 0, 0, 0]
            tricks = [t for t in tables if "Trick" in t]
            assert len(tricks) == len(hand.tricks)
            for n, (text, trick) in enumerate(zip(tricks, hand.tricks, strict=True), start=1):
                assert f"Trick {n}" in text
                for play in trick.plays:
                    played[play.seat] += len(play.cards)
                assert counts_in(text) == {s: 25 - played[s] for s in range(4)}, text
                assert "Levels: A 2 · B 2" in text  # the levels this hand is played at
            result = world.last_message(group, from_bot=True)
            assert "Hand 1 is over" in result.text and find(result, "G") is not None
            await alice.press(result, data=find(result, "G").data)
            await world.settle()
            assert game.match.hand_number == 2
            old = next(m for m in world.transcript(group) if m.message_id == result.message_id)
            assert not old.buttons()  # the stale "Next hand" button is gone
            assert not any(find(m, "G") for m in world.transcript(group))


async def test_when_nobody_declares_the_group_is_shown_the_kitty_that_decided(tmp_path):
    async with FakeTelegram() as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        async with running_bot(world, tmp_path / "db") as app:
            game_id, lobby = await seat_players(world, group, people)
            lobby = world.last_message(group, from_bot=True)
            await people[0].press(lobby, data=find(lobby, "S").data)
            # nobody presses Show: everybody passes when the deal is over
            await play_out(
                world,
                app,
                game_id,
                dict(enumerate(people)),
                stop=lambda g: g.match.hand.phase == "playing",
            )
            await world.settle()
            hand = service(app).games[game_id].match.hand
            assert hand.declaring.from_kitty and hand.revealed_kitty
            shown = cards_label(hand.revealed_kitty, "en")
            text = next(t for t in world.texts(group) if "Nobody declared" in t)
            assert f"the kitty was shown: {shown}" in text
            assert "third card" in text
