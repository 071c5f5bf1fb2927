"""Every migration of the collection's schema, and the names of its tables.

The tables follow the event log (``store/projection.py``); the rules that must hold
under concurrency are constraints here, not checks in Python (see the projection).
"""

from __future__ import annotations

from dataclasses import dataclass

from services.platform import consumer_schema, eventstore_schema, relay_schema
from services.platform.migrations import Migration, quote_schema
from services.platform.retention import Transient, processed_marks

NOTIFY_CHANNEL = "triad_collection"
"""Where the collection's tables announce a player whose balance, trade or draft changed,
one line per player: ``<player>`` (their row: coins, locks), ``<player>:trade:<trade id>``
(a trade they are party to; ``...:completed`` from the change that completed it, once),
``<player>:draft:<draft id>`` (a draft they sit in), ``<seller>:listing:<listing id>``
(their listing sold or expired)."""

MIGRATIONS = (
    Migration(
        "collection",
        1,
        "players, copies, locks, decks, credits, seeds, draws, trades, drafts, requests",
        """
        CREATE TABLE players (
            player_id           text PRIMARY KEY,
            version             integer NOT NULL DEFAULT 0,
            coins               bigint NOT NULL DEFAULT 0
                CONSTRAINT balance_never_negative CHECK (coins >= 0),
            coins_updated_at    timestamptz,
            boosters_since_pity integer NOT NULL DEFAULT 0,
            starter_grant_id    text
        );
        CREATE TABLE copies (
            copy_id      text PRIMARY KEY,
            owner_id     text NOT NULL,
            character_id text NOT NULL,
            holo         boolean NOT NULL,
            holo_side    smallint,
            source       text NOT NULL,
            origin_id    text NOT NULL,
            acquired_at  timestamptz NOT NULL
        );
        CREATE INDEX copies_owner ON copies (owner_id, acquired_at, copy_id);
        CREATE INDEX copies_origin ON copies (origin_id);
        CREATE TABLE locks (
            copy_id     text PRIMARY KEY REFERENCES copies,
            owner_id    text NOT NULL,
            holder_kind text NOT NULL,
            holder_id   text NOT NULL,
            locked_at   timestamptz NOT NULL
        );
        CREATE INDEX locks_holder ON locks (holder_kind, holder_id);
        CREATE INDEX locks_owner ON locks (owner_id);
        CREATE TABLE decks (
            deck_id    text PRIMARY KEY,
            player_id  text NOT NULL,
            name       text NOT NULL,
            copy_ids   text[] NOT NULL,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL
        );
        CREATE INDEX decks_player ON decks (player_id, updated_at DESC, deck_id);
        CREATE TABLE credits (
            player_id    text NOT NULL,
            reason       text NOT NULL,
            reference_id text NOT NULL,
            PRIMARY KEY (player_id, reason, reference_id)
        );
        -- The server seeds themselves: secret until revealed, never in an event before.
        CREATE TABLE seeds (
            seed_id      text PRIMARY KEY,
            player_id    text NOT NULL,
            seed_hash    text NOT NULL,
            server_seed  text NOT NULL,
            client_seed  text NOT NULL,
            draw_count   integer NOT NULL DEFAULT 0,
            committed_at timestamptz NOT NULL,
            revealed_at  timestamptz
        );
        CREATE UNIQUE INDEX seeds_one_in_force ON seeds (player_id) WHERE revealed_at IS NULL;
        CREATE INDEX seeds_player ON seeds (player_id, committed_at DESC);
        CREATE TABLE booster_draws (
            draw_id   text PRIMARY KEY,
            player_id text NOT NULL,
            seed_id   text NOT NULL,
            counter   integer NOT NULL,
            version   integer NOT NULL,
            opened_at timestamptz NOT NULL,
            UNIQUE (seed_id, counter)
        );
        CREATE INDEX booster_draws_player ON booster_draws (player_id, opened_at DESC, draw_id);
        CREATE TABLE trades (
            trade_id     text PRIMARY KEY,
            match_id     text NOT NULL UNIQUE,
            winner_id    text NOT NULL,
            loser_id     text NOT NULL,
            due_at       timestamptz,
            opened_at    timestamptz NOT NULL,
            completed_at timestamptz
        );
        CREATE INDEX trades_due ON trades (due_at) WHERE due_at IS NOT NULL;
        CREATE INDEX trades_winner ON trades (winner_id) WHERE completed_at IS NULL;
        CREATE INDEX trades_loser ON trades (loser_id) WHERE completed_at IS NULL;
        CREATE TABLE drafts (
            draft_id  text PRIMARY KEY,
            player_a  text NOT NULL,
            player_b  text NOT NULL,
            open      boolean NOT NULL,
            due_at    timestamptz
        );
        CREATE INDEX drafts_due ON drafts (due_at) WHERE due_at IS NOT NULL;
        CREATE INDEX drafts_a ON drafts (player_a) WHERE open;
        CREATE INDEX drafts_b ON drafts (player_b) WHERE open;
        CREATE TABLE resolutions (
            player_id  text NOT NULL,
            purpose_id text NOT NULL,
            copy_ids   text[] NOT NULL,
            random     boolean NOT NULL,
            PRIMARY KEY (player_id, purpose_id)
        );
        CREATE TABLE requests (
            scope       text NOT NULL,
            request_id  text NOT NULL,
            fingerprint text NOT NULL,
            result      jsonb,
            created_at  timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (scope, request_id)
        );
        """,
    ),
    Migration(
        "collection",
        2,
        "a notice per player whose balance, trade or draft changed; completed-trade indexes",
        f"""
        -- WatchPlayer streams sleep until one of these wakes them (services/platform/
        -- notifier.py), instead of asking PostgreSQL four questions every half second for
        -- every open session. Delivered at commit, to every replica; one notice per
        -- player per transaction (PostgreSQL folds identical ones).
        CREATE FUNCTION notify_watchers() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            fields jsonb := to_jsonb(NEW);
            column_name text;
        BEGIN
            FOREACH column_name IN ARRAY TG_ARGV LOOP
                PERFORM pg_notify('{NOTIFY_CHANNEL}', fields ->> column_name);
            END LOOP;
            RETURN NULL;
        END $$;
        CREATE TRIGGER players_watchers AFTER INSERT OR UPDATE ON players
            FOR EACH ROW EXECUTE FUNCTION notify_watchers('player_id');
        CREATE TRIGGER trades_watchers AFTER INSERT OR UPDATE ON trades
            FOR EACH ROW EXECUTE FUNCTION notify_watchers('winner_id', 'loser_id');
        CREATE TRIGGER drafts_watchers AFTER INSERT OR UPDATE ON drafts
            FOR EACH ROW EXECUTE FUNCTION notify_watchers('player_a', 'player_b');
        -- trades_completed_since(): a player's completed trades by completion time.
        CREATE INDEX trades_winner_done ON trades (winner_id, completed_at)
            WHERE completed_at IS NOT NULL;
        CREATE INDEX trades_loser_done ON trades (loser_id, completed_at)
            WHERE completed_at IS NOT NULL;
        """,
    ),
    Migration(
        "collection",
        3,
        "what each finished match paid for playing it, for the daily limit per pair",
        """
        -- One row per settled match, written in the transaction that pays it (or not):
        -- a MatchFinished delivered again finds its decision here and pays nothing
        -- twice, and the daily limit per pair counts the paid rows (domain.match_reward).
        -- The pair is the two human players in id order; NULL against a bot.
        CREATE TABLE match_rewards (
            match_id    text PRIMARY KEY,
            decision    text NOT NULL,
            day         date NOT NULL,
            player_low  text,
            player_high text,
            decided_at  timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX match_rewards_pair ON match_rewards (player_low, player_high, day)
            WHERE decision = 'paid' AND player_low IS NOT NULL;
        """,
    ),
    Migration(
        "collection",
        4,
        "trade and draft notices name the trade or draft, and a trade's completion",
        f"""
        -- The player's pushes (server/pushes.py) follow these notices: which trade or
        -- draft changed, and the one change that completed a trade (its result is
        -- pushed once). The player id stays the line's key, so watchers wake as before.
        CREATE FUNCTION notify_trade_watchers() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            what text := ':trade:' || NEW.trade_id || CASE
                WHEN TG_OP = 'UPDATE' AND OLD.completed_at IS NULL
                    AND NEW.completed_at IS NOT NULL THEN ':completed'
                ELSE '' END;
        BEGIN
            PERFORM pg_notify('{NOTIFY_CHANNEL}', NEW.winner_id || what);
            PERFORM pg_notify('{NOTIFY_CHANNEL}', NEW.loser_id || what);
            RETURN NULL;
        END $$;
        CREATE FUNCTION notify_draft_watchers() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('{NOTIFY_CHANNEL}', NEW.player_a || ':draft:' || NEW.draft_id);
            PERFORM pg_notify('{NOTIFY_CHANNEL}', NEW.player_b || ':draft:' || NEW.draft_id);
            RETURN NULL;
        END $$;
        DROP TRIGGER trades_watchers ON trades;
        CREATE TRIGGER trades_watchers AFTER INSERT OR UPDATE ON trades
            FOR EACH ROW EXECUTE FUNCTION notify_trade_watchers();
        DROP TRIGGER drafts_watchers ON drafts;
        CREATE TRIGGER drafts_watchers AFTER INSERT OR UPDATE ON drafts
            FOR EACH ROW EXECUTE FUNCTION notify_draft_watchers();
        """,
    ),
    Migration(
        "collection",
        5,
        "Auction House listings: browse indexes, the expiry deadline, a notice per sale",
        f"""
        -- One row per listing (RULES.md 15), kept by the listing-<id> stream's events.
        -- The card's fields are copied in so a browse filters and orders on one table.
        CREATE TABLE listings (
            listing_id   text PRIMARY KEY,
            seller_id    text NOT NULL,
            copy_id      text NOT NULL REFERENCES copies,
            character_id text NOT NULL,
            stars        smallint NOT NULL,
            element      text NOT NULL,
            holo         boolean NOT NULL,
            holo_side    smallint,
            source       text NOT NULL,
            acquired_at  timestamptz NOT NULL,
            price        bigint NOT NULL
                CONSTRAINT price_in_range CHECK (price BETWEEN 1 AND 1000000),
            status       text NOT NULL DEFAULT 'open',
            created_at   timestamptz NOT NULL,
            expires_at   timestamptz NOT NULL,
            due_at       timestamptz,
            closed_at    timestamptz,
            buyer_id     text
        );
        -- A copy is on sale at most once (its lock says so too).
        CREATE UNIQUE INDEX listings_copy_open ON listings (copy_id) WHERE status = 'open';
        -- The expiry deadline, claimed like the other timers (platform/claims.py).
        CREATE INDEX listings_due ON listings (due_at) WHERE due_at IS NOT NULL;
        CREATE INDEX listings_seller ON listings (seller_id, created_at DESC, listing_id DESC);
        -- Browse (store/reads_auction.py): a keyset page over an index for each order,
        -- alone or after one equality filter, never a scan of every open listing.
        CREATE INDEX listings_open_newest ON listings (created_at DESC, listing_id DESC)
            WHERE status = 'open';
        CREATE INDEX listings_open_cheapest ON listings (price, created_at, listing_id)
            WHERE status = 'open';
        CREATE INDEX listings_character_newest ON listings
            (character_id, created_at DESC, listing_id DESC) WHERE status = 'open';
        CREATE INDEX listings_character_cheapest ON listings
            (character_id, price, created_at, listing_id) WHERE status = 'open';
        CREATE INDEX listings_stars_newest ON listings
            (stars, created_at DESC, listing_id DESC) WHERE status = 'open';
        CREATE INDEX listings_stars_cheapest ON listings
            (stars, price, created_at, listing_id) WHERE status = 'open';
        CREATE INDEX listings_element_newest ON listings
            (element, created_at DESC, listing_id DESC) WHERE status = 'open';
        CREATE INDEX listings_element_cheapest ON listings
            (element, price, created_at, listing_id) WHERE status = 'open';
        CREATE INDEX listings_holo_newest ON listings
            (holo, created_at DESC, listing_id DESC) WHERE status = 'open';
        CREATE INDEX listings_holo_cheapest ON listings
            (holo, price, created_at, listing_id) WHERE status = 'open';
        -- The seller's session is told when a listing sells or expires (server/pushes.py).
        CREATE FUNCTION notify_listing_watchers() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF OLD.status = 'open' AND NEW.status IN ('sold', 'expired') THEN
                PERFORM pg_notify('{NOTIFY_CHANNEL}',
                    NEW.seller_id || ':listing:' || NEW.listing_id);
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER listings_watchers AFTER UPDATE ON listings
            FOR EACH ROW EXECUTE FUNCTION notify_listing_watchers();
        """,
    ),
    Migration(
        "collection",
        6,
        "request keys and deck resolutions by age, for their pruning",
        """
        -- services.platform.retention: a request key, and a match's deck resolution
        -- (it answers a retried ResolveDeckForMatch), go after TRIAD_RETENTION_DAYS.
        CREATE INDEX requests_by_age ON requests (created_at);
        ALTER TABLE resolutions ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();
        CREATE INDEX resolutions_by_age ON resolutions (created_at);
        """,
    ),
)


@dataclass(frozen=True, slots=True)
class Tables:
    """The schema-qualified names of the collection's tables."""

    schema: str

    def __getattr__(self, name: str) -> str:
        return f"{quote_schema(self.schema)}.{name}"


SCHEMA_MIGRATIONS = (
    *eventstore_schema.MIGRATIONS,
    *relay_schema.MIGRATIONS,
    *consumer_schema.MIGRATIONS,
    *MIGRATIONS,
)
"""Every migration the collection schema takes, in order: the platform's event store,
outbox relay and consumer offsets, then the collection's own above."""


def transient(schema: str, stream_max_age: float) -> list[Transient]:
    """What ``services.platform.retention`` prunes here: request keys, deck
    resolutions, the match-settling consumer's processed marks."""
    tables = Tables(schema)
    return [
        Transient(tables.requests, "created_at"),
        Transient(tables.resolutions, "created_at"),
        *processed_marks(tables.processed_events, stream_max_age),
    ]
