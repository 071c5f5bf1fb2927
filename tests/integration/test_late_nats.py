"""The gateway and the match service serve while NATS is away, and the players' pushes
start once it is there (issue 18): sessions opened before are subscribed then, and
read the player's state again.

The match service and the gateway as processes on real PostgreSQL; a real nats-server
started only after both serve, on the address they were given.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc, match_pb2_grpc

from devtools.embedded import NatsProcess
from devtools.match_client import create_request
from devtools.players import collect
from devtools.processes import free_port
from tests.integration.gateway.gateway_process import last_view, match_and_gateway, register

pytestmark = pytest.mark.integration


async def test_pushes_start_when_nats_comes_after_the_services(
    shared_database_url: str, tmp_path: Path
) -> None:
    nats = NatsProcess(tmp_path / "jetstream", tmp_path / "nats", port=free_port())
    match, gateway, cert = match_and_gateway(
        shared_database_url, f"nats://127.0.0.1:{nats.port}", tmp_path
    )
    match.start()  # each returns once it reports SERVING: NATS is not needed for that
    gateway.start()
    creds = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
    try:
        async with (
            grpc.aio.secure_channel(gateway.address, creds) as public,
            grpc.aio.insecure_channel(match.address) as private,
        ):
            api = gateway_pb2_grpc.TriadGatewayStub(public)
            ann, bea = await register(api), await register(api)
            players = (ann.player.player_id, bea.player.player_id)
            pushes: dict[str, list[g.OpenSessionResponse]] = {pid: [] for pid in players}
            sessions = [
                asyncio.create_task(collect(api, r.tokens, pushes[r.player.player_id]))
                for r in (ann, bea)
            ]
            while not all(pushes.values()):  # both sessions open, without NATS
                await asyncio.sleep(0.05)
            assert all(p[0].HasField("session_opened") for p in pushes.values())

            nats.start()
            match_id = str(uuid4())
            await match_pb2_grpc.MatchServiceStub(private).CreateMatch(
                create_request(match_id, pb.VISIBILITY_ALL_OPEN, players)
            )
            deadline = time.monotonic() + 20
            while any(last_view(pushes[pid], match_id) is None for pid in players):
                assert time.monotonic() < deadline, "the match was never pushed to the sessions"
                await asyncio.sleep(0.1)
            for pid in players:
                view = last_view(pushes[pid], match_id)
                assert view is not None and view.status == pb.MATCH_STATUS_IN_PROGRESS
            for task in sessions:
                task.cancel()
            await asyncio.gather(*sessions, return_exceptions=True)
    finally:
        assert gateway.stop() == 0, gateway.log.read_text()[-2000:]
        assert match.stop() == 0, match.log.read_text()[-2000:]
        nats.stop()
