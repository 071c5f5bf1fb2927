"""The gateway's web port: the same public API to browsers over gRPC-Web (binary,
``application/grpc-web+proto``), and the browser client's built files (``web/``).

No RPC is implemented twice: each request is handed to the very handler the gRPC
server registered for its method (``GrpcServer.handlers``), so it passes through the
same wrappers: authentication, rate limits, request checks, error mapping and metrics.
A ``WebContext`` plays the part of grpc's servicer context (metadata from the HTTP
headers, the browser's address as the peer, the status a handler aborts with).

gRPC-Web in one paragraph: the request body is one length-prefixed message (a flag
byte, 0 for data, and a 4-byte big-endian length); the response body is the answer's
messages framed alike, then a trailer frame (flag 0x80) holding ``grpc-status`` and
``grpc-message`` as HTTP header lines. A server stream (``OpenSession``) is the same
response, its frames written as they come (HTTP/1.1 chunked).

Use::

    web = WebServer(handlers, static_root=Path("web/dist"))
    port = await web.start("0.0.0.0", 8443, ssl_context)
    ...
    await web.stop()
"""

from __future__ import annotations

import asyncio
import re
import ssl
import struct
from collections.abc import Mapping, Sequence
from contextlib import aclosing
from pathlib import Path
from typing import Any
from urllib.parse import quote

import grpc
from aiohttp import web

SERVICE_PREFIX = "/triad.v1.TriadGateway/"
"""Only the public API is served here (not health or reflection)."""

CONTENT_TYPES = ("application/grpc-web", "application/grpc-web+proto")
MAX_REQUEST_BYTES = 1024 * 1024 + 5
"""One message of at most 1 MiB (the gRPC server's receive limit) and its frame header."""

FRAME_HEADER = struct.Struct(">BI")
TRAILER_FLAG = 0x80
FORWARDED_HEADERS = ("authorization", "x-request-id", "user-agent")
"""The HTTP headers a handler sees as its call's metadata."""

STATIC_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}
PAGE_HEADERS = {
    # The page loads its own script and style, and talks to this origin only.
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}


class WebContext:
    """What the handlers and their wrappers ask of grpc's servicer context."""

    def __init__(self, request: web.Request, timeout: float | None) -> None:
        self._metadata = tuple(
            (name, request.headers[name]) for name in FORWARDED_HEADERS if name in request.headers
        )
        self._peer = _peer(request)
        self._deadline = None if timeout is None else asyncio.get_running_loop().time() + timeout
        self._code: grpc.StatusCode | None = None
        self._details = ""

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    def time_remaining(self) -> float | None:
        if self._deadline is None:
            return None
        return max(0.0, self._deadline - asyncio.get_running_loop().time())

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def details(self) -> str:
        return self._details

    def set_code(self, code: grpc.StatusCode) -> None:
        self._code = code

    def set_details(self, details: str) -> None:
        self._details = details

    async def abort(self, code: grpc.StatusCode, details: str = "") -> None:
        self._code, self._details = code, details
        raise grpc.aio.AbortError()


def _peer(request: web.Request) -> str:
    """The browser's address as grpc names a peer (``ipv4:203.0.113.7:51234``)."""
    transport = request.transport
    address = transport.get_extra_info("peername") if transport is not None else None
    if not address:
        return "unknown"
    host, port = address[0], address[1]
    return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"


def frame(payload: bytes, flag: int = 0) -> bytes:
    return FRAME_HEADER.pack(flag, len(payload)) + payload


def trailer(code: grpc.StatusCode, details: str = "") -> bytes:
    lines = f"grpc-status:{code.value[0]}\r\n"
    if details:
        lines += f"grpc-message:{percent_encoded(details)}\r\n"
    return frame(lines.encode(), TRAILER_FLAG)


def percent_encoded(details: str) -> str:
    """A status message as gRPC carries it in a header: printable ASCII as is, every
    other character (and ``%``) percent-encoded in UTF-8, so any language survives."""
    return "".join(c if " " <= c <= "~" and c != "%" else quote(c, safe="") for c in details)


