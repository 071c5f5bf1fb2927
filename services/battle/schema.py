"""The battle service's tables, as migrations (schema ``battle`` by default), beside the
platform's event store and relay tables (the battles' events live in ``events``):

- ``battle_timers``: one row per timer a battle needs: its phase deadline (formation or
  selection, seat -1), replaced by every save, and each disconnected seat's takeover
  (set by a presence report, cleared by a reconnect or when it fires). ``timer_id`` is
  the claim key (``services.platform.claims``): any replica leases due rows with
  ``FOR UPDATE SKIP LOCKED``.
- ``requests``: idempotent request keys (``services.platform.requests``) and the battle
  each one acted on.
- ``active``: each player's battle in progress (one at most), and their seat.
- ``presence``: each player's latest gateway session and whether it is open, and the
  battle that finished while their session was closed (``missed_battle_id``, set by a
  trigger as the battle's ``active`` rows go, taken by their next session).
- ``open_battles``: the battles not finished (a restarted service pushes their views).
- ``battle_save()``: everything a command writes (its events through the event store's
  ``append_events()``, the phase timer, settled disconnect timers, the players' active
  battle, the open battles, the request key) in one statement: one round trip, atomic
  without an explicit transaction. It returns false, having written nothing, when the
  stream is not at the expected version; a request id recorded first raises
  ``battle request seen`` (SQLSTATE TB001), which undoes the statement.
- ``battle_save_batch()``: a group commit's commands (``services.platform.groupcommit``),
  each through ``battle_save()`` in its own subtransaction, in one statement: one
  transaction, one commit flush and one relay notice for all of them; each command's
  outcome (``saved``, ``moved``: not at the expected version, ``seen``: request id
  recorded first) undoes only its own writes.
"""

from __future__ import annotations

from services.platform import eventstore_schema, relay_schema
from services.platform.migrations import Migration, quote_schema
from services.platform.retention import Transient

