"""A whole hand by four people through their DMs, every step a tap on a button: joining
(one never started the bot), the race to declare (a show during the deal, an overturn
after it), burying by tapping 8 cards, tricks with a failed throw, a throw, a tractor and
a pair led, a follow the engine refuses, the result; then the next hand by its button.

The deal is fixed (SEED) and the timers are run by the test, so every step is certain;
``tests.e2e.scripted`` holds the policy and checks the seed on the engine alone."""

import html
import re
from collections import Counter

from bot.fake_telegram import FakeTelegram
from bot.i18n import t
from bot.views import codec
from bot.views.card_labels import cards_label
from bot.views.group_table import result_points, signed
from bot.views.names import isolate
from engine.records import failed_throw_penalty
from tests.e2e.harness import (
    buttons,
    find,
    fire_timer,
    hand_message,
    press,
    press_of,
    running_bot,
    seat_players,
    service,
    wait_for,
)
from tests.e2e.scripted import (
    DEAL_BATCH,
    GOALS,
    bury_choice,
    first_declaration,
    lead_kind,
    leads_so_far,
    overturn,
    planned_lead,
    refused_follow,
    simulate,
)
from tests.e2e.seen import shown

# hand 1 of this deal: Alice (seat 1) declares during the deal, Dana (seat 4) overturns
# after it and deals; every lead shape happens, Alice breaks the follow-suit rule in the
# first trick, and the attackers win the last trick over a kitty with points
SEED = 1065
NEVER = 3600.0  # a timer the test runs itself (or that must not fire)


def plain(text: str) -> str:
    """A catalog text as the reader sees it (HTML tags gone, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", "", text))


def in_group(world, group, line: str) -> bool:
    return any(line in m.text for m in world.transcript(group) if m.from_bot)


async def tap(world, user, game_id, card: int):
    """Tap the first unselected button of ``card`` in the user's hand keyboard."""
    msg = hand_message(world, user, game_id)
    copies = [
        b
        for b in buttons(msg)
        if b.data
        and (p := press_of(b)) is not None
        and p.kind == "T"
        and codec.decode_cards(p.arg[0])[0] == card
        and not b.text.startswith("✓")
    ]
    assert copies, f"{user.name}: no {card} to tap in {msg.keyboard()}"
    return await user.press(msg, data=copies[0].data, settle=True)


async def attempt(world, hand, user, game_id, cards: list[int]):
    """Play ``cards`` by tapping them, then ▶️ Play (Bury while burying); following a
    one-card lead, the tap itself plays. Returns the press that acted."""
    trick = hand.current_trick
    if hand.phase == "playing" and trick is not None and len(trick.plays) > 0:
        if len(trick.plays[0].cards) == 1:
            assert len(cards) == 1
            return await tap(world, user, game_id, cards[0])
    for card in cards:
        answer = await tap(world, user, game_id, card)
        assert answer.answered and not answer.show_alert
    return await press(user, hand_message(world, user, game_id), "P")


async def show(world, user, game_id, cards: list[int]):
    msg = hand_message(world, user, game_id)
    for b in buttons(msg):
        p = press_of(b) if b.data else None
        if p is not None and p.kind == "D" and p.cards == cards:
            return await user.press(msg, data=b.data, settle=True)
    raise AssertionError(f"{user.name}: no Show {cards} in {msg.keyboard()}")


def test_the_seed_of_the_whole_hand_test_has_everything_it_needs():
    expected = simulate(SEED)
    assert expected.fit, expected
    assert (expected.declarer, expected.overturner) == (0, 3)


