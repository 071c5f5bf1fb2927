"""The consumers' part of a service's schema, as migrations (``services.platform.consumer``
re-exports them): ``processed_events``, one mark per (consumer, event) whose effect has
committed, with its stream sequence and age; ``event_consumers``, the registry of the
durable consumers a schema binds."""

from __future__ import annotations

from services.platform.migrations import Migration

MIGRATIONS = (
    Migration(
        "consumer",
        1,
        "processed events: one row per (consumer, event) whose effect has committed",
        """
        CREATE TABLE processed_events (
            consumer     text        NOT NULL,
            event_id     uuid        NOT NULL,
            processed_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (consumer, event_id)
        );
        """,
    ),
    Migration(
        "consumer",
        2,
        "replayable consumers: the stream sequence of each mark, and a registry of consumers",
        """
        ALTER TABLE processed_events ADD COLUMN stream_seq bigint;
        CREATE INDEX processed_events_by_position ON processed_events (consumer, stream_seq);
        CREATE TABLE event_consumers (
            consumer       text        PRIMARY KEY,
            stream         text        NOT NULL,
            filter_subject text        NOT NULL,
            bound_at       timestamptz NOT NULL DEFAULT now()
        );
        """,
    ),
    Migration(
        "consumer",
        3,
        "processed marks by age, for their pruning (services.platform.retention)",
        """
        CREATE INDEX processed_events_by_age ON processed_events (processed_at);
        """,
    ),
)
