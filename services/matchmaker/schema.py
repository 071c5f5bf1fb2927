"""The matchmaker's tables (schema ``matchmaker`` by default). Concurrency safety lives
here, not in Python:

- ``engaged_players``: one row per player the matchmaker holds (a queued or claimed
  ticket, an open table they host, a table or practice they are starting). Its primary
  key is the rule "one ticket per player, and no ticket while hosting a table".
- ``tickets``: a ticket moves queued -> claimed -> paired, or queued -> cancelled, each
  step a conditional ``UPDATE ... WHERE state = <expected>``, so a cancel and a
  pairing racing for one ticket serialise on its row and exactly one wins. A pairing
  round takes the queue with ``FOR UPDATE SKIP LOCKED`` under a per-mode advisory
  lock, so two replicas never claim the same ticket nor split one queue.
- ``match_starts``: a claimed pairing (or practice, or table join) and everything drawn
  for it, with a lease. Creating the match is idempotent (its id derives from the
  start id), so when a replica dies mid-start another one takes the expired lease and
  finishes it: a ticket is never lost. Only the holder of the current lease token can
  record the outcome, so two replicas never record two.
- ``lobby_tables``: custom tables; open -> joining -> started, or closed / expired, or
  (a challenge) declined by the challenged player.
- ``requests``: idempotency keys; a retried request returns its first result.

The events are appended in the same transactions, to the platform event log that is
also the outbox the relay publishes. Streams: ``ticket-<id>`` (TicketQueued, then
TicketCancelled if it is cancelled), ``pairing-<start id>`` (TicketsPaired, with the
Roulette rules and the bot's deck as drawn), ``practice-<start id>`` (PracticeStarted),
``table-<id>`` (TableCreated, then TableJoined, TableClosed, TableExpired or
TableDeclined). A claim
that fails to start leaves no event: the innocent ticket simply stays queued. The
tables are what the log folds to, kept in step by those same transactions.
"""

from __future__ import annotations

from services.platform import consumer_schema, eventstore_schema, relay_schema
from services.platform.migrations import Migration, quote_schema
from services.platform.retention import Transient, processed_marks

