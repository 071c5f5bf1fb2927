"""Players for the gateway-services tests, calling the public API with their own token,
and the ladders, starter figures and polling they use.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import uuid4

from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

from devtools.players import PASSWORD, bearer

RANKED = pb.LadderKey(ladder=pb.LADDER_RANKED, season=0)


DRAFT = pb.LadderKey(ladder=pb.LADDER_DRAFT, season=0)


STARTER_COPIES, STARTER_COINS = 10, 300  # services/collection/domain/wealth.py


DRAFT_INACTIVITY_SECONDS = 2.0


T = TypeVar("T")


if TYPE_CHECKING:  # the async stub exists only in the type stubs
    Api = gateway_pb2_grpc.TriadGatewayAsyncStub


class Player:
    """A registered player calling the public API with their own token."""

    def __init__(self, api: Api, registered: g.RegisterResponse) -> None:
        self.api = api
        self.id = registered.player.player_id
        self.name = registered.player.player_name
        self.tokens = registered.tokens
        self.meta = bearer(registered.tokens)

    def __getattr__(self, rpc: str) -> Callable[[Any], Awaitable[Any]]:
        method = getattr(self.api, rpc)
        return lambda request: method(request, metadata=self.meta, timeout=10)

    async def copies(self) -> list[pb.OwnedCopy]:
        reply = await self.ListCollection(g.ListCollectionRequest())
        return [e.copy for e in reply.entries]


async def join(api: Api) -> Player:
    name = f"p{uuid4().hex[:10]}"
    registered = await api.Register(
        g.RegisterRequest(request_id=uuid4().hex, player_name=name, password=PASSWORD)
    )
    return Player(api, registered)


def rid() -> str:
    return uuid4().hex


async def until(probe: Callable[[], Awaitable[T]], ok: Callable[[T], bool], what: str) -> T:
    """Poll ``probe`` until ``ok``: events cross NATS between the services."""
    deadline = time.monotonic() + 20
    while not ok(found := await probe()):
        assert time.monotonic() < deadline, f"never: {what}; last {found}"
        await asyncio.sleep(0.1)
    return found
