"""Operators' view and replay of the idempotent consumers (``triad-admin consumer``).

A consumer's state lives in two places: its position in the JetStream event stream (the
durable consumer's ack floor, a stream sequence) and its marks in its service's schema
(``processed_events``, one row per event applied, with the event's stream sequence).
Every consumer registers itself in its schema's ``event_consumers`` when it binds, so
the tool finds them all from the database.

``list`` shows each: its schema (the service's), durable name, filter, position, what is
left to do (not yet delivered plus delivered and not acknowledged) and the marks.

``reset NAME --from POSITION`` replays: the events after POSITION (a stream sequence;
0, the default, is the beginning) are applied again, their handlers run again. Since the
consumers are idempotent that changes nothing, which is the point: it checks that they
are, and after a deploy whose handler did the wrong thing (and marked the events done)
it has them done again by the fixed one. The reset, in one PostgreSQL transaction:

1. takes the consumer's advisory lock exclusively. Every transaction that marks an event
   holds it shared (``services/platform/consumer.py``), so the reset waits for the
   deliveries in flight to commit, and the consumer's next marks wait for the reset;
2. forgets the marks of the events after POSITION (those without a sequence, made
   before marks carried one, only when POSITION is 0);
3. moves the JetStream consumer back (``$JS.API.CONSUMER.RESET``, NATS 2.14+): the
   next delivery is the first event after POSITION; what was delivered and not acked
   is dropped (acks that still come for it are ignored);
4. commits.

A delivery that was fetched before the reset and marks after it applies its event once
more, which the replay then finds marked: every event after POSITION is applied again
at least once. The services keep running meanwhile: every replica's loop stays bound to
the same durable consumer and simply receives the replayed events.

Why the tool talks to PostgreSQL and NATS rather than to each service over gRPC: the
rating and matchmaker services have no operator API, the lock must hold across every
replica of a service anyway (they share the durable consumer), and the operator holds
the database and NATS URLs the services are given. A service-side method would be one
more door with the same two steps behind it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import nats
from nats.errors import NoRespondersError, NoServersError
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js import JetStreamContext
from nats.js.errors import NotFoundError

from services.platform.consumer import lock_key
from services.platform.migrations import quote_schema

RESET_SINCE = (2, 14)
"""The NATS server version that has ``$JS.API.CONSUMER.RESET`` (ADR-60)."""

LOCK_TIMEOUT = "10s"
"""How long a reset waits for the consumer's deliveries in flight before giving up."""


class AdminError(Exception):
    """A request the tool refuses; the message says what to do instead."""


class Unreachable(AdminError):
    """A server the command needs did not answer; the message names it and its address
    (never a password from its URL)."""


def address_of(url: str) -> str:
    """Where a server URL points, without its user and password."""
    netloc = urlsplit(url).netloc.rpartition("@")[2]
    return netloc or url.partition("?")[0]


@dataclass(frozen=True, slots=True)
class ConsumerState:
    schema: str
    name: str
    stream: str
    filter_subject: str
    position: int | None
    """The stream sequence up to which every event is applied (JetStream's ack floor);
    None when the JetStream consumer does not exist (it is created when one binds)."""
    delivered: int | None
    """The last stream sequence delivered to it."""
    pending: int | None
    """Events not yet delivered to it."""
    in_flight: int | None
    """Events delivered and not acknowledged yet."""
    stream_last: int
    """The last sequence in the stream (of any subject)."""
    marks: int
    """Events marked applied in its schema."""
    last_applied_at: datetime | None

    @property
    def caught_up(self) -> bool:
        return self.pending == 0 and self.in_flight == 0

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["last_applied_at"] = (
            None if self.last_applied_at is None else self.last_applied_at.isoformat()
        )
        data["caught_up"] = self.caught_up
        return data


@dataclass(frozen=True, slots=True)
class ResetResult:
    schema: str
    name: str
    previous: int
    position: int
    marks_forgotten: int


@dataclass(frozen=True, slots=True)
class _Registered:
    schema: str
    name: str
    stream: str
    filter_subject: str


async def registered(conn: Any, schema: str | None = None) -> list[_Registered]:
    """Every consumer registered in the database (in ``schema`` only, if given)."""
    schemas = await conn.fetch(
        "SELECT table_schema FROM information_schema.tables"
        " WHERE table_name = 'event_consumers' AND ($1::text IS NULL OR table_schema = $1)"
        " ORDER BY 1",
        schema,
    )
    found: list[_Registered] = []
    for row in schemas:
        name = row["table_schema"]
        rows = await conn.fetch(
            f"SELECT consumer, stream, filter_subject FROM {quote_schema(name)}.event_consumers"
            " ORDER BY consumer"
        )
        found += [_Registered(name, r["consumer"], r["stream"], r["filter_subject"]) for r in rows]
    return found


