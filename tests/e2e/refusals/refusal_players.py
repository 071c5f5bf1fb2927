"""Players for the refusal tests, registered through the public API, and the durations
their backend runs with.
"""

from __future__ import annotations

from typing import Any
from uuid import uuid4

import grpc
from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD

LONG = "600"  # seconds: no turn or trade timer fires during a test


SHORT_TOKEN_MINUTES = 0.03  # 1.8 s


class Player:
    def __init__(self, api: Any, reply: g.RegisterResponse) -> None:
        self.api = api
        self.id = reply.player.player_id
        self.tokens = reply.tokens

    @property
    def meta(self) -> tuple[tuple[str, str]]:
        return (("authorization", f"Bearer {self.tokens.access_token}"),)

    async def call(self, rpc: str, request: Message) -> Any:
        return await getattr(self.api, rpc)(request, metadata=self.meta, timeout=20)

    async def refusal(self, rpc: str, request: Message) -> tuple[grpc.StatusCode, str]:
        try:
            await self.call(rpc, request)
        except grpc.aio.AioRpcError as error:
            return error.code(), error.details() or ""
        raise AssertionError(f"{rpc} was accepted: {request}")

    async def copies(self) -> dict[str, pb.OwnedCopy]:
        reply = await self.call("ListCollection", g.ListCollectionRequest(page_size=200))
        return {e.copy.copy_id: e.copy for e in reply.entries}

    async def active_match(self) -> str:
        reply = await self.call("GetActiveMatch", g.GetActiveMatchRequest())
        return str(reply.view.match_id) if reply.HasField("view") else ""


async def join(api: Any) -> Player:
    reply = await api.Register(
        g.RegisterRequest(
            request_id=uuid4().hex, player_name=f"f{uuid4().hex[:12]}", password=PASSWORD
        )
    )
    return Player(api, reply)
