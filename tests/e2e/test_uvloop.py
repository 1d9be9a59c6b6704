"""The bot runs on uvloop in production (bot.infra.eventloop): one whole hand played through
the DMs on it, in every run of the suite (``--event-loop uvloop`` runs all of them so)."""

from __future__ import annotations

import asyncio

import pytest
import uvloop

from tests.e2e import test_hand


@pytest.mark.asyncio(loop_factories=["uvloop"])
async def test_four_people_play_a_whole_hand_on_uvloop(tmp_path):
    assert isinstance(asyncio.get_running_loop(), uvloop.Loop)
    await test_hand.test_four_people_play_a_whole_hand_through_their_dms(tmp_path)