async def list_consumers(
    conn: Any, js: JetStreamContext, schema: str | None = None
) -> list[ConsumerState]:
    states: list[ConsumerState] = []
    last_of: dict[str, int] = {}
    for c in await registered(conn, schema):
        if c.stream not in last_of:
            try:
                last_of[c.stream] = (await js.stream_info(c.stream)).state.last_seq
            except NotFoundError:
                last_of[c.stream] = 0
        try:
            info = await js.consumer_info(c.stream, c.name)
        except NotFoundError:
            info = None
        marks = await conn.fetchrow(
            f"SELECT count(*) AS marks, max(processed_at) AS last"
            f" FROM {quote_schema(c.schema)}.processed_events WHERE consumer = $1",
            c.name,
        )
        states.append(
            ConsumerState(
                schema=c.schema,
                name=c.name,
                stream=c.stream,
                filter_subject=c.filter_subject,
                position=None if info is None or info.ack_floor is None
                else info.ack_floor.stream_seq,
                delivered=None if info is None or info.delivered is None
                else info.delivered.stream_seq,
                pending=None if info is None else info.num_pending or 0,
                in_flight=None if info is None else info.num_ack_pending or 0,
                stream_last=last_of[c.stream],
                marks=int(marks["marks"]),
                last_applied_at=marks["last"],
            )
        )  # fmt: skip
    return states


async def reset_consumer(
    conn: Any,
    js: JetStreamContext,
    name: str,
    position: int = 0,
    schema: str | None = None,
    *,
    nats_version: tuple[int, int] | None = None,
) -> ResetResult:
    """Replay the events after ``position`` (see the module docstring); nothing changes
    when the request is refused. ``nats_version``, when known, is checked first."""
    if nats_version is not None and nats_version < RESET_SINCE:
        raise AdminError(
            f"the NATS server is {nats_version[0]}.{nats_version[1]}: resetting a consumer "
            f"needs NATS {RESET_SINCE[0]}.{RESET_SINCE[1]} or later (the deployment's is); "
            "nothing was changed"
        )
    if position < 0:
        raise AdminError(f"--from {position}: a position is a stream sequence, 0 or more")
    matches = [c for c in await registered(conn, schema) if c.name == name]
    if not matches:
        where = f" in schema {schema}" if schema else ""
        raise AdminError(
            f"no consumer named {name!r}{where}; `triad-admin consumer list` shows them"
        )
    if len(matches) > 1:
        schemas = ", ".join(c.schema for c in matches)
        raise AdminError(f"{name!r} is a consumer in several schemas ({schemas}): add --schema")
    [consumer] = matches
    try:
        info = await js.consumer_info(consumer.stream, name)
    except NotFoundError:
        raise AdminError(
            f"consumer {name!r} is registered in {consumer.schema} but JetStream has no such "
            f"consumer on stream {consumer.stream}: start its service, which creates it"
        ) from None
    current = info.ack_floor.stream_seq if info.ack_floor is not None else 0
    if position > current:
        raise AdminError(
            f"consumer {name!r} is at position {current}; a reset moves a consumer back, "
            f"so --from must be between 0 and {current}"
        )
    marks = f"{quote_schema(consumer.schema)}.processed_events"
    try:
        async with conn.transaction():
            await conn.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
            await conn.execute("SELECT pg_advisory_xact_lock($1)", lock_key(consumer.schema, name))
            status = await conn.execute(
                f"DELETE FROM {marks} WHERE consumer = $1"
                " AND (stream_seq > $2 OR (stream_seq IS NULL AND $2 = 0))",
                name,
                position,
            )
            await js.reset_consumer(consumer.stream, name, seq=position + 1)
    except (NatsTimeoutError, NoRespondersError):
        raise AdminError(
            f"NATS did not answer the reset of {name!r} (a server older than "
            f"{RESET_SINCE[0]}.{RESET_SINCE[1]} has no such request); nothing was changed"
        ) from None
    except asyncpg.LockNotAvailableError:
        raise AdminError(
            f"consumer {name!r} kept its lock for {LOCK_TIMEOUT} (a delivery stuck in its "
            "handler?); nothing was changed, try again"
        ) from None
    return ResetResult(consumer.schema, name, current, position, int(status.split()[-1]))


@dataclass(frozen=True, slots=True)
class Servers:
    conn: Any
    """A PostgreSQL connection."""
    js: JetStreamContext
    nats_version: tuple[int, int]


@contextlib.asynccontextmanager
async def connections(database_url: str, nats_url: str) -> AsyncIterator[Servers]:
    """A PostgreSQL connection and a JetStream context for one command; NATS is not
    waited for (an operator wants an error, not a hang). A server out of reach is
    ``Unreachable``, naming which."""
    try:
        conn = await asyncpg.connect(database_url, timeout=10)
    except (OSError, TimeoutError, asyncpg.PostgresError) as error:
        raise Unreachable(
            f"cannot reach PostgreSQL at {address_of(database_url)} ({error}); "
            "check --database-url (make run writes it to .run/operator.env)"
        ) from None
    try:
        servers = [u.strip() for u in nats_url.split(",") if u.strip()]
        failures: list[Exception] = []

        async def noted(error: Exception) -> None:  # instead of nats-py's traceback
            failures.append(error)

        try:
            client = await asyncio.wait_for(
                nats.connect(
                    servers,
                    connect_timeout=5,
                    max_reconnect_attempts=1,  # each server tried twice, then given up
                    reconnect_time_wait=0.5,
                    error_cb=noted,
                ),
                15,
            )
        except (OSError, TimeoutError, NoServersError) as error:
            reason = failures[-1] if failures else error
            raise Unreachable(
                f"cannot reach NATS at {', '.join(map(address_of, servers))} ({reason}); "
                "check --nats-url (make run writes it to .run/operator.env)"
            ) from None
        try:
            version = client.connected_server_version
            yield Servers(conn, client.jetstream(timeout=10), (version.major, version.minor))
        finally:
            await client.close()
    finally:
        await conn.close()
