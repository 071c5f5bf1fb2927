"""The web port's own parts, on handlers wrapped as the gRPC server wraps them
(``interceptors.wrap_handler``): framing, statuses in trailers, deadlines, the
caller's metadata and address, streams, CORS and the static page. No backend."""

from __future__ import annotations

import asyncio
import struct
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import aiohttp
import grpc
import pytest
from aiohttp.test_utils import TestClient, TestServer
from google.protobuf.message import Message
from triad.v1 import gateway_pb2 as g

from gateway.config import GatewaySettings
from gateway.web import WebServer, parse_timeout, percent_encoded, unframe
from services.platform.errors import FailedPrecondition, InvalidArgument
from services.platform.interceptors import wrap_handler
from services.platform.settings import SettingsError

LOGIN = "/triad.v1.TriadGateway/Login"
SESSION = "/triad.v1.TriadGateway/OpenSession"
HEADERS = {"content-type": "application/grpc-web+proto"}
SEEN: dict[str, Any] = {}


async def login(request: g.LoginRequest, context: Any) -> g.LoginResponse:
    SEEN["metadata"] = dict(context.invocation_metadata())
    SEEN["peer"] = context.peer()
    if request.player_name == "slow":
        await asyncio.sleep(5)
    if request.player_name == "refused":
        raise InvalidArgument("a name is 3 to 20 letters — «é» too")
    return g.LoginResponse(tokens=g.AuthTokens(access_token=f"token-{request.player_name}"))


async def session(request: g.OpenSessionRequest, context: Any) -> AsyncIterator[Any]:
    for sequence in (1, 2):
        yield g.OpenSessionResponse(sequence=sequence)
    if request.client_version != "waits":
        raise FailedPrecondition("the session was replaced")
    try:  # a session that waits for pushes, as OpenSession does
        await asyncio.sleep(3600)
    finally:
        SEEN["session ended"] = True


def handlers() -> dict[str, Any]:
    unary = grpc.unary_unary_rpc_method_handler(
        login,
        request_deserializer=g.LoginRequest.FromString,
        response_serializer=g.LoginResponse.SerializeToString,
    )
    stream = grpc.unary_stream_rpc_method_handler(
        session,
        request_deserializer=g.OpenSessionRequest.FromString,
        response_serializer=g.OpenSessionResponse.SerializeToString,
    )
    return {LOGIN: wrap_handler(LOGIN, unary), SESSION: wrap_handler(SESSION, stream)}


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[TestClient[Any, Any]]:
    (tmp_path / "index.html").write_text("<!doctype html><title>t</title>")
    (tmp_path / "app.js").write_text("console.log(1)")
    (tmp_path / ".secret.js").write_text("no")
    server = WebServer(handlers(), tmp_path, origins=("https://play.example.com",))
    async with TestClient(TestServer(server.app)) as test_client:
        yield test_client


def framed(message: Message) -> bytes:
    payload = message.SerializeToString()
    return struct.pack(">BI", 0, len(payload)) + payload


def read(body: bytes) -> tuple[list[bytes], dict[str, str]]:
    messages, trailers, at = [], {}, 0
    while at < len(body):
        flag, length = struct.unpack_from(">BI", body, at)
        chunk, at = body[at + 5 : at + 5 + length], at + 5 + length
        if flag & 0x80:
            for line in filter(None, chunk.decode().split("\r\n")):
                key, _, value = line.partition(":")
                trailers[key] = unquote(value)
        else:
            messages.append(chunk)
    return messages, trailers


async def post(client: Any, path: str, body: bytes, **headers: str) -> Any:
    """The reply, its messages and its status: from the trailer frame, or from the
    headers of a trailers-only reply (then with an empty body)."""
    reply = await client.post(path, data=body, headers={**HEADERS, **headers})
    messages, trailers = read(await reply.read())
    if not trailers and "grpc-status" in reply.headers:
        trailers = {k: unquote(v) for k, v in reply.headers.items() if k.startswith("grpc-")}
    return reply, messages, trailers


async def test_a_unary_call_gets_its_answer_and_the_callers_metadata_and_address(
    client: Any,
) -> None:
    reply, messages, trailers = await post(
        client, LOGIN, framed(g.LoginRequest(player_name="ann")), authorization="Bearer t1"
    )
    assert reply.status == 200 and reply.content_type == "application/grpc-web+proto"
    assert trailers == {"grpc-status": "0"}
    assert g.LoginResponse.FromString(messages[0]).tokens.access_token == "token-ann"
    assert SEEN["metadata"]["authorization"] == "Bearer t1"
    assert SEEN["peer"].startswith("ipv4:127.0.0.1:")


async def test_refusals_and_deadlines_are_statuses_in_the_trailers(client: Any) -> None:
    _, messages, trailers = await post(client, LOGIN, framed(g.LoginRequest(player_name="refused")))
    assert messages == [] and trailers["grpc-status"] == "3"
    assert trailers["grpc-message"] == "a name is 3 to 20 letters — «é» too"
    slow = framed(g.LoginRequest(player_name="slow"))
    _, _, trailers = await post(client, LOGIN, slow, **{"grpc-timeout": "100m"})
    assert trailers["grpc-status"] == "4"  # DEADLINE_EXCEEDED
    # A timeout beyond gRPC's eight digits, or in other digits, is ignored (was HTTP 500).
    for odd in ("1" + "0" * 309 + "n", "9" * 5000 + "m", "\u00b2m"):
        reply, _, trailers = await post(
            client, LOGIN, framed(g.LoginRequest(player_name="ann")), **{"grpc-timeout": odd}
        )
        assert (reply.status, trailers["grpc-status"]) == (200, "0"), odd
    # The wrapper's request checks: an unknown enum number, bytes that are no message.
    bad = struct.pack(">BI", 0, 2) + b"\x0a\xff"
    _, _, trailers = await post(client, LOGIN, bad)
    assert trailers["grpc-status"] == "3" and "not a valid message" in trailers["grpc-message"]


