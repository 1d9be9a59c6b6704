"""Restarts, stale / foreign / forged presses, a DM that fails, two groups, the group budget."""

import asyncio
import html
import re

from bot.fake_telegram import FakeTelegram, RateLimits
from bot.infra.config import Settings
from bot.views import codec
from bot.views import group_table as render_table
from engine.tricks import is_legal_follow
from tests.e2e.harness import (
    FakeTime,
    buttons,
    find,
    game_of,
    hand_message,
    play_out,
    running_bot,
    seat_players,
    service,
)


def plain(text):
    return html.unescape(re.sub(r"<[^>]+>", "", text))


async def start_with_computers(world, group, humans):
    game_id, lobby = await seat_players(world, group, humans)
    for _ in range(4 - len(humans)):
        lobby = world.last_message(group, from_bot=True)
        await humans[0].press(lobby, data=find(lobby, "C").data)
        await world.settle()
    lobby = world.last_message(group, from_bot=True)
    await humans[0].press(lobby, data=find(lobby, "S").data)
    await world.settle()
    return game_id


async def test_a_restart_mid_hand_re_renders_by_editing_and_the_match_finishes(tmp_path):
    db = tmp_path / "db"
    async with FakeTelegram() as world:
        alice, bob = world.user("Alice"), world.user("Bob")
        group = world.group("Table", members=[bob], admins=[alice])
        users = {0: alice, 1: bob}
        async with running_bot(world, db, next_hand_delay_seconds=0.01) as app:
            await alice.send(group, "/startlevel A")
            game_id = await start_with_computers(world, group, [alice, bob])
            await play_out(
                world,
                app,
                game_id,
                users,
                stop=lambda g: g.match.hand.phase == "playing" and len(g.match.hand.tricks) >= 4,
            )
            before = service(app).games[game_id].match.model_dump_json()
        # the Application is gone (jobs, memory, outboxes); a new one starts on the same DB
        sends_before = len(world.requests("sendMessage"))
        async with running_bot(world, db, next_hand_delay_seconds=0.01) as app:
            await world.settle()
            game = service(app).games[game_id]
            assert game.match.model_dump_json() == before
            assert len(world.requests("sendMessage")) == sends_before  # edits, not a flood
            await play_out(world, app, game_id, users)
            assert game.rec.status == "finished" and game.match.winner is not None


