"""The collection's tables, kept in step with its event log.

Every append runs ``project`` on the same connection, inside the same transaction, so
the tables never lag the log, and the rules that must hold under concurrency are
constraints of these tables, not checks in Python:

- a balance never goes negative: ``CHECK (coins >= 0)`` on ``players``;
- a copy has exactly one owner: one ``copies`` row per copy, and a transfer is an
  ``UPDATE ... WHERE owner_id = <loser>`` that must change exactly one row;
- a copy has at most one lock: ``locks`` is keyed by the copy;
- a credit happens once per (player, reason, reference): ``credits`` is keyed so.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from services.collection.events import (
    BoosterOpened,
    CollectionEvent,
    CopiesLocked,
    CopiesReleased,
    CopyGranted,
    CopyTransferred,
    CurrencyCredited,
    CurrencyDebited,
    DeckDeleted,
    DeckSaved,
    OwnedCopy,
    ServerSeedCommitted,
    ServerSeedRevealed,
    TradeCardChosen,
    TradeOpened,
)
from services.platform.migrations import Migration, quote_schema

NOTIFY_CHANNEL = "triad_collection"
"""Where the collection's tables announce a player whose balance, trade or draft changed;
the payload is the player id."""

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
)


@dataclass(frozen=True, slots=True)
class Tables:
    """The schema-qualified names of the collection's tables."""

    schema: str

    def __getattr__(self, name: str) -> str:
        return f"{quote_schema(self.schema)}.{name}"


class ProjectionBroken(RuntimeError):
    """An event contradicts the tables: a bug, never a caller's mistake. The transaction
    rolls back, so the event is not appended either."""


async def _insert_copy(conn: Any, t: Tables, copy: OwnedCopy, origin_id: str) -> None:
    await conn.execute(
        f"INSERT INTO {t.copies} (copy_id, owner_id, character_id, holo, holo_side, source, "
        "origin_id, acquired_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        copy.copy_id,
        copy.owner_id,
        copy.character.id,
        copy.holo,
        None if copy.holo_side is None else int(copy.holo_side),
        copy.source.value,
        origin_id,
        copy.acquired_at,
    )


async def project(conn: Any, t: Tables, event: CollectionEvent, version: int, at: datetime) -> None:
    """Apply one appended event (at ``version`` of its stream) to the tables."""
    match event:
        case CopyGranted():
            await _insert_copy(conn, t, event.copy, event.grant_id)
        case BoosterOpened():
            for copy in event.draw.copies:
                await _insert_copy(conn, t, copy, event.draw.draw_id)
            await conn.execute(
                f"INSERT INTO {t.booster_draws} VALUES ($1, $2, $3, $4, $5, $6)",
                event.draw.draw_id,
                event.player_id,
                event.draw.seed_id,
                event.draw.counter,
                version,
                event.draw.opened_at,
            )
            await conn.execute(
                f"UPDATE {t.seeds} SET draw_count = draw_count + 1 WHERE seed_id = $1",
                event.draw.seed_id,
            )
            await conn.execute(
                f"UPDATE {t.players} SET boosters_since_pity = $2 WHERE player_id = $1",
                event.player_id,
                event.boosters_since_pity,
            )
        case CurrencyCredited() | CurrencyDebited():
            sign = 1 if isinstance(event, CurrencyCredited) else -1
            # The CHECK constraint refuses a negative result, whatever Python decided.
            await conn.execute(
                f"UPDATE {t.players} SET coins = coins + $2, coins_updated_at = $3 "
                "WHERE player_id = $1",
                event.player_id,
                sign * event.amount,
                at,
            )
            if isinstance(event, CurrencyCredited):
                await conn.execute(
                    f"INSERT INTO {t.credits} VALUES ($1, $2, $3)",
                    event.player_id,
                    event.reason.value,
                    event.reference_id,
                )
        case DeckSaved():
            await conn.execute(
                f"INSERT INTO {t.decks} VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (deck_id) "
                "DO UPDATE SET name = EXCLUDED.name, copy_ids = EXCLUDED.copy_ids, "
                "updated_at = EXCLUDED.updated_at",
                event.deck_id,
                event.player_id,
                event.name,
                list(event.copy_ids),
                at,
            )
        case DeckDeleted():
            await conn.execute(f"DELETE FROM {t.decks} WHERE deck_id = $1", event.deck_id)
        case CopiesLocked():
            await conn.executemany(
                f"INSERT INTO {t.locks} VALUES ($1, $2, $3, $4, $5)",
                [
                    (i, event.player_id, event.holder.kind.value, event.holder.id, at)
                    for i in event.copy_ids
                ],
            )
        case CopiesReleased():
            await conn.execute(
                f"DELETE FROM {t.locks} WHERE copy_id = ANY($1::text[]) "
                "AND holder_kind = $2 AND holder_id = $3",
                list(event.copy_ids),
                event.holder.kind.value,
                event.holder.id,
            )
        case ServerSeedCommitted() | ServerSeedRevealed():
            pass  # the seeds table is written with the secret by the store itself
        case TradeOpened():
            await conn.execute(
                f"INSERT INTO {t.trades} VALUES ($1, $2, $3, $4, $5, $6, NULL)",
                event.trade_id,
                event.match_id,
                event.winner.player_id,
                event.loser.player_id,
                event.deadline,
                event.opened_at,
            )
        case TradeCardChosen():
            await conn.execute(
                f"UPDATE {t.trades} SET due_at = NULL WHERE trade_id = $1", event.trade_id
            )
        case CopyTransferred():
            moved = await conn.execute(
                f"UPDATE {t.copies} SET owner_id = $3, source = $4, acquired_at = $5 "
                "WHERE copy_id = $1 AND owner_id = $2",
                event.copy_id,
                event.from_player_id,
                event.to_player_id,
                event.copy.source.value,
                event.copy.acquired_at,
            )
            if moved != "UPDATE 1":
                raise ProjectionBroken(
                    f"copy {event.copy_id} is not {event.from_player_id}'s to transfer"
                )
            await conn.execute(
                f"UPDATE {t.trades} SET completed_at = $2 WHERE trade_id = $1", event.trade_id, at
            )
        case _:
            pass  # draft events: the drafts row follows the session (store.save_draft)