async def test_a_server_stream_sends_each_message_then_its_status(client: Any) -> None:
    _, messages, trailers = await post(client, SESSION, framed(g.OpenSessionRequest()))
    assert [g.OpenSessionResponse.FromString(m).sequence for m in messages] == [1, 2]
    assert trailers == {"grpc-status": "9", "grpc-message": "the session was replaced"}


async def test_a_stop_ends_the_open_sessions_within_its_grace(tmp_path: Path) -> None:
    server = WebServer(handlers(), stop_grace_seconds=0.5)
    port = await server.start("127.0.0.1", 0, None)
    SEEN.pop("session ended", None)
    request = framed(g.OpenSessionRequest(client_version="waits"))
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"http://127.0.0.1:{port}{SESSION}", data=request, headers=HEADERS) as reply,
    ):
        await reply.content.readexactly(2 * 7)  # both pushes: a session waiting for more
        started = asyncio.get_running_loop().time()
        await server.stop()
        assert asyncio.get_running_loop().time() - started < 3
    assert SEEN["session ended"]


async def test_what_is_not_a_call_of_the_api_is_refused(client: Any) -> None:
    reply, _, _ = await post(client, "/grpc.health.v1.Health/Check", framed(g.LoginRequest()))
    assert reply.headers["grpc-status"] == "12"
    assert await reply.read() == b""  # trailers-only: the status in the headers alone
    reply = await client.post(LOGIN, data=b"{}", headers={"content-type": "application/json"})
    assert reply.status == 415
    reply = await client.post(LOGIN, data=b"x" * (2 * 1024 * 1024), headers=HEADERS)
    assert reply.headers["grpc-status"] == "8" and "1 MiB" in unquote(reply.headers["grpc-message"])


async def test_cors_only_for_the_listed_origins(client: Any) -> None:
    allowed = {"Origin": "https://play.example.com", "Access-Control-Request-Method": "POST"}
    reply = await client.options(LOGIN, headers=allowed)
    assert reply.status == 204
    assert "authorization" in reply.headers["Access-Control-Allow-Headers"]
    reply = await client.options(LOGIN, headers={**allowed, "Origin": "https://evil.example"})
    assert reply.status == 403
    reply, _, _ = await post(client, LOGIN, framed(g.LoginRequest()), Origin=allowed["Origin"])
    assert reply.headers["Access-Control-Allow-Origin"] == "https://play.example.com"
    assert "grpc-status" in reply.headers["Access-Control-Expose-Headers"]
    reply, _, _ = await post(client, LOGIN, framed(g.LoginRequest()), Origin="https://evil.example")
    assert "Access-Control-Allow-Origin" not in reply.headers


async def test_the_page_and_only_its_files(client: Any) -> None:
    reply = await client.get("/")
    assert reply.status == 200 and reply.content_type == "text/html"
    assert "default-src 'self'" in reply.headers["Content-Security-Policy"]
    reply = await client.get("/app.js")
    assert reply.status == 200 and reply.content_type == "text/javascript"
    for path in ("/.secret.js", "/..%2Fapp.js", "/missing.js", "/index.py"):
        assert (await client.get(path)).status == 404, path


def test_framing_and_header_helpers() -> None:
    assert unframe(b"\x00\x00\x00\x00\x02hi") == b"hi"
    for bad in (b"", b"\x00\x00\x00\x00\x05hi", b"\x01\x00\x00\x00\x00", b"\x80\x00\x00\x00\x00"):
        with pytest.raises(ValueError):
            unframe(bad)
    with pytest.raises(ValueError, match="send them uncompressed"):
        unframe(b"\x01\x00\x00\x00\x00")
    for garbage in (b"\xff" * 9, b"\x03\x00\x00\x00\x00", b"\x81\x00\x00\x00\x00"):
        with pytest.raises(ValueError, match="exactly one gRPC-Web message frame"):
            unframe(garbage)  # random bytes, not a compressed message
    assert parse_timeout("1500m") == 1.5 and parse_timeout("2S") == 2.0
    assert parse_timeout("soon") is None and parse_timeout(None) is None
    assert parse_timeout("99999999H") == 99999999 * 3600.0 and parse_timeout("123456789S") is None
    assert percent_encoded("50% off: é") == "50%25 off: %C3%A9"


def test_the_web_settings() -> None:
    base = {
        "TRIAD_DATABASE_URL": "postgresql://u@127.0.0.1:5432/db",
        "TRIAD_TOKEN_SECRET": "s" * 40,
        "TRIAD_GATEWAY_PLAINTEXT": "1",
    }
    off = GatewaySettings.from_env(base)
    assert off.web_port is None and off.web_origins == ()
    on = GatewaySettings.from_env(
        {
            **base,
            "TRIAD_GATEWAY_WEB_PORT": "8443",
            "TRIAD_GATEWAY_WEB_ORIGINS": "https://a.example, http://b:8080",
        }
    )
    assert on.web_port == 8443 and on.web_origins == ("https://a.example", "http://b:8080")
    for bad in ({"TRIAD_GATEWAY_WEB_PORT": "web"}, {"TRIAD_GATEWAY_WEB_ORIGINS": "a.example/path"}):
        with pytest.raises(SettingsError, match="TRIAD_GATEWAY_WEB_"):
            GatewaySettings.from_env({**base, **bad})
