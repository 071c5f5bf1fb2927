"""The gRPC bootstrap against real grpc.aio servers on 127.0.0.1: statuses, metrics, health."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from prometheus_client import CollectorRegistry

from services.platform import errors
from services.platform.grpcserver import GrpcServer, ServerConfig, build_server
from services.platform.interceptors import STATUS_BY_ERROR
from services.platform.metrics import RPC_DURATION_SECONDS, RPC_TOTAL, RpcMetrics
from services.platform.tests.grpc_probe import SERVICE, register_probe
from services.platform.tests.logcapture import LogLines, captured_logs

Code = grpc.StatusCode
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@dataclass
class Probe:
    server: GrpcServer
    channel: grpc.aio.Channel
    registry: CollectorRegistry

    def unary(self, method: str) -> grpc.aio.UnaryUnaryMultiCallable[bytes, bytes]:
        return self.channel.unary_unary(f"/{SERVICE}/{method}")

    def stream(self, method: str) -> grpc.aio.UnaryStreamMultiCallable[bytes, bytes]:
        return self.channel.unary_stream(f"/{SERVICE}/{method}")

    def count(self, method: str, code: Code) -> float:
        labels = {"service": SERVICE, "method": method, "code": code.name}
        return self.registry.get_sample_value(RPC_TOTAL, labels) or 0.0

    async def eventually_counted(self, method: str, code: Code) -> None:
        """For outcomes the server records after the client has already moved on."""
        async with asyncio.timeout(3):
            while self.count(method, code) == 0:
                await asyncio.sleep(0.01)


@pytest.fixture
def logs() -> Iterator[LogLines]:
    with captured_logs() as lines:
        yield lines


@pytest.fixture
async def probe(logs: LogLines) -> AsyncIterator[Probe]:
    registry = CollectorRegistry()
    server = build_server(
        ServerConfig(host="127.0.0.1", stop_grace_seconds=1.0),
        register_probe,
        [SERVICE],
        metrics=RpcMetrics.register(registry),
    )
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            yield Probe(server, channel, registry)
    finally:
        await server.stop(0)


async def failure(call: Callable[[], Any]) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call()
    return caught.value


@pytest.mark.parametrize(
    "error",
    [
        "Refused",
        "SocketGone",
        "DatabaseStarting",
        "DatabaseFull",
        "DatabaseGone",
        "ClosedWhileBroken",
    ],
)
async def test_a_server_out_of_reach_is_unavailable_for_the_caller_to_retry(
    probe: Probe, logs: LogLines, error: str
) -> None:
    rpc_error = await failure(lambda: probe.unary("Raise")(error.encode(), timeout=5))

    assert rpc_error.code() == Code.UNAVAILABLE
    assert "SECRET" not in (rpc_error.details() or "")
    assert "try again" in (rpc_error.details() or "")
    assert logs.events("rpc failed") == [], "an outage is not a bug of ours"
    [logged] = logs.events("rpc unavailable")
    assert logged["level"] == "warning"
    assert probe.count("Raise", Code.UNAVAILABLE) == 1


@pytest.mark.parametrize(
    ("error", "code", "details"),
    [
        ("InvalidArgument", Code.INVALID_ARGUMENT, "cell 9 is off the board; cells are 0-8"),
        ("FailedPrecondition", Code.FAILED_PRECONDITION, "the match is over"),
        ("NotFound", Code.NOT_FOUND, "no match m-1"),
        ("PermissionDenied", Code.PERMISSION_DENIED, "only the host may start the table"),
        ("AlreadyExists", Code.ALREADY_EXISTS, "deck 'Aggro' exists already"),
        ("Conflict", Code.ABORTED, "someone moved first; reload and retry"),
        ("ResourceExhausted", Code.RESOURCE_EXHAUSTED, "at most 5 decks"),
        (
            "WrongExpectedVersion",
            Code.ABORTED,
            "stream 'match-1' was expected at version 3 but it is at 4",
        ),
        ("IllegalMove", Code.FAILED_PRECONDITION, "that card is not in your hand"),
        ("Unmapped", Code.FAILED_PRECONDITION, "refused"),
    ],
)
async def test_a_domain_error_reaches_the_caller_as_its_code_with_its_message(
    probe: Probe, logs: LogLines, error: str, code: Code, details: str
) -> None:
    rpc_error = await failure(lambda: probe.unary("Raise")(error.encode(), timeout=5))

    assert (rpc_error.code(), rpc_error.details()) == (code, details)
    assert probe.count("Raise", code) == 1
    assert logs.events("rpc failed") == [], "a caller's mistake is not our fault"


def test_every_kind_of_domain_error_has_its_own_code() -> None:
    kinds = {
        k for k in vars(errors).values() if isinstance(k, type) and k.__base__ is errors.DomainError
    }

    assert kinds == set(STATUS_BY_ERROR)


async def test_a_closed_connection_on_its_own_is_a_bug_of_ours(
    probe: Probe, logs: LogLines
) -> None:
    rpc_error = await failure(lambda: probe.unary("Raise")(b"ClosedByMistake", timeout=5))

    assert rpc_error.code() == Code.INTERNAL
    [logged] = logs.events("rpc failed")
    assert "SECRET-DETAIL" in logged["exception"]


async def test_an_unexpected_error_is_internal_with_a_reference_and_no_detail(
    probe: Probe, logs: LogLines
) -> None:
    rpc_error = await failure(lambda: probe.unary("Raise")(b"Unexpected", timeout=5))

    assert rpc_error.code() == Code.INTERNAL
    match = re.fullmatch(r"internal error; reference ([0-9a-f]{16})", rpc_error.details() or "")
    assert match, rpc_error.details()
    assert "SECRET" not in str(rpc_error.debug_error_string())
    [logged] = logs.events("rpc failed")
    assert logged["reference"] == match.group(1)
    assert logged["level"] == "error"
    assert "Traceback" in logged["exception"]
    assert "SECRET-DETAIL" in logged["exception"]
    assert probe.count("Raise", Code.INTERNAL) == 1


@pytest.mark.parametrize(
    ("error", "code"),
    [("NotFound", Code.NOT_FOUND), ("Conflict", Code.ABORTED), ("Unexpected", Code.INTERNAL)],
)
async def test_an_error_raised_mid_stream_ends_the_stream_with_its_code(
    probe: Probe, error: str, code: Code
) -> None:
    received: list[bytes] = []

    async def consume() -> None:
        async for message in probe.stream("StreamThenRaise")(error.encode(), timeout=5):
            received.append(message)

    rpc_error = await failure(consume)

    assert received == [b"one", b"two"]
    assert rpc_error.code() == code
    assert probe.count("StreamThenRaise", code) == 1


async def test_a_stream_written_with_context_write_is_mapped_too(probe: Probe) -> None:
    call = probe.stream("WriteThenRaise")(b"PermissionDenied", timeout=5)

    assert await call.read() == b"one"
    rpc_error = await failure(call.read)
    assert rpc_error.code() == Code.PERMISSION_DENIED
    assert probe.count("WriteThenRaise", Code.PERMISSION_DENIED) == 1


async def test_a_plain_generator_stream_is_mapped_too(probe: Probe) -> None:
    call = probe.stream("SyncStream")(b"only", timeout=5)

    assert await call.read() == b"only"
    assert (await failure(call.read)).code() == Code.NOT_FOUND


async def test_a_stream_that_ends_normally_counts_as_ok_once_it_ends(probe: Probe) -> None:
    messages = [m async for m in probe.stream("StreamOk")(b"a,b,c", timeout=5)]

    assert messages == [b"a", b"b", b"c"]
    assert probe.count("StreamOk", Code.OK) == 1


async def test_metrics_count_and_time_each_rpc_by_service_method_and_code(probe: Probe) -> None:
    for _ in range(3):
        assert await probe.unary("Echo")(b"x", timeout=5) == b"x"
    await failure(lambda: probe.unary("Raise")(b"NotFound", timeout=5))

    assert probe.count("Echo", Code.OK) == 3
    assert probe.count("Raise", Code.NOT_FOUND) == 1
    ok = {"service": SERVICE, "method": "Echo", "code": "OK"}
    assert probe.registry.get_sample_value(f"{RPC_DURATION_SECONDS}_count", ok) == 3
    assert (
        probe.registry.get_sample_value(f"{RPC_DURATION_SECONDS}_bucket", ok | {"le": "5.0"}) == 3
    )


async def test_a_plain_sync_handler_is_wrapped_and_counted_too(probe: Probe) -> None:
    assert await probe.unary("SyncEcho")(b"sync", timeout=5) == b"sync"
    assert probe.count("SyncEcho", Code.OK) == 1


async def test_a_status_the_handler_chose_itself_passes_through_and_is_counted(
    probe: Probe, logs: LogLines
) -> None:
    aborted = await failure(lambda: probe.unary("Abort")(b"", timeout=5))
    set_code = await failure(lambda: probe.unary("SetCode")(b"", timeout=5))

    assert (aborted.code(), aborted.details()) == (
        Code.UNAUTHENTICATED,
        "a bearer token is required",
    )
    assert (set_code.code(), set_code.details()) == (Code.UNAVAILABLE, "try another replica")
    assert probe.count("SetCode", Code.UNAVAILABLE) == 1
    # context.abort sends the status before the interceptor sees the AbortError.
    await probe.eventually_counted("Abort", Code.UNAUTHENTICATED)
    assert logs.events("rpc failed") == []


async def test_a_deadline_or_a_cancel_is_counted_but_not_logged_as_a_fault(
    probe: Probe, logs: LogLines
) -> None:
    expired = await failure(lambda: probe.unary("Hang")(b"", timeout=0.2))
    assert expired.code() == Code.DEADLINE_EXCEEDED
    await probe.eventually_counted("Hang", Code.DEADLINE_EXCEEDED)

    stream = probe.stream("StreamHang")(b"", timeout=5)
    assert await stream.read() == b"one"
    stream.cancel()
    await probe.eventually_counted("StreamHang", Code.CANCELLED)

    assert logs.events("rpc failed") == []


async def test_a_request_over_the_receive_limit_is_resource_exhausted(probe: Probe) -> None:
    limit = ServerConfig().max_receive_message_bytes
    assert limit == 1024 * 1024

    assert len(await probe.unary("Echo")(b"x" * limit, timeout=5)) == limit
    too_big = await failure(lambda: probe.unary("Echo")(b"x" * (limit + 1), timeout=5))
    assert too_big.code() == Code.RESOURCE_EXHAUSTED


async def test_each_rpc_logs_with_its_own_request_id(probe: Probe, logs: LogLines) -> None:
    log = probe.unary("Log")
    await asyncio.gather(
        log(b"first", metadata=(("x-request-id", "req-1"),), timeout=5),
        log(b"second", metadata=(("x-request-id", "req-2"),), timeout=5),
        log(b"anonymous", timeout=5),
    )

    ids = {line["payload"]: line["request_id"] for line in logs.events("handled")}
    assert ids["first"] == "req-1"
    assert ids["second"] == "req-2"
    assert re.fullmatch(r"[0-9a-f]{32}", ids["anonymous"]), "a missing id is made up"
    assert {line["rpc"] for line in logs.events("handled")} == {f"/{SERVICE}/Log"}


async def test_health_is_serving_then_not_serving_once_shutdown_begins(probe: Probe) -> None:
    health = health_pb2_grpc.HealthStub(probe.channel)
    for name in ("", SERVICE):
        response = await health.Check(health_pb2.HealthCheckRequest(service=name), timeout=5)
        assert response.status == SERVING, name
    watch = health.Watch(health_pb2.HealthCheckRequest(service=SERVICE), timeout=5)
    assert (await watch.read()).status == SERVING

    stopping = asyncio.create_task(probe.server.stop(grace=5))
    try:
        assert (await watch.read()).status == NOT_SERVING
    finally:
        watch.cancel()
        await stopping


async def test_reflection_lists_the_service_health_and_reflection(probe: Probe) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(probe.channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")

    responses = [r async for r in stub.ServerReflectionInfo(iter([request]), timeout=5)]

    names = {s.name for s in responses[0].list_services_response.service}
    assert names == {SERVICE, "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"}
