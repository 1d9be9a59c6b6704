"""A stuck game can be ended (/endgame, creator or admin, confirmed) and an absent
player replaced (the table's "Take seat" deep link, or /takeover N): one who can't be
reached, or one on auto-play (托管) after a turn time-out."""

from collections import Counter

from bot.fake_telegram import FakeTelegram
from bot.views import codec
from bot.views.names import isolate
from tests.e2e.harness import (
    buttons,
    find,
    fire_timer,
    hand_message,
    play_out,
    press_of,
    running_bot,
    service,
    wait_for,
)
from tests.e2e.test_resilience import start_with_computers


def keyboard_cards(msg):
    """The cards of a DM hand keyboard (one button per card copy)."""
    out = []
    for b in buttons(msg):
        p = press_of(b) if b.data else None
        if p is not None and p.kind == "T":
            out.append(codec.decode_cards(p.arg[0])[0])
    return out


async def test_only_the_creator_or_an_admin_ends_a_game_and_only_after_confirming(tmp_path):
    async with FakeTelegram(auto_settle=True) as world:
        alice, bob = world.user("Alice"), world.user("Bob")
        group = world.group("Table", members=[bob], admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            svc = service(app)
            game_id = await start_with_computers(world, group, [alice, bob])
            game = svc.games[game_id]
            await bob.send(group, "/endgame")
            assert "Only the game's creator" in world.last_message(group, from_bot=True).text
            await alice.send(group, "/endgame")
            question = world.last_message(group, from_bot=True)
            assert "End the game" in question.text
            answer = await bob.press(question, text="⏹ Yes, end it")
            assert answer.show_alert and game.rec.status == "running"
            await alice.press(question, text="Keep playing")
            assert game.rec.status == "running"
            assert not world.last_message(group, from_bot=True).buttons()  # question closed

            await alice.send(group, "/endgame")
            question = world.last_message(group, from_bot=True)
            old_dm = hand_message(world, bob, game_id)
            await alice.press(question, text="⏹ Yes, end it")
            await world.settle()
            assert game.rec.status == "ended"
            assert (await svc.store.load_game(game_id)).status == "ended"
            assert any(f"{isolate('Alice')} ended the game" in t for t in world.texts(group))
            # the DMs keep their last state without buttons; an old press is stale
            assert not hand_message(world, bob, game_id).buttons()
            assert "was ended" in hand_message(world, bob, game_id).text
            if old_dm.buttons():
                stale = world.core.callback(bob.user, old_dm, old_dm.buttons()[0][0].data)
                await world.settle()
                assert stale.answered and "out of date" in stale.text
            # no button lingers in the group, and the chat is free for a new game
            assert not any(
                b.data and press_of(b) for m in world.transcript(group) for b in buttons(m)
            )
            await alice.send(group, "/endgame")
            assert "no game" in world.last_message(group, from_bot=True).text
            await bob.send(group, "/newgame")
            assert find(world.last_message(group, from_bot=True), "S") is not None


async def test_a_member_takes_over_an_unreachable_players_seat_and_plays_on(tmp_path):
    async with FakeTelegram() as world:
        alice, bob = world.user("Alice"), world.user("Bob")
        carol = world.user("Carol", language_code="zh-hans")
        dave = world.user("Dave")  # not in the group
        group = world.group("Table", members=[bob, carol], admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            svc = service(app)
            game_id = await start_with_computers(world, group, [alice, bob])
            game = svc.games[game_id]
            await play_out(
                world,
                app,
                game_id,
                {0: alice, 1: bob},
                stop=lambda g: g.match.hand.phase == "playing",
            )
            bob.block_bot()
            await play_out(world, app, game_id, {0: alice, 1: bob}, stop=lambda g: g.rec.paused)
            await world.settle()
            # an active player's seat can't be taken; /takeover answers with the link
            await carol.send(group, "/takeover 1", settle=True)
            # (in the group's language, Alice's, though Carol reads Chinese)
            assert "can't be taken over" in world.last_message(group, from_bot=True).text
            await carol.send(group, "/takeover 2", settle=True)
            offer = world.last_message(group, from_bot=True)
            link = offer.buttons()[0][0]
            assert link.url.endswith(codec.take_payload(game_id, 1))
            # the table itself offers the same link
            tables = [m for m in world.transcript(group) if m.text.startswith("🀄 Hand")]
            assert any(b.url == link.url for b in buttons(tables[-1]))
            # a seated player, or a stranger, can't take it
            await alice.open_link(link.url, settle=True)
            assert "already play" in world.last_message(alice, from_bot=True).text
            await dave.open_link(link.url, settle=True)
            assert "not a member" in world.last_message(dave, from_bot=True).text

            await carol.press(offer, text=link.text, settle=True)
            await world.settle()
            assert game.rec.seats[1].user_id == carol.id and not game.rec.paused
            assert any("你接替了" in t for t in world.texts(carol))
            mine = hand_message(world, carol, game_id)
            assert "第1局" in mine.text  # in Carol's own language
            assert Counter(keyboard_cards(mine)) == Counter(game.match.hand.hands[1])
            assert any(
                f"{isolate('Carol')} takes over seat 2 from {isolate('Bob')}" in t
                for t in world.texts(group)
            )
            # no "Take seat" link is left on the newest table
            tables = [m for m in world.transcript(group) if m.text.startswith("🀄 Hand")]
            assert not any(b.url and "start=t" in b.url for b in buttons(tables[-1]))
            # Bob comes back: his old buttons are not his any more
            bob.unblock_bot()
            old = world.core.callback(
                bob.user,
                mine,
                find(mine, "O").data
                if find(mine, "O")
                else codec.Press("H", game_id, 1, 0).encode(),
            )
            await world.settle()
            assert old.answered and "don't play" in old.text
            await play_out(
                world,
                app,
                game_id,
                {0: alice, 1: carol},
                stop=lambda g: g.match.hand.phase == "done",
            )
            assert game.match.hand.result is not None


def plays_of(hand, seat):
    return sum(1 for trick in hand.tricks for p in trick.plays if p.seat == seat)


async def test_a_member_takes_over_a_seat_on_auto_play_from_the_table_and_plays_on(tmp_path):
    async with FakeTelegram() as world:
        alice, bob = world.user("Alice"), world.user("Bob")
        carol = world.user("Carol")  # in the group, not seated, never started the bot
        group = world.group("Table", members=[bob, carol], admins=[alice])
        users = {0: alice, 1: bob}
        async with running_bot(world, tmp_path / "db", turn_timeout_seconds=3600.0) as app:
            svc = service(app)
            game_id = await start_with_computers(world, group, [alice, bob])
            game = svc.games[game_id]
            hand = game.match.hand
            await play_out(
                world,
                app,
                game_id,
                users,
                stop=lambda g: g.match.hand.phase == "playing" and g.match.hand.turn == 1,
            )
            # Bob lets his turn time out: 托管 plays for him (until Alice's turn)
            before = plays_of(hand, 1)
            await fire_timer(world, app, game_id, "timeout")
            await wait_for(world, lambda: hand.turn == 0)
            await world.settle()
            assert game.rec.seats[1].auto and plays_of(hand, 1) > before
            assert "Auto-play is on" in hand_message(world, bob, game_id).text
            tables = [m for m in world.transcript(group) if m.text.startswith("🀄 Hand")]
            link = next(b for b in buttons(tables[-1]) if b.url)
            assert link.text == "🙋 Take seat 2"
            assert link.url.endswith(codec.take_payload(game_id, 1))

            await carol.press(tables[-1], text=link.text, settle=True)
            await world.settle()
            seat = game.rec.seats[1]
            assert seat.user_id == carol.id and seat.name == "Carol" and not seat.auto
            assert any("You took over seat 2" in t for t in world.texts(carol))
            mine = hand_message(world, carol, game_id)
            assert Counter(keyboard_cards(mine)) == Counter(hand.hands[1])
            assert "Bob" not in mine.text
            assert (
                f"{isolate('Carol')} took over your seat"
                in world.last_message(bob, from_bot=True).text
            )
            assert not buttons(world.last_message(bob, from_bot=True))
            assert any(
                f"{isolate('Carol')} takes over seat 2 from {isolate('Bob')}" in t
                for t in world.texts(group)
            )
            tables = [m for m in world.transcript(group) if m.text.startswith("🀄 Hand")]
            assert not any(b.url and "start=t" in b.url for b in buttons(tables[-1]))
            line = next(x for x in tables[-1].text.splitlines() if f"2. {isolate('Carol')}" in x)
            assert "🤖" not in line  # seat 2 is not on auto-play any more

            # Carol plays seat 2 to the end of the hand, every card by her own taps
            taken = plays_of(hand, 1)
            await play_out(
                world,
                app,
                game_id,
                {0: alice, 1: carol},
                stop=lambda g: g.match.hand.phase == "done",
            )
            played = [
                c
                for c in world.callbacks()
                if c.user.id == carol.id and press_of_data(c.data) == "P" and c.text == "Played."
            ]
            assert plays_of(hand, 1) - taken == len(played) > 0
            assert not game.rec.seats[1].auto and hand.hands[1] == []
            assert hand.result is not None


def press_of_data(data):
    try:
        return codec.decode(data).kind
    except codec.BadData:
        return None
