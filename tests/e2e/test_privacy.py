"""Privacy through a whole hand (RULES.md 13): the group never sees a card before it is
public (played, shown to declare, the kitty shown when nobody declared, the kitty at the
end), and no DM ever holds another player's unplayed cards."""

import asyncio
from collections import Counter

from bot.fake_telegram import FakeTelegram
from tests.e2e.harness import find, hand_message, play_out, press, running_bot, seat_players
from tests.e2e.harness import service as service_of
from tests.e2e.seen import cards_in, public
from tests.e2e.test_manage import keyboard_cards


def within(shown, allowed):
    return not (shown - allowed)


async def test_the_group_and_each_dm_show_only_what_their_readers_may_see(tmp_path):
    async with FakeTelegram() as world:
        people = [world.user(n, started=True) for n in ("Ann", "Ben", "Cai", "Dee")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        users = dict(enumerate(people))
        checks = Counter()
        async with running_bot(world, tmp_path / "db", deal_batch=2, deal_pace_seconds=0.05) as app:
            game_id, lobby = await seat_players(world, group, people)
            lobby = world.last_message(group, from_bot=True)
            await people[0].press(lobby, data=find(lobby, "S").data)
            await world.settle()
            game = service_of(app).games[game_id]

            def check(_game=None):
                hand = game.match.hand
                seen = public(hand)
                for msg in world.transcript(group):
                    if msg.from_bot:
                        assert within(cards_in(msg.text), seen), msg.text
                        checks["group"] += 1
                for seat, user in users.items():
                    mine = Counter(hand.hands[seat]) + seen
                    if hand.buried_by == seat:
                        mine += Counter(hand.kitty)
                    for msg in world.transcript(user):
                        if msg.from_bot:
                            assert within(cards_in(msg.text), mine), (user.name, msg.text)
                            assert within(Counter(keyboard_cards(msg)), Counter(hand.hands[seat]))
                    msg = hand_message(world, user, game_id)
                    if hand.phase in ("burying", "playing") and keyboard_cards(msg):
                        if hand.phase == "playing" or hand.turn == seat:
                            assert Counter(keyboard_cards(msg)) == Counter(hand.hands[seat])
                            checks["keyboard"] += 1
                return False

            # someone declares (shows are public)
            while (
                game.match.hand.phase in ("dealing", "after_deal")
                and not game.match.hand.declaring.shows
            ):
                check()
                for user in users.values():
                    msg = hand_message(world, user, game_id)
                    if find(msg, "D") is not None:
                        await press(user, msg, "D")
                        break
                await asyncio.sleep(0.01)
            await play_out(
                world,
                app,
                game_id,
                users,
                stop=lambda g: check() or g.match.hand.phase == "done",
            )
            await world.settle()
            check()
            assert game.match.hand.phase == "done"
            assert game.match.hand.declaring.shows, "nobody declared"
            assert checks["group"] > 100 and checks["keyboard"] > 50
