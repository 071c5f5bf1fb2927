"""The event store's part of a service's schema, as migrations
(``services.platform.eventstore`` re-exports them): the ``events`` table, its global
order, ``append_events()``, and the notice an append sends on its schema's own channel."""

from __future__ import annotations

from services.platform.migrations import Migration

# The pieces append_events()'s two versions (migrations eventstore/2 and eventstore/4)
# share, written once; each migration puts them back word for word as released (its
# checksum is recorded in databases). The parameters and result columns:
_APPEND_SIGNATURE = """\
            p_stream text, p_expected integer, p_ids uuid[], p_types text[],
            p_schema_versions integer[], p_data bytea[], p_metadata text[]
        ) RETURNS TABLE (version integer, tx_text text, seq bigint, recorded_at timestamptz)"""

# The stream's last event, which the append must follow:
_APPEND_HEAD = """\
            WITH head AS (
                SELECT e.version, e.tx_id FROM events e
                WHERE e.stream_id = p_stream ORDER BY e.version DESC LIMIT 1
            )"""

# The new rows, numbered on from p_expected; none when the stream has moved on or this
# transaction is older than the one that wrote the stream's last event:
_APPEND_ROWS = """\
            SELECT p_stream, p_expected + n.ord::integer, n.event_id, n.type, n.schema_version,
                   n.data, n.metadata::jsonb
            FROM unnest(p_ids, p_types, p_schema_versions, p_data, p_metadata)
                 WITH ORDINALITY AS n(event_id, type, schema_version, data, metadata, ord)
            WHERE coalesce((SELECT h.version FROM head h), 0) = p_expected
              AND coalesce((SELECT h.tx_id FROM head h), '0'::xid8) <= pg_current_xact_id()
            ORDER BY n.ord"""

MIGRATIONS = (
    Migration(
        "eventstore",
        1,
        "events with a stream version and a (tx_id, seq) global position",
        """
        CREATE TABLE events (
            stream_id      text        NOT NULL,
            version        integer     NOT NULL CHECK (version > 0),
            tx_id          xid8        NOT NULL DEFAULT pg_current_xact_id(),
            seq            bigserial   NOT NULL,
            event_id       uuid        NOT NULL,
            type           text        NOT NULL,
            schema_version integer     NOT NULL,
            data           bytea       NOT NULL,
            metadata       jsonb       NOT NULL DEFAULT '{}',
            recorded_at    timestamptz NOT NULL DEFAULT now(),
            CONSTRAINT events_stream_version PRIMARY KEY (stream_id, version),
            CONSTRAINT events_event_id UNIQUE (event_id)
        );
        CREATE INDEX events_global_order ON events (tx_id, seq);
        """,
    ),
    Migration(
        "eventstore",
        2,
        "append_events(): the expected-version append as one server-side function",
        f"""
        -- One definition of the append, callable alone or from a service's own function
        -- that writes its tables in the same statement (one round trip per command).
        -- Returns no row when the stream is not at p_expected, or when this transaction
        -- is older than the one that wrote the stream's last event.
        CREATE FUNCTION append_events(
{_APPEND_SIGNATURE}
        LANGUAGE sql SET search_path FROM CURRENT AS $$
{_APPEND_HEAD}
            INSERT INTO events (stream_id, version, event_id, type, schema_version, data, metadata)
{_APPEND_ROWS}
            RETURNING events.version, events.tx_id::text, events.seq, events.recorded_at
        $$;
        """,
    ),
    Migration(
        "eventstore",
        3,
        "a notice on triad_events (payload: the schema) when events are appended",
        """
        -- Once per appending statement, and PostgreSQL folds a transaction's equal
        -- notices into one: a group commit of many appends sends one. Delivered at
        -- commit, so the relay that wakes on it can read what was committed.
        CREATE FUNCTION notify_events_appended() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('triad_events', TG_TABLE_SCHEMA);
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER events_appended AFTER INSERT ON events
            FOR EACH STATEMENT EXECUTE FUNCTION notify_events_appended();
        """,
    ),
    Migration(
        "eventstore",
        4,
        "append_events() in PL/pgSQL, so its plan is cached",
        f"""
        -- The same append as version 2, with the same signature and rows. A LANGUAGE sql
        -- function that cannot be inlined (a SET clause, a data-modifying body) is parsed
        -- and planned again on every call before PostgreSQL 18: about 50 us of the
        -- server's CPU per append, a quarter of what a placement costs it. PL/pgSQL
        -- prepares the statement once per connection.
        CREATE OR REPLACE FUNCTION append_events(
{_APPEND_SIGNATURE}
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        #variable_conflict use_column
        BEGIN
            RETURN QUERY
{_APPEND_HEAD}
            INSERT INTO events AS ev
                (stream_id, version, event_id, type, schema_version, data, metadata)
{_APPEND_ROWS}
            RETURNING ev.version, ev.tx_id::text, ev.seq, ev.recorded_at;
        END
        $$;
        """,
    ),
    Migration(
        "eventstore",
        5,
        "the append notice on a channel of the schema's own (triad_events_<schema>)",
        """
        -- On the shared channel every service's relay heard every service's appends:
        -- each placement's commit woke the collection's, matchmaker's, rating's and
        -- battle's relays to ignore it. Only the schema's own relay listens here.
        CREATE OR REPLACE FUNCTION notify_events_appended() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify(left('triad_events_' || TG_TABLE_SCHEMA, 63), TG_TABLE_SCHEMA);
            RETURN NULL;
        END
        $$;
        """,
    ),
)

APPENDED_CHANNEL = "triad_events"
"""Where a schema's appends were announced until eventstore migration 5 (the payload is
the schema name); now the prefix of each schema's own channel (``appended_channel``)."""

MAX_CHANNEL = 63
"""PostgreSQL's longest channel name (NAMEDATALEN - 1 bytes)."""


def appended_channel(schema: str) -> str:
    """Where ``schema``'s appends are announced (the payload is the schema name): a
    channel per schema, so that an append wakes only the relays of its own log, not
    every service's. Cut to PostgreSQL's longest name as the trigger cuts it (schema
    names are ASCII); two long names sharing a cut only share their wake-ups."""
    return f"{APPENDED_CHANNEL}_{schema}"[:MAX_CHANNEL]
