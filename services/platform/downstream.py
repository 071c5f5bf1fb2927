"""Calls to another service: a deadline on each, and its failure turned back into a
domain error, so that a refusal keeps its message and its kind across the hop and the
caller's own interceptor maps it to a status once more.

Use::

    from services.platform.downstream import INTERNAL_DEADLINE, call

    reply = await call("match", stub.GetView(request, timeout=INTERNAL_DEADLINE))

A refusal (INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION, ALREADY_EXISTS, ABORTED,
PERMISSION_DENIED, RESOURCE_EXHAUSTED) comes back as the matching ``DomainError`` with
the other service's message; anything else (UNAVAILABLE, a deadline, an internal
fault, UNAUTHENTICATED between services) as ``Unavailable`` naming only the service (and
an internal fault's reference), which a caller may retry and a player may be told.

A caller with a policy of its own passes ``kinds`` (which codes become which errors)
and ``otherwise`` (what the rest becomes), e.g. the matchmaker, which treats every
refusal of a start as final and retries the rest::

    await call("match", pending, kinds=AS_REFUSAL, otherwise=lambda service, error: Retry(...))
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

import grpc

from services.platform.errors import (
    DomainError,
    FailedPrecondition,
    NotFound,
    Unauthenticated,
    Unavailable,
)
from services.platform.interceptors import STATUS_BY_ERROR

T = TypeVar("T")

INTERNAL_DEADLINE = 5.0
"""Seconds any internal call may take; a retry is cheaper than a hung call."""

PASSED_ON: Mapping[grpc.StatusCode, type[DomainError]] = {
    code: kind
    for kind, code in STATUS_BY_ERROR.items()
    if kind not in (Unauthenticated, Unavailable)
}
"""The codes that are the caller's doing, each back to the error the other service's
interceptor made it from (``interceptors.STATUS_BY_ERROR`` read backwards): a refusal
keeps its kind across any number of hops. UNAUTHENTICATED between services is a fault
of this deployment, not the player's, and UNAVAILABLE is retried: neither passes on."""

AS_REFUSAL: Mapping[grpc.StatusCode, type[DomainError]] = {
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
    grpc.StatusCode.INVALID_ARGUMENT: FailedPrecondition,
    grpc.StatusCode.ALREADY_EXISTS: FailedPrecondition,
    grpc.StatusCode.PERMISSION_DENIED: FailedPrecondition,
}
"""For a service acting on its own (not for a client): what another service refused is
a state that refuses it here (FAILED_PRECONDITION), or something missing (NOT_FOUND)."""

Otherwise = Callable[[str, grpc.aio.AioRpcError], Exception]


AWAY = re.compile(
    r"the [a-z]+ service (is not available right now|failed \(reference [0-9a-f]{16}\)); retry"
)
"""What ``not_available`` says: a service farther down that is away or failed, named by
ours (and a failure's reference kept)."""

FAULT = re.compile(r"internal error; reference ([0-9a-f]{16})")
"""What a service's interceptor tells the caller of a bug of its own: the reference under
which its logs hold the traceback (``interceptors``)."""


def not_available(service: str, error: grpc.aio.AioRpcError) -> Exception:
    """The default for codes not passed on: UNAVAILABLE naming the service only (the
    other service's detail may be internal). When that service says in our words that
    one farther down is away (the matchmaker, while the match service restarts), that
    one is named: the player and the operator learn which service to wait for. A bug of
    that service (INTERNAL) keeps its reference, the one thing a player can quote to an
    operator, who finds the traceback under it in that service's logs."""
    told = error.details() or ""
    if error.code() == grpc.StatusCode.UNAVAILABLE and AWAY.fullmatch(told):
        return Unavailable(told)
    fault = FAULT.fullmatch(told)
    if error.code() == grpc.StatusCode.INTERNAL and fault is not None:
        return Unavailable(f"the {service} service failed (reference {fault[1]}); retry")
    return Unavailable(f"the {service} service is not available right now; retry")


def domain_error(
    service: str,
    error: grpc.aio.AioRpcError,
    *,
    kinds: Mapping[grpc.StatusCode, type[DomainError]] = PASSED_ON,
    otherwise: Otherwise = not_available,
) -> Exception:
    """The error to raise for ``service``'s failed call."""
    kind = kinds.get(error.code())
    if kind is not None:
        return kind(error.details() or error.code().name)
    return otherwise(service, error)


async def call(
    service: str,
    pending: Awaitable[T],
    *,
    kinds: Mapping[grpc.StatusCode, type[DomainError]] = PASSED_ON,
    otherwise: Otherwise = not_available,
) -> T:
    """Await a call to ``service``; its failure raised as ``domain_error`` says."""
    try:
        return await pending
    except grpc.aio.AioRpcError as error:
        raise domain_error(service, error, kinds=kinds, otherwise=otherwise) from None
