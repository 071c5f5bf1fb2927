"""Provably fair boosters (``FAIRNESS.md``): the server seed committed, rotated and
revealed, and a booster paid for and drawn from the seed in force at its next counter.

Pure functions returning events (STYLE 1); the server seed is drawn by the handler.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from services.collection.domain import boosters
from services.collection.domain.catalog import Catalog
from services.collection.domain.events import (
    BoosterDraw,
    BoosterOpened,
    CopySource,
    CurrencyDebited,
    CurrencyReason,
    OwnedCopy,
    ServerSeedCommitted,
    ServerSeedRevealed,
)
from services.collection.domain.wealth import copy_id_for, spend
from services.platform.errors import InvalidArgument

MAX_CLIENT_SEED = 64


def valid_client_seed(client_seed: str) -> str:
    if not 1 <= len(client_seed) <= MAX_CLIENT_SEED or not all(
        " " <= ch <= "~" for ch in client_seed
    ):
        raise InvalidArgument(f"a client seed is 1 to {MAX_CLIENT_SEED} printable ASCII characters")
    return client_seed


@dataclass(frozen=True, slots=True)
class ActiveSeed:
    seed_id: str
    server_seed: str
    seed_hash: str
    client_seed: str
    draw_count: int
    committed_at: datetime


def commit_seed(
    player_id: str, seed_id: str, server_seed: str, client_seed: str
) -> ServerSeedCommitted:
    return ServerSeedCommitted(player_id, seed_id, boosters.seed_hash(server_seed), client_seed)


def rotate_seed(
    player_id: str, old: ActiveSeed, seed_id: str, server_seed: str, client_seed: str
) -> tuple[ServerSeedRevealed, ServerSeedCommitted]:
    """The seed in force is revealed and a new one committed with the new client seed."""
    return (
        ServerSeedRevealed(player_id, old.seed_id, old.server_seed, old.draw_count),
        commit_seed(player_id, seed_id, server_seed, valid_client_seed(client_seed)),
    )


def open_booster(
    catalog: Catalog,
    player_id: str,
    draw_id: str,
    balance: int,
    seed: ActiveSeed,
    boosters_since_pity: int,
    now: datetime,
) -> tuple[CurrencyDebited, BoosterOpened]:
    """Pay for a booster and draw it from the seed in force at its next counter."""
    paid = spend(
        player_id, balance, boosters.BOOSTER_PRICE, CurrencyReason.BOOSTER_PURCHASE, draw_id
    )
    contents = boosters.draw_booster(
        catalog,
        seed.server_seed,
        seed.client_seed,
        seed.draw_count,
        boosters.pity_due(boosters_since_pity),
    )
    copies = tuple(
        OwnedCopy(
            copy_id_for(draw_id, index),
            player_id,
            card.character,
            card.holo,
            card.holo_side,
            CopySource.BOOSTER,
            now,
        )
        for index, card in enumerate(contents.cards)
    )
    draw = BoosterDraw(
        draw_id=draw_id,
        seed_id=seed.seed_id,
        seed_hash=seed.seed_hash,
        client_seed=seed.client_seed,
        counter=seed.draw_count,
        algorithm=boosters.ALGORITHM,
        copies=copies,
        pity_applied=contents.pity_applied,
        price=boosters.BOOSTER_PRICE,
        opened_at=now,
    )
    since = boosters.boosters_since_pity_after(boosters_since_pity, contents)
    return paid, BoosterOpened(player_id, draw, since)
