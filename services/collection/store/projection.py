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

from datetime import datetime
from typing import Any

from services.collection.domain import auction, events
from services.collection.domain.events_auction import ListingClose, ListingCreated, ListingSold
from services.collection.schema import Tables


class ProjectionBroken(RuntimeError):
    """An event contradicts the tables: a bug, never a caller's mistake. The transaction
    rolls back, so the event is not appended either."""


def trade_row(event: events.TradeOpened) -> tuple[str, str, str, datetime, datetime]:
    """A new trade's row after its ``trade_id`` (match, winner, loser, due_at, opened_at):
    due at the opening's deadline, not completed."""
    return (
        event.match_id,
        event.winner.player_id,
        event.loser.player_id,
        event.deadline,
        event.opened_at,
    )


async def _insert_copy(conn: Any, t: Tables, copy: events.OwnedCopy, origin_id: str) -> None:
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


async def project(
    conn: Any, t: Tables, event: events.CollectionEvent, version: int, at: datetime
) -> None:
    """Apply one appended event (at ``version`` of its stream) to the tables."""
    match event:
        case events.CopyGranted():
            await _insert_copy(conn, t, event.copy, event.grant_id)
        case events.BoosterOpened():
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
        case events.CurrencyCredited() | events.CurrencyDebited():
            sign = 1 if isinstance(event, events.CurrencyCredited) else -1
            # The CHECK constraint refuses a negative result, whatever Python decided.
            await conn.execute(
                f"UPDATE {t.players} SET coins = coins + $2, coins_updated_at = $3 "
                "WHERE player_id = $1",
                event.player_id,
                sign * event.amount,
                at,
            )
            if isinstance(event, events.CurrencyCredited):
                await conn.execute(
                    f"INSERT INTO {t.credits} VALUES ($1, $2, $3)",
                    event.player_id,
                    event.reason.value,
                    event.reference_id,
                )
        case events.DeckSaved():
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
        case events.DeckDeleted():
            await conn.execute(f"DELETE FROM {t.decks} WHERE deck_id = $1", event.deck_id)
        case events.CopiesLocked():
            await conn.executemany(
                f"INSERT INTO {t.locks} VALUES ($1, $2, $3, $4, $5)",
                [
                    (i, event.player_id, event.holder.kind.value, event.holder.id, at)
                    for i in event.copy_ids
                ],
            )
        case events.CopiesReleased():
            await conn.execute(
                f"DELETE FROM {t.locks} WHERE copy_id = ANY($1::text[]) "
                "AND holder_kind = $2 AND holder_id = $3",
                list(event.copy_ids),
                event.holder.kind.value,
                event.holder.id,
            )
        case events.ServerSeedCommitted() | events.ServerSeedRevealed():
            pass  # the seeds table is written with the secret by the store itself
        case events.TradeOpened():
            await conn.execute(
                f"INSERT INTO {t.trades} VALUES ($1, $2, $3, $4, $5, $6, NULL)",
                event.trade_id,
                *trade_row(event),
            )
        case events.TradeCardChosen():
            await conn.execute(
                f"UPDATE {t.trades} SET due_at = NULL WHERE trade_id = $1", event.trade_id
            )
        case events.CopyTransferred():
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
            # All and Direct move without a choice: their transfer clears the deadline.
            await conn.execute(
                f"UPDATE {t.trades} SET completed_at = $2, due_at = NULL WHERE trade_id = $1",
                event.trade_id,
                at,
            )
        case ListingCreated():
            await _list(conn, t, event, at)
        case ListingClose():
            await _close(conn, t, event, at)
        case _:
            pass  # draft events: the drafts row follows the session (store.save_draft)


async def _list(conn: Any, t: Tables, event: ListingCreated, at: datetime) -> None:
    copy = event.copy
    element = copy.character.element
    await conn.execute(
        f"INSERT INTO {t.listings} (listing_id, seller_id, copy_id, character_id, stars, "
        "element, holo, holo_side, source, acquired_at, price, created_at, expires_at, "
        "due_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)",
        event.listing_id,
        event.seller_id,
        copy.copy_id,
        copy.character.id,
        copy.character.stars,
        "" if element is None else element.value,
        copy.holo,
        None if copy.holo_side is None else int(copy.holo_side),
        copy.source.value,
        copy.acquired_at,
        event.price,
        event.created_at,  # as the stream folds it: the instant its expiry counts from
        event.expires_at,
    )


async def _close(conn: Any, t: Tables, event: ListingClose, at: datetime) -> None:
    """A listing closes once: only an open one changes (the stream's version says so
    too). A sale moves the copy from its seller, who must still own it."""
    buyer = event.buyer_id if isinstance(event, ListingSold) else None
    closed = await conn.execute(
        f"UPDATE {t.listings} SET status = $2, closed_at = $3, due_at = NULL, buyer_id = $4 "
        "WHERE listing_id = $1 AND status = 'open'",
        event.listing_id,
        auction.CLOSES[type(event)].value,
        at,
        buyer,
    )
    if closed != "UPDATE 1":
        raise ProjectionBroken(f"listing {event.listing_id} is not open")
    if isinstance(event, ListingSold):
        moved = await conn.execute(
            f"UPDATE {t.copies} SET owner_id = $3, source = $4, acquired_at = $5 "
            "WHERE copy_id = $1 AND owner_id = $2",
            event.copy.copy_id,
            event.seller_id,
            event.buyer_id,
            event.copy.source.value,
            event.copy.acquired_at,
        )
        if moved != "UPDATE 1":
            raise ProjectionBroken(f"copy {event.copy.copy_id} is not {event.seller_id}'s to sell")
