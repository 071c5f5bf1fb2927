"""The rating service's tables and server-side functions, as migrations.

Tables (schema ``rating`` by default; every ladder key is ``(ladder, season)``):

- ``players``: one row per rated player, any ladder: their display name and how many
  rating changes they have had (``changes``), which numbers their feed. Rating a
  match first locks both players' rows here, in player-id order, so every write to a
  player's standings, on any ladder, is serialised behind that lock and two writers
  never deadlock. A first game creates the row (upsert), so there is no unlocked
  window for a new player either.
- ``ratings``: ``(ladder, season, player_id)`` -> rating, games, wins, losses, draws.
  The index ``(ladder, season, rating DESC, player_id)`` serves the top N.
- ``rating_histogram``: ``(ladder, season, rating)`` -> ranked players at that
  rating, kept in the same transaction as ``ratings``. A rank is 1 + the players
  above, a sum over at most a few thousand buckets whatever the ladder's size;
  ``count(*) WHERE rating > x`` on the index reads half a million entries for a
  mid-table player of a million-player ladder: ~35 ms against ~0.2 ms
  (bench/rating.py measures both).
  Buckets are written in rating order, after the players' rows: one lock order for all.
- ``rating_changes``: the log of applied changes, in the order applied (``seq``), with
  the figures that produced each. ``draft_id`` is the draft a result belongs to: a
  Draft match's draft, or a draft forfeited before its match (``match_id`` empty).
  Unique ``(ladder, season, match_id, player_id)`` for matches and ``(ladder, season,
  draft_id, player_id)`` for drafts: even a bug upstream of them cannot rate a match
  twice, nor a draft both by its forfeit and by its match. ``(player_id, player_seq)``
  is each player's feed, gap-free and in commit order (it is numbered under the
  player's lock), which is what history pages and WatchRatings follow.

Each write is one server-side function call (``rating_lock``, then ``rating_record``):
two round trips per rated match inside the consumer's transaction. Reads of a player's
standing are primary-key lookups written so that no cached plan can turn them into a
scan of the ladder (see the LIMIT 1 subqueries).
"""

from __future__ import annotations

from services.platform import consumer_schema
from services.platform.migrations import Migration, quote_schema
from services.platform.retention import Transient, processed_marks
from services.rating.domain import START_RATING

NOTIFY_CHANNEL = "triad_rating"

# The pieces both versions of rating_lock and rating_record share, word for word. A
# released migration's text is checksummed, so each version is put together from these
# pieces exactly as it was first written (tests/test_schema.py pins the checksums).

_LOCK_BEGIN = """\
        ) RETURNS TABLE (
            player_id text, rating integer, games integer, wins integer, losses integer,
            draws integer
        )
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        BEGIN
            INSERT INTO players AS p (player_id, player_name)
            SELECT u.id, u.name FROM unnest(p_players, p_names) AS u(id, name) ORDER BY u.id
            ON CONFLICT ON CONSTRAINT players_pkey DO UPDATE
            SET player_name = EXCLUDED.player_name"""
"""rating_lock after its parameters: what it returns, and both players' rows upserted
in player-id order, which locks them (the name's WHERE, per version, follows)."""

_STANDINGS_NOW = f"""\
            RETURN QUERY
            SELECT u.id, coalesce(r.rating, {START_RATING}), coalesce(r.games, 0),
                   coalesce(r.wins, 0), coalesce(r.losses, 0), coalesce(r.draws, 0)
            FROM unnest(p_players) AS u(id)
            LEFT JOIN LATERAL (
                SELECT x.rating, x.games, x.wins, x.losses, x.draws FROM ratings x
                WHERE x.ladder = p_ladder AND x.season = p_season AND x.player_id = u.id
                LIMIT 1
            ) r ON true;
        END
        $$;"""
"""rating_lock's end: both standings as they are now, one primary-key lookup each."""

_RECORD_BEGIN = """\
            p_players text[], p_opponents text[], p_opponent_names text[],
            p_before integer[], p_after integer[], p_k integer[],
            p_expected double precision[], p_actual double precision[],
            p_opponent_before integer[], p_games integer[], p_wins integer[],
            p_losses integer[], p_draws integer[],
            p_bucket_ratings integer[], p_bucket_moves integer[]
        ) RETURNS void
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
        BEGIN
            WITH numbered AS (
                UPDATE players p SET changes = p.changes + 1
                WHERE p.player_id = ANY(p_players)
                RETURNING p.player_id, p.changes
            )
            INSERT INTO rating_changes ("""
