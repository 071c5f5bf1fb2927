"""Typed errors that every service raises and one gRPC interceptor maps to status codes.

Each kind says what the caller did wrong in the words gRPC uses; the message is a
sentence a person can act on. Pure: domain code may raise these.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")

SHORT_ID = 8
"""Characters of an id that name a match, trade, ticket, table or copy in a message: the
client shows ids cut to these (``match 696d2bce``), and accepts their start for copies."""


def short_id(value: str) -> str:
    """``696d2bce-63d8-...`` -> ``696d2bce``: an id as a person sees it in the client."""
    return value[:SHORT_ID]


class DomainError(Exception):
    """Base of every error a caller can cause; never an internal fault."""


class InvalidArgument(DomainError):
    """The request itself is malformed, whatever the state (INVALID_ARGUMENT)."""


class FailedPrecondition(DomainError):
    """The request is well-formed but the current state refuses it (FAILED_PRECONDITION)."""


class NotFound(DomainError):
    """No such thing, or not one the caller may see (NOT_FOUND)."""


def require_found(value: T | None, message: str) -> T:
    """``value`` when there is one (a lookup found it), else NotFound with ``message``
    ("no table 696d2bce"): the one way a handler refuses what it cannot find."""
    if value is None:
        raise NotFound(message)
    return value


class PermissionDenied(DomainError):
    """The caller may see it but not do this to it (PERMISSION_DENIED)."""


class AlreadyExists(DomainError):
    """It exists already (ALREADY_EXISTS)."""


class Conflict(DomainError):
    """A concurrent change won; retry with fresh state (ABORTED)."""


class ResourceExhausted(DomainError):
    """A limit was hit (RESOURCE_EXHAUSTED)."""


class Unauthenticated(DomainError):
    """No valid credentials: missing, malformed, forged, expired or revoked (UNAUTHENTICATED)."""


class Unavailable(DomainError):
    """A service this one depends on is not reachable now; retry (UNAVAILABLE)."""
