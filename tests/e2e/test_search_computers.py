"""Computers at a search strength declare, overturn, 炒底 and bury by search in the process
pool, off the event loop, as they play cards; 托管 buries for a player the same way."""

from __future__ import annotations

import asyncio
import random
import threading
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

import engine.players
from bot.edges import computer
from bot.fake_telegram import FakeTelegram
from bot.table.commands import Hint, Play
from engine.players.heuristic import suggest
from tests.e2e.harness import (
    DEFAULT_SEED,
    find,
    fire_timer,
    hand_message,
    play_out,
    press,
    running_bot,
    service,
    wait_for,
)
from tests.e2e.test_computers import alice_and_three_computers, choose_strength

SEED = DEFAULT_SEED + 3  # Alice can show before any computer in this deal


@pytest.fixture
def in_the_loop(monkeypatch) -> Counter[str]:
    """The phases of the decisions the heuristic makes in the bot's own process (the
    pool's workers are other processes: these wrappers do not reach them)."""
    seen: Counter[str] = Counter()
    heuristic = engine.players.choose_action
    main = threading.main_thread()

    def recorded(obs, rng):
        if threading.current_thread() is main:
            seen[obs.phase] += 1
        return heuristic(obs, rng)

    monkeypatch.setattr(engine.players, "choose_action", recorded)
    monkeypatch.setitem(computer.BUDGET_MS, "normal", 10)  # a light search: a quick test
    return seen


async def start_with_computers(world, app, group, alice) -> int:
    await choose_strength(world, alice, group, "普通")
    return await alice_and_three_computers(world, group, alice)


async def test_a_computer_declares_and_buries_through_the_pool(tmp_path, in_the_loop):
    async with FakeTelegram() as world:
        world.settle_timeout = 120
        alice = world.user("Alice", language_code="zh-hans")
        group = world.group("牌桌", admins=[alice])
        async with running_bot(world, tmp_path / "db", next_hand_delay_seconds=0.01) as app:
            svc = service(app)
            game_id = await start_with_computers(world, app, group, alice)
            game = svc.games[game_id]
            await play_out(
                world, app, game_id, {0: alice}, stop=lambda g: g.match.hand.phase == "playing"
            )
            hand = game.match.hand
            shows = hand.declaring.shows
            assert shows and hand.declaring.declarer == hand.dealer != 0, "a computer declared"
            assert hand.buried_by == hand.dealer and hand.kitty, "and buried"
            assert svc.deadlines.computers.searched["dealing"] >= 1, "its show was searched"
            assert svc.deadlines.computers.searched["burying"] == 1, "so was its bury"
            assert not in_the_loop, "no computer decided in the event loop"
            texts = "\n".join(world.texts(group))
            assert "出错" not in texts and "went wrong" not in texts


async def test_托管_buries_for_a_player_through_the_pool(tmp_path, in_the_loop):
    async with FakeTelegram() as world:
        world.settle_timeout = 120
        alice = world.user("Alice", language_code="zh-hans")
        group = world.group("牌桌", admins=[alice])
        async with running_bot(world, tmp_path / "db", seed=SEED, deal_pace_seconds=0.5) as app:
            svc = service(app)
            game_id = await start_with_computers(world, app, group, alice)
            await world.settle()
            game = svc.games[game_id]
            # Alice shows as soon as her DM offers it (she looks at every batch: the
            # computers may think longer than the deal's pace, which then waits for them)
            while game.match.hand.phase == "dealing":
                msg = hand_message(world, alice, game_id)
                if find(msg, "D") is not None:
                    await press(alice, msg, "D")
                    break
                await asyncio.sleep(0.01)
            await play_out(
                world,
                app,
                game_id,
                {0: alice},
                stop=lambda g: g.match.hand.phase not in ("dealing", "after_deal"),
            )
            hand = game.match.hand
            assert hand.phase == "burying" and hand.turn == 0, "Alice is to bury"
            await fire_timer(world, app, game_id, "timeout")  # she idles: 托管
            assert game.rec.seats[0].auto
            assert hand.buried_by == 0 and hand.phase != "burying"
            assert svc.deadlines.computers.searched["burying"] == 1
            assert not in_the_loop, "no computer decided in the event loop"


@asynccontextmanager
async def alice_and_three_computers_at_normal(tmp_path) -> AsyncIterator[tuple[Any, ...]]:
    """(world, app, alice, the game's id, the game) for a game Alice (zh) plays with three
    computers at 普通."""
    async with FakeTelegram() as world:
        world.settle_timeout = 120
        alice = world.user("Alice", language_code="zh-hans")
        group = world.group("牌桌", admins=[alice])
        # the wall-clock ceiling out of reach: on a busy test machine it would cut the
        # Hint's search to the heuristic's play (what these tests look at is the search's)
        ceiling = {"computer_wall_factor": 30.0, "computer_wall_max_seconds": 2.0}
        async with running_bot(world, tmp_path / "db", seed=SEED, **ceiling) as app:
            game_id = await start_with_computers(world, app, group, alice)
            yield world, app, alice, game_id, service(app).games[game_id]