MIGRATIONS = (
    Migration(
        "matchmaker",
        1,
        "tickets, engaged players, match starts, lobby tables and idempotency keys",
        """
        CREATE TABLE engaged_players (
            player_id text PRIMARY KEY,
            kind      text NOT NULL CHECK (kind IN ('ticket', 'table', 'joining', 'practice')),
            ref_id    text NOT NULL,
            since     timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE tickets (
            ticket_id     text PRIMARY KEY,
            player_id     text NOT NULL,
            player_name   text NOT NULL,
            mode          text NOT NULL,
            deck          text NOT NULL DEFAULT '',
            rating        integer NOT NULL,
            enqueued_at   timestamptz NOT NULL,
            state         text NOT NULL
                          CHECK (state IN ('queued', 'claimed', 'paired', 'cancelled')),
            start_id      text,
            match_id      text NOT NULL DEFAULT '',
            draft_id      text NOT NULL DEFAULT '',
            cancel_reason text,
            ended_at      timestamptz
        );
        -- Belt and braces: even without engaged_players, two waiting tickets of one
        -- player cannot exist.
        CREATE UNIQUE INDEX tickets_one_waiting ON tickets (player_id)
            WHERE state IN ('queued', 'claimed');
        CREATE INDEX tickets_queue ON tickets (mode, enqueued_at) WHERE state = 'queued';
        CREATE INDEX tickets_by_player ON tickets (player_id, enqueued_at DESC);
        CREATE INDEX tickets_by_start ON tickets (start_id) WHERE start_id IS NOT NULL;
        CREATE TABLE match_starts (
            start_id    text PRIMARY KEY,
            kind        text NOT NULL,
            plan        jsonb NOT NULL,
            state       text NOT NULL CHECK (state IN ('pending', 'started', 'failed')),
            lease_token uuid NOT NULL,
            lease_until timestamptz NOT NULL,
            attempts    integer NOT NULL DEFAULT 1,
            error       text NOT NULL DEFAULT '',
            created_at  timestamptz NOT NULL DEFAULT now(),
            finished_at timestamptz
        );
        CREATE INDEX match_starts_due ON match_starts (lease_until) WHERE state = 'pending';
        CREATE INDEX match_starts_draft ON match_starts ((plan->>'draft_id'))
            WHERE kind = 'pairing';
        CREATE TABLE lobby_tables (
            table_id        text PRIMARY KEY,
            host_id         text NOT NULL,
            host_name       text NOT NULL,
            challenged_name text NOT NULL DEFAULT '',
            visibility      text NOT NULL,
            same            boolean NOT NULL,
            plus            boolean NOT NULL,
            combo           boolean NOT NULL,
            elemental       boolean NOT NULL,
            same_wall       boolean NOT NULL,
            random_deck     boolean NOT NULL,
            trade_one       boolean NOT NULL,
            host_deck       text NOT NULL DEFAULT '',
            state           text NOT NULL
                            CHECK (state IN ('open', 'joining', 'started', 'closed', 'expired')),
            guest_id        text NOT NULL DEFAULT '',
            guest_name      text NOT NULL DEFAULT '',
            match_id        text NOT NULL DEFAULT '',
            created_at      timestamptz NOT NULL,
            expire_at       timestamptz NOT NULL
        );
        CREATE INDEX lobby_open ON lobby_tables (created_at DESC, table_id DESC)
            WHERE state = 'open';
        CREATE INDEX lobby_expiring ON lobby_tables (expire_at) WHERE state = 'open';
        CREATE INDEX lobby_by_host ON lobby_tables (host_id, created_at DESC);
        CREATE TABLE requests (
            scope       text NOT NULL,
            request_id  text NOT NULL,
            fingerprint text NOT NULL,
            ref_id      text NOT NULL,
            created_at  timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (scope, request_id)
        );
        """,
    ),
    Migration(
        "matchmaker",
        2,
        "why the server cancelled a ticket, for its player",
        """
        -- A ticket cancelled because its match could not start names the reason the
        -- player can act on (a pending trade, a deck that cannot be played); empty
        -- when the player cancelled it.
        ALTER TABLE tickets ADD COLUMN cancel_message text NOT NULL DEFAULT '';
        """,
    ),
    Migration(
        "matchmaker",
        3,
        "challenges name their player's id and can be declined; Find Game's oldest first",
        """
        -- The challenged player's id, which the gateway found by name: whom the
        -- challenge is pushed to, and who may decline it. Empty for a public table.
        ALTER TABLE lobby_tables ADD COLUMN challenged_id text NOT NULL DEFAULT '';
        ALTER TABLE lobby_tables DROP CONSTRAINT lobby_tables_state_check;
        ALTER TABLE lobby_tables ADD CONSTRAINT lobby_tables_state_check CHECK
            (state IN ('open', 'joining', 'started', 'closed', 'expired', 'declined'));
        -- Find Game takes the oldest open public table.
        CREATE INDEX lobby_open_public ON lobby_tables (created_at, table_id)
            WHERE state = 'open' AND challenged_name = '';
        """,
    ),
    Migration(
        "matchmaker",
        4,
        "tables keep Sudden Death",
        """
        -- RULES.md 12: a table rule, passed on to the match the table starts.
        ALTER TABLE lobby_tables ADD COLUMN sudden_death boolean NOT NULL DEFAULT false;
        """,
    ),
    Migration(
        "matchmaker",
        5,
        "tables keep their board and house hands",
        """
        -- RULES.md 11: the board's side (3, 4, 5), how many cells a 5x5 board blocks
        -- (drawn by the match) and house hands, passed on to the match.
        ALTER TABLE lobby_tables ADD COLUMN board smallint NOT NULL DEFAULT 3;
        ALTER TABLE lobby_tables ADD COLUMN blocked smallint NOT NULL DEFAULT 0;
        ALTER TABLE lobby_tables ADD COLUMN house_hands boolean NOT NULL DEFAULT false;
        """,
    ),
    Migration(
        "matchmaker",
        6,
        "tables keep their trade rule",
        """
        -- RULES.md 13: None, One, Direct, Difference or All; trade_one stays written for
        -- readers older than this column.
        ALTER TABLE lobby_tables ADD COLUMN trade_rule text NOT NULL DEFAULT 'none';
        UPDATE lobby_tables SET trade_rule = 'one' WHERE trade_one;
        """,
    ),
    Migration(
        "matchmaker",
        7,
        "tables keep their Realm modules",
        """
        -- RULES.md 17 (issue 20): NULL for a standard table; for a Realm table the
        -- modules on besides Same, Plus and Combo, comma-separated ('' for none).
        ALTER TABLE lobby_tables ADD COLUMN realm text;
        """,
    ),
    Migration(
        "matchmaker",
        8,
        "battle tables",
        """
        -- Skirmish (BATTLE.md 6): a custom table that starts a battle, not a match.
        ALTER TABLE lobby_tables ADD COLUMN battle boolean NOT NULL DEFAULT false;
        """,
    ),
    Migration(
        "matchmaker",
        9,
        "a table the server closed keeps why",
        """
        -- A join failed because the host could no longer play the table (their deck
        -- broken, another game): it closes on their behalf, and they are told why.
        ALTER TABLE lobby_tables ADD COLUMN closed_because text NOT NULL DEFAULT '';
        """,
    ),
    Migration(
        "matchmaker",
        10,
        "finished bookkeeping by age, for its pruning (services.platform.retention)",
        """
        -- After TRIAD_RETENTION_DAYS: request keys, match starts that started or
        -- failed, tickets paired or cancelled, tables no longer open or joining.
        CREATE INDEX requests_by_age ON requests (created_at);
        CREATE INDEX match_starts_finished ON match_starts (finished_at)
            WHERE state <> 'pending';
        CREATE INDEX tickets_done ON tickets (enqueued_at)
            WHERE state IN ('paired', 'cancelled');
        CREATE INDEX lobby_done ON lobby_tables (created_at)
            WHERE state IN ('started', 'closed', 'expired');
        """,
    ),
)


SCHEMA_MIGRATIONS = (
    *eventstore_schema.MIGRATIONS,
    *relay_schema.MIGRATIONS,
    *consumer_schema.MIGRATIONS,
    *MIGRATIONS,
)
"""Every migration the matchmaker schema takes, in order: the platform's event store,
outbox relay and consumer offsets, then the matchmaker's own above."""


def transient(schema: str, stream_max_age: float) -> list[Transient]:
    """What ``services.platform.retention`` prunes here (the conditions match the
    partial indexes above, so each round reads an index)."""
    s = quote_schema(schema)
    return [
        Transient(f"{s}.requests", "created_at"),
        Transient(f"{s}.match_starts", "finished_at", where="state <> 'pending'"),
        Transient(f"{s}.tickets", "enqueued_at", where="state IN ('paired', 'cancelled')"),
        Transient(
            f"{s}.lobby_tables", "created_at", where="state IN ('started', 'closed', 'expired')"
        ),
        *processed_marks(f"{s}.processed_events", stream_max_age),
    ]
