import pytest

from bot.fake_telegram import FakeTelegram
from tests.fakes_tests.echo_app import build_echo_app


@pytest.mark.parametrize("transport", ["inprocess", "http"])
async def test_application_long_polling_round_trip(
    fake_telegram: FakeTelegram, transport: str
) -> None:
    world = fake_telegram
    alice = world.user("Alice")
    app = build_echo_app(world, transport)
    async with world.running(app):
        await alice.start_bot("abc")
        await world.settle()
        assert world.last_message(alice).text == "Welcome Alice [abc]"
        await alice.send("hello")
        await world.settle()
        assert world.texts(alice) == ["/start abc", "Welcome Alice [abc]", "hello", "echo: hello"]
    methods = [r.method for r in world.requests()]
    assert methods[:3] == ["getMe", "deleteWebhook", "getUpdates"] or "deleteWebhook" in methods
