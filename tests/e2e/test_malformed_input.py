"""Input the bot did not make, at both edges of a running bot: callback data of every
malformed kind pressed in a DM and in the group, and JSON actions posted to the Mini App.
Each is answered politely at the edge ("Unknown button."), a forged but well-formed one
by the table with the rules' own words; nothing changes and nothing is logged at ERROR
(issue 26: a forged show used to raise inside the table, roll back and apologise)."""

from __future__ import annotations

import json
import logging

from bot.fake_telegram import FakeTelegram
from bot.i18n import t
from bot.views import codec
from engine.hand import Play, Show
from tests.e2e.harness import find, hand_message, play_out, running_bot, service
from tests.e2e.test_resilience import start_with_computers
from tests.webapp.client import session, webapp
from tests.webapp.test_api import _refusal

BAD = t("en", "bad_button")
STALE = t("en", "stale")


def malformed_callback_data(g: str, h: str, v: str) -> list[str]:
    """Every way callback data can be wrong; ``g``, ``h``, ``v``: the live game, hand and
    version in base 36 (so only the one thing named is wrong)."""
    return [
        "",
        "garbage",
        f"P|{g}|{h}|{v}",  # too few fields
        f"P|{g}|{h}|{v}||",  # too many
        "|||||||",
        f"Z|{g}|{h}|{v}|",  # no such kind
        f"PP|{g}|{h}|{v}|",
        f"cfgx|{g}|{h}",
        f"P|G!|{h}|{v}|",  # not base 36
        f"P|{g}|-1|{v}|",
        f"P|{g}|{h}|{v.upper()}Z|",
        f"P|{'1' * 13}|{h}|{v}|",  # a number too long
        f"T|{g}|{h}|{v}|~0",  # not a card letter
        f"T|{g}|{h}|{v}|Z0",  # a letter of the alphabet, but no card's
        f"T|{g}|{h}|{v}|a2",  # no third copy
        f"T|{g}|{h}|{v}|a",
        f"T|{g}|{h}|{v}|a01",
        f"D|{g}|{h}|{v}|Z",  # a show of no card (the case)
        f"D|{g}|{h}|{v}|",
        f"P|{g}|{h}|{v}|ab",  # "play" plays the selection: it carries no cards
        f"H|{g}|{h}|{v}|a",
        f"G|{g}|{h}|{v}|a",
        f"S|{g}|{h}|0|",  # a lobby button has no hand
        f"E|{g}|{h}|{v}|",  # the /endgame question has no version
        f"P|{g}|{h}|{v}|" + "a" * 60,  # over 64 bytes
        "T|" + "z" * 13 + "|1|1|a0",
        f"P|{g}|{h}|{v}|\x00\x01",
        "P|\udcff|1|1|",  # not valid Unicode (invalid UTF-8 on the wire)
        "\udcff\udcfe",
        "cfg|lang|\udcff",
        "cfg|lang",
        "cfg|lang|en|x",
        "cfg||en",
        "cfg|lang|e n",
    ]


def malformed_actions(game: int, hand: int, version: int) -> list[bytes]:
    """Every way a Mini App action's body can be wrong."""
    ok = {"game": game, "action": "hint", "hand": hand, "version": version}
    bodies: list[object] = [
        {k: v for k, v in ok.items() if k != "action"},
        {k: v for k, v in ok.items() if k != "game"},
        {**ok, "action": "fly"},
        {**ok, "action": 3},
        {**ok, "action": None},
        {**ok, "game": str(game)},
        {**ok, "game": True},
        {**ok, "hand": -1},
        {**ok, "version": 1.5},
        {**ok, "version": 10**30},
        {**ok, "version": "3"},
        {**ok, "hand": True},
        {**ok, "action": "play", "cards": "abc"},
        {**ok, "action": "play", "cards": ["3"]},
        {**ok, "action": "play", "cards": [54]},
        {**ok, "action": "play", "cards": [-1]},
        {**ok, "action": "play", "cards": [3.0]},
        {**ok, "action": "play", "cards": [True]},
        {**ok, "action": "play", "cards": [[1]]},
        {**ok, "action": "play", "cards": {"0": 1}},
        {**ok, "action": "play", "cards": [0] * 41},
        {**ok, "action": "show", "cards": []},
        {**ok, "action": "show"},
        {**ok, "action": "hint", "cards": [1]},
        [],
        3,
        "play",
        None,
    ]
    raw = [json.dumps(b).encode() for b in bodies]
    return [*raw, b"", b"{nope", b"\xff\xfe{}", b'{"game": 1, "action": "hint"'] + [
        b'{"game": 1, "action": "hint", "hand": NaN}'
    ]


