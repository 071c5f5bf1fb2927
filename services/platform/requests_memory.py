"""Idempotent request keys in memory: what a service's in-memory adapter keeps where its
PostgreSQL adapter has the ``requests`` table (``requests.answered`` and ``remember``),
with the same answers: the first result of a request seen before, ``RequestReused``
for its id with other content, ``RequestSeen`` for a run that lost the race.

Use (one event loop: a check and the write after it happen with no await between)::

    keys: MemoryRequests[str] = MemoryRequests()
    first = keys.answered(request)        # a retry?
    keys.check_new(request)               # before anything changes
    ...                                   # the effect
    keys.remember(request, ticket_id)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

from services.platform.requests import Request, RequestSeen

T = TypeVar("T")


@dataclass
class MemoryRequests(Generic[T]):
    """Each recorded request's fingerprint and first result, by (scope, request id).
    Compared by content, as the in-memory tables that hold it are."""

    _seen: dict[tuple[str, str], tuple[str, T]] = field(default_factory=dict, init=False)

    def answered(self, request: Request) -> T | None:
        """The first result of ``request`` if its id was recorded, None if it is new;
        ``RequestReused`` if the id came with other content."""
        found = self._seen.get((request.scope, request.request_id))
        if found is None:
            return None
        request.check(found[0])
        return found[1]

    def check_new(self, request: Request | None) -> None:
        """``RequestSeen`` if ``request``'s id was recorded meanwhile (None: no key)."""
        if request is not None and (request.scope, request.request_id) in self._seen:
            raise RequestSeen(request.request_id)

    def forget(self, request: Request) -> None:
        """Drop ``request``'s key if it was recorded with this very content."""
        found = self._seen.get((request.scope, request.request_id))
        if found is not None and found[0] == request.fingerprint:
            del self._seen[request.scope, request.request_id]

    def snapshot(self) -> MemoryRequests[T]:
        """A copy to record in (the results recorded are frozen, so shared)."""
        copied: MemoryRequests[T] = MemoryRequests()
        copied._seen = dict(self._seen)
        return copied

    def remember(self, request: Request | None, result: T) -> None:
        """Record ``request`` with its first ``result`` (None: nothing to record)."""
        if request is not None:
            self._seen[request.scope, request.request_id] = (request.fingerprint, result)
