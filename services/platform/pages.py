"""A request's page size, one rule for every list (:func:`page_size`), and keyset page
tokens (AIP-158): a page ends at its last item's time and key, and the next page starts
after it, so an item added or removed between two reads moves nothing past the cursor (an
offset would repeat or skip one). A token is opaque to clients; one that this code did
not write is INVALID_ARGUMENT, never a fault further down (PostgreSQL refuses a NUL in a
text and a time out of range).

Use::

    limit = page_size(request.page_size, DEFAULT_PAGE, MAX_PAGE)
    token = key_token(last.created_at, last.table_id)
    after = key_token_back(request.page_token)  # None on the first page
"""

from __future__ import annotations

import base64
import binascii
from datetime import UTC, datetime

from services.platform.errors import InvalidArgument


def page_size(requested: int, default: int, cap: int, *, refusal: str | None = None) -> int:
    """The items a page holds for a request's ``page_size`` (AIP-158): a negative size is
    INVALID_ARGUMENT (``refusal``, or "page_size must not be negative, got -1"); 0 means
    ``default``; a size larger than ``cap`` is ``cap`` (and so is a default above it).
    Every list RPC's page size goes through here, so none reaches a store negative."""
    if requested < 0:
        raise InvalidArgument(refusal or f"page_size must not be negative, got {requested}")
    return min(requested or default, cap)


def key_token(at: datetime, key: str) -> str:
    """A keyset page token: where the page ended (its last item's time and key)."""
    return base64.urlsafe_b64encode(f"{at.isoformat()}|{key}".encode()).decode()


def key_token_back(token: str) -> tuple[datetime, str] | None:
    """The position ``key_token`` wrote (None: the first page); INVALID_ARGUMENT if it is
    not one of ours."""
    if not token:
        return None
    try:
        moment, key = base64.urlsafe_b64decode(token.encode()).decode().split("|", 1)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise forged() from None
    if "\x00" in key:
        raise forged()
    return moment_back(moment), key


def moment_back(text: str) -> datetime:
    """A token's time as ``isoformat`` wrote it: with its zone, and within years 1 to 9999
    in UTC (as PostgreSQL compares it); INVALID_ARGUMENT otherwise."""
    try:
        at = datetime.fromisoformat(text)
        at.astimezone(UTC)  # an offset may move it out of range
    except (ValueError, TypeError, OverflowError):
        raise forged() from None
    if at.tzinfo is None:
        raise forged()
    return at


def forged() -> InvalidArgument:
    return InvalidArgument("page_token is not one this service gave out")
