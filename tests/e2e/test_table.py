"""What the group sees of a hand: every trick in full with its winner, the current trick
with who is winning it as it grows, the kitty shown when nobody declared, and no stale
"Next hand" button once the next hand runs."""

import re

from bot.fake_telegram import FakeTelegram
from bot.views.card_labels import cards_label, suit_label
from bot.views.names import isolate
from engine.tricks import trick_winner
from tests.e2e.harness import find, play_out, running_bot, seat_players, service
from tests.e2e.seen import shown
from tests.e2e.test_resilience import start_with_computers

TRICK = re.compile(r"^Trick (\d+)( · 🏆 .*)?$")


def trick_parts(text: str) -> list[tuple[int, str, list[str]]]:
    """The tricks a table text shows: (number, title, play lines)."""
    out = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = TRICK.match(line)
        if m is None:
            continue
        plays = []
        for follow in lines[i + 1 :]:
            if not follow or TRICK.match(follow) or follow.startswith("…"):
                break
            plays.append(follow)
        out.append((int(m.group(1)), line, plays))
    return out


async def test_the_group_sees_every_trick_in_full_and_who_is_winning_the_current_one(tmp_path):
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
            names = {
                0: isolate("Alice"),
                1: "🤖 Computer 2",
                2: "🤖 Computer 3",
                3: "🤖 Computer 4",
            }
            tables = [x for x in shown(world, group) if x.startswith("🀄 Hand 1")]
            assert all("Levels: N–S 2 · E–W 2" in x for x in tables)  # the hand's own levels
            seen_done: set[int] = set()
            growing = 0
            for text in tables:
                for n, title, plays in trick_parts(text):
                    trick = hand.tricks[n - 1]
                    assert len(plays) <= len(trick.plays)
                    for play, line in zip(trick.plays, plays, strict=False):
                        cards = cards_label(hand.ctx.sorted(list(play.cards)), "en")
                        assert line.startswith(f"{names[play.seat]}: ") and cards in line
                    if "🏆" in title:  # a completed trick: all four plays, the winner
                        assert len(plays) == 4
                        assert f"🏆 {names[trick.winner]} wins (+{trick.points})" in title
                        seen_done.add(n)
                    elif plays:  # a trick in progress: who is winning it as it stands
                        prefix = [p.cards for p in trick.plays[: len(plays)]]
                        best = trick.plays[trick_winner(hand.ctx, prefix)].seat
                        marked = [x for x in plays if x.endswith("⬅ winning")]
                        assert len(marked) == 1 and marked[0].startswith(names[best] + ":")
                        growing += 1
            assert seen_done == set(range(1, len(hand.tricks) + 1))  # every trick was seen
            assert growing >= len(hand.tricks)
            final = world.transcript(group)
            table = next(m for m in reversed(final) if m.text.startswith("🀄 Hand 1"))
            last = hand.tricks[-1]
            assert f"Trick {len(hand.tricks)} · 🏆 {names[last.winner]}" in table.text
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
            kitty = cards_label(hand.revealed_kitty, "en")
            text = next(t for t in world.texts(group) if "Nobody declared" in t)
            assert f"the kitty was shown: {kitty}" in text
            trump = "no-trump" if hand.trump is None else f"{suit_label(hand.trump, 'en')} is trump"
            assert f"— {trump}." in text