MIGRATIONS = (
    Migration(
        "battle",
        1,
        "timers, requests, active battles, presence",
        """
        CREATE TABLE battle_timers (
            timer_id text PRIMARY KEY,
            battle_id text NOT NULL,
            kind text NOT NULL,
            seat integer NOT NULL,
            due_at timestamptz NOT NULL
        );
        CREATE INDEX battle_timers_due ON battle_timers (due_at);
        CREATE INDEX battle_timers_battle ON battle_timers (battle_id);
        CREATE TABLE requests (
            scope text NOT NULL,
            request_id text NOT NULL,
            fingerprint text NOT NULL,
            battle_id text NOT NULL,
            PRIMARY KEY (scope, request_id)
        );
        CREATE TABLE active (
            player_id text PRIMARY KEY,
            battle_id text NOT NULL,
            seat integer NOT NULL
        );
        CREATE TABLE presence (
            player_id text PRIMARY KEY,
            session_id text NOT NULL,
            opened_at timestamptz NOT NULL,
            connected boolean NOT NULL
        );
        CREATE TABLE open_battles (
            battle_id text PRIMARY KEY,
            created_at timestamptz NOT NULL DEFAULT now()
        );
        """,
    ),
    Migration(
        "battle",
        2,
        "battle_save(): a command's writes in one statement",
        """
        CREATE FUNCTION battle_save(
            p_stream text, p_expected integer, p_ids uuid[], p_types text[],
            p_schema_versions integer[], p_data bytea[], p_metadata text[],
            p_battle text, p_kind text, p_due timestamptz, p_settled integer[],
            p_over boolean, p_created boolean, p_players text[], p_seats integer[],
            p_scope text, p_request text, p_fingerprint text
        ) RETURNS boolean
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        DECLARE
            appended integer;
        BEGIN
            IF cardinality(p_ids) > 0 THEN
                SELECT count(*) INTO appended FROM append_events(
                    p_stream, p_expected, p_ids, p_types, p_schema_versions, p_data,
                    p_metadata);
                IF appended = 0 THEN
                    RETURN false;
                END IF;
            END IF;
            DELETE FROM battle_timers WHERE battle_id = p_battle AND (
                kind IN ('formation', 'selection')
                OR (kind = 'disconnect' AND seat = ANY(p_settled))
                OR p_over);
            IF p_kind IS NOT NULL THEN
                INSERT INTO battle_timers VALUES
                    (p_battle || ':' || p_kind || ':-1', p_battle, p_kind, -1, p_due);
            END IF;
            IF p_created THEN
                INSERT INTO open_battles (battle_id) VALUES (p_battle);
                INSERT INTO active AS a (player_id, battle_id, seat)
                    SELECT u.player_id, p_battle, u.seat
                    FROM unnest(p_players, p_seats) AS u(player_id, seat)
                ON CONFLICT (player_id)
                    DO UPDATE SET battle_id = EXCLUDED.battle_id, seat = EXCLUDED.seat;
            END IF;
            IF p_over THEN
                DELETE FROM open_battles WHERE battle_id = p_battle;
                DELETE FROM active WHERE battle_id = p_battle;
            END IF;
            IF p_scope IS NOT NULL THEN
                INSERT INTO requests VALUES (p_scope, p_request, p_fingerprint, p_battle)
                    ON CONFLICT DO NOTHING;
                IF NOT FOUND THEN
                    RAISE EXCEPTION 'battle request seen' USING ERRCODE = 'TB001';
                END IF;
            END IF;
            RETURN true;
        END
        $$;
        """,
    ),
    Migration(
        "battle",
        3,
        "battle_save_batch(): many commands' battle_save() in one statement (group commit)",
        """
        CREATE FUNCTION battle_save_batch(
            p_events integer[], p_streams text[], p_expected integer[], p_ids uuid[],
            p_types text[], p_schema_versions integer[], p_data bytea[], p_metadata text[],
            p_battles text[], p_kinds text[], p_dues timestamptz[], p_settled_n integer[],
            p_settled integer[], p_over boolean[], p_created boolean[], p_humans integer[],
            p_players text[], p_seats integer[], p_scopes text[], p_requests text[],
            p_fingerprints text[]
        ) RETURNS text[]
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        DECLARE
            outcomes text[] := '{}';
            e integer := 0;
            s integer := 0;
            h integer := 0;
            saved boolean;
        BEGIN
            FOR i IN 1 .. coalesce(cardinality(p_streams), 0) LOOP
                BEGIN
                    saved := battle_save(
                        p_streams[i], p_expected[i],
                        coalesce(p_ids[e + 1 : e + p_events[i]], '{}'),
                        coalesce(p_types[e + 1 : e + p_events[i]], '{}'),
                        coalesce(p_schema_versions[e + 1 : e + p_events[i]], '{}'),
                        coalesce(p_data[e + 1 : e + p_events[i]], '{}'),
                        coalesce(p_metadata[e + 1 : e + p_events[i]], '{}'),
                        p_battles[i], p_kinds[i], p_dues[i],
                        coalesce(p_settled[s + 1 : s + p_settled_n[i]], '{}'),
                        p_over[i], p_created[i],
                        coalesce(p_players[h + 1 : h + p_humans[i]], '{}'),
                        coalesce(p_seats[h + 1 : h + p_humans[i]], '{}'),
                        p_scopes[i], p_requests[i], p_fingerprints[i]);
                    outcomes := outcomes || CASE WHEN saved THEN 'saved' ELSE 'moved' END;
                EXCEPTION
                    WHEN unique_violation THEN outcomes := outcomes || 'moved'::text;
                    WHEN SQLSTATE 'TB001' THEN outcomes := outcomes || 'seen'::text;
                END;
                e := e + p_events[i];
                s := s + p_settled_n[i];
                h := h + p_humans[i];
            END LOOP;
            RETURN outcomes;
        END
        $$;
        """,
    ),
    Migration(
        "battle",
        4,
        "the battle that finished while its player's session was closed",
        """
        -- A finished battle's players leave active (battle_save()); a player whose
        -- latest session had ended by then (the CPU played their seat, say) missed its
        -- end. Their next session takes it (ReportPresence), so the loss is not a
        -- silence.
        ALTER TABLE presence ADD COLUMN missed_battle_id text;
        CREATE FUNCTION presence_missed() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        BEGIN
            UPDATE presence p SET missed_battle_id = OLD.battle_id
            WHERE p.player_id = OLD.player_id AND NOT p.connected;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER active_missed AFTER DELETE ON active
        FOR EACH ROW EXECUTE FUNCTION presence_missed();
        """,
    ),
    Migration(
        "battle",
        5,
        "request keys by age, for their pruning (services.platform.retention)",
        """
        ALTER TABLE requests ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();
        CREATE INDEX requests_by_age ON requests (created_at);
        """,
    ),
)


SCHEMA_MIGRATIONS = (*eventstore_schema.MIGRATIONS, *relay_schema.MIGRATIONS, *MIGRATIONS)
"""Every migration the battle schema takes, in order: the platform's event store and
outbox relay, then the battle's own above."""


def transient(schema: str) -> list[Transient]:
    """What ``services.platform.retention`` prunes here: request keys."""
    return [Transient(f"{quote_schema(schema)}.requests", "created_at")]
