"""One asyncio lock per key (a battle, a match), held while a command on it runs in this
process, so that concurrent commands on the same aggregate take turns instead of
deciding on the same state and all but one failing their save at the expected version
(each failure a wasted decision, a wasted transaction and a reload). Other replicas are
still caught by the expected version. A key's lock lives only while someone holds or
waits for it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class KeyedLocks:
    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    def __len__(self) -> int:
        """Keys held or waited for now."""
        return len(self._locks)

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(key) or (asyncio.Lock(), 0)
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)
