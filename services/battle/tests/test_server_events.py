"""The operators' GetBattleEvents through a real gRPC server on 127.0.0.1 (the call
``triad-admin battle show`` makes), on the in-memory store: a negative ``page_size`` is
INVALID_ARGUMENT naming the field, wherever the page starts, like every other list; 0
is the default page."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import cast

import grpc
import pytest
from triad.v1 import battle_pb2 as b
from triad.v1 import battle_pb2_grpc

from services.battle import server as battle_server
from services.battle.presenter import SeatViews
from services.battle.tests.builders import context, start
from services.platform.edge import operator_metadata
from services.platform.grpcserver import ServerConfig, build_server

TOKEN = "test-operator-token"


@pytest.fixture
async def stub() -> AsyncIterator[battle_pb2_grpc.BattleServiceAsyncStub]:
    ctx, _, _ = context()
    await start(ctx)  # battle b1: four stored events
    servicer = battle_server.BattleServicer(ctx, cast(SeatViews, None), TOKEN)
    server = build_server(
        ServerConfig(host="127.0.0.1", stop_grace_seconds=1.0),
        lambda s: battle_server.register(s, servicer),
        [battle_server.SERVICE_NAME],
    )
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            yield battle_pb2_grpc.BattleServiceStub(channel)
    finally:
        await server.stop(0)


async def events(
    stub: battle_pb2_grpc.BattleServiceAsyncStub, from_version: int, page_size: int
) -> b.BattleServiceGetBattleEventsResponse:
    request = b.BattleServiceGetBattleEventsRequest(
        battle_id="b1", from_version=from_version, page_size=page_size
    )
    return await stub.GetBattleEvents(request, metadata=operator_metadata(TOKEN))


@pytest.mark.parametrize(("from_version", "page_size"), [(1, -1), (3, -1), (1, -2), (1, -9)])
async def test_a_negative_page_size_is_invalid_argument_naming_the_field(
    stub: battle_pb2_grpc.BattleServiceAsyncStub, from_version: int, page_size: int
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await events(stub, from_version, page_size)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, refused.value.details()
    assert "page_size" in (refused.value.details() or "")


async def test_page_size_0_is_the_default_page_and_a_positive_one_is_kept(
    stub: battle_pb2_grpc.BattleServiceAsyncStub,
) -> None:
    whole = await events(stub, 1, 0)
    assert [e.version for e in whole.events] == [1, 2, 3, 4] and whole.next_version == 0
    first = await events(stub, 1, 3)
    assert [e.version for e in first.events] == [1, 2, 3] and first.next_version == 4
