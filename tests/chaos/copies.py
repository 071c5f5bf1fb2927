"""Whether card copies are conserved (one of the chaos invariants,
tests/chaos/invariants.py): copies come only from grants and boosters; trades and
Auction House sales move them, nothing else; each keeps the character and holo it was
made with, and the copies table agrees with the collection's log.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from tests.chaos.invariants import Check, _t


def _face(copy: pb.OwnedCopy) -> tuple[str, bool, int]:
    """What a copy is, whoever owns it: its character, holo flag and holo side."""
    return copy.character.character_id, copy.holo, int(copy.holo_side)


def sold_as_transfer(sold: ev.ListingSold) -> ev.CopyTransferred:
    """An Auction House sale, as the move of its copy from the seller to the buyer."""
    return ev.CopyTransferred(
        trade_id=sold.listing_id,
        copy_id=sold.copy.copy_id,
        from_player_id=sold.seller_player_id,
        to_player_id=sold.buyer_player_id,
        copy=sold.copy,
    )


async def copies_conserved(conn: Any, schema: str) -> Check:
    """Copies come only from grants and boosters; trades and Auction House sales move
    them, nothing else: each keeps its character and holo side (RULES.md 13, 15: a
    transfer with its holo bonus)."""
    check = Check("card copies equal grants plus booster cards")
    owners: dict[str, str] = {}
    made: dict[str, tuple[str, bool, int]] = {}
    granted = drawn = moved = sold = 0
    rows = await conn.fetch(
        f"SELECT type, data FROM {_t(schema, 'events')} WHERE type = ANY($1::text[]) "
        "ORDER BY tx_id, seq",
        [
            "triad.v1.CopyGranted",
            "triad.v1.BoosterOpened",
            "triad.v1.CopyTransferred",
            "triad.v1.ListingSold",
        ],
    )
    for row in rows:
        if row["type"] == "triad.v1.CopyGranted":
            copies: Iterable[pb.OwnedCopy] = [ev.CopyGranted.FromString(row["data"]).copy]
            granted += 1
        elif row["type"] == "triad.v1.BoosterOpened":
            copies = ev.BoosterOpened.FromString(row["data"]).draw.copies
            drawn += len(copies)
        else:
            if row["type"] == "triad.v1.ListingSold":  # an Auction House sale moves it too
                transfer = sold_as_transfer(ev.ListingSold.FromString(row["data"]))
                sold += 1
            else:
                transfer = ev.CopyTransferred.FromString(row["data"])
                moved += 1
            if owners.get(transfer.copy_id) != transfer.from_player_id:
                check.problem(
                    f"copy {transfer.copy_id} moved from {transfer.from_player_id}, "
                    f"owned by {owners.get(transfer.copy_id)}"
                )
            owners[transfer.copy_id] = transfer.to_player_id
            now = transfer.copy
            if (now.copy_id, now.owner_player_id) != (transfer.copy_id, transfer.to_player_id) or (
                _face(now) != made.get(transfer.copy_id)
            ):
                check.problem(
                    f"copy {transfer.copy_id} moved as {_face(now)} of {now.owner_player_id}, "
                    f"made {made.get(transfer.copy_id)}"
                )
            continue
        for copy in copies:
            if copy.copy_id in owners:
                check.problem(f"copy {copy.copy_id} came into existence twice")
            owners[copy.copy_id] = copy.owner_player_id
            made[copy.copy_id] = _face(copy)
    rows = await conn.fetch(
        f"SELECT copy_id, owner_id, character_id, holo FROM {_t(schema, 'copies')}"
    )
    table = {r["copy_id"]: r["owner_id"] for r in rows}
    for r in rows:
        face = made.get(r["copy_id"])
        if face is not None and (r["character_id"], r["holo"]) != face[:2]:
            check.problem(
                f"copy {r['copy_id']} is {r['character_id']} holo {r['holo']}, made {face}"
            )
    for copy_id in table.keys() - owners.keys():
        check.problem(f"copy {copy_id} is in the table but was never granted nor drawn")
    for copy_id in owners.keys() - table.keys():
        check.problem(f"copy {copy_id} was granted or drawn but is not in the table")
    for copy_id in table.keys() & owners.keys():
        if table[copy_id] != owners[copy_id]:
            check.problem(
                f"copy {copy_id} belongs to {table[copy_id]}, the log says {owners[copy_id]}"
            )
    check.counts = {
        "copies": len(table),
        "granted": granted,
        "booster_cards": drawn,
        "grants_plus_boosters": granted + drawn,
        "transfers": moved,
        "auction_sales": sold,
    }
    if len(table) != granted + drawn:
        check.problem(f"{len(table)} copies, {granted} granted + {drawn} from boosters")
    return check