def parse_timeout(value: str | None) -> float | None:
    """``grpc-timeout`` (``"1500m"``: one to eight ASCII digits and a unit, as gRPC's
    protocol has it), in seconds; None if absent or not understood, as native gRPC
    ignores it (found from outside: 309 digits, or a superscript digit, which
    ``str.isdigit`` takes, failed the call with HTTP 500 and a traceback)."""
    if not value or _TIMEOUT.fullmatch(value) is None:
        return None
    return int(value[:-1]) * _TIMEOUT_UNITS[value[-1]]


_TIMEOUT = re.compile(r"[0-9]{1,8}[HMSmun]")
_TIMEOUT_UNITS = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}


def unframe(body: bytes) -> bytes:
    """The one message of a request body; ValueError says what is wrong with it."""
    if len(body) < FRAME_HEADER.size:
        raise ValueError("the request body is not a gRPC-Web message frame")
    flag, length = FRAME_HEADER.unpack_from(body)
    if flag == 1:  # the compressed bit alone; any other flag is no message frame at all
        raise ValueError("compressed messages are not accepted: send them uncompressed")
    if flag != 0 or len(body) != FRAME_HEADER.size + length:
        raise ValueError("the request body must be exactly one gRPC-Web message frame")
    return body[FRAME_HEADER.size :]


CORS_REQUEST_HEADERS = (
    "authorization, content-type, grpc-timeout, x-grpc-web, x-request-id, x-user-agent"
)
CORS_EXPOSED_HEADERS = "grpc-status, grpc-message"
STOP_GRACE_SECONDS = 5.0
"""At stop, calls in flight get this long to finish; then they are cancelled. Session
streams never finish by themselves: without a bound (aiohttp waits 60 s) a gateway with
a browser open would outlive its pod's termination grace period (30 s)."""