"""rating_record after its first line of parameters, up to the log's column list."""

_RECORD_END = f"""\
            FROM unnest(p_players, p_opponents, p_opponent_names, p_before, p_after, p_k,
                        p_expected, p_actual, p_opponent_before, p_games)
                 AS u(id, opponent, opponent_name, before, after, k, expected, actual,
                      opponent_before, games)
            JOIN numbered n ON n.player_id = u.id;

            INSERT INTO ratings AS r (
                ladder, season, player_id, rating, games, wins, losses, draws)
            SELECT p_ladder, p_season, u.id, u.after, u.games, u.wins, u.losses, u.draws
            FROM unnest(p_players, p_after, p_games, p_wins, p_losses, p_draws)
                 AS u(id, after, games, wins, losses, draws)
            ON CONFLICT ON CONSTRAINT ratings_pkey DO UPDATE
            SET rating = EXCLUDED.rating, games = EXCLUDED.games, wins = EXCLUDED.wins,
                losses = EXCLUDED.losses, draws = EXCLUDED.draws, updated_at = now();

            INSERT INTO rating_histogram AS h (ladder, season, rating, players)
            SELECT p_ladder, p_season, b.rating, b.move
            FROM unnest(p_bucket_ratings, p_bucket_moves) AS b(rating, move)
            ORDER BY b.rating
            ON CONFLICT ON CONSTRAINT rating_histogram_pkey DO UPDATE
            SET players = h.players + EXCLUDED.players;

            PERFORM pg_notify('{NOTIFY_CHANNEL}', u.id) FROM unnest(p_players) AS u(id);
        END
        $$;"""
"""rating_record from the log's rows on: the standings, the histogram, the notices."""

