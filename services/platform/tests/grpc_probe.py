"""A probe service for the bootstrap's tests: generic handlers over raw bytes, no proto.

Each method misbehaves in one way the interceptors must handle; a request's bytes
name the error to raise where there is a choice.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import asyncpg
import grpc
import structlog

from services.platform.errors import (
    AlreadyExists,
    Conflict,
    DomainError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
)
from services.platform.eventstore import WrongExpectedVersion

SERVICE = "triad.test.Probe"

Context = Any  # grpc.aio.ServicerContext[bytes, bytes]


class IllegalMove(FailedPrecondition):
    """As the match domain would define one: a kind of a mapped kind."""


class Unmapped(DomainError):
    """A domain error of no mapped kind: still the caller's doing."""


def _closed_while_broken() -> Exception:
    """What asyncpg raises leaving a transaction whose connection broke mid-command."""
    try:
        raise asyncpg.ConnectionDoesNotExistError(
            "connection was closed in the middle of operation"
        )
    except asyncpg.ConnectionDoesNotExistError:
        try:
            raise asyncpg.InterfaceError("cannot call Transaction.__aexit__(): connection closed")
        except asyncpg.InterfaceError as error:
            closed: Exception = error
            return closed


ERRORS: dict[str, Callable[[], Exception]] = {
    "InvalidArgument": lambda: InvalidArgument("cell 9 is off the board; cells are 0-8"),
    "FailedPrecondition": lambda: FailedPrecondition("the match is over"),
    "NotFound": lambda: NotFound("no match m-1"),
    "PermissionDenied": lambda: PermissionDenied("only the host may start the table"),
    "AlreadyExists": lambda: AlreadyExists("deck 'Aggro' exists already"),
    "Conflict": lambda: Conflict("someone moved first; reload and retry"),
    "ResourceExhausted": lambda: ResourceExhausted("at most 5 decks"),
    "WrongExpectedVersion": lambda: WrongExpectedVersion("match-1", 3, 4),
    "IllegalMove": lambda: IllegalMove("that card is not in your hand"),
    "Unmapped": lambda: Unmapped("refused"),
    "Unexpected": lambda: RuntimeError("SECRET-DETAIL: connection to 10.0.0.7 reset"),
    "Refused": lambda: ConnectionRefusedError(111, "SECRET-DETAIL: connect to 10.0.0.7 failed"),
    "SocketGone": lambda: FileNotFoundError(2, "No such file or directory"),
    "DatabaseStarting": lambda: asyncpg.CannotConnectNowError("the database system is starting up"),
    "DatabaseFull": lambda: asyncpg.TooManyConnectionsError("sorry, too many clients already"),
    "DatabaseGone": lambda: asyncpg.ConnectionDoesNotExistError(
        "connection was closed in the middle of operation"
    ),
    "ClosedWhileBroken": _closed_while_broken,
    "ClosedByMistake": lambda: asyncpg.InterfaceError("SECRET-DETAIL: the connection is closed"),
}

log = structlog.get_logger("probe")


def _error(request: bytes) -> Exception:
    return ERRORS[request.decode()]()


async def raise_named(request: bytes, _context: Context) -> bytes:
    raise _error(request)


async def echo(request: bytes, _context: Context) -> bytes:
    return request


async def stream_then_raise(request: bytes, _context: Context) -> AsyncIterator[bytes]:
    yield b"one"
    yield b"two"
    raise _error(request)


async def stream_ok(request: bytes, _context: Context) -> AsyncIterator[bytes]:
    for part in request.split(b","):
        yield part


def sync_stream(request: bytes, _context: Context) -> Iterator[bytes]:
    yield request
    raise NotFound("no more")


async def write_then_raise(request: bytes, context: Context) -> None:
    await context.write(b"one")
    raise _error(request)


async def hang(_request: bytes, _context: Context) -> bytes:
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


async def stream_hang(_request: bytes, _context: Context) -> AsyncIterator[bytes]:
    yield b"one"
    await asyncio.Event().wait()


async def abort_itself(_request: bytes, context: Context) -> bytes:
    await context.abort(grpc.StatusCode.UNAUTHENTICATED, "a bearer token is required")
    raise AssertionError("unreachable")


async def set_code(_request: bytes, context: Context) -> bytes:
    context.set_code(grpc.StatusCode.UNAVAILABLE)
    context.set_details("try another replica")
    return b""


async def log_line(request: bytes, _context: Context) -> bytes:
    # Yield once so concurrent calls interleave: their bound ids must not mix.
    await asyncio.sleep(0.01)
    log.info("handled", payload=request.decode())
    return request


def register_probe(server: grpc.aio.Server) -> None:
    unary = grpc.unary_unary_rpc_method_handler
    stream = grpc.unary_stream_rpc_method_handler
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {
        "Raise": unary(raise_named),
        "Echo": unary(echo),
        "SyncEcho": unary(lambda request, _context: request),
        "StreamThenRaise": stream(stream_then_raise),
        "StreamOk": stream(stream_ok),
        "SyncStream": stream(sync_stream),
        "WriteThenRaise": stream(write_then_raise),
        "Hang": unary(hang),
        "StreamHang": stream(stream_hang),
        "Abort": unary(abort_itself),
        "SetCode": unary(set_code),
        "Log": unary(log_line),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