class WebServer:
    """gRPC-Web calls to ``handlers`` (by full method name), and the static page.

    ``origins``: pages served elsewhere (``https://play.example.com``) whose scripts may
    call the API too (CORS); the page served here needs none. The tokens travel in a
    header, never in a cookie, so a page of another origin cannot act for a player."""

    def __init__(
        self,
        handlers: Mapping[str, Any],
        static_root: Path | None = None,
        origins: Sequence[str] = (),
        stop_grace_seconds: float = STOP_GRACE_SECONDS,
    ) -> None:
        self._handlers = {m: h for m, h in handlers.items() if m.startswith(SERVICE_PREFIX)}
        self._root = static_root.resolve() if static_root is not None else None
        self._origins = frozenset(origins)
        self._grace = stop_grace_seconds
        self._runner: web.AppRunner | None = None
        app = web.Application(client_max_size=MAX_REQUEST_BYTES)
        app.on_response_prepare.append(self._allow_origin)
        app.router.add_options("/{service}/{method}", self._preflight)
        app.router.add_post("/{service}/{method}", self._call)
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/", self._static)
        app.router.add_get("/{name}", self._static)
        self.app = app

    async def start(self, host: str, port: int, ssl_context: ssl.SSLContext | None) -> int:
        """Listen; returns the bound port (``port=0`` binds a free one)."""
        # handler_cancellation: a browser that goes away ends its session stream now
        # (its finally blocks run), not at the next heartbeat's write.
        self._runner = web.AppRunner(
            self.app,
            handler_cancellation=True,
            access_log=None,
            shutdown_timeout=self._grace,
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port, ssl_context=ssl_context)
        await site.start()
        return int(self._runner.addresses[0][1])

    async def stop(self) -> None:
        """Stop listening; calls in flight get ``stop_grace_seconds``, then are cancelled
        (a session stream's ``finally`` runs: its player is reported disconnected)."""
        if self._runner is not None:
            await self._runner.cleanup()

    def _allowed(self, request: web.Request) -> str | None:
        origin = request.headers.get("Origin")
        return origin if origin in self._origins else None

    async def _allow_origin(self, request: web.Request, response: web.StreamResponse) -> None:
        origin = self._allowed(request)
        if origin is not None:
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Expose-Headers"] = CORS_EXPOSED_HEADERS
            response.headers["Vary"] = "Origin"

    async def _preflight(self, request: web.Request) -> web.Response:
        if self._allowed(request) is None:
            raise web.HTTPForbidden(
                text="this origin may not call the API (TRIAD_GATEWAY_WEB_ORIGINS)"
            )
        return web.Response(
            status=204,
            headers={
                "Access-Control-Allow-Methods": "POST",
                "Access-Control-Allow-Headers": CORS_REQUEST_HEADERS,
                "Access-Control-Max-Age": "600",
            },
        )

    async def _healthz(self, request: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info.get("name", "index.html")
        suffix = Path(name).suffix
        if self._root is None or not (self._root / "index.html").is_file():
            return web.Response(
                status=404, text="The browser client is not built here: run `make web`.\n"
            )
        path = self._root / name
        if name.startswith(".") or "/" in name or suffix not in STATIC_TYPES or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(
            path, headers={**PAGE_HEADERS, "Content-Type": STATIC_TYPES[suffix]}
        )

    async def _call(self, request: web.Request) -> web.StreamResponse:
        method = request.path
        handler = self._handlers.get(method)
        if handler is None:
            return _trailers_only(grpc.StatusCode.UNIMPLEMENTED, f"no method {method[:200]}")
        kind = request.content_type
        if kind not in CONTENT_TYPES:
            raise web.HTTPUnsupportedMediaType(
                text=f"send gRPC-Web as application/grpc-web+proto, not {kind or 'nothing'}"
            )
        try:
            message = unframe(await request.read())
        except web.HTTPRequestEntityTooLarge:
            return _trailers_only(
                grpc.StatusCode.RESOURCE_EXHAUSTED, "the request is larger than 1 MiB"
            )
        except ValueError as error:
            return _trailers_only(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        context = WebContext(request, parse_timeout(request.headers.get("grpc-timeout")))
        parsed = handler.request_deserializer(message)
        if handler.unary_unary is not None:
            return await self._unary(handler, parsed, context)
        if handler.unary_stream is not None:
            return await self._stream(request, handler, parsed, context)
        return _trailers_only(grpc.StatusCode.UNIMPLEMENTED, "client streams need gRPC")

    async def _unary(self, handler: Any, parsed: Any, context: WebContext) -> web.Response:
        try:
            async with asyncio.timeout(context.time_remaining()):
                answer = await handler.unary_unary(parsed, context)
        except grpc.aio.AbortError:
            return _trailers_only(context.code() or grpc.StatusCode.UNKNOWN, context.details())
        except TimeoutError:
            return _trailers_only(grpc.StatusCode.DEADLINE_EXCEEDED, "the deadline passed")
        body = frame(handler.response_serializer(answer)) + trailer(grpc.StatusCode.OK)
        return web.Response(body=body, headers=_response_headers())

    async def _stream(
        self, request: web.Request, handler: Any, parsed: Any, context: WebContext
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers=_response_headers())
        response.enable_chunked_encoding()
        await response.prepare(request)
        code, details = grpc.StatusCode.OK, ""
        try:
            async with asyncio.timeout(context.time_remaining()):
                async with aclosing(handler.unary_stream(parsed, context)) as messages:
                    async for message in messages:
                        await response.write(frame(handler.response_serializer(message)))
        except grpc.aio.AbortError:
            code, details = context.code() or grpc.StatusCode.UNKNOWN, context.details()
        except TimeoutError:
            code, details = grpc.StatusCode.DEADLINE_EXCEEDED, "the deadline passed"
        await response.write(trailer(code, details))
        await response.write_eof()
        return response


def _response_headers() -> dict[str, str]:
    return {"Content-Type": "application/grpc-web+proto", "Cache-Control": "no-store"}


def _trailers_only(code: grpc.StatusCode, details: str) -> web.Response:
    """An answer with no message ("trailers-only"): its status in the headers and an
    empty body, as gRPC-Web clients expect of a stream refused at once."""
    headers = {**_response_headers(), "grpc-status": str(code.value[0])}
    if details:
        headers["grpc-message"] = percent_encoded(details)
    return web.Response(body=b"", headers=headers)
