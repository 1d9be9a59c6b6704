"""/settings: every option of RULES.md 11–12 one screen each, in the group's language; the
choice reaches the engine of the next match (never the match in play); /rules shows the
group's actual rules with the changed ones marked."""

from datetime import UTC, datetime

import pytest

from bot.fake_telegram import FakeTelegram
from engine.cards import RANK_2, RANKS, rank_of, suit_of
from engine.ranking import TRUMP
from tests.e2e.harness import buttons, game_of, pending_timer, play_out, running_bot, service
from tests.e2e.test_resilience import start_with_computers


def menu(world, group):
    return world.last_message(group, from_bot=True)


async def choose(world, user, group, option: str, value: str):
    """Open the option's screen from /settings and tap the value (its button's label)."""
    await user.send(group, "/settings")
    await world.settle()
    await user.press(menu(world, group), text=option)
    await world.settle()
    screen = menu(world, group)
    label = next(b.text for b in buttons(screen) if b.text.removeprefix("✓ ") == value)
    answer = await user.press(screen, text=label)
    await world.settle()
    return answer


async def test_every_option_has_a_screen_that_says_what_it_means_and_short_buttons(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db"):
            await alice.send(group, "/settings")
            await world.settle()
            home = menu(world, group)
            for line in ("Preset: classic", "Permanent 2s: off", "Match end: pass A"):
                assert line in home.text
            assert "Start level: 2" in home.text and "Turn time: 60 s" in home.text
            rows = [b.text for b in buttons(home) if b.data and b.data.startswith("cfg|open|")]
            assert (
                len(rows) == 17
            )  # every option of RULES.md 11-12 and the bot's own (the card counter, the strength)
            for row in rows:
                await alice.press(menu(world, group), text=row)
                await world.settle()
                screen = menu(world, group)
                title, meaning, now = screen.text.split("\n")
                assert row in title and len(meaning) > 20 and now.startswith("Now: ")
                assert all(len(b.data.encode()) <= 64 for b in buttons(screen))
                ticks = sum(b.text.startswith("✓") for b in buttons(screen))
                # none for no must-play level, and the tests' deal pace is no choice
                assert ticks == (0 if row in ("Must-play levels", "Deal pace") else 1), row
                await alice.press(screen, text="◀ Back")
                await world.settle()
            # the same screens in Chinese once the group chooses it
            await alice.press(menu(world, group), text="中文")
            await world.settle()
            home = menu(world, group)
            assert "常主2：关" in home.text and "起始级：2" in home.text
            await alice.press(home, text="逢X必打")
            await world.settle()
            assert "不能跳过" in menu(world, group).text


async def test_presses_of_strangers_garbage_and_conflicts_change_nothing(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en")
        bob = world.user("Bob", language_code="en")
        group = world.group("Table", members=[bob], admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            store = service(app).store
            before = await store.chat_settings(group.id)
            await alice.send(group, "/settings")
            await world.settle()
            await alice.press(menu(world, group), text="Permanent 2s")
            await world.settle()
            screen = menu(world, group)
            answer = await bob.press(screen, text="on")  # not an admin, no lobby of his
            await world.settle()
            assert answer.show_alert and "admins" in answer.text
            for junk in ("cfg|p2|maybe", "cfg|zz|1", "cfg|mp|3", "cfg|open|zz", "cfg|", "x" * 64):
                record = world.core.callback(alice.user, screen, junk)
                await world.settle()
                assert record.answered and record.text == "Unknown button.", junk
            assert await store.chat_settings(group.id) == before
            # a target level below the start level: a clear answer, nothing saved
            await choose(world, alice, group, "Start level", "K")
            answer = await choose(world, alice, group, "Match end", "target 10")
            assert answer.show_alert and "below the start level" in answer.text
            saved = await store.chat_settings(group.id)
            assert saved.start_level == RANKS.index("K") and saved.rules == {}
            await alice.send(group, "/settings")
            await world.settle()
            answer = await alice.press(menu(world, group), text="tournament")
            await world.settle()
            assert answer.show_alert and "below the start level" in answer.text
            await alice.send(group, "/startlevel 9")
            await world.settle()
            await alice.send(group, "/settings")
            await world.settle()
            await alice.press(menu(world, group), text="tournament")
            await world.settle()
            assert (await store.chat_settings(group.id)).preset == "tournament"
            await alice.send(group, "/startlevel Q")
            await world.settle()
            assert "below the start level" in menu(world, group).text


OPTION_CASES = [
    ("Permanent 2s", "on", "permanent_twos", True),
    ("Declare with", "a level card + a joker of its colour", "declare_with_joker", True),
    ("Declaring after hand 1", "the dealer's team (attackers only if they can't)",
     "later_declare", "dealer_team"),
    ("Overturning after hand 1", "before the kitty is taken", "later_overturn", "before_kitty"),
    ("Overturn suit order", "♠ > ♥ > ♦ > ♣", "overturn_suit_order", (0, 1, 3, 2)),
    ("Redeal (暴动)", "on", "redeal", True),
    ("Kitty multiplier", "doubling: single ×2, pair ×4, tractor of k pairs ×2^(k+1)",
     "kitty_multiplier", "doubling"),
    ("Throw penalty", "none", "throw_penalty", "none"),
    ("Level table", "fine", "level_table", "fine"),
    ("Must-play levels", "5", "must_play", (3,)),
    ("Match end", "wrap (no end)", "match_end", "wrap"),
    ("Match end", "target J", "match_end", "target_J"),
    ("Time limit", "45 min", "time_limit_min", 45),
    ("Start level", "7", "start_level", 5),
]  # fmt: skip


@pytest.mark.parametrize(("option", "value", "field", "expected"), OPTION_CASES)
async def test_each_rule_option_reaches_the_engine_of_the_next_match(
    tmp_path, option, value, field, expected
):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            answer = await choose(world, alice, group, option, value)
            assert answer.text == "Saved." and not answer.show_alert
            await alice.send(group, "/settings")
            await world.settle()
            assert f"{option}: {value} ✱" in menu(world, group).text
            await alice.send(group, "/rules")
            await world.settle()
            assert f"{option}: {value} ✱" in menu(world, group).text
            game_id = await start_with_computers(world, group, [alice])
            rules = service(app).games[game_id].match.rules
            assert getattr(rules, field) == expected
            others = {k: v for k, v in rules.model_dump().items() if k != field}
            assert others == {k: v for k, v in type(rules)().model_dump().items() if k != field}


async def test_turn_time_and_deal_pace_reach_the_next_match(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            await choose(world, alice, group, "Deal pace", "2 s")
            await choose(world, alice, group, "Turn time", "20 s")
            assert "Turn time: 20 s" in menu(world, group).text
            game_id = await start_with_computers(world, group, [alice])
            game = service(app).games[game_id]
            assert (game.rec.deal_pace, game.rec.turn_seconds) == (2.0, 20.0)
            assert pending_timer(app, game_id)[2] == "deal"
            job = app.job_queue.get_jobs_by_name(f"game:{game_id}")[0]
            assert 1.0 < (job.next_t - datetime.now(UTC)).total_seconds() <= 2.0


async def test_a_running_match_keeps_its_rules_and_says_which(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en")
        bob = world.user("Bob", language_code="en")
        group = world.group("Table", members=[bob], admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            game_id = await start_with_computers(world, group, [alice])
            await choose(world, alice, group, "Level table", "fine")
            running = menu(world, group).text.split("The match in play keeps the rules")[1]
            assert running.split("\n")[1:] == ["Level table: classic"]  # only what differs
            assert service(app).games[game_id].match.rules.level_table == "classic"
            await bob.send(group, "/rules")
            await world.settle()
            text = menu(world, group).text
            assert "Level table: fine ✱" in text and "Level table: classic" in text


async def test_the_creator_of_a_lobby_sets_its_rules(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en")
        bob = world.user("Bob", language_code="en", started=True)
        group = world.group("Table", members=[bob], admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            await bob.send(group, "/newgame")
            await world.settle()
            answer = await choose(world, bob, group, "Permanent 2s", "on")
            assert answer.text == "Saved."
            game = next(iter(service(app).games.values()))
            assert game.rec.status == "lobby" and game.rec.rules == {"permanent_twos": True}


def ruffs_with_a_plain_two(match) -> bool:
    """A trick led in a plain suit won by a 2 of another plain suit: only a permanent 2."""
    hand = match.hand
    for trick in hand.tricks:
        if trick.winner is None or trick.winner == trick.plays[0].seat:
            continue
        lead = trick.plays[0].cards
        won = next(p for p in trick.plays if p.seat == trick.winner).cards
        if hand.ctx.suit_class[lead[0]] == TRUMP:
            continue
        if all(
            rank_of(c) == RANK_2 and suit_of(c) not in (hand.trump, suit_of(lead[0])) for c in won
        ):
            return True
    return False


async def test_with_permanent_twos_a_plain_two_ruffs(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en")
        group = world.group("Table", admins=[alice])
        # the finished hand stays on the table until Next hand: every trick is looked at
        async with running_bot(world, tmp_path / "db") as app:
            await choose(world, alice, group, "Permanent 2s", "on")
            await choose(world, alice, group, "Start level", "5")
            game_id = await start_with_computers(world, group, [alice])
            game = service(app).games[game_id]
            await play_out(
                world,
                app,
                game_id,
                {0: alice},
                group=group,
                stop=lambda g: ruffs_with_a_plain_two(g.match) or g.match.hand_number > 6,
            )
            assert ruffs_with_a_plain_two(game.match)


async def test_with_wrap_the_match_goes_on_past_a(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db", next_hand_delay_seconds=0.01) as app:
            await choose(world, alice, group, "Match end", "wrap (no end)")
            await choose(world, alice, group, "Start level", "A")
            game_id = await start_with_computers(world, group, [alice])
            game = service(app).games[game_id]

            def defended_at_a(g) -> bool:
                return any(
                    r.winner == "defenders" and r.levels_before[r.defenders] == 12
                    for r in g.match.results
                )

            await play_out(world, app, game_id, {0: alice}, group=group, stop=defended_at_a)
            assert game.rec.status == "running" and not game.match.finished
            r = next(r for r in game.match.results if r.winner == "defenders")
            assert r.levels_after[r.defenders] < 12  # past A: from 2 on


async def test_a_target_level_ends_the_match_there_and_the_table_shows_the_start_level(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db", next_hand_delay_seconds=0.01) as app:
            await choose(world, alice, group, "Start level", "J")
            await choose(world, alice, group, "Match end", "target J")
            game_id = await start_with_computers(world, group, [alice])
            assert any("level J" in text for text in world.texts(group))
            await play_out(world, app, game_id, {0: alice}, group=group)
            match = (await game_of(app, game_id)).match
            last = match.results[-1]
            # the first successful defence at J wins: nobody plays on to A
            assert match.winner == last.defenders and last.winner == "defenders"
            assert all(r.levels_before[r.defenders] == RANKS.index("J") for r in match.results)
            assert any("wins the match" in text for text in world.texts(group))
