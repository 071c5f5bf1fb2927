"""The match service's tables and server-side functions, as migrations (every one the
service has run; append, never edit).

- ``match_timers``: one row per running match holding its earliest due timer. A timer
  firing and a player's move both lock that row first (``FOR UPDATE``; the timer
  worker with ``SKIP LOCKED``), then append with the expected version, so they are
  serialised per match, never deadlock, and exactly one of two simultaneous commands
  wins. Which timers exist is a pure function of the state (``domain.deadlines``).
- ``requests``: idempotency keys. A retried request finds its first result here.
- ``active_matches``: one row per seated human, so "at most one active match" is a
  primary key, not a check in Python.
- ``presence``: each player's latest gateway session and whether it is open, match or
  not (ReportPresence), so a match created while a player has no session starts with
  them disconnected, and one created while it is open attaches it; and the match that
  finished while their session was closed (``missed_match_id``, set by a trigger as the
  match's seats leave ``active_matches``), which their next session is told once.
- ``match_save_batch()``: everything a batch of commands writes, in one statement
  (group commit, ``store.py``).
"""

from __future__ import annotations

from services.platform import eventstore_schema, relay_schema
from services.platform.migrations import Migration, quote_schema
from services.platform.retention import Transient

# The pieces match_save_batch()'s two versions (migrations match/3 and match/4) share,
# written once; each migration puts them back word for word as released (its checksum
# is recorded in databases: tests/test_schema.py pins it). First: the parameters,
# result columns and first locals.
_BATCH_SIGNATURE = """\
            p_counts integer[], p_streams text[], p_expected integer[], p_ids uuid[],
            p_types text[], p_schema_versions integer[], p_data bytea[], p_metadata text[],
            p_matches text[], p_dues timestamptz[], p_timers text[], p_seat_counts integer[],
            p_seat_players text[], p_seat_numbers smallint[], p_finished boolean[],
            p_scopes text[], p_requests text[], p_fingerprints text[], p_versions integer[]
        ) RETURNS TABLE (o_outcome text, o_head integer, o_state text, o_constraint text,
                         o_detail text, o_hint text, o_message text)
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        DECLARE
            e integer := 0;
            s integer := 0;"""

# Each command's outcome row starts as saved, in a block of its own.
_BATCH_LOOP_BEGIN = """\
            FOR i IN 1 .. coalesce(array_length(p_streams, 1), 0) LOOP
                o_outcome := 'saved';
                o_head := NULL; o_state := NULL; o_constraint := NULL;
                o_detail := NULL; o_hint := NULL; o_message := NULL;
                BEGIN"""

# An error undoes that command only; its outcome row carries the error.
_BATCH_FAILED = """\
                EXCEPTION WHEN OTHERS THEN
                    o_outcome := 'failed';
                    GET STACKED DIAGNOSTICS o_state = RETURNED_SQLSTATE,
                        o_constraint = CONSTRAINT_NAME, o_detail = PG_EXCEPTION_DETAIL,
                        o_hint = PG_EXCEPTION_HINT, o_message = MESSAGE_TEXT;
                END;"""

# On to the next command's events and seats.
_BATCH_LOOP_END = """\
                e := e + p_counts[i];
                s := s + p_seat_counts[i];
                RETURN NEXT;
            END LOOP;"""

