"""What every part of the collection's gRPC edge shares: argument checks and paging."""

from __future__ import annotations

import hmac
from typing import Any

import structlog
from triad.v1 import common_pb2 as pb

from services.collection.events import Holder
from services.collection.mapping import holder_back
from services.match.rules import Element
from services.platform.enums import require_enum
from services.platform.errors import InvalidArgument, PermissionDenied
from services.wire import ELEMENTS_BACK

MAX_ID = 200


def bind(player_id: str = "", **ids: str) -> None:
    """Every log line of this request carries the player and the ids it concerns."""
    structlog.contextvars.bind_contextvars(player_id=player_id, **ids)


def require(value: str, field: str) -> str:
    if not value:
        raise InvalidArgument(f"{field} is required")
    if len(value) > MAX_ID:
        raise InvalidArgument(f"{field} is longer than {MAX_ID} characters")
    return value


def page(size: int, token: str, cap: int, default: int = 50) -> tuple[int, int]:
    """(limit, offset) of an AIP-158 page; the token is the offset of the page."""
    if size < 0:
        raise InvalidArgument("page_size cannot be negative")
    if token and not (token.isdigit() and len(token) < 10):
        raise InvalidArgument("page_token is not one this service gave out")
    return min(size or default, cap), int(token or 0)


def next_token(offset: int, limit: int, got: int) -> str:
    return str(offset + limit) if got > limit else ""


def stars(values: Any) -> frozenset[int]:
    bad = [s for s in values if not 1 <= s <= 5]
    if bad:
        raise InvalidArgument(f"stars run from 1 to 5, got {bad}")
    return frozenset(values)


def elements(values: Any) -> frozenset[Element | None]:
    for value in values:  # ELEMENT_UNSPECIFIED selects the characters without one
        require_enum(value, pb.Element.DESCRIPTOR, "filter.elements", unspecified_ok=True)
    return frozenset(ELEMENTS_BACK[v] for v in values)


def holder_of(message: pb.LockHolder, field: str = "holder") -> Holder:
    found = holder_back(message)
    if found is None:
        raise InvalidArgument(f"{field} must name a match or a trade")
    require(found.id, f"{field} id")
    return found


def check_operator(admin_token: str | None, context: Any) -> None:
    token = dict(context.invocation_metadata() or ()).get("authorization", "")
    expected = f"Bearer {admin_token}" if admin_token else None
    if expected is None or not hmac.compare_digest(str(token).encode(), expected.encode()):
        raise PermissionDenied("operators only: send the TRIAD_ADMIN_TOKEN as a bearer token")
