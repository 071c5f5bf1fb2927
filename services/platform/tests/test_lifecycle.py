"""Lifecycle: a signal stops the process in order (server first, then what came before it)."""

from __future__ import annotations

import asyncio
import os
import signal

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.platform.grpcserver import Lifecycle, ServerConfig, build_server
from services.platform.tests.grpc_probe import SERVICE, register_probe


async def test_sigterm_ends_the_wait() -> None:
    async with Lifecycle() as life:
        asyncio.get_running_loop().call_soon(os.kill, os.getpid(), signal.SIGTERM)
        await asyncio.wait_for(life.wait(), timeout=2)

    assert life.stop_reason == "SIGTERM"


async def test_stop_takes_the_server_down_first_then_cleans_up_in_reverse() -> None:
    stopped: list[str] = []
    server = build_server(
        ServerConfig(host="127.0.0.1", stop_grace_seconds=1.0), register_probe, [SERVICE]
    )
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
    health = health_pb2_grpc.HealthStub(channel)

    async def server_is_down() -> bool:
        try:
            await health.Check(health_pb2.HealthCheckRequest(), timeout=2)
        except grpc.aio.AioRpcError as error:
            return error.code() == grpc.StatusCode.UNAVAILABLE
        return False

    async def drain_nats() -> None:
        stopped.append("nats drained")

    async def close_pool() -> None:
        assert await server_is_down(), "the pool closes only after the server stopped"
        stopped.append("pool closed")

    async with Lifecycle(signals=()) as life:
        life.push_async_callback(drain_nats)
        life.push_async_callback(close_pool)
        await life.start_server(server)
        response = await health.Check(health_pb2.HealthCheckRequest(), timeout=2)
        assert response.status == health_pb2.HealthCheckResponse.SERVING
        life.request_stop("test")
        await life.wait(server)
    await channel.close()

    assert stopped == ["pool closed", "nats drained"]
    assert life.stop_reason == "test"


async def test_a_server_that_terminates_on_its_own_ends_the_wait() -> None:
    async with Lifecycle(signals=()) as life:
        server = await life.start_server(
            build_server(ServerConfig(host="127.0.0.1"), register_probe, [SERVICE])
        )
        await server.server.stop(0)
        await asyncio.wait_for(life.wait(server), timeout=2)

    assert life.stop_reason == "server terminated"


async def test_an_error_in_main_still_runs_every_cleanup() -> None:
    cleaned: list[str] = []

    async def cleanup() -> None:
        cleaned.append("closed")

    with pytest.raises(RuntimeError, match="startup failed"):
        async with Lifecycle(signals=()) as life:
            life.push_async_callback(cleanup)
            raise RuntimeError("startup failed")

    assert cleaned == ["closed"]
    assert life.stop_reason == "error"


async def test_a_signal_before_the_server_starts_cancels_the_start_and_cleans_up() -> None:
    """A process waiting for PostgreSQL at start (``database.connect_pool``) stops when
    told to, instead of waiting on until its grace period ends in a SIGKILL."""
    cleaned: list[str] = []

    async def cleanup() -> None:
        cleaned.append("closed")

    with pytest.raises(asyncio.CancelledError):
        async with Lifecycle() as life:
            life.push_async_callback(cleanup)
            asyncio.get_running_loop().call_soon(os.kill, os.getpid(), signal.SIGTERM)
            await asyncio.sleep(30)  # a start that would not end by itself

    assert cleaned == ["closed"]
    assert life.stop_reason == "SIGTERM"
