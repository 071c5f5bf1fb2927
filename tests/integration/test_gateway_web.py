"""The gateway's web port as a browser meets it: gRPC-Web (binary) calls to the same
handlers as the gRPC port (accounts, authentication, refusals), the session stream
pushed frame by frame, and the built client's page.

The whole backend runs as processes (devtools/stack.py) on real PostgreSQL and NATS;
the calls are plain HTTP requests framed by hand, as a browser's transport frames them.
"""

from __future__ import annotations

import asyncio
import ssl
import struct
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from urllib.parse import unquote
from uuid import uuid4

import aiohttp
import pytest
from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD, bearer
from devtools.stack import Stack, stack

SERVICE = "triad.v1.TriadGateway"
HEADERS = {"content-type": "application/grpc-web+proto", "x-grpc-web": "1"}


@pytest.fixture(scope="module")
def backend(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    # A second gateway with a tight rate limit: 3 calls, then one per 10 s.
    tight = {"TRIAD_RATE_PER_SECOND": "0.1", "TRIAD_RATE_BURST": "3"}
    logs = tmp_path_factory.mktemp("web")
    with stack(shared_database_url, nats_url, logs, gateways=({}, tight)) as running:
        yield running


@pytest.fixture
async def http(backend: Stack) -> AsyncIterator[aiohttp.ClientSession]:
    trust = ssl.create_default_context(cafile=str(backend.cert))
    connector = aiohttp.TCPConnector(ssl=trust)
    async with aiohttp.ClientSession(backend.backend.web_url(), connector=connector) as session:
        yield session


def framed(message: Message) -> bytes:
    payload = message.SerializeToString()
    return struct.pack(">BI", 0, len(payload)) + payload


def frames(body: bytes, headers: Mapping[str, str]) -> tuple[list[bytes], dict[str, str]]:
    """A gRPC-Web response: its messages, and its trailers (in the headers when the
    reply is trailers-only, with an empty body)."""
    if not body and "grpc-status" in headers:
        return [], {
            k.lower(): unquote(v) for k, v in headers.items() if k.lower().startswith("grpc-")
        }
    messages, trailers, at = [], {}, 0
    while at < len(body):
        flag, length = struct.unpack_from(">BI", body, at)
        chunk = body[at + 5 : at + 5 + length]
        at += 5 + length
        if flag & 0x80:
            for line in chunk.decode().split("\r\n"):
                if line:
                    key, _, value = line.partition(":")
                    trailers[key.strip().lower()] = unquote(value.strip())
        else:
            messages.append(chunk)
    return messages, trailers


async def call(
    http: aiohttp.ClientSession, method: str, request: Message, token: str = ""
) -> tuple[list[bytes], dict[str, str]]:
    headers = dict(HEADERS)
    if token:
        headers["authorization"] = f"Bearer {token}"
    async with http.post(f"/{SERVICE}/{method}", data=framed(request), headers=headers) as reply:
        assert reply.status == 200, await reply.text()
        assert reply.content_type == "application/grpc-web+proto"
        return frames(await reply.read(), reply.headers)


async def register(http: aiohttp.ClientSession) -> g.RegisterResponse:
    name = f"w{uuid4().hex[:10]}"
    request = g.RegisterRequest(request_id=uuid4().hex, player_name=name, password=PASSWORD)
    messages, trailers = await call(http, "Register", request)
    assert trailers["grpc-status"] == "0", trailers
    return g.RegisterResponse.FromString(messages[0])


async def test_unary_calls_share_the_grpc_handlers_auth_and_refusals(
    http: aiohttp.ClientSession,
) -> None:
    ann = await register(http)
    token = ann.tokens.access_token
    messages, trailers = await call(http, "GetPlayerStatus", g.GetPlayerStatusRequest(), token)
    assert trailers["grpc-status"] == "0"
    status = g.GetPlayerStatusResponse.FromString(messages[0]).status
    assert status.player.player_id == ann.player.player_id

    # The same authentication as the gRPC port: no token, a forged one.
    for bad in ("", token[:-4] + "AAAA"):
        messages, trailers = await call(http, "GetPlayerStatus", g.GetPlayerStatusRequest(), bad)
        assert messages == [] and trailers["grpc-status"] == "16", trailers  # UNAUTHENTICATED
        assert "access token" in trailers["grpc-message"] or "Bearer" in trailers["grpc-message"]
    # The same request checks: a taken name (in any case) is ALREADY_EXISTS, said in words.
    again = g.RegisterRequest(
        request_id=uuid4().hex, player_name=ann.player.player_name.upper(), password=PASSWORD
    )
    _, trailers = await call(http, "Register", again)
    assert trailers["grpc-status"] == "6" and "taken" in trailers["grpc-message"], trailers


async def test_web_calls_are_counted_in_the_gateways_rpc_metrics(
    http: aiohttp.ClientSession, backend: Stack
) -> None:
    """The same wrapped handlers: each call over gRPC-Web is an RPC in the metrics."""

    async def refused() -> float:
        url = f"http://{backend.backend.metrics_address('gateway')}/metrics"
        async with aiohttp.ClientSession() as plain, plain.get(url) as reply:
            text = await reply.text()
        labels = (
            'service="triad.v1.TriadGateway"',
            'method="GetPlayerStatus"',
            'code="UNAUTHENTICATED"',
        )
        for line in text.splitlines():
            if line.startswith("triad_rpc_total{") and all(label in line for label in labels):
                return float(line.rsplit(" ", 1)[1])
        return 0.0

    before = await refused()
    for _ in range(3):
        await call(http, "GetPlayerStatus", g.GetPlayerStatusRequest(), "not-a-token")
    assert await refused() == before + 3


async def test_the_rate_limit_is_one_bucket_for_both_ports(backend: Stack) -> None:
    """Calls over gRPC and over gRPC-Web draw on the same per-player bucket of the replica."""
    tight = backend.gateways[1]
    trust = ssl.create_default_context(cafile=str(backend.cert))
    base = backend.backend.web_url(tight.name)
    async with aiohttp.ClientSession(base, connector=aiohttp.TCPConnector(ssl=trust)) as http:
        ann = await register(http)
        token = ann.tokens.access_token
        async with backend.channel(tight) as channel:
            api = backend.api(channel)
            for _ in range(3):  # the burst, spent over gRPC
                await api.GetPlayerStatus(g.GetPlayerStatusRequest(), metadata=bearer(ann.tokens))
        _, trailers = await call(http, "GetPlayerStatus", g.GetPlayerStatusRequest(), token)
        assert trailers["grpc-status"] == "8", trailers  # RESOURCE_EXHAUSTED
        assert "too many requests" in trailers["grpc-message"]


async def test_malformed_requests_are_refused_in_words(http: aiohttp.ClientSession) -> None:
    path = f"/{SERVICE}/Register"
    cases = {
        b"\x00\x00\x00\x00\x09abc": ("3", "exactly one gRPC-Web message frame"),
        b"\x01\x00\x00\x00\x00": ("3", "compressed"),
        struct.pack(">BI", 0, 3) + b"\xff\xff\xff": ("3", "not a valid message"),
    }
    for body, (code, words) in cases.items():
        async with http.post(path, data=body, headers=HEADERS) as reply:
            _, trailers = frames(await reply.read(), reply.headers)
        assert trailers["grpc-status"] == code and words in trailers["grpc-message"], trailers
    async with http.post(
        f"/{SERVICE}/NoSuchCall", data=framed(g.LoginRequest()), headers=HEADERS
    ) as reply:
        assert reply.headers["grpc-status"] == "12"  # UNIMPLEMENTED
    headers = {"content-type": "application/json"}
    async with http.post(path, data=b"{}", headers=headers) as reply:
        assert reply.status == 415 and "application/grpc-web+proto" in await reply.text()
    # Health and reflection stay on the gRPC port.
    async with http.post("/grpc.health.v1.Health/Check", data=b"", headers=HEADERS) as reply:
        assert reply.headers["grpc-status"] == "12"


async def test_the_session_stream_pushes_frame_by_frame(http: aiohttp.ClientSession) -> None:
    ann = await register(http)
    token = ann.tokens.access_token
    headers = {**HEADERS, "authorization": f"Bearer {token}"}
    pushes: asyncio.Queue[g.OpenSessionResponse] = asyncio.Queue()

    async def read_stream() -> None:
        path = f"/{SERVICE}/OpenSession"
        async with http.post(path, data=framed(g.OpenSessionRequest()), headers=headers) as reply:
            buffer = b""
            async for chunk in reply.content.iter_any():
                buffer += chunk
                while len(buffer) >= 5:
                    flag, length = struct.unpack_from(">BI", buffer)
                    if len(buffer) < 5 + length:
                        break
                    payload, buffer = buffer[5 : 5 + length], buffer[5 + length :]
                    if not flag & 0x80:
                        await pushes.put(g.OpenSessionResponse.FromString(payload))

    async def next_push(field: str) -> g.OpenSessionResponse:
        while True:
            push = await asyncio.wait_for(pushes.get(), 20)
            if push.WhichOneof("push") == field:
                return push

    reading = asyncio.ensure_future(read_stream())
    try:
        opened = await next_push("session_opened")
        assert opened.session_opened.status.player.player_id == ann.player.player_id
        # A practice match started over the web: its view arrives on the open stream.
        start = g.StartPracticeRequest(
            request_id=uuid4().hex,
            origin_mode=pb.MODE_UNRANKED,
            bot_level=pb.BOT_LEVEL_NOVICE,
            deck=pb.DeckChoice(random=pb.RandomDeck()),
        )
        messages, trailers = await call(http, "StartPractice", start, token)
        assert trailers["grpc-status"] == "0", trailers
        match_id = g.StartPracticeResponse.FromString(messages[0]).match_id
        view = (await next_push("match_view")).match_view
        assert view.match_id == match_id
        assert not reading.done()  # still open, waiting for the next push
    finally:
        reading.cancel()
        await asyncio.gather(reading, return_exceptions=True)


async def test_the_page_is_served_with_its_policy(
    http: aiohttp.ClientSession, backend: Stack
) -> None:
    async with http.get("/healthz") as reply:
        assert reply.status == 200
    built = Path(backend.backend.env("gateway")["TRIAD_GATEWAY_WEB_ROOT"]) / "index.html"
    async with http.get("/") as reply:
        if not built.exists():
            assert reply.status == 404 and "make web" in await reply.text()
            return
        assert reply.status == 200 and reply.content_type == "text/html"
        assert "default-src 'self'" in reply.headers["Content-Security-Policy"]
    for sneaky in ("/.env", "/..%2Fpyproject.toml", "/secrets.toml"):
        async with http.get(sneaky) as reply:
            assert reply.status == 404
