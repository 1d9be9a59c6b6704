"""Pytest fixtures for the fake Telegram.

Use them from any conftest (no ``pytest_plugins`` needed)::

    from tests.fakes.pytest_plugin import fake_telegram  # noqa: F401
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from bot.fake_telegram import FakeTelegram


@pytest_asyncio.fixture
async def fake_telegram() -> AsyncIterator[FakeTelegram]:
    """A fresh world with the HTTP server running; closed after the test."""
    async with FakeTelegram() as world:
        yield world
