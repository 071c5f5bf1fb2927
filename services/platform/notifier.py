"""Wakes streams when something they follow changes, on any replica.

A service's transaction runs ``pg_notify(channel, '<key>[:<anything>]')`` as it writes
(a match id with its version, a player id), or one notice of such lines, one per key
(a group commit); PostgreSQL delivers it at commit to every listening connection, so a
stream held by one replica wakes when another replica writes. A missed notification
(the listening connection dropped) only delays: streams also re-check on a timer, and
a reconnect wakes them all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
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
        self._versions: dict[str, int] = {}

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
                    self._versions.pop(key, None)

    def wake(self, key: str, version: int | None = None) -> None:
        """Wake the watchers of ``key``; ``version``, when the notice carried one, is
        kept (the highest seen) for them to ask ``version_of``."""
        waiters = self._waiters.get(key)
        if not waiters:
            return
        if version is not None and version > self._versions.get(key, 0):
            self._versions[key] = version
        for event in waiters:
            event.set()

    def version_of(self, key: str) -> int | None:
        """The highest version notified for ``key`` while it was watched, if any."""
        return self._versions.get(key)

    def wake_all(self) -> None:
        """Wake every watcher, forgetting the versions: after an outage of the
        listener, what was notified tells nothing of what was missed."""
        self._versions.clear()
        for waiters in self._waiters.values():
            for event in waiters:
                event.set()


class Notifier:
    def __init__(self, dsn: str, channel: str) -> None:
        self._dsn = dsn
        self._channel = channel
        self._conn: Any = None
        self._waiters = Waiters()
        self._hearers: list[Callable[[str, str], None]] = []
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

    def version_of(self, key: str) -> int | None:
        """The highest version a ``<key>:<version>`` notice named while ``key`` was
        watched: what a watcher's cached state must reach to be current."""
        return self._waiters.version_of(key)

    def hear(self, hearer: Callable[[str, str], None]) -> None:
        """Also call ``hearer(key, rest)`` for every notice line, watched or not (a
        publisher acting on every change). Nothing is replayed after a reconnect."""
        self._hearers.append(hearer)

    def _on_notify(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        for line in payload.split("\n"):
            key, _, rest = line.partition(":")
            self._waiters.wake(key, int(rest) if rest.isdigit() else None)
            for hearer in self._hearers:
                hearer(key, rest)

    def _on_lost(self, _conn: Any) -> None:
        if self._closing:
            return
        log.warning("notifier lost its PostgreSQL connection", channel=self._channel)
        self._wake_all()

    def _wake_all(self) -> None:
        self._waiters.wake_all()
