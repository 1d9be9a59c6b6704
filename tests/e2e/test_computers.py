"""Computer strength per group (/settings) and search computers playing through the chats."""

from __future__ import annotations

from bot.fake_telegram import FakeTelegram
from bot.infra.config import Settings
from tests.e2e.harness import find, play_out, running_bot, seat_players, service


async def choose_strength(world, admin, group, label: str) -> None:
    """An admin opens /settings, the computers' row, and taps a strength."""
    await admin.send(group, "/settings")
    await world.settle()
    menu = world.last_message(group, from_bot=True)
    await admin.press(menu, text="电脑强度")
    await world.settle()
    menu = world.last_message(group, from_bot=True)
    labels = [text for row in menu.keyboard() for text, _ in row]
    assert "电脑强度" in menu.text and {"✓ 简单", "普通", "困难"} <= set(labels)
    await admin.press(menu, text=label)
    await world.settle()
    await admin.send(group, "/settings")
    await world.settle()
    await admin.press(world.last_message(group, from_bot=True), text="电脑强度")
    await world.settle()
    assert f"当前：{label}" in world.last_message(group, from_bot=True).text


async def alice_and_three_computers(world, group, alice) -> int:  # noqa: ANN001
    """Alice opens a game, the lobby's three computers fill it, she starts: its id."""
    game_id, lobby = await seat_players(world, group, [alice])
    for _ in range(3):
        lobby = world.last_message(group, from_bot=True)
        await alice.press(lobby, data=find(lobby, "C").data)
        await world.settle()
    lobby = world.last_message(group, from_bot=True)
    await alice.press(lobby, data=find(lobby, "S").data)
    return game_id


async def test_a_group_sets_normal_computers_and_they_play_a_hand_by_search(tmp_path):
    async with FakeTelegram() as world:
        world.settle_timeout = 120  # the computers think for real (on a shared machine)
        alice = world.user("Alice", language_code="zh-hans")
        group = world.group("牌桌", admins=[alice])
        async with running_bot(world, tmp_path / "db", next_hand_delay_seconds=0.01) as app:
            await choose_strength(world, alice, group, "普通")
            svc = service(app)
            assert (await svc.store.chat_settings(group.id)).computer_strength == "normal"
            game_id = await alice_and_three_computers(world, group, alice)
            game = svc.games[game_id]
            await play_out(world, app, game_id, {0: alice}, stop=lambda g: g.match.results)
            assert game.match.results, "a hand was played to its result"
            assert svc.deadlines.computers._pool is not None, (
                "the computers thought in the process pool"
            )
            await world.settle()
            texts = "\n".join(world.texts(group))
            assert "出错" not in texts and "went wrong" not in texts


async def test_a_new_groups_computers_play_normal_by_default_unless_the_host_says_otherwise(
    tmp_path,
):
    """Issue 36: a group that chose nothing in /settings gets 普通 (the host's default,
    COMPUTER_STRENGTH): its computers think in the process pool, and /settings says 普通."""
    default = Settings.model_fields["computer_strength"].default
    assert default == "normal"
    async with FakeTelegram() as world:
        world.settle_timeout = 120  # the computers think for real (on a shared machine)
        alice = world.user("Alice", language_code="zh-hans")
        group = world.group("牌桌", admins=[alice])
        async with running_bot(world, tmp_path / "db", computer_strength=default) as app:
            svc = service(app)
            await alice.send(group, "/settings")
            await world.settle()
            await alice.press(world.last_message(group, from_bot=True), text="电脑强度")
            await world.settle()
            menu = world.last_message(group, from_bot=True)
            labels = [text for row in menu.keyboard() for text, _ in row]
            assert {"简单", "✓ 普通", "困难"} <= set(labels), labels
            game_id = await alice_and_three_computers(world, group, alice)
            assert (await svc.store.chat_settings(group.id)).computer_strength is None
            computers = svc.deadlines.computers
            await play_out(world, app, game_id, {0: alice}, stop=lambda g: bool(computers.searched))
            assert computers.searched and computers._pool is not None


async def test_easy_computers_never_start_the_process_pool(tmp_path):
    async with FakeTelegram() as world:
        alice = world.user("Alice", language_code="zh-hans")
        group = world.group("牌桌", admins=[alice])
        async with running_bot(world, tmp_path / "db", next_hand_delay_seconds=0.01) as app:
            game_id = await alice_and_three_computers(world, group, alice)
            await play_out(world, app, game_id, {0: alice}, stop=lambda g: g.match.results)
            svc = service(app)
            assert svc.games[game_id].match.results
            assert svc.deadlines.computers._pool is None
