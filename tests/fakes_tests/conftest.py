from tests.fakes.telegram.pytest_plugin import fake_telegram  # noqa: F401