async def test_stale_foreign_and_forged_presses_are_answered_and_change_nothing(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice")
        eve = world.user("Eve", started=True)
        group = world.group("Table", members=[eve], admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            game_id = await start_with_computers(world, group, [alice])
            await play_out(world, app, game_id, {0: alice}, stop=lambda g: g.match.hand.turn == 0)
            game = service(app).games[game_id]
            state = game.match.model_dump_json()
            msg = hand_message(world, alice, game_id)
            play = codec.decode(find(msg, "P").data)
            forged = [
                "garbage",
                "P|zz|1|1|",
                "T|1|1|1|" + "~" * 3,
                codec.Press("P", play.game, play.hand, play.version + 5).encode(),  # stale
                codec.Press("P", play.game, play.hand + 1, play.version).encode(),  # old hand
                codec.Press("P", 999, 1, 1).encode(),  # no such game
            ]
            records = [world.core.callback(alice.user, msg, data) for data in forged]
            await eve.start_bot()
            await world.settle()
            eve_msg = world.last_message(eve, from_bot=True)
            records.append(world.core.callback(eve.user, eve_msg, play.encode()))  # not hers
            await world.settle()
            assert all(r.answered for r in records)
            assert game.match.model_dump_json() == state
            assert "don't play" in records[-1].text


async def test_a_blocked_dm_pauses_the_game_until_the_player_opens_the_bot(tmp_path):
    async with FakeTelegram() as world:
        alice, bob = world.user("Alice"), world.user("Bob")
        group = world.group("Table", members=[bob], admins=[alice])
        users = {0: alice, 1: bob}
        async with running_bot(world, tmp_path / "db") as app:
            game_id = await start_with_computers(world, group, [alice, bob])
            await play_out(
                world, app, game_id, users, stop=lambda g: g.match.hand.phase == "playing"
            )
            bob.block_bot()
            await play_out(world, app, game_id, users, stop=lambda g: g.rec.paused)
            game = service(app).games[game_id]
            await world.settle()
            notice = world.last_message(group, from_bot=True)
            assert "Bob" in notice.text and "paused" in notice.text
            version = game.match.hand.version
            await asyncio.sleep(0.2)
            assert game.match.hand.version == version  # nothing moves while paused
            await bob.press(notice, text=find_url_text(notice))
            await world.settle()
            assert not game.rec.paused
            assert "Welcome back" in "\n".join(world.texts(bob))
            await play_out(
                world, app, game_id, users, stop=lambda g: g.match.hand_number > 1, group=group
            )


def find_url_text(msg):
    return next(b.text for row in msg.buttons() for b in row if b.url)


async def test_two_games_in_two_groups_run_at_once(tmp_path):
    async with FakeTelegram() as world:
        alice, bob = world.user("Alice"), world.user("Bob")
        g1 = world.group("One", admins=[alice])
        g2 = world.group("Two", admins=[bob])
        async with running_bot(world, tmp_path / "db", next_hand_delay_seconds=0.01) as app:
            for g, who in ((g1, alice), (g2, bob)):
                await who.send(g, "/startlevel A")
            id1 = await start_with_computers(world, g1, [alice])
            id2 = await start_with_computers(world, g2, [bob])
            assert id1 != id2
            await asyncio.gather(
                play_out(world, app, id1, {0: alice}),
                play_out(world, app, id2, {0: bob}),
            )
            one, two = await game_of(app, id1), await game_of(app, id2)
            assert one.rec.status == two.rec.status == "finished"
            # nothing of one game leaked into the other group
            assert not any("Two" in t for t in world.texts(g1))


async def test_the_group_stays_within_twenty_calls_a_minute_and_every_press_is_answered(
    tmp_path,
):
    """Telegram's strict limits on, the default group pacing, four fast players, a whole
    hand: no 429 in the group, never more than 20 calls in 60 s, every press answered,
    and the group ends up showing the final state of every message (nothing dropped)."""
    pacing = Settings.model_fields["group_interval_seconds"].default
    assert pacing == 3.2
    async with FakeTelegram(rate_limits=RateLimits()) as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        group = world.group("Fast", members=people[1:], admins=people[:1])
        users = dict(enumerate(people))
        async with running_bot(
            world, tmp_path / "db", clock=FakeTime(world), group_interval_seconds=pacing
        ) as app:
            svc = service(app)
            game_id, lobby = await seat_players(world, group, people)
            lobby = world.last_message(group, from_bot=True)
            await people[0].press(lobby, data=find(lobby, "S").data)
            await play_out(world, app, game_id, users, stop=lambda g: g.match.hand.phase == "done")
            await svc.publisher.outboxes.drain()
            await world.settle()
            game = svc.games[game_id]
            group_calls = world.requests(chat=group)
            assert len(group_calls) > 20  # a whole hand, so the budget mattered
            assert not [r for r in group_calls if r.error_code == 429]
            assert world.max_calls_in_window(group, 60) <= 20
            presses = world.callbacks()
            assert len(presses) > 100 and all(c.answered for c in presses)
            # the final state of every message of the hand reached the group
            box = svc.publisher.outboxes.get(group.id)
            shown = {m.message_id: m for m in world.transcript(group)}
            public = svc.publisher.projections.of(game.table, None)
            current = render_table.group_messages(game.rec, public, svc.publisher.bot_username)
            assert [slot.kind for slot, _ in current][-1] == "result"
            for slot, content in current:
                msg = shown[box.message_id(slot.key)]
                assert msg.text == plain(content.text), slot
                rows = content.markup.inline_keyboard if content.markup else ()
                assert msg.keyboard() == [
                    [(b.text, b.callback_data or b.url) for b in r] for r in rows
                ]
            assert "Kitty" in world.last_message(group, from_bot=True).text


def single_card_follow_for(seat):
    def stop(g):
        hand = g.match.hand
        trick = hand.current_trick
        return (
            hand.phase == "playing"
            and hand.turn == seat
            and trick is not None
            and len(trick.plays) > 0
            and len(trick.plays[0].cards) == 1
        )

    return stop


async def test_a_card_tap_from_an_older_keyboard_only_selects_never_plays(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            game_id = await start_with_computers(world, group, [alice])
            await play_out(world, app, game_id, {0: alice}, stop=single_card_follow_for(0))
            game = service(app).games[game_id]
            hand = game.match.hand
            lead = hand.current_trick.plays[0].cards
            state = game.match.model_dump_json()
            msg = hand_message(world, alice, game_id)
            taps = [
                codec.decode(b.data) for b in buttons(msg) if b.data and b.data.startswith("T|")
            ]
            legal = next(
                p
                for p in taps
                if is_legal_follow(hand.ctx, lead, hand.hands[0], codec.decode_cards(p.arg[0]))
            )
            assert legal.version == hand.version  # the live keyboard: one tap would play
            old = codec.Press("T", legal.game, legal.hand, legal.version - 1, legal.arg).encode()
            record = world.core.callback(alice.user, msg, old)
            await world.settle()
            assert record.answered and not record.show_alert
            assert game.match.model_dump_json() == state  # nothing was played
            assert game.rec.seats[0].ui.selection == codec.decode_cards(legal.arg[0])  # selected
