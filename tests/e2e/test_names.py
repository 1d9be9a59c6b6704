"""A name is shown bidi-isolated (U+2068 … U+2069) wherever it appears: a name holding
a right-to-left override (U+202E) reverses nothing outside itself."""

from bot.fake_telegram import FakeTelegram
from tests.e2e.harness import play_out, running_bot
from tests.e2e.test_resilience import start_with_computers

RLO, FSI, PDI = "\u202e", "\u2068", "\u2069"


def overrides_escaping_their_name(text: str) -> list[str]:
    """The lines of ``text`` where an override is not closed by the PDI of an isolate
    opened before it (Unicode UAX #9: the PDI ends what the name opened)."""
    bad = []
    for line in text.splitlines():
        depth, open_override = 0, False
        for ch in line:
            if ch == FSI:
                depth += 1
            elif ch == PDI:
                depth, open_override = max(0, depth - 1), False
            elif ch == RLO:
                open_override = open_override or depth == 0
        if open_override or depth:
            bad.append(line)
    return bad


async def test_a_name_with_a_right_to_left_override_reverses_nothing_around_it(tmp_path):
    async with FakeTelegram() as world:
        eve = world.user(f"{RLO}Eve")
        bob = world.user("Bob")
        group = world.group(f"{RLO}Tafel", members=[bob], admins=[eve])
        async with running_bot(world, tmp_path / "db", default_language="en") as app:
            game_id = await start_with_computers(world, group, [eve, bob])
            await play_out(
                world,
                app,
                game_id,
                {0: eve, 1: bob},
                stop=lambda g: g.match.hand.phase == "playing" and len(g.match.hand.tricks) >= 3,
            )
            await eve.send(group, "/endgame")
            await world.settle()
            await eve.press(world.last_message(group, from_bot=True), text="⏹ Yes, end it")
            await world.settle()
            # every text the bot sent or edited in, and every answer to a press
            shown = [
                str(r.params.get("text") or r.params.get("caption") or "") for r in world.requests()
            ]
            with_eve = [x for x in shown if "Eve" in x]
            # the lobby, the tables, the trick lines of both DMs, the /endgame answer
            assert len(with_eve) >= 10
            assert any("ended the game" in x for x in with_eve)
            assert any(f"{FSI}{RLO}Eve{PDI}" in x and "Trick" in x for x in world.texts(bob))
            bad = [line for x in shown for line in overrides_escaping_their_name(x)]
            assert not bad, bad


def test_the_checker_sees_a_raw_override():
    assert overrides_escaping_their_name(f"Trick 1: {RLO}Eve ♠️A · Bob ♠️3")
    assert not overrides_escaping_their_name(f"Trick 1: {FSI}{RLO}Eve{PDI} ♠️A · Bob ♠️3")