def hers(g) -> bool:
    """Alice (seat 0) is to play a card."""
    hand = g.match.hand
    return hand.phase == "playing" and hand.turn == 0


async def test_a_hint_at_a_search_strength_is_the_searchs_and_says_its_odds(tmp_path):
    # 普通: Alice's Hint is the search's play, decided in the pool, and her DM says why in
    # the search's figures (x in 10 deals, points), not only the heuristic's rule
    from bot.views.reason_line import reason_line

    async with alice_and_three_computers_at_normal(tmp_path) as (world, app, alice, game_id, game):
        svc = service(app)
        kinds: Counter[str] = Counter()
        for _ in range(8):
            await play_out(world, app, game_id, {0: alice}, stop=hers)
            searched = svc.deadlines.computers.searched["playing"]
            await press(alice, hand_message(world, alice, game_id), "H")
            hint = game.rec.seats[0].ui.hint
            assert hint is not None
            assert svc.deadlines.computers.searched["playing"] == searched + 1  # the pool
            kinds[hint.reason.kind] += 1
            ctx = game.match.hand.ctx
            line = reason_line("zh", ctx.sorted(list(hint.cards)), hint.reason, own=True)
            assert line in hand_message(world, alice, game_id).text
            await press(alice, hand_message(world, alice, game_id), "P")
            if kinds["search"] >= 2:
                break
        assert kinds["search"] >= 2, kinds


async def test_a_searched_hint_is_answered_at_once_and_arrives_as_its_own_change(tmp_path):
    # 普通: the press is answered before the search ends ("thinking"), the suggestion
    # shows in the DM when it ends; a second Hint meanwhile starts no second search; a
    # search whose moment passed (Alice played meanwhile) is dropped, changing nothing
    from bot.i18n import t

    async with alice_and_three_computers_at_normal(tmp_path) as (world, app, alice, game_id, game):
        hands = app.bot_data.hands
        real = hands.computers
        gate = asyncio.Event()
        asked: list[int] = []

        class Held:  # the Hint's search, held until the test lets go (the computers'
            # moves ask the same pool through the timers, not through this)
            def searches(self, strength):
                return real.searches(strength)

            async def suggest(self, strength, obs, rng):
                asked.append(obs.seat)
                suggestion = await real.suggest(strength, obs, rng)
                await gate.wait()
                return suggestion

        hands.computers = Held()

        for stale in (False, True):
            await play_out(world, app, game_id, {0: alice}, stop=hers)
            gate.clear()
            asked.clear()
            game.rec.seats[0].ui.hint = None
            hand = game.match.hand
            refused = (
                (Hint(alice.id, hand.hand_number + 1, hand.version), "stale"),
                (
                    Hint(alice.id, hand.hand_number, hand.version, old_message=True),
                    "dm.old_message",
                ),
            )
            for command, key in refused:  # the table's own answer at once, no search
                answer = await hands.press(game, command)
                assert answer.key == key and asked == []
            msg = hand_message(world, alice, game_id)
            first = await press(alice, msg, "H", settle=False)
            await wait_for(world, lambda r=first: r.answered)
            assert first.text == t("zh", "hint.thinking")
            assert game.rec.seats[0].ui.hint is None  # not yet: the search is held
            again = await press(alice, msg, "H", settle=False)
            await wait_for(world, lambda r=again: r.answered)
            assert again.text == t("zh", "hint.thinking") and asked == [0]
            if stale:  # Alice plays (as her Mini App would) before the suggestion comes
                hand = game.match.hand
                version = hand.version
                cards = suggest(hand.observation(0), random.Random(1))
                play = Play(alice.id, hand.hand_number, version, cards=tuple(cards))
                await hands.press(game, play)
                assert game.match.hand.version > version
                await world.settle()
                selection = list(game.rec.seats[0].ui.selection)
            gate.set()
            await world.settle()
            hint = game.rec.seats[0].ui.hint
            if stale:
                assert hint is None and game.rec.seats[0].ui.selection == selection
            else:
                assert hint is not None and hint.version == game.match.hand.version
                assert sorted(game.rec.seats[0].ui.selection) == sorted(hint.cards)
                assert "💡" in hand_message(world, alice, game_id).text
                await press(alice, hand_message(world, alice, game_id), "P")
                await world.settle()
