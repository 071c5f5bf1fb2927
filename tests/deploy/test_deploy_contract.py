"""What the deployment expects of the code (deploy/k8s/README.md, "What the code has
to do for this deployment"): each test runs the piece of code the manifests rely on and
checks it does what they count on."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.platform import background, bus, grpcserver
from services.platform.channels import internal_channel
from services.platform.settings import Settings
from tests.deploy.deploy_manifests import config

MAX_AGE = "grpc.max_connection_age_ms"


async def test_streams_get_the_replicas_the_overlay_asks_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A service reading the prod overlay's settings asks JetStream for a stream of three
    replicas (a single test NATS server cannot hold one, so the request is caught)."""
    prod = config("prod")
    assert prod["TRIAD_NATS_STREAM_REPLICAS"] == "3"
    asked: list[bus.EventStream] = []

    class Client:
        def jetstream(self) -> Any:
            return None

    async def connect(servers: Any, **_: Any) -> Client:
        return Client()

    async def ensure_stream(js: Any, stream: bus.EventStream) -> None:
        asked.append(stream)

    monkeypatch.setattr(bus, "connect", connect)
    monkeypatch.setattr(bus, "ensure_stream", ensure_stream)
    settings = Settings.from_env({**prod, "TRIAD_NATS_URL": "nats://nats.triad:4222"})
    await background.open_event_stream(settings, "match")
    assert [s.config().num_replicas for s in asked] == [3]


async def test_servers_close_connections_so_clients_find_new_pods(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every server the bootstrap builds tells its clients to go away after a maximum
    connection age (5 minutes), so they reconnect and re-resolve: here the age is cut to
    a fraction of a second and a connected client is seen to lose its connection."""
    ages = dict(grpcserver.KEEPALIVE_OPTIONS)
    assert 60_000 <= ages[MAX_AGE] <= 1_800_000
    short = tuple((k, 300 if k == MAX_AGE else v) for k, v in grpcserver.KEEPALIVE_OPTIONS)
    monkeypatch.setattr(grpcserver, "KEEPALIVE_OPTIONS", short)
    built = grpcserver.build_server(
        grpcserver.ServerConfig(host="127.0.0.1", port=0), lambda server: None, []
    )
    await built.server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{built.port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            await health.Check(health_pb2.HealthCheckRequest(), timeout=5)
            assert channel.get_state() == grpc.ChannelConnectivity.READY
            async with asyncio.timeout(10):
                while channel.get_state() == grpc.ChannelConnectivity.READY:
                    await channel.wait_for_state_change(grpc.ChannelConnectivity.READY)
    finally:
        await built.server.stop(None)


async def test_internal_channels_balance_calls_over_every_pod() -> None:
    """A channel from one service to another spreads its calls over every address its
    target resolves to (a headless Service's pods), not only the first."""
    servers, ports = [], []
    for tag in (b"one", b"two"):

        async def answer(request: bytes, context: Any, tag: bytes = tag) -> bytes:
            return tag

        server = grpc.aio.server()
        server.add_generic_rpc_handlers(
            (
                grpc.method_handlers_generic_handler(
                    "triad.test.Who", {"Am": grpc.unary_unary_rpc_method_handler(answer)}
                ),
            )
        )
        ports.append(server.add_insecure_port("127.0.0.1:0"))
        await server.start()
        servers.append(server)
    try:
        target = "ipv4:" + ",".join(f"127.0.0.1:{port}" for port in ports)
        async with internal_channel(target) as channel:
            who = channel.unary_unary("/triad.test.Who/Am")
            answers = [await who(b"", timeout=5, wait_for_ready=True) for _ in range(20)]
        assert set(answers) == {b"one", b"two"}
    finally:
        for server in servers:
            await server.stop(None)
