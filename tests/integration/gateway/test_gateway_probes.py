"""The kubelet's grpc probes speak no TLS; the gateway's gRPC port does. Found from
outside: in production (TLS on) the gateway's probes on its gRPC port could never pass,
so no gateway pod became ready. The gateway serves the health service alone, without
TLS, on its health port (``TRIAD_GATEWAY_HEALTH_PORT``), where the manifests' probes ask.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

from devtools.processes import free_port

pytestmark = pytest.mark.integration

HEALTH_PORT = free_port()
GATEWAY_ENV = {"TRIAD_GATEWAY_HEALTH_PORT": str(HEALTH_PORT)}


async def check(address: str, service: str) -> int:
    async with grpc.aio.insecure_channel(address) as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service=service), timeout=5
        )
        return int(reply.status)


async def test_the_probes_ask_the_health_port_in_plain_and_nothing_else_is_served_there(
    backend: dict[str, Any],
) -> None:
    probes = f"127.0.0.1:{HEALTH_PORT}"
    for service in ("", "triad.v1.TriadGateway"):
        assert await check(probes, service) == health_pb2.HealthCheckResponse.SERVING
    with pytest.raises(grpc.aio.AioRpcError) as plain:  # what the kubelet met before
        await check(backend["gateway"].address, "")
    assert plain.value.code() == grpc.StatusCode.UNAVAILABLE
    async with grpc.aio.insecure_channel(probes) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as api:
            await gateway_pb2_grpc.TriadGatewayStub(channel).Register(
                g.RegisterRequest(request_id="r", player_name="nobody", password="x" * 12),
                timeout=5,
            )
    assert api.value.code() == grpc.StatusCode.UNIMPLEMENTED, "the API stays behind TLS"
