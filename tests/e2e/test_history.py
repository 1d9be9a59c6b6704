"""History: every finished hand kept once; /last in the group and in a DM (with the hand as
dealt), /stats for the group and /stats me, in both languages; the level chart sent with
the match result."""

from io import BytesIO

from PIL import Image

from bot.fake_telegram import FakeTelegram
from bot.views.card_labels import cards_label
from bot.views.names import isolate
from engine.hand import team_of
from tests.e2e.harness import game_of, play_out, running_bot, service
from tests.e2e.test_resilience import start_with_computers
from tests.e2e.test_settings import choose


def last(world, chat):
    return world.last_message(chat, from_bot=True)


async def play_one_hand(world, app, game_id, users, group):
    """Play hand 1 to its end; returns each seat's cards as they were after the deal."""
    game = service(app).games[game_id]
    dealt = {}

    def after_deal(g):
        if g.match.hand.phase != "dealing" and not dealt:
            dealt.update({s: list(h) for s, h in enumerate(g.match.hand.hands)})
        return g.match.hand.phase == "done" or g.match.hand_number > 1

    await play_out(world, app, game_id, users, stop=after_deal)
    assert dealt, "the deal was seen"
    await play_out(world, app, game_id, users, stop=lambda g: g.match.hand.phase == "done")
    return game, dealt


async def test_last_shows_the_previous_hand_in_the_group_and_the_dealt_hand_in_a_dm(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en", started=True)
        li = world.user("Li", language_code="zh-hans", started=True)
        group = world.group("Table", members=[li], admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            await alice.send(group, "/last")
            await world.settle()
            assert "No hand has been finished" in last(world, group).text
            game_id = await start_with_computers(world, group, [alice, li])
            game, dealt = await play_one_hand(world, app, game_id, {0: alice, 1: li}, group)
            hand = game.match.hand
            result = hand.result
            await alice.send(group, "/last")
            await world.settle()
            text = last(world, group).text
            assert "Last hand" in text and "hand 1" in text
            assert f"Attackers' points: {result.attackers_points}" in text
            assert cards_label(hand.ctx.sorted(list(result.kitty)), "en") in text  # now public
            trick_lines = [line for line in text.split("\n") if " → " in line]
            assert len(trick_lines) == len(hand.tricks) > 0
            for line, trick in zip(trick_lines, hand.tricks, strict=True):
                assert line.endswith(f"+{trick.points}")
            assert "Your hand as dealt" not in text  # nobody's hand in the group
            # in her DM Alice also sees her own 25 cards as dealt
            await alice.send("/last")
            await world.settle()
            dm = last(world, alice).text
            mine = cards_label(hand.ctx.sorted(dealt[0]), "en")
            assert f"Your hand as dealt: {mine}" in dm and "Table" in dm
            await li.send("/last")
            await world.settle()
            dm = last(world, li).text
            assert "上一局" in dm and cards_label(hand.ctx.sorted(dealt[1]), "zh") in dm
            assert mine not in dm
            # the group in Chinese
            await alice.send(group, "/settings")
            await world.settle()
            await alice.press(last(world, group), text="中文")
            await world.settle()
            await li.send(group, "/last")
            await world.settle()
            text = last(world, group).text
            assert "上一局" in text and f"闲家得分：{result.attackers_points}" in text
            rows = await service(app).store.db.execute_fetchall("SELECT COUNT(*) FROM hands")
            assert rows[0][0] == 1  # written once


async def play_a_match(world, app, group, people):
    await choose(world, people[0], group, "Start level", "A")
    game_id = await start_with_computers(world, group, people)
    users = dict(enumerate(people))
    await play_out(world, app, game_id, users, group=group)
    await world.settle()
    return await game_of(app, game_id)


async def test_stats_count_matches_levels_and_sides_per_player_in_both_languages(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en", started=True)
        bob = world.user("Bob", language_code="en", started=True)
        group = world.group("Table", members=[bob], admins=[alice])
        other = world.group("Other", members=[bob], admins=[alice])
        async with running_bot(world, tmp_path / "db", next_hand_delay_seconds=0.01) as app:
            await bob.send(group, "/stats")
            await world.settle()
            assert "No hand has been finished" in last(world, group).text
            game = await play_a_match(world, app, group, [alice, bob])
            match = game.match
            assert game.rec.status == "finished"
            await bob.send(group, "/stats")
            await world.settle()
            text = last(world, group).text
            assert f"Matches finished: 1 · hands: {len(match.results)}" in text
            for seat, name in ((0, "Alice"), (1, "Bob")):
                team = team_of(seat)
                mine = [r for r in match.results]
                defended = [r for r in mine if r.defenders == team]
                attacked = [r for r in mine if r.defenders != team]
                held = sum(r.winner == "defenders" for r in defended)
                took = sum(r.winner == "attackers" for r in attacked)
                levels = sum(r.levels_after[team] - r.levels_before[team] for r in mine)
                won = int(match.winner == team)
                line = next(x for x in text.split("\n") if x.startswith(f"{isolate(name)}:"))
                assert line == (
                    f"{isolate(name)}: matches 1 (won {won}) · levels +{levels} · defended "
                    f"{len(defended)} (held {held}) · attacked {len(attacked)} (took over {took})"
                )
            best = max(match.results, key=lambda r: r.attackers_points)
            if best.attackers_points:
                assert f"Most points taken: {best.attackers_points}" in text
            bonus = max(r.kitty_bonus for r in match.results)
            assert (f"Biggest kitty bonus: {bonus}" if bonus else "none yet") in text
            # a second group: /stats me adds both up
            await play_a_match(world, app, other, [alice, bob])
            await alice.send(group, "/stats me")
            await world.settle()
            me = last(world, group).text
            assert "Alice" in me and "in 2 groups" in me and "matches 2" in me
            await alice.send("/stats")  # in the DM: the same record
            await world.settle()
            assert "in 2 groups" in last(world, alice).text
            # Chinese
            await alice.send(group, "/settings")
            await world.settle()
            await alice.press(last(world, group), text="中文")
            await world.settle()
            await bob.send(group, "/stats")
            await world.settle()
            text = last(world, group).text
            assert "战绩" in text and "完成比赛：1" in text and f"{isolate('Bob')}：比赛 1" in text


async def test_the_match_result_comes_with_a_level_chart(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="en", started=True)
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db", next_hand_delay_seconds=0.01) as app:
            game = await play_a_match(world, app, group, [alice])
            photos = [m for m in world.transcript(group) if m.from_bot and m.photo]
            assert len(photos) == 1
            chart = photos[0]
            assert "Levels hand by hand" in chart.caption and "Alice" in chart.caption
            assert f"{('N–S', 'E–W')[game.match.winner]} wins" in chart.caption
            data = world.core.files[chart.photo[-1]["file_id"]]
            image = Image.open(BytesIO(data))
            assert image.format == "PNG" and image.size == (720, 400)
            colours = image.convert("RGB").getcolors(maxcolors=100_000)
            assert len(colours) > 10  # not blank
            red = sum(n for n, (r, g, b) in colours if r > 150 and g < 90 and b < 90)
            blue = sum(n for n, (r, g, b) in colours if b > 150 and r < 90)
            assert red > 200 and blue > 200  # both teams' lines
            # the chart follows the result in the group
            texts = [m for m in world.transcript(group) if m.from_bot]
            assert texts.index(chart) > max(
                i for i, m in enumerate(texts) if "wins the match" in (m.text or "")
            )
