"""A whole hand by four people through their DMs: join (one never started the bot), the
race to declare, burying, tricks with pairs and tractors, a throw, a failed throw, the
result; then the hint-driven rest of a short match."""

import asyncio

from bot import codec
from engine.ranking import TRUMP
from engine.tricks import check_throw
from engine.units import decompose
from tests.e2e.harness import (
    buttons,
    find,
    hand_message,
    play_out,
    press,
    press_of,
    running_bot,
    seat_players,
    service,
)
from tests.fakes.telegram import FakeTelegram


def throw_candidates(hand, seat):
    """Multi-unit leads of one suit class: (cards, forced or None)."""
    ctx = hand.ctx
    mine = hand.hands[seat]
    others = [hand.hands[(seat + i) % 4] for i in (1, 2, 3)]
    out = []
    for klass in (0, 1, 2, 3, TRUMP):
        cards = [c for c in mine if ctx.suit_class[c] == klass]
        for size in range(len(cards), 1, -1):
            lead = sorted(cards, key=lambda c: -ctx.order[c])[:size]
            units = decompose(ctx, lead)
            if units is None or len(units) < 2:
                continue
            out.append((lead, check_throw(ctx, lead, others)))
    return out


async def select_and_play(world, user, game_id, cards):
    for card in cards:
        msg = hand_message(world, user, game_id)
        copies = [
            b
            for b in buttons(msg)
            if b.data
            and (p := press_of(b))
            and p.kind == "T"
            and codec.decode_cards(p.arg[0])[0] == card
            and not b.text.startswith("✓")
        ]
        await user.press(msg, data=copies[0].data)
        await world.settle()
    return await press(user, hand_message(world, user, game_id), "P")


async def test_four_people_play_a_whole_hand_through_their_dms(tmp_path):
    async with FakeTelegram() as world:
        people = [
            world.user("Alice", started=True),
            world.user("Bob", started=True),
            world.user("Chen", language_code="zh-hans", started=True),
            world.user("Dana"),  # never started the bot
        ]
        group = world.group("Table", members=people[1:], admins=people[:1])
        async with running_bot(world, tmp_path / "db", deal_batch=2, deal_pace_seconds=0.05) as app:
            game_id, lobby = await seat_players(world, group, people)
            assert "seat 4" in world.last_message(people[3], from_bot=True).text
            lobby = world.last_message(group, from_bot=True)
            await people[0].press(lobby, data=find(lobby, "S").data)
            await world.settle()
            svc = service(app)
            game = svc.games[game_id]
            users = dict(enumerate(people))

            # The race to declare: whoever sees a Show button first presses it.
            shown_by, answers = [], []
            while game.match.hand.phase in ("dealing", "after_deal") and len(shown_by) < 2:
                for seat, user in users.items():
                    if seat in shown_by:
                        continue
                    msg = hand_message(world, user, game_id)
                    if find(msg, "D") is not None:
                        answers.append(await press(user, msg, "D", settle=False))
                        shown_by.append(seat)
                await asyncio.sleep(0.01)
            await world.settle()
            assert answers and all(a.answered for a in answers)
            hand = game.match.hand
            assert hand.declaring.shows and hand.declaring.shows[0].seat == shown_by[0]
            await world.settle()
            assert any("shows" in t or "亮" in t for t in world.texts(group))

            # Let the window close (everybody passes), then the dealer buries via Hint.
            await play_out(
                world, app, game_id, users, stop=lambda g: g.match.hand.phase == "playing"
            )
            hand = game.match.hand
            dealer = hand.dealer
            kitty = list(hand.kitty)
            for seat, user in users.items():
                dm = "\n".join(m.text for m in world.transcript(user) if m.from_bot)
                if seat != dealer:
                    assert "Kitty you buried" not in dm and "你扣的底牌" not in dm
            # the dealer's DM shows the buried kitty, nobody's group message does
            assert kitty

            # Tricks: throws when a leader has one, the hint otherwise.
            did_throw = did_fail = False
            while hand.phase == "playing":
                await world.settle()
                seat = hand.turn
                trick = hand.current_trick
                leading = trick is not None and not trick.plays
                if leading and not (did_throw and did_fail):
                    options = throw_candidates(hand, seat)
                    ok = [c for c, forced in options if forced is None]
                    bad = [(c, f) for c, f in options if f is not None]
                    if bad and not did_fail:
                        cards, forced = bad[0]
                        answer = await select_and_play(world, users[seat], game_id, cards)
                        assert answer.answered and not answer.show_alert
                        record = hand.tricks[-1].plays[0]
                        assert record.attempted == cards and sorted(record.cards) == sorted(forced)
                        did_fail = True
                        continue
                    if ok and not did_throw:
                        answer = await select_and_play(world, users[seat], game_id, ok[0])
                        assert not answer.show_alert
                        did_throw = True
                        continue
                msg = hand_message(world, users[seat], game_id)
                await press(users[seat], msg, "H")
                await press(users[seat], hand_message(world, users[seat], game_id), "P")
            await world.settle()
            assert did_fail, "no failed throw happened in this deal"
            texts = world.texts(group)
            assert any("tried to throw" in t or "甩牌" in t for t in texts)
            # pairs and tractors were led
            leads = [decompose(hand.ctx, t.plays[0].cards) for t in hand.tricks]
            assert any(u.pairs >= 1 for us in leads if us for u in us)
            # the result: kitty revealed to all, points with the bonus, next dealer
            result = world.last_message(group, from_bot=True)
            assert "Kitty" in result.text or "底牌" in result.text
            assert hand.result is not None
            # no card of a hand was ever in the group before it was played
            assert find(result, "G") is not None

            # the next hand starts with the button
            await play_out(
                world, app, game_id, users, stop=lambda g: g.match.hand_number > 1, group=group
            )
            assert game.match.hand_number == 2
