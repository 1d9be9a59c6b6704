from tests.fakes.pytest_plugin import fake_telegram  # noqa: F401
