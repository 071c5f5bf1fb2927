"""Wakes streams when something they follow changes, on any replica.

A service's transaction runs ``pg_notify(channel, '<key>[:<anything>]')`` as it writes
(a match id with its version, a player id); PostgreSQL delivers it at commit to every
listening connection, so a stream held by one replica wakes when another replica
writes. A missed notification (the listening connection dropped) only delays: streams
also re-check on a timer, and a reconnect wakes them all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import Any

import asyncpg
import structlog

log = structlog.get_logger()


class Waiters:
    """Events by key (a match id, a player id): ``watch`` hands out one that ``wake``
    sets. What a NOTIFY wakes here, and what a gateway wakes when it changed something
    itself."""

    def __init__(self) -> None:
        self._waiters: dict[str, set[asyncio.Event]] = {}

    @contextmanager
    def watch(self, key: str) -> Iterator[asyncio.Event]:
        """An event set whenever ``key`` is woken, for as long as the block runs."""
        event = asyncio.Event()
        self._waiters.setdefault(key, set()).add(event)
        try:
            yield event
        finally:
            waiters = self._waiters.get(key)
            if waiters is not None:
                waiters.discard(event)
                if not waiters:
                    del self._waiters[key]

    def wake(self, key: str) -> None:
        for event in self._waiters.get(key, ()):
            event.set()

    def wake_all(self) -> None:
        for waiters in self._waiters.values():
            for event in waiters:
                event.set()


class Notifier:
    def __init__(self, dsn: str, channel: str) -> None:
        self._dsn = dsn
        self._channel = channel
        self._conn: Any = None
        self._waiters = Waiters()
        self._closing = False

    async def start(self) -> None:
        self._conn = await asyncpg.connect(self._dsn)
        await self._conn.add_listener(self._channel, self._on_notify)
        self._conn.add_termination_listener(self._on_lost)

    async def close(self) -> None:
        self._closing = True
        if self._conn is not None and not self._conn.is_closed():
            await self._conn.close()

    async def keep_alive(self, stop: asyncio.Event, every: float = 2.0) -> None:
        """Reconnect the listening connection after PostgreSQL went away."""
        while not stop.is_set():
            if self._conn is None or self._conn.is_closed():
                try:
                    await self.start()
                    self._wake_all()  # anything may have changed while we were deaf
                except (OSError, asyncpg.PostgresError) as error:
                    log.warning(
                        "notifier reconnect failed", channel=self._channel, error=str(error)
                    )
            with suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), every)

    def watch(self, key: str) -> AbstractContextManager[asyncio.Event]:
        """An event set whenever ``key`` (a match id, a player id) is notified."""
        return self._waiters.watch(key)

    def _on_notify(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        self._waiters.wake(payload.split(":", 1)[0])

    def _on_lost(self, _conn: Any) -> None:
        if self._closing:
            return
        log.warning("notifier lost its PostgreSQL connection", channel=self._channel)
        self._wake_all()

    def _wake_all(self) -> None:
        self._waiters.wake_all()
