"""Calls from the gateway to the internal services: a deadline on every call, and
their failures turned into what a player may be told (never an internal detail)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

import grpc

from services.platform.errors import (
    AlreadyExists,
    Conflict,
    DomainError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    Unavailable,
)

T = TypeVar("T")
INTERNAL_DEADLINE = 5.0
"""Seconds any internal call may take; a player's retry is cheaper than a hung call."""

_PASSED_ON: dict[grpc.StatusCode, type[DomainError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
    grpc.StatusCode.ABORTED: Conflict,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhausted,
}


async def call(what: str, pending: Awaitable[T]) -> T:
    """Await an internal call; a caller's error passes on with its message, anything
    else becomes UNAVAILABLE naming only the service."""
    try:
        return await pending
    except grpc.aio.AioRpcError as error:
        kind = _PASSED_ON.get(error.code())
        if kind is not None:
            raise kind(error.details() or error.code().name) from None
        raise Unavailable(f"the {what} service is not available right now; retry") from None
