"""The relay's part of a service's schema, as migrations (``services.platform.relay``
re-exports them): one checkpoint row per relay name, and ``relay_batch()``, a batch's
reads and writes in one round trip."""

from __future__ import annotations

from services.platform.migrations import Migration

MIGRATIONS = (
    Migration(
        "relay",
        1,
        "relay checkpoints: how far each relay has published the global order",
        """
        CREATE TABLE relay_checkpoints (
            name       text        PRIMARY KEY,
            tx_id      xid8        NOT NULL DEFAULT '0',
            seq        bigint      NOT NULL DEFAULT 0,
            updated_at timestamptz NOT NULL DEFAULT now()
        );
        """,
    ),
    Migration(
        "relay",
        2,
        "relay_batch(): lock the checkpoint, read the next events, advance, in one call",
        """
        -- A batch's reads and writes in one round trip, inside the caller's transaction
        -- (which publishes the rows, then commits, or rolls the advance back). Each
        -- statement sees a fresh snapshot, as the separate statements did: the lock
        -- first, then the read below the horizon. Nothing readable: no lock, no
        -- transaction id. ``more``: committed events after the batch (readable now, or
        -- once older transactions end).
        CREATE FUNCTION relay_batch(p_name text, p_limit integer)
        RETURNS TABLE (stream_id text, version integer, tx_text text, seq bigint,
                       event_id uuid, type text, schema_version integer, data bytea,
                       metadata text, recorded_at timestamptz, more boolean)
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        #variable_conflict use_column
        DECLARE
            at_tx xid8;
            at_seq bigint;
            last_tx xid8;
            last_seq bigint;
            later boolean;
        BEGIN
            IF NOT EXISTS (
                SELECT 1 FROM events AS e, relay_checkpoints AS c
                WHERE c.name = p_name AND (e.tx_id, e.seq) > (c.tx_id, c.seq)
                  AND e.tx_id < (SELECT pg_snapshot_xmin(pg_current_snapshot()))
            ) THEN
                RETURN;
            END IF;
            SELECT c.tx_id, c.seq INTO at_tx, at_seq
                FROM relay_checkpoints AS c WHERE c.name = p_name FOR UPDATE;
            SELECT b.tx_id, b.seq INTO last_tx, last_seq FROM (
                SELECT e.tx_id, e.seq FROM events AS e
                WHERE (e.tx_id, e.seq) > (at_tx, at_seq)
                  AND e.tx_id < (SELECT pg_snapshot_xmin(pg_current_snapshot()))
                ORDER BY e.tx_id, e.seq LIMIT p_limit
            ) AS b ORDER BY b.tx_id DESC, b.seq DESC LIMIT 1;
            IF last_tx IS NULL THEN
                RETURN;
            END IF;
            later := EXISTS (
                SELECT 1 FROM events AS e WHERE (e.tx_id, e.seq) > (last_tx, last_seq));
            UPDATE relay_checkpoints AS c SET tx_id = last_tx, seq = last_seq,
                updated_at = now() WHERE c.name = p_name;
            -- Every transaction up to last_tx had ended: these rows are final.
            RETURN QUERY
                SELECT e.stream_id, e.version, e.tx_id::text, e.seq, e.event_id, e.type,
                       e.schema_version, e.data, e.metadata::text, e.recorded_at, later
                FROM events AS e
                WHERE (e.tx_id, e.seq) > (at_tx, at_seq)
                  AND (e.tx_id, e.seq) <= (last_tx, last_seq)
                ORDER BY e.tx_id, e.seq;
        END
        $$;
        """,
    ),
)
