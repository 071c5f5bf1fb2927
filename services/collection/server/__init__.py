"""The CollectionService gRPC edge: protobuf in, handlers, protobuf out. Nothing else.

One servicer, its RPCs grouped by what they serve:

- ``copies.py``: the catalog, a player's copies, grants.
- ``decks.py``: decks, the deck a match is played with, a bot's deck, locks.
- ``economy.py``: coins, server seeds, boosters.
- ``trades.py``: Trade One and a player's obligations.
- ``drafts.py``: draft sessions.
- ``auction.py``: the Auction House (list, cancel, buy, browse).
- ``watch.py``: WatchPlayer, a stream of a player's balance, Trade One and draft.
- ``pushes.py``: the same views published on the player's NATS subjects as the
  collection's notices announce changes (not an RPC: ``main.py`` runs its publisher).

Requests are read with ``services.platform.edge`` and ``mapping.py``; answers are built
by ``mapping.py`` and ``presenter.py``. Servicers call handlers, never the store.
"""

from __future__ import annotations

import grpc
from triad.v1 import collection_pb2 as c
from triad.v1 import collection_pb2_grpc

from services.collection.handlers import Context
from services.collection.server.auction import AuctionRpcs
from services.collection.server.copies import CopyRpcs
from services.collection.server.decks import DeckRpcs
from services.collection.server.drafts import DraftRpcs
from services.collection.server.economy import EconomyRpcs
from services.collection.server.trades import TradeRpcs
from services.collection.server.watch import WATCH_RECHECK_SECONDS, WatchRpcs
from services.platform.notifier import Notifier

__all__ = ["SERVICE_NAME", "WATCH_RECHECK_SECONDS", "CollectionServicer", "register"]


class CollectionServicer(
    CopyRpcs,
    DeckRpcs,
    EconomyRpcs,
    TradeRpcs,
    DraftRpcs,
    AuctionRpcs,
    WatchRpcs,
    collection_pb2_grpc.CollectionServiceServicer,
):
    def __init__(self, ctx: Context, notifier: Notifier, admin_token: str | None = None) -> None:
        self._ctx = ctx
        self._notifier = notifier
        self._admin_token = admin_token


def register(server: grpc.aio.Server, servicer: CollectionServicer) -> None:
    collection_pb2_grpc.add_CollectionServiceServicer_to_server(servicer, server)


SERVICE_NAME = c.DESCRIPTOR.services_by_name["CollectionService"].full_name