async def test_malformed_input_at_either_edge_is_refused_politely_and_logs_no_error(
    tmp_path, caplog
):
    caplog.set_level(logging.INFO)
    async with FakeTelegram() as world:
        alice = world.user("Alice")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db") as app, webapp(app) as client:
            game_id = await start_with_computers(world, group, [alice])
            await play_out(
                world,
                app,
                game_id,
                {0: alice},
                stop=lambda g: g.match.hand.turn == 0 and g.match.hand.phase == "playing",
            )
            game = service(app).games[game_id]
            before = (game.rec.model_dump_json(), game.match.model_dump_json())
            msg = hand_message(world, alice, game_id)
            table = world.last_message(group, from_bot=True)
            p = codec.decode(find(msg, "P").data)
            g, h, v = (codec.b36(n) for n in (p.game, p.hand, p.version))
            hand = game.match.hand
            missing = next(c for c in range(54) if c not in hand.hands[0])
            letter = codec.encode_cards([missing])

            # callback data: the malformed, pressed in the DM and in the group
            bad = malformed_callback_data(g, h, v)
            records = [world.core.callback(alice.user, m, d) for d in bad for m in (msg, table)]
            # well-formed, but not what this table can do: the table's own answer
            forged = {
                f"D|{g}|{h}|{v}|{letter}": (_refusal(game.match, Show(seat=0, cards=[missing]))),
                f"T|{g}|{h}|{v}|{letter}0": STALE,  # a card not held
                f"G|{g}|{h}|{v}|": STALE,  # "Next hand" in the middle of a hand
                f"S|{g}|0|0|": STALE,  # "Start" of a running game
                f"P|{codec.b36(p.game + 99)}|{h}|{v}|": STALE,  # no such game
            }
            told = {d: world.core.callback(alice.user, msg, d) for d in forged}
            await world.settle()
            for record in records:
                assert record.answered and record.text == BAD, (record.data, record.text)
            for data, record in told.items():
                assert record.answered and record.text == forged[data], (data, record.text)

            # the Mini App: malformed bodies are refused with the same words
            app_of_alice = session(client, app, alice)
            for body in malformed_actions(game_id, hand.hand_number, hand.version):
                r = await client.post("/api/act", data=body, headers=app_of_alice.headers)
                assert r.status == 400, body
                answer = await r.json()
                assert answer["text"] == BAD and answer["alert"], (body, answer)
            # well-formed ones the rules refuse: the DM's own words
            view = await app_of_alice.view(game_id)
            answer = await app_of_alice.act(game_id, "show", view, cards=[missing])
            expected = _refusal(game.match, Show(seat=0, cards=[missing]))
            assert (answer["text"], answer["alert"]) == (expected, True)
            answer = await app_of_alice.act(game_id, "play", view, cards=[missing])
            expected = _refusal(game.match, Play(seat=0, cards=[missing]))
            assert (answer["text"], answer["alert"]) == (expected, True)
            old = {**view, "hand_no": view["hand_no"] + 1}
            answer = await app_of_alice.act(game_id, "play", old, cards=[missing])
            assert answer["text"] == STALE

            await world.settle()
            assert (game.rec.model_dump_json(), game.match.model_dump_json()) == before
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not errors, [r.getMessage() for r in errors]
