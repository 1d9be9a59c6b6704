from bot.delivery import publish
from bot.fake_telegram import FakeTelegram
from bot.views import codec
from tests.e2e.harness import buttons, find, play_out, running_bot, seat_players, service
from tests.e2e.test_resilience import start_with_computers


async def test_newgame_in_a_dm_or_twice_in_a_group_is_explained(tmp_path):
    async with FakeTelegram(auto_settle=True) as world:
        alice = world.user("Alice", started=True)
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db"):
            await alice.send("/newgame")
            assert "group" in world.last_message(alice, from_bot=True).text
            await alice.send(group, "/newgame")
            lobby = world.last_message(group, from_bot=True)
            assert "Seat 1" in lobby.text or "1." in lobby.text
            await alice.send(group, "/newgame")
            again = world.last_message(group, from_bot=True)
            assert again.message_id != lobby.message_id
            assert "already" in again.text
            assert len([m for m in world.transcript(group) if m.from_bot]) == 2


async def test_joining_through_the_deep_link_seats_a_player_who_never_started_the_bot(tmp_path):
    async with FakeTelegram(auto_settle=True) as world:
        alice = world.user("Alice")
        bob = world.user("Bob")  # never pressed START
        group = world.group("Table", members=[bob], admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            game_id, lobby = await seat_players(world, group, [alice, bob])
            reply = world.last_message(bob, from_bot=True)
            assert "Table" in reply.text and "seat 2" in reply.text
            lobby = world.last_message(group, from_bot=True)
            assert "Alice" in lobby.text and "Bob" in lobby.text
            # only empty seats offer a link
            links = [b.url for b in buttons(lobby) if b.url]
            assert links == [
                f"https://t.me/ShengjiTestBot?start={codec.join_payload(game_id, i)}"
                for i in (2, 3)
            ]
            # Bob may not start: only the creator or an admin
            answer = await bob.press(lobby, data=find(lobby, "S").data)
            assert answer.answered and answer.show_alert
            # fill with computers, then start
            for _ in range(2):
                lobby = world.last_message(group, from_bot=True)
                await alice.press(lobby, data=find(lobby, "C").data)
            lobby = world.last_message(group, from_bot=True)
            answer = await alice.press(lobby, data=find(lobby, "S").data)
            assert answer.answered and not answer.show_alert
            assert app.bot_data.service.games[game_id].rec.status == "running"


async def test_cancel_closes_the_lobby_and_a_new_game_can_open(tmp_path):
    async with FakeTelegram(auto_settle=True) as world:
        alice = world.user("Alice")
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db"):
            await alice.send(group, "/newgame")
            lobby = world.last_message(group, from_bot=True)
            await alice.press(lobby, data=find(lobby, "X").data)
            assert "cancelled" in world.transcript(group)[1].text
            await alice.send(group, "/newgame")
            assert find(world.last_message(group, from_bot=True), "S") is not None


def counting(monkeypatch, owner, name: str) -> list[object]:
    """Count the calls of ``owner.name`` (it still does its work)."""
    calls: list[object] = []
    real = getattr(owner, name)

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


async def test_newgame_reads_the_groups_settings_once_and_saves_the_new_game_once(
    tmp_path, monkeypatch
):
    async with FakeTelegram(auto_settle=True) as world:
        alice = world.user("Alice", started=True)
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            store = service(app).store
            await alice.send(group, "/settings")  # the group has settings of its own
            reads = counting(monkeypatch, store, "chat_settings")
            creates = counting(monkeypatch, store, "create_game")
            saves = counting(monkeypatch, store, "save_game")
            await alice.send(group, "/newgame")
            assert "1." in world.last_message(group, from_bot=True).text  # the lobby
            # one game written (the create writes its record once)
            assert (len(reads), len(creates), len(saves)) == (1, 1, 1)
            await alice.send(group, "/newgame")  # one is open: it is pointed at
            assert "already" in world.last_message(group, from_bot=True).text
            assert (len(reads), len(creates), len(saves)) == (2, 1, 1)


async def test_the_lobby_message_is_rendered_only_when_it_can_change(tmp_path, monkeypatch):
    """Seats, the start and the end change what the lobby says; plays never do."""
    async with FakeTelegram() as world:
        alice = world.user("Alice", started=True)
        group = world.group("Table", admins=[alice])
        async with running_bot(world, tmp_path / "db") as app:
            renders = counting(monkeypatch, publish, "render_lobby")
            game_id = await start_with_computers(world, group, [alice])
            # opened, seated, three computers, started
            assert len(renders) == 6
            await play_out(
                world, app, game_id, {0: alice}, stop=lambda g: len(g.match.hand.tricks) > 3
            )
            assert len(renders) == 6  # a dozen plays later: the lobby was not rendered
            lobby = next(m for m in world.transcript(group) if m.from_bot)
            assert "The game has started" in lobby.text
            await alice.send(group, "/endgame")
            await world.settle()
            question = world.last_message(group, from_bot=True)
            await alice.press(question, data=find(question, "E").data)
            await world.settle()
            assert len(renders) == 7  # the end: the lobby says so
            lobby = next(m for m in world.transcript(group) if m.from_bot)
            assert "This game was ended" in lobby.text
