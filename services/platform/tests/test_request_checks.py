"""What every service's edge does with a request it cannot serve as sent (found by
tests/e2e/hostile/): a body that is not the call's message, a text holding a NUL
(PostgreSQL cannot store one), and a refusal quoting a huge input or marks that would
change how its words read."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2
from triad.v1 import common_pb2 as pb
from triad.v1 import match_pb2 as m

from services.platform.errors import InvalidArgument
from services.platform.grpcserver import ServerConfig, build_server
from services.platform.interceptors import MAX_DETAILS, _checked, _Malformed

SERVICE = "triad.test.Checked"


async def named(request: health_pb2.HealthCheckRequest, _context: Any) -> bytes:
    if request.service.startswith("refuse"):
        raise InvalidArgument(f"no service {request.service!r}")
    if request.service.startswith("as-sent"):  # quoted as it came, as short ids are
        raise InvalidArgument(f"no service {request.service}; try another")
    return str(request.service).encode()


def register(server: grpc.aio.Server) -> None:
    handler: grpc.RpcMethodHandler[Any, Any] = grpc.unary_unary_rpc_method_handler(
        named, request_deserializer=health_pb2.HealthCheckRequest.FromString
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE, {"Named": handler}),)
    )


@pytest.fixture
async def call() -> AsyncIterator[Any]:
    server = build_server(ServerConfig(host="127.0.0.1", stop_grace_seconds=1.0), register, [])
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            yield channel.unary_unary(f"/{SERVICE}/Named")
    finally:
        await server.stop(0)


async def refusal(call: Any, body: bytes) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call(body, timeout=5)
    return caught.value


async def test_a_body_that_is_not_the_message_is_invalid_argument(call: Any) -> None:
    assert await call(health_pb2.HealthCheckRequest(service="ok").SerializeToString()) == b"ok"
    for body in (b"\xff" * 9, b"\x0a\x04\xff\xfe\xc0\x80", b"\x0a\xff\xff\xff\xff\x0f"):
        refused = await refusal(call, body)
        assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert refused.details() == "the request is not a valid message of this call"


async def test_a_nul_in_a_text_is_invalid_argument(call: Any) -> None:
    body = health_pb2.HealthCheckRequest(service="match\x00").SerializeToString()
    refused = await refusal(call, body)
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "NUL" in (refused.details() or "")


async def test_a_refusal_quoting_a_huge_input_is_cut_short(call: Any) -> None:
    body = health_pb2.HealthCheckRequest(service="refuse" + "x" * 500_000).SerializeToString()
    refused = await refusal(call, body)
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
    details = refused.details() or ""
    assert details.startswith("no service 'refusexxx") and details.endswith("...")
    assert len(details) == MAX_DETAILS


async def test_a_refusal_quoting_control_or_right_to_left_marks_shows_them_escaped(
    call: Any,
) -> None:
    """Found from outside: an id holding a right-to-left override came back inside the
    message ("you have no battle \u202e..."), turning the words after it around."""
    sent = "as-sent\u202eevil\x1b[31m\u2066"
    body = health_pb2.HealthCheckRequest(service=sent).SerializeToString()
    details = (await refusal(call, body)).details() or ""
    assert details == "no service as-sent\\u202eevil\\u001b[31m\\u2066; try another", details


def test_a_nul_is_found_at_any_depth_and_zero_bytes_alone_are_no_nul() -> None:
    parse = _checked(m.MatchServiceCreateMatchRequest.FromString)
    assert parse is not None
    deep = m.MatchServiceCreateMatchRequest(
        match_id="m", seats=[m.SeatSetup(player=pb.SeatPlayer(player_name="Ann\x00"))]
    )
    assert isinstance(parse(deep.SerializeToString()), _Malformed)
    # Zero bytes that are no text: an empty string's length, a zero in a packed list.
    zeros = m.MatchServiceCreateMatchRequest(
        match_id="m",
        rules=pb.Rules(board=pb.BoardShape(blocked_cells=[0, 4])),
        seats=[m.SeatSetup(player=pb.SeatPlayer(player_name=""))],
    )
    data = zeros.SerializeToString()
    assert b"\x00" in data
    assert parse(data) == zeros
