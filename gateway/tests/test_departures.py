"""Presence reports held back a few seconds (gateway/presence.py ``Departures``): one that
fails, a server out of reach, is tried again until it is made, not dropped."""

from __future__ import annotations

import asyncio

import pytest

from gateway.presence import HELD_TRIES, Departures


async def test_a_held_report_that_fails_is_tried_again_until_it_is_made() -> None:
    """Found from outside: PostgreSQL away for a moment as the gateway checked that a
    player had left, and the check was dropped: their ticket stayed queued for good."""
    tries: list[int] = []

    async def report() -> None:
        tries.append(len(tries))
        if len(tries) < 3:
            raise OSError("connection refused")  # as asyncpg says a server is away

    held = Departures(seconds=0.01, retry=0.01)
    held.later(report)
    await asyncio.wait_for(held.finish(), 5)
    assert len(tries) == 3


async def test_a_held_report_that_never_succeeds_is_given_up_and_drop_ends_one_waiting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("gateway.presence.HELD_TRIES", 4)
    calls = 0

    async def failing() -> None:
        nonlocal calls
        calls += 1
        raise OSError("connection refused")

    held = Departures(seconds=0.01, retry=0.001)
    held.later(failing)
    await asyncio.wait_for(held.finish(), 5)
    assert calls == 4 < HELD_TRIES
    waiting = Departures(seconds=60)
    waiting.later(failing)
    await asyncio.wait_for(waiting.drop(), 5)
    assert calls == 4