async def test_four_people_play_a_whole_hand_through_their_dms(tmp_path):
    expected = simulate(SEED)
    async with FakeTelegram() as world:
        people = [
            world.user("Alice", started=True),
            world.user("Bob", started=True),
            world.user("Chen", language_code="zh-hans", started=True),
            world.user("Dana"),  # never started the bot: joins through the deep link
        ]
        group = world.group("Table", members=people[1:], admins=people[:1])
        users = dict(enumerate(people))
        async with running_bot(
            world,
            tmp_path / "db",
            seed=SEED,
            deal_batch=DEAL_BATCH,
            deal_pace_seconds=NEVER,
            overturn_window_seconds=NEVER,
            turn_timeout_seconds=NEVER,
            next_hand_delay_seconds=NEVER,
        ) as app:
            game_id, lobby = await seat_players(world, group, people)
            assert "seat 4" in world.last_message(people[3], from_bot=True).text
            lobby = world.last_message(group, from_bot=True)
            await people[0].press(lobby, data=find(lobby, "S").data, settle=True)
            game = service(app).games[game_id]
            assert game.rec.seed == SEED
            assert game.rec.seats[3].user_id == people[3].id
            hand = game.match.hand

            def name(seat):
                return isolate(people[seat].name)  # as texts show a name

            # -- the race to declare: a show during the deal, an overturn after it
            await fire_timer(world, app, game_id, "deal")
            assert hand.phase == "dealing" and hand.dealt == 4 * DEAL_BATCH
            declarer, cards = first_declaration(hand)
            assert declarer == expected.declarer == 0
            answer = await show(world, users[declarer], game_id, cards)
            assert answer.answered and not answer.show_alert
            first_line = t(
                "en",
                "table.show",
                name=name(declarer),
                action=t("en", "show.declare"),
                cards=cards_label(cards, "en"),
            )
            assert in_group(world, group, first_line)
            assert hand.declaring.dealer == declarer

            await fire_timer(world, app, game_id, "deal")
            assert hand.phase == "after_deal"
            dealer, cards2 = overturn(hand, declarer)
            assert dealer == expected.overturner == 3
            answer = await show(world, users[dealer], game_id, cards2)
            assert answer.answered and not answer.show_alert
            assert [(s.seat, s.kind) for s in hand.declaring.shows] == [
                (declarer, "declare"),
                (dealer, "overturn"),
            ]
            assert hand.declaring.dealer == dealer and hand.declaring.multiplier == 2
            second_line = t(
                "en",
                "table.show",
                name=name(dealer),
                action=t("en", "show.overturn"),
                cards=cards_label(cards2, "en"),
            )
            table = next(m for m in world.transcript(group) if first_line in m.text)
            assert second_line in table.text  # the group's table lists both shows

            for user in people:  # the window closes when all four pass
                answer = await press(user, hand_message(world, user, game_id), "N")
                assert answer.answered and not answer.show_alert
            assert hand.phase == "burying" and hand.turn == dealer

            # -- burying: the dealer taps 8 cards, then Bury (8/8)
            bury = bury_choice(hand, dealer)
            answer = await attempt(world, hand, users[dealer], game_id, bury)
            assert answer.answered and not answer.show_alert
            assert hand.phase == "playing" and Counter(hand.kitty) == Counter(bury)
            kitty_line = t("en", "dm.kitty", cards=cards_label(bury, "en"))
            assert kitty_line in hand_message(world, users[dealer], game_id).text
            for seat, user in users.items():
                if seat != dealer:
                    dm = "\n".join(m.text for m in world.transcript(user) if m.from_bot)
                    assert "Kitty you buried" not in dm and "你扣的底牌" not in dm
            assert not in_group(world, group, "Kitty")

            # -- the tricks: planned leads, one refused follow, the hint otherwise
            refused = None
            while hand.phase == "playing":
                seat = hand.turn
                user = users[seat]
                trick = hand.current_trick
                index = len(hand.tricks) - 1
                if not trick.plays and (plan := planned_lead(hand, seat)) is not None:
                    goal, cards = plan
                    answer = await attempt(world, hand, user, game_id, cards)
                    assert answer.answered and not answer.show_alert
                    assert lead_kind(hand, index) == goal
                    continue
                if trick.plays and refused is None and (bad := refused_follow(hand, seat)):
                    before = game.match.model_dump_json()
                    answer = await attempt(world, hand, user, game_id, bad)
                    assert answer.answered and answer.show_alert
                    assert answer.text == t(game.rec.seat_lang(seat), "reason.must_follow_suit")
                    assert game.match.model_dump_json() == before  # nothing changed
                    assert hand.turn == seat and len(trick.plays) == 1
                    refused = (index, seat)
                await press(user, hand_message(world, user, game_id), "H")
                answer = await press(user, hand_message(world, user, game_id), "P")
                assert answer.answered and not answer.show_alert
                if hand.phase == "playing" and not hand.current_trick.plays:
                    # the 4th card: the next leader's DM shows the trick just completed and
                    # its winner (when the other DMs are updated is delivery's choice)
                    done = hand.tricks[-2]
                    for reader_seat, reader in users.items():
                        if reader_seat != hand.turn:
                            continue
                        zh = game.rec.seat_lang(reader_seat) == "zh"
                        head = (
                            f"第{index + 1}轮（已结束）："
                            if zh
                            else f"Trick {index + 1} (finished): "
                        )
                        won = f"🏆 {name(done.winner)} +{done.points}" + ("分" if zh else "")

                        def shows_it(reader=reader, head=head, won=won):
                            text = hand_message(world, reader, game_id).text
                            lines = [x for x in text.splitlines() if x.startswith(head)]
                            return bool(lines) and lines[0].endswith(won)

                        # the DM may be paced: it shows the finished trick once updated
                        await wait_for(world, shows_it)
            assert refused == expected.refused_at == (0, 0)
            leads = leads_so_far(hand)
            assert leads == expected.leads and set(GOALS) <= set(leads)

            # the group was told what a failed throw tried and what had to be played
            failed = [t_.plays[0] for t_ in hand.tricks if t_.plays[0].attempted is not None]
            assert failed
            # (the unit that failed, what beat it, the penalty as a figure of its own)
            for play in failed:
                assert play.beaten_by
                line = t(
                    "en",
                    "table.throw_failed.by",
                    tried=cards_label(hand.ctx.sorted(list(play.attempted)), "en"),
                    cards=cards_label(hand.ctx.sorted(list(play.cards)), "en"),
                    beaten_by=cards_label(hand.ctx.sorted(list(play.beaten_by)), "en"),
                    # RULES 13: the seat that shows it is named
                    name=name(play.beaten_by_seat),
                )
                penalty = failed_throw_penalty(hand.rules, play, hand.defenders)
                line += t("en", "table.throw_failed.penalty", penalty=signed(penalty))
                assert any(f"{name(play.seat)}: {line}" in x for x in shown(world, group))
                assert sorted(play.cards) != sorted(play.attempted)

            # -- the result: the kitty shown to all, the points with the bonus, next dealer
            r = hand.result
            assert r is not None and r.kitty_bonus == expected.bonus > 0
            result = world.last_message(group, from_bot=True)
            for line in (
                t("en", "result.kitty", cards=cards_label(r.kitty, "en"), points=r.kitty_points),
                # one amount: the sum that makes it, each term once with its own sign
                result_points(r.trick_points, r.kitty_bonus, r.penalty, r.attackers_points, "en"),
                t("en", "result.next_dealer", name=name(r.next_dealer)),
            ):
                assert plain(line) in result.text
            assert Counter(r.kitty) == Counter(bury)

            # -- the next hand by its button; the old result stops announcing it
            answer = await press(people[1], result, "G")
            assert answer.answered and not answer.show_alert
            assert game.match.hand_number == 2
            old = next(m for m in world.transcript(group) if m.message_id == result.message_id)
            assert not old.buttons()
            assert "starts shortly" not in old.text
            assert t("en", "result.next_dealer.final", name=name(r.next_dealer)) in old.text
            assert plain(t("en", "result.title", n=1)) in old.text
