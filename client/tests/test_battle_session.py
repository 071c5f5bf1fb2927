"""The session stream the battle screen holds (``client.battle_start.session_held``): one
that fails is opened again, so the player never counts as away while at the screen."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest
from triad.v1 import gateway_pb2 as g

from client import battle_start
from client.session import BATTLE_ENDED_AWAY


class Flaky:
    """A client whose first session stream fails (UNAVAILABLE); the next one tells a
    notice and stays open."""

    def __init__(self) -> None:
        self.opened = 0

    async def pushes(self) -> AsyncIterator[g.OpenSessionResponse]:
        self.opened += 1
        if self.opened == 1:
            raise grpc.aio.AioRpcError(
                grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), "down"
            )
        notice = g.Notice(code=BATTLE_ENDED_AWAY, message="told on the stream opened again")
        yield g.OpenSessionResponse(notice=notice)
        await asyncio.Event().wait()


async def test_a_session_stream_that_failed_is_opened_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found from outside: a session stream that failed was never opened again; the
    screen went on, the player counted away, and the CPU took their seat 30 s on."""
    monkeypatch.setattr(battle_start, "REOPEN_SECONDS", 0.01)
    flaky = Flaky()
    async with battle_start.session_held(flaky) as held:  # type: ignore[arg-type]
        for _ in range(200):
            if held.away:
                break
            await asyncio.sleep(0.01)
    assert flaky.opened == 2
    assert held.away == ["told on the stream opened again"]
