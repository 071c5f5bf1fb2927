"""What every servicer does to a request before its handler runs: required ids, the
log context, enum values and the operator's token.

Use, in a service's ``server.py`` (or ``server/``)::

    from services.platform.edge import bind, check_operator, require, require_enum

    async def PlaceCard(self, request, context):
        bind(match_id=request.match_id, player_id=request.player_id)
        match_id = require(request.match_id, "match_id")
        ...

    async def GetMatchEvents(self, request, context):
        check_operator(self._admin_token, context)   # TRIAD_ADMIN_TOKEN as a bearer token

- ``require``: a non-empty string of at most ``MAX_ID`` characters (an id a client
  sends), else INVALID_ARGUMENT naming the field.
- ``bind``: every log line of this request carries the given ids (structlog context
  variables; the interceptor clears them per request).
- ``require_bound``: ``require`` one id, then ``bind`` it under its field's name (a
  request that names only its player: ``player = require_bound(request.player_id,
  "player_id")``).
- ``require_enum`` / ``short_name`` (from ``enums``): one wording for a missing or
  unknown enum value.
- ``check_operator``: PERMISSION_DENIED unless the call carries
  ``authorization: Bearer <admin token>`` (compared in constant time); a service
  without an admin token refuses every operator call. ``operator_metadata``: the other
  end, what an operator's call (``triad-admin``) sends with its token.
"""

from __future__ import annotations

import hmac
from typing import Any

import structlog

from services.platform.enums import require_enum, short_name
from services.platform.errors import InvalidArgument, PermissionDenied

__all__ = [
    "MAX_ID",
    "bearer",
    "bind",
    "check_operator",
    "operator_metadata",
    "require",
    "require_bound",
    "require_enum",
    "short_name",
]

MAX_ID = 200
"""The longest id (or name) a service accepts in a request."""


def require(value: str, field: str, longest: int = MAX_ID) -> str:
    """``value`` if it is given and at most ``longest`` characters, else InvalidArgument."""
    if not value:
        raise InvalidArgument(f"{field} is required")
    if len(value) > longest:
        raise InvalidArgument(f"{field} is longer than {longest} characters")
    return value


def bind(**ids: str) -> None:
    """Every log line of this request carries ``ids`` (match_id=..., player_id=...)."""
    structlog.contextvars.bind_contextvars(**ids)


def require_bound(value: str, field: str) -> str:
    """``value``, required as ``require`` does, and on every log line of this request as
    ``field``."""
    bind(**{field: require(value, field)})
    return value


def bearer(context: Any) -> str:
    """The call's ``authorization`` header ("" if none)."""
    return str(dict(context.invocation_metadata() or ()).get("authorization", ""))


def operator_metadata(token: str) -> tuple[tuple[str, str]]:
    """The metadata of an operator's call: its token as ``check_operator`` reads it."""
    return (("authorization", f"Bearer {token}"),)


def check_operator(admin_token: str | None, context: Any) -> None:
    """Let the call through only if it carries the operator's token."""
    expected = operator_metadata(admin_token)[0][1] if admin_token else None
    if expected is None or not hmac.compare_digest(bearer(context).encode(), expected.encode()):
        raise PermissionDenied("operators only: send the TRIAD_ADMIN_TOKEN as a bearer token")
