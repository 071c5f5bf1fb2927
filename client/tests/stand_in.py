"""The logged-in player of the stand-in gateways the terminal tests run ``play``
against (``queued.py``, ``pick.py``): its calls go straight to the stand-in, and its
session is the stand-in's one stream (no token to refresh, nothing reopened)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from google.protobuf.message import Message
from rich.console import Console
from triad.v1 import gateway_pb2 as g

from client.play import play


class Caller:
    def __init__(self, stub: Any) -> None:
        self.stub = stub

    def metadata(self) -> tuple[tuple[str, str]]:
        return (("authorization", "Bearer test"),)

    async def call(self, method: Callable[[Message], Awaitable[Any]], request: Message) -> Any:
        return await method(request)

    async def pushes(self) -> AsyncIterator[g.OpenSessionResponse]:
        async for push in self.stub.OpenSession(g.OpenSessionRequest(), self.metadata()):
            yield push


def play_against(gateway: Any) -> None:
    """``play`` resuming the match on the stand-in ``gateway``'s screen, as a process:
    Ctrl-C ends it with 130, as triad-client does."""
    try:
        asyncio.run(play(Caller(gateway), Console(), resuming=True))  # type: ignore[arg-type]
    except KeyboardInterrupt:
        sys.exit(130)