MIGRATIONS = (
    Migration(
        "rating",
        1,
        "players, ratings, rank histogram and the log of applied changes",
        f"""
        CREATE TABLE players (
            player_id   text   PRIMARY KEY,
            player_name text   NOT NULL,
            changes     bigint NOT NULL DEFAULT 0
        );
        CREATE TABLE ratings (
            ladder     text        NOT NULL,
            season     integer     NOT NULL,
            player_id  text        NOT NULL,
            rating     integer     NOT NULL,
            games      integer     NOT NULL CHECK (games > 0),
            wins       integer     NOT NULL,
            losses     integer     NOT NULL,
            draws      integer     NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (ladder, season, player_id)
        );
        CREATE INDEX ratings_leaderboard ON ratings (ladder, season, rating DESC, player_id);
        CREATE TABLE rating_histogram (
            ladder  text    NOT NULL,
            season  integer NOT NULL,
            rating  integer NOT NULL,
            -- No CHECK (players >= 0): PostgreSQL checks the row an upsert proposes,
            -- and a move out of a bucket proposes a negative count.
            players integer NOT NULL,
            PRIMARY KEY (ladder, season, rating)
        );
        CREATE TABLE rating_changes (
            seq                    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            ladder                 text             NOT NULL,
            season                 integer          NOT NULL,
            match_id               text             NOT NULL,
            player_id              text             NOT NULL,
            player_seq             bigint           NOT NULL,
            event_id               uuid             NOT NULL,
            opponent_id            text             NOT NULL,
            opponent_name          text             NOT NULL,
            rating_before          integer          NOT NULL,
            rating_after           integer          NOT NULL,
            k_factor               integer          NOT NULL,
            expected_score         double precision NOT NULL,
            actual_score           double precision NOT NULL,
            opponent_rating_before integer          NOT NULL,
            games_after            integer          NOT NULL,
            applied_at             timestamptz      NOT NULL DEFAULT now(),
            CONSTRAINT rating_changes_once UNIQUE (ladder, season, match_id, player_id),
            CONSTRAINT rating_changes_feed UNIQUE (player_id, player_seq)
        );

        -- Lock both players (by player id: one order for every writer), then say whether
        -- the match was rated already; if not, return both standings as they are now.
        -- The check comes after the lock so a racing delivery of the same match under
        -- another event id waits here and then finds it rated.
        CREATE FUNCTION rating_lock(
            p_ladder text, p_season integer, p_match text, p_players text[], p_names text[]
{_LOCK_BEGIN}
            WHERE p.player_name IS DISTINCT FROM EXCLUDED.player_name;
            -- ON CONFLICT DO UPDATE locks every conflicting row, updated or not (the
            -- WHERE only spares writing an unchanged name). The statements below take
            -- a new snapshot, so they see what the previous lock holder committed.
            IF EXISTS (SELECT 1 FROM rating_changes c WHERE c.ladder = p_ladder
                       AND c.season = p_season AND c.match_id = p_match) THEN
                RETURN;
            END IF;
            -- A player with no ratings row has not played this ladder yet. One primary
            -- key lookup per player: the LIMIT keeps the subquery from being flattened
            -- into a join that a cached plan could run as a scan of the whole ladder.
{_STANDINGS_NOW}

        -- Write what rating the match did: both changes in the log (numbered in each
        -- player's feed), both standings, the rank histogram (buckets in rating order),
        -- and a notice to WatchRatings streams. The caller holds both players' locks.
        CREATE FUNCTION rating_record(
            p_ladder text, p_season integer, p_match text, p_event uuid,
{_RECORD_BEGIN}
                ladder, season, match_id, player_id, player_seq, event_id, opponent_id,
                opponent_name, rating_before, rating_after, k_factor, expected_score,
                actual_score, opponent_rating_before, games_after)
            SELECT p_ladder, p_season, p_match, u.id, n.changes, p_event, u.opponent,
                   u.opponent_name, u.before, u.after, u.k, u.expected, u.actual,
                   u.opponent_before, u.games
{_RECORD_END}
        """,
    ),
    Migration(
        "rating",
        2,
        "drafts forfeited before their match are rated, and a draft counts once",
        f"""
        ALTER TABLE rating_changes ADD COLUMN draft_id text NOT NULL DEFAULT '';
        ALTER TABLE rating_changes DROP CONSTRAINT rating_changes_once;
        CREATE UNIQUE INDEX rating_changes_match_once
            ON rating_changes (ladder, season, match_id, player_id) WHERE match_id <> '';
        CREATE UNIQUE INDEX rating_changes_draft_once
            ON rating_changes (ladder, season, draft_id, player_id) WHERE draft_id <> '';

        DROP FUNCTION rating_lock(text, integer, text, text[], text[]);
        DROP FUNCTION rating_record(
            text, integer, text, uuid, text[], text[], text[], integer[], integer[],
            integer[], double precision[], double precision[], integer[], integer[],
            integer[], integer[], integer[], integer[], integer[]);

        -- As in version 1, and a result is rated already when its match was (p_match
        -- not empty) or its draft was, by its match or by its forfeit (p_draft not
        -- empty). A name given empty (an event that carried none) keeps the one known.
        CREATE FUNCTION rating_lock(
            p_ladder text, p_season integer, p_match text, p_draft text, p_players text[],
            p_names text[]
{_LOCK_BEGIN}
            WHERE p.player_name IS DISTINCT FROM EXCLUDED.player_name
              AND EXCLUDED.player_name <> '';
            -- The literal "<> ''" lets the partial unique indexes serve these lookups.
            IF EXISTS (SELECT 1 FROM rating_changes c WHERE c.ladder = p_ladder
                       AND c.season = p_season AND c.match_id = p_match
                       AND c.match_id <> '')
               OR EXISTS (SELECT 1 FROM rating_changes c WHERE c.ladder = p_ladder
                          AND c.season = p_season AND c.draft_id = p_draft
                          AND c.draft_id <> '') THEN
                RETURN;
            END IF;
{_STANDINGS_NOW}

        -- As in version 1, with the draft the result belongs to in the log.
        CREATE FUNCTION rating_record(
            p_ladder text, p_season integer, p_match text, p_draft text, p_event uuid,
{_RECORD_BEGIN}
                ladder, season, match_id, draft_id, player_id, player_seq, event_id,
                opponent_id, opponent_name, rating_before, rating_after, k_factor,
                expected_score, actual_score, opponent_rating_before, games_after)
            SELECT p_ladder, p_season, p_match, p_draft, u.id, n.changes, p_event,
                   u.opponent, u.opponent_name, u.before, u.after, u.k, u.expected,
                   u.actual, u.opponent_before, u.games
{_RECORD_END}
        """,
    ),
)


SCHEMA_MIGRATIONS = (*consumer_schema.MIGRATIONS, *MIGRATIONS)
"""Every migration the rating schema takes, in order: the platform's consumer offsets,
then the rating's own above."""


def transient(schema: str, stream_max_age: float) -> list[Transient]:
    """What ``services.platform.retention`` prunes here: the consumers' processed marks
    (a rating change itself is kept: it is the ladder's history)."""
    return processed_marks(f"{quote_schema(schema)}.processed_events", stream_max_age)
