"""The echo baseline: bytes round-trip, and the runner's lifecycle under a real SIGTERM."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from devtools.echo import SERVICE, EchoClient, register_echo
from services.platform.grpcserver import ServerConfig, build_server

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
async def echo_channel() -> AsyncIterator[grpc.aio.Channel]:
    server = build_server(ServerConfig(host="127.0.0.1"), register_echo, [SERVICE])
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            yield channel
    finally:
        await server.stop(0)


@pytest.mark.parametrize(
    "payload", [b"", b"hello", bytes(range(256)), b"\x00" * 65536], ids=["empty", "5", "256", "64k"]
)
async def test_echo_returns_the_bytes_it_was_sent(
    echo_channel: grpc.aio.Channel, payload: bytes
) -> None:
    assert await EchoClient(echo_channel).echo(payload) == payload


async def test_the_echo_runner_serves_health_and_exits_cleanly_on_sigterm() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "devtools.echo",
        "--port",
        "0",
        cwd=REPO,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    try:
        first_line = await asyncio.wait_for(process.stdout.readline(), timeout=10)
        port = int(first_line)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            response = await health.Check(health_pb2.HealthCheckRequest(service=SERVICE), timeout=5)
            assert response.status == health_pb2.HealthCheckResponse.SERVING
            assert await EchoClient(channel).echo(b"ping") == b"ping"

        process.send_signal(signal.SIGTERM)
        stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=5)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()

    assert process.returncode == 0
    assert b"Traceback" not in stderr, stderr.decode()
    assert b'"reason": "SIGTERM"' in stdout
    assert b'"event": "stopped"' in stdout
