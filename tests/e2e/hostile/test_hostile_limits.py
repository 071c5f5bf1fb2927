"""The rate limits of the gateway against hostile traffic (issue 10, item 3), through the
TLS gateway with every service a process on real PostgreSQL and NATS: a burst over the
per-player rate is RESOURCE_EXHAUSTED, and new accounts from one address are limited
with a refusal that creates nothing.
"""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import uuid4

import grpc
import pytest
from google.protobuf.message_factory import GetMessageClass
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD
from devtools.stack import Stack
from tests.e2e.hostile.hostile_plans import SERVICE
from tests.e2e.hostile.hostile_world import join

pytestmark = pytest.mark.integration


async def test_a_low_rate_limit_is_resource_exhausted(backend: Stack) -> None:
    """The second gateway allows 1 request a second with bursts of 5: a burst of 40 from
    one player over several RPCs is mostly refused, and the refusal says to slow down."""
    rpcs = ["GetBalance", "GetPlayerStatus", "ListCatalog", "GetActiveMatch"]
    async with backend.channel(backend.gateways[1]) as channel:
        me = await join(backend.api(channel))
        results = await asyncio.gather(
            *(
                getattr(me, rpcs[i % 4])(
                    GetMessageClass(SERVICE.methods_by_name[rpcs[i % 4]].input_type)()
                )
                for i in range(40)
            ),
            return_exceptions=True,
        )
    refused = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
    assert len(refused) >= len(results) - 6
    unexpected = [
        (r.code(), r.details()) for r in refused if r.code() != grpc.StatusCode.RESOURCE_EXHAUSTED
    ]
    assert not unexpected
    assert all("slow down" in (r.details() or "") for r in refused)


async def test_new_accounts_from_one_address_are_limited_and_a_refusal_creates_nothing(
    backend: Stack,
) -> None:
    """The second gateway allows 3 new accounts per address, then one every two
    minutes: sign-ups past that are RESOURCE_EXHAUSTED before any password is hashed,
    and the refused names do not exist; a retried sign-up is answered as before."""
    async with backend.channel(backend.gateways[1]) as channel:
        api = backend.api(channel)
        names = [f"r{uuid4().hex[:12]}" for _ in range(6)]
        outcomes: list[tuple[str, str, Any]] = []
        for name in names:
            request_id = uuid4().hex
            request = g.RegisterRequest(request_id=request_id, player_name=name, password=PASSWORD)
            try:
                outcomes.append((name, request_id, await api.Register(request, timeout=20)))
            except grpc.aio.AioRpcError as error:
                outcomes.append((name, request_id, error))
        made = [(n, r, o) for n, r, o in outcomes if not isinstance(o, grpc.aio.AioRpcError)]
        refused = [o for _, _, o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
        assert 1 <= len(made) <= 3 and len(refused) >= 3  # the other tests may have used some
        assert all(e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED for e in refused)
        told = "too many new accounts from your address"
        assert all(told in (e.details() or "") for e in refused)
        name, request_id, first = made[0]
        again = await api.Register(
            g.RegisterRequest(request_id=request_id, player_name=name, password=PASSWORD),
            timeout=20,
        )
        assert again.player.player_id == first.player.player_id
    async with backend.channel() as channel:
        api = backend.api(channel)
        for name, _, outcome in outcomes:
            if not isinstance(outcome, grpc.aio.AioRpcError):
                continue
            with pytest.raises(grpc.aio.AioRpcError) as login:
                await api.Login(
                    g.LoginRequest(request_id=uuid4().hex, player_name=name, password=PASSWORD),
                    timeout=20,
                )
            assert login.value.code() == grpc.StatusCode.UNAUTHENTICATED
