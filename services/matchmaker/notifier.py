"""Wakes queue watchers when a player's ticket changes, on any replica.

Every transaction that changes a ticket runs ``pg_notify('triad_matchmaker',
<player_id>)``; PostgreSQL delivers it at commit to every listening connection, so a
WatchQueue stream held by one replica wakes when another replica pairs the ticket. A
missed notification (the listening connection dropped) only delays: watchers also
re-check on a timer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import asyncpg
import structlog

from services.matchmaker.store import NOTIFY_CHANNEL

log = structlog.get_logger()


class Notifier:
    def __init__(self, dsn: str) -> None:
        self._dsn = dsn
        self._conn: Any = None
        self._waiters: dict[str, set[asyncio.Event]] = {}
        self._closing = False

    async def start(self) -> None:
        self._conn = await asyncpg.connect(self._dsn)
        await self._conn.add_listener(NOTIFY_CHANNEL, self._on_notify)
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
                    log.warning("notifier reconnect failed", error=str(error))
            with suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), every)

    @contextmanager
    def watch(self, player_id: str) -> Iterator[asyncio.Event]:
        event = asyncio.Event()
        self._waiters.setdefault(player_id, set()).add(event)
        try:
            yield event
        finally:
            waiters = self._waiters.get(player_id)
            if waiters is not None:
                waiters.discard(event)
                if not waiters:
                    del self._waiters[player_id]

    def _on_notify(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        for event in self._waiters.get(payload, ()):
            event.set()

    def _on_lost(self, _conn: Any) -> None:
        if self._closing:
            return
        log.warning("notifier lost its PostgreSQL connection")
        self._wake_all()

    def _wake_all(self) -> None:
        for waiters in self._waiters.values():
            for event in waiters:
                event.set()