MIGRATIONS = (
    Migration(
        "match",
        1,
        "timers, idempotency keys and active matches",
        """
        CREATE TABLE match_timers (
            match_id  text PRIMARY KEY,
            due_at    timestamptz NOT NULL,
            timers    jsonb NOT NULL
        );
        CREATE INDEX match_timers_due ON match_timers (due_at);
        CREATE TABLE requests (
            scope       text NOT NULL,
            request_id  text NOT NULL,
            fingerprint text NOT NULL,
            match_id    text NOT NULL,
            version     integer NOT NULL,
            created_at  timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (scope, request_id)
        );
        CREATE TABLE active_matches (
            player_id text PRIMARY KEY,
            match_id  text NOT NULL,
            seat      smallint NOT NULL
        );
        CREATE INDEX active_matches_match ON active_matches (match_id);
        """,
    ),
    Migration(
        "match",
        2,
        "match_save(): a command's events, timers, seats, request key and notice at once",
        """
        -- Everything one command writes, in one statement (one round trip, its own
        -- transaction unless the caller holds one). The timer row is locked first, so a
        -- move and a timer firing serialise here. Returns append_events()'s rows, none
        -- when the append was refused (the stream moved on).
        CREATE FUNCTION match_save(
            p_stream text, p_expected integer, p_ids uuid[], p_types text[],
            p_schema_versions integer[], p_data bytea[], p_metadata text[],
            p_match text, p_due timestamptz, p_timers jsonb,
            p_seat_players text[], p_seat_numbers smallint[], p_finished boolean,
            p_scope text, p_request text, p_fingerprint text, p_version integer
        ) RETURNS TABLE (version integer, tx_text text, seq bigint, recorded_at timestamptz)
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        DECLARE
            appended integer;
        BEGIN
            PERFORM 1 FROM match_timers t WHERE t.match_id = p_match FOR UPDATE;
            RETURN QUERY SELECT * FROM append_events(
                p_stream, p_expected, p_ids, p_types, p_schema_versions, p_data, p_metadata);
            GET DIAGNOSTICS appended = ROW_COUNT;
            IF appended = 0 THEN
                RETURN;
            END IF;
            IF p_due IS NULL THEN
                DELETE FROM match_timers t WHERE t.match_id = p_match;
            ELSE
                INSERT INTO match_timers (match_id, due_at, timers)
                VALUES (p_match, p_due, p_timers)
                ON CONFLICT (match_id) DO UPDATE
                SET due_at = EXCLUDED.due_at, timers = EXCLUDED.timers;
            END IF;
            INSERT INTO active_matches (player_id, match_id, seat)
            SELECT player, p_match, seat
            FROM unnest(p_seat_players, p_seat_numbers) AS s(player, seat);
            IF p_finished THEN
                DELETE FROM active_matches a WHERE a.match_id = p_match;
            END IF;
            IF p_request IS NOT NULL THEN
                INSERT INTO requests (scope, request_id, fingerprint, match_id, version)
                VALUES (p_scope, p_request, p_fingerprint, p_match, p_version)
                ON CONFLICT DO NOTHING;
                GET DIAGNOSTICS appended = ROW_COUNT;
                IF appended = 0 THEN
                    RAISE EXCEPTION 'request % was seen before', p_request
                        USING HINT = 'triad:request-seen';
                END IF;
            END IF;
            PERFORM pg_notify('triad_match', p_match || ':' || p_version);
        END
        $$;
        """,
    ),
    Migration(
        "match",
        3,
        "match_save_batch(): many commands' match_save() in one transaction",
        f"""
        -- Group commit: the commands of concurrent callers in one round trip. Each runs
        -- match_save() in a block of its own (a subtransaction), so one command's
        -- refusal or error undoes that command only; its outcome row says which. The
        -- caller sorts the commands by match, so two batches lock timer rows in one
        -- order. Arrays are flattened: a command's events are the next p_counts[i]
        -- entries of the event arrays, its seats the next p_seat_counts[i] of the seats.
        CREATE FUNCTION match_save_batch(
{_BATCH_SIGNATURE}
            appended integer;
        BEGIN
{_BATCH_LOOP_BEGIN}
                    SELECT count(*) INTO appended FROM match_save(
                        p_streams[i], p_expected[i], p_ids[e + 1 : e + p_counts[i]],
                        p_types[e + 1 : e + p_counts[i]],
                        p_schema_versions[e + 1 : e + p_counts[i]],
                        p_data[e + 1 : e + p_counts[i]], p_metadata[e + 1 : e + p_counts[i]],
                        p_matches[i], p_dues[i], p_timers[i]::jsonb,
                        p_seat_players[s + 1 : s + p_seat_counts[i]],
                        p_seat_numbers[s + 1 : s + p_seat_counts[i]],
                        p_finished[i], p_scopes[i], p_requests[i], p_fingerprints[i],
                        p_versions[i]);
                    IF appended = 0 THEN
                        o_outcome := 'moved';
                        SELECT coalesce(max(ev.version), 0) INTO o_head
                        FROM events ev WHERE ev.stream_id = p_streams[i];
                    END IF;
{_BATCH_FAILED}
{_BATCH_LOOP_END}
        END
        $$;
        """,
    ),
    Migration(
        "match",
        4,
        "match_save_batch() writes each command inline and sends one notice per batch",
        f"""
        -- The only definition of what a command writes: the timer worker calls this too,
        -- with a batch of one, so match_save() goes. Per command, in a block of its own
        -- (a subtransaction, so a refusal undoes that command only): lock the timer row
        -- (a move and a timer firing serialise here), check the stream's head (the
        -- version, and a transaction no older than the one that wrote it, as
        -- append_events() does), append, then timers, seats, request key. The notices
        -- of the saved commands go together, '<match>:<version>' lines, in as few
        -- NOTIFYs as fit PostgreSQL's 8000-byte payload: a listener takes one message
        -- per batch, not one per command.
        DROP FUNCTION match_save(
            text, integer, uuid[], text[], integer[], bytea[], text[], text, timestamptz,
            jsonb, text[], smallint[], boolean, text, text, text, integer);
        CREATE OR REPLACE FUNCTION match_save_batch(
{_BATCH_SIGNATURE}
            head_version integer;
            head_tx xid8;
            inserted integer;
            notice text;
            notices text := '';
        BEGIN
{_BATCH_LOOP_BEGIN}
                    PERFORM 1 FROM match_timers t WHERE t.match_id = p_matches[i] FOR UPDATE;
                    head_version := NULL;
                    head_tx := NULL;
                    SELECT ev.version, ev.tx_id INTO head_version, head_tx FROM events ev
                    WHERE ev.stream_id = p_streams[i] ORDER BY ev.version DESC LIMIT 1;
                    IF coalesce(head_version, 0) <> p_expected[i]
                       OR coalesce(head_tx, '0'::xid8) > pg_current_xact_id() THEN
                        o_outcome := 'moved';
                        o_head := coalesce(head_version, 0);
                    ELSE
                        INSERT INTO events
                            (stream_id, version, event_id, type, schema_version, data, metadata)
                        SELECT p_streams[i], p_expected[i] + k, p_ids[e + k], p_types[e + k],
                               p_schema_versions[e + k], p_data[e + k], p_metadata[e + k]::jsonb
                        FROM generate_series(1, p_counts[i]) AS k;
                        IF p_dues[i] IS NULL THEN
                            DELETE FROM match_timers t WHERE t.match_id = p_matches[i];
                        ELSE
                            INSERT INTO match_timers (match_id, due_at, timers)
                            VALUES (p_matches[i], p_dues[i], p_timers[i]::jsonb)
                            ON CONFLICT (match_id) DO UPDATE
                            SET due_at = EXCLUDED.due_at, timers = EXCLUDED.timers;
                        END IF;
                        IF p_seat_counts[i] > 0 THEN
                            INSERT INTO active_matches (player_id, match_id, seat)
                            SELECT p_seat_players[s + k], p_matches[i], p_seat_numbers[s + k]
                            FROM generate_series(1, p_seat_counts[i]) AS k;
                        END IF;
                        IF p_finished[i] THEN
                            DELETE FROM active_matches a WHERE a.match_id = p_matches[i];
                        END IF;
                        IF p_requests[i] IS NOT NULL THEN
                            INSERT INTO requests (scope, request_id, fingerprint, match_id, version)
                            VALUES (p_scopes[i], p_requests[i], p_fingerprints[i], p_matches[i],
                                    p_versions[i])
                            ON CONFLICT DO NOTHING;
                            GET DIAGNOSTICS inserted = ROW_COUNT;
                            IF inserted = 0 THEN
                                RAISE EXCEPTION 'request % was seen before', p_requests[i]
                                    USING HINT = 'triad:request-seen';
                            END IF;
                        END IF;
                    END IF;
{_BATCH_FAILED}
                IF o_outcome = 'saved' THEN
                    -- Ids are at most 200 characters (the service refuses longer), so a
                    -- line is far below the limit and a flushed payload stays under it.
                    notice := p_matches[i] || ':' || p_versions[i];
                    IF octet_length(notices) + octet_length(notice) > 7000 THEN
                        PERFORM pg_notify('triad_match', notices);
                        notices := '';
                    END IF;
                    notices := CASE WHEN notices = '' THEN notice
                                    ELSE notices || E'\\n' || notice END;
                END IF;
{_BATCH_LOOP_END}
            IF notices <> '' THEN
                PERFORM pg_notify('triad_match', notices);
            END IF;
        END
        $$;
        """,
    ),
    Migration(
        "presence",
        1,
        "each player's latest gateway session, open or not",
        """
        -- One row per player who ever had a session: the latest one by the time it
        -- opened (from any gateway replica), and whether it is still open.
        CREATE TABLE presence (
            player_id  text PRIMARY KEY,
            session_id text NOT NULL,
            opened_at  timestamptz NOT NULL,
            connected  boolean NOT NULL
        );
        """,
    ),
    Migration(
        "presence",
        2,
        "the match that finished while its player's session was closed",
        """
        -- A finished match's seats leave active_matches (match_save_batch()); a player
        -- whose latest session had ended by then missed its end. Their next session
        -- takes it (ReportPresence), so a forfeit by disconnection is not a silence.
        ALTER TABLE presence ADD COLUMN missed_match_id text;
        CREATE FUNCTION presence_missed() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        BEGIN
            UPDATE presence p SET missed_match_id = OLD.match_id
            WHERE p.player_id = OLD.player_id AND NOT p.connected;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER active_matches_missed AFTER DELETE ON active_matches
        FOR EACH ROW EXECUTE FUNCTION presence_missed();
        """,
    ),
    Migration(
        "presence",
        3,
        "since when the player has been gone",
        """
        -- When the latest session ended for good (not one whose client reopens at once:
        -- LEAVING); NULL while it is open. The matchmaker starts no match for a player
        -- who left after queueing or hosting (GetActiveMatch.away_since).
        ALTER TABLE presence ADD COLUMN away_since timestamptz;
        """,
    ),
    Migration(
        "match",
        5,
        "request keys by age, for their pruning (services.platform.retention)",
        """
        CREATE INDEX requests_by_age ON requests (created_at);
        """,
    ),
)


SCHEMA_MIGRATIONS = (*eventstore_schema.MIGRATIONS, *relay_schema.MIGRATIONS, *MIGRATIONS)
"""Every migration the match schema takes, in order: the platform's event store and
outbox relay, then the match's own above."""


def transient(schema: str) -> list[Transient]:
    """What ``services.platform.retention`` prunes here: request keys."""
    return [Transient(f"{quote_schema(schema)}.requests", "created_at")]
