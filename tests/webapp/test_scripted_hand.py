"""The whole scripted hand of tests/e2e/test_hand.py, played through the Mini App only.

The same fixed deal and policy (``tests.e2e.scripted``): a declaration during the deal,
an overturn after it, the window passed, the burial with the cards picked up from the
kitty shown apart, a throw that fails (shown to every reader as such, its penalty in
the points panel), a follow the engine refuses (answered in the DM's words), the result.
"""

from collections import Counter

from bot.fake_telegram import FakeTelegram
from bot.i18n import t
from engine.players import suggest
from tests.e2e.harness import find, fire_timer, running_bot, seat_players, service
from tests.e2e.scripted import (
    DEAL_BATCH,
    bury_choice,
    first_declaration,
    leads_so_far,
    overturn,
    planned_lead,
    refused_follow,
    simulate,
)
from tests.e2e.test_hand import NEVER, SEED
from tests.webapp.client import session, webapp


async def test_a_scripted_hand_through_the_mini_app(tmp_path):
    expected = simulate(SEED)
    async with FakeTelegram() as world:
        people = [world.user(n, started=True) for n in ("Alice", "Bob", "Chen", "Dana")]
        group = world.group("Table", members=people[1:], admins=people[:1])
        async with (
            running_bot(
                world,
                tmp_path / "db",
                seed=SEED,
                deal_batch=DEAL_BATCH,
                deal_pace_seconds=NEVER,
                overturn_window_seconds=NEVER,
                turn_timeout_seconds=NEVER,
                next_hand_delay_seconds=NEVER,
            ) as app,
            webapp(app) as client,
        ):
            game_id, lobby = await seat_players(world, group, people)
            lobby = world.last_message(group, from_bot=True)
            await people[0].press(lobby, data=find(lobby, "S").data, settle=True)
            game = service(app).games[game_id]
            hand = game.match.hand
            apps = {seat: session(client, app, user) for seat, user in enumerate(people)}

            async def act(seat, action, **body):
                return await apps[seat].act(game_id, action, await apps[seat].view(game_id), **body)

            # -- a declaration while the cards arrive, an overturn after the deal
            await fire_timer(world, app, game_id, "deal")
            declarer, cards = first_declaration(hand)
            view = await apps[declarer].view(game_id)
            assert cards in [o["cards"] for o in view["me"]["shows"]]
            answer = await act(declarer, "show", cards=cards)
            assert not answer["alert"] and answer["view"]["shows"][0]["seat"] == declarer
            await fire_timer(world, app, game_id, "deal")
            dealer, cards2 = overturn(hand, declarer)
            assert (declarer, dealer) == (expected.declarer, expected.overturner)
            assert not (await act(dealer, "show", cards=cards2))["alert"]
            before = list(hand.hands[dealer])
            for seat in range(4):
                assert (await act(seat, "pass"))["text"] == t("en", "ack.pass")
            assert hand.phase == "burying" and hand.turn == dealer

            # -- the burial: the kitty's cards apart in the dealer's view, nobody else's
            view = await apps[dealer].view(game_id)
            picked = Counter(hand.hands[dealer]) - Counter(before)
            assert Counter(view["me"]["picked"]) == picked and sum(picked.values()) == 8
            assert (await apps[0].view(game_id))["me"]["picked"] is None
            bury = bury_choice(hand, dealer)
            assert not (await act(dealer, "play", cards=bury))["alert"]
            assert Counter(hand.kitty) == Counter(bury)
            view = await apps[dealer].view(game_id)
            assert Counter(c["id"] for c in view["me"]["kitty"]) == Counter(bury)
            assert (await apps[(dealer + 1) % 4].view(game_id))["me"]["kitty"] is None

            # -- the tricks: planned leads, one refused follow, the engine's choice otherwise
            refused = None
            failed_seen = False
            while hand.phase == "playing":
                seat = hand.turn
                trick = hand.current_trick
                if not trick.plays and (plan := planned_lead(hand, seat)) is not None:
                    answer = await act(seat, "play", cards=plan[1])
                    assert not answer["alert"], answer
                    if plan[0] == "failed_throw":
                        lead = next(tr.plays[0] for tr in hand.tricks if tr.plays[0].attempted)
                        view = await apps[(seat + 1) % 4].view(game_id)
                        shown = view["trick"]["plays"][0]
                        assert Counter(c["id"] for c in shown["attempted"]) == Counter(
                            lead.attempted
                        )
                        assert Counter(c["id"] for c in shown["cards"]) == Counter(lead.cards)
                        assert view["points"]["penalty"] != 0
                        failed_seen = True
                    continue
                if trick.plays and refused is None and (bad := refused_follow(hand, seat)):
                    answer = await act(seat, "play", cards=bad)
                    assert answer["alert"]
                    assert answer["text"] == t("en", "reason.must_follow_suit")
                    refused = seat
                answer = await act(seat, "play", cards=list(suggest(hand.observation(seat))))
                assert not answer["alert"], answer
            assert failed_seen and refused is not None
            assert leads_so_far(hand) == expected.leads

            # -- the result, in every reader's view
            for seat in range(4):
                view = await apps[seat].view(game_id)
                assert view["phase"] == "done" and view["result"]["winner"] == hand.result.winner
                assert Counter(c["id"] for c in view["kitty"]) == Counter(bury)
