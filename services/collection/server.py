"""The CollectionService gRPC edge: protobuf in, handlers, protobuf out. Nothing else.

The servicer is split by subject (``server_*.py``); this module holds the catalog,
copies, decks and locks, and composes the rest.
"""

from __future__ import annotations

from typing import Any
from uuid import NAMESPACE_URL, uuid5

import grpc
from triad.v1 import collection_pb2 as c
from triad.v1 import collection_pb2_grpc
from triad.v1 import common_pb2 as pb

from services.collection import handlers, presenter
from services.collection.catalog import CatalogFilter
from services.collection.edge import (
    bind,
    check_operator,
    elements,
    holder_of,
    next_token,
    page,
    require,
    stars,
)
from services.collection.events import PlayerRef
from services.collection.handlers import Context
from services.collection.mapping import character, copy_card, owned_copy
from services.collection.server_economy import EconomyRpcs
from services.collection.server_play import PlayRpcs
from services.collection.store import Request
from services.match.rules.deck import card_label
from services.platform.errors import InvalidArgument, NotFound, short_id
from services.platform.notifier import Notifier

MAX_BATCH = 500


class CollectionServicer(EconomyRpcs, PlayRpcs, collection_pb2_grpc.CollectionServiceServicer):
    def __init__(self, ctx: Context, notifier: Notifier, admin_token: str | None = None) -> None:
        self._ctx = ctx
        self._notifier = notifier
        self._admin_token = admin_token

    # --- catalog ----------------------------------------------------------------------------

    async def ListCatalog(
        self, request: c.CollectionServiceListCatalogRequest, context: Any
    ) -> c.CollectionServiceListCatalogResponse:
        limit, offset = page(request.page_size, request.page_token, 500)
        f = request.filter
        found = self._ctx.catalog.select(
            CatalogFilter(stars(f.stars), elements(f.elements), f.name_contains)
        )
        chunk = found[offset : offset + limit + 1]
        return c.CollectionServiceListCatalogResponse(
            characters=[character(x) for x in chunk[:limit]],
            next_page_token=next_token(offset, limit, len(chunk)),
            total_size=len(found),
        )

    async def BatchGetCharacters(
        self, request: c.CollectionServiceBatchGetCharactersRequest, context: Any
    ) -> c.CollectionServiceBatchGetCharactersResponse:
        if len(request.character_ids) > MAX_BATCH:
            raise InvalidArgument(f"ask for at most {MAX_BATCH} characters at once")
        unknown = self._ctx.catalog.unknown(request.character_ids)
        if unknown:
            raise NotFound(f"no characters {', '.join(unknown[:20])} in the catalog")
        found = [self._ctx.catalog.get(i) for i in request.character_ids]
        return c.CollectionServiceBatchGetCharactersResponse(
            characters=[character(x) for x in found if x is not None]
        )

    # --- copies -----------------------------------------------------------------------------

    async def ListCopies(
        self, request: c.CollectionServiceListCopiesRequest, context: Any
    ) -> c.CollectionServiceListCopiesResponse:
        player = require(request.player_id, "player_id")
        bind(player)
        limit, offset = page(request.page_size, request.page_token, 500)
        f = request.filter
        where = CatalogFilter(stars(f.stars), elements(f.elements), f.name_contains)
        copies = await self._ctx.store.copies(player)
        locks = await self._ctx.store.lock_times(list(copies))
        wanted = set(f.character_ids)
        found = [
            x
            for x in copies.values()
            if where.matches(x.character)
            and (not wanted or x.character.id in wanted)
            and (not f.HasField("holo") or x.holo == f.holo)
            and (not f.HasField("locked") or (x.copy_id in locks) == f.locked)
        ]
        chunk = found[offset : offset + limit + 1]
        return c.CollectionServiceListCopiesResponse(
            entries=[presenter.entry(x, locks.get(x.copy_id)) for x in chunk[:limit]],
            next_page_token=next_token(offset, limit, len(chunk)),
            total_size=len(found),
        )

    async def GetCopy(
        self, request: c.CollectionServiceGetCopyRequest, context: Any
    ) -> c.CollectionServiceGetCopyResponse:
        player = require(request.player_id, "player_id")
        copy_id = require(request.copy_id, "copy_id")
        bind(player, copy_id=copy_id)
        found = (await self._ctx.store.copies(player, [copy_id])).get(copy_id)
        if found is None:
            raise NotFound(f"you have no {card_label(copy_id)}")
        lock = (await self._ctx.store.lock_times([copy_id])).get(copy_id)
        return c.CollectionServiceGetCopyResponse(entry=presenter.entry(found, lock))

    async def GrantStarterCollection(
        self, request: c.CollectionServiceGrantStarterCollectionRequest, context: Any
    ) -> c.CollectionServiceGrantStarterCollectionResponse:
        player = require(request.player.player_id, "player.player_id")
        bind(player)
        key = Request.of(player, require(request.request_id, "request_id"), "starter")
        done = await handlers.grant_starter(
            self._ctx, key, PlayerRef(player, request.player.player_name)
        )
        copies = await self._ctx.store.copies_from(done["grant_id"])
        coins, at = await self._ctx.store.balance(player)
        return c.CollectionServiceGrantStarterCollectionResponse(
            copies=[owned_copy(x) for x in copies], balance=presenter.balance(coins, at)
        )

    async def GrantCopies(
        self, request: c.CollectionServiceGrantCopiesRequest, context: Any
    ) -> c.CollectionServiceGrantCopiesResponse:
        check_operator(self._admin_token, context)
        player = require(request.player_id, "player_id")
        bind(player)
        if len(request.character_ids) > MAX_BATCH:
            raise InvalidArgument(f"grant at most {MAX_BATCH} copies at once")
        key = Request.of(
            "operator", require(request.request_id, "request_id"), player, *request.character_ids
        )
        done = await handlers.grant_copies(
            self._ctx, key, player, list(request.character_ids), request.reason
        )
        copies = await self._ctx.store.copies_from(done["grant_id"])
        return c.CollectionServiceGrantCopiesResponse(copies=[owned_copy(x) for x in copies])

    # --- decks ------------------------------------------------------------------------------

    async def _deck(self, player: str, deck_id: str) -> pb.Deck:
        found = await self._ctx.store.deck(player, deck_id)
        if found is None:
            raise NotFound(f"you have no deck {short_id(deck_id)}")
        _, name, copy_ids, created, updated = found
        broken = await handlers.deck_violations(self._ctx, player, copy_ids)
        copies = await self._ctx.store.copies(player, copy_ids)
        return presenter.deck(deck_id, name, copy_ids, copies, broken, created, updated)

    async def SaveDeck(
        self, request: c.CollectionServiceSaveDeckRequest, context: Any
    ) -> c.CollectionServiceSaveDeckResponse:
        player = require(request.player_id, "player_id")
        bind(player, deck_id=request.deck_id)
        if request.deck_id:
            require(request.deck_id, "deck_id")
        for copy_id in request.copy_ids:
            require(copy_id, "copy_ids")
        key = Request.of(
            player,
            require(request.request_id, "request_id"),
            "save-deck",
            request.deck_id,
            request.name,
            *request.copy_ids,
        )
        done = await handlers.save_deck(
            self._ctx, key, player, request.deck_id, request.name, list(request.copy_ids)
        )
        return c.CollectionServiceSaveDeckResponse(deck=await self._deck(player, done["deck_id"]))

    async def GetDeck(
        self, request: c.CollectionServiceGetDeckRequest, context: Any
    ) -> c.CollectionServiceGetDeckResponse:
        player = require(request.player_id, "player_id")
        deck_id = require(request.deck_id, "deck_id")
        bind(player, deck_id=deck_id)
        return c.CollectionServiceGetDeckResponse(deck=await self._deck(player, deck_id))

    async def ListDecks(
        self, request: c.CollectionServiceListDecksRequest, context: Any
    ) -> c.CollectionServiceListDecksResponse:
        player = require(request.player_id, "player_id")
        bind(player)
        limit, offset = page(request.page_size, request.page_token, 200)
        rows = await self._ctx.store.decks(player, limit + 1, offset)
        decks = [await self._deck(player, row[0]) for row in rows[:limit]]
        return c.CollectionServiceListDecksResponse(
            decks=decks, next_page_token=next_token(offset, limit, len(rows))
        )

    async def DeleteDeck(
        self, request: c.CollectionServiceDeleteDeckRequest, context: Any
    ) -> c.CollectionServiceDeleteDeckResponse:
        player = require(request.player_id, "player_id")
        deck_id = require(request.deck_id, "deck_id")
        bind(player, deck_id=deck_id)
        key = Request.of(player, require(request.request_id, "request_id"), "delete", deck_id)
        await handlers.delete_deck(self._ctx, key, player, deck_id)
        return c.CollectionServiceDeleteDeckResponse()

    async def ValidateDeck(
        self, request: c.CollectionServiceValidateDeckRequest, context: Any
    ) -> c.CollectionServiceValidateDeckResponse:
        player = require(request.player_id, "player_id")
        bind(player)
        which = request.WhichOneof("deck")
        if which == "random":
            reason = await handlers.random_deck_possible(self._ctx, player)
            if reason is None:
                return c.CollectionServiceValidateDeckResponse(valid=True)
            return c.CollectionServiceValidateDeckResponse(
                valid=False,
                violations=[
                    pb.DeckViolation(rule=pb.DECK_RULE_UNSPECIFIED, card_ids=[], message=reason)
                ],
            )
        if which == "deck_id":
            found = await self._ctx.store.deck(player, require(request.deck_id, "deck_id"))
            if found is None:
                raise NotFound(f"you have no deck {short_id(request.deck_id)}")
            copy_ids: list[str] = list(found[2])
        elif which == "copies":
            copy_ids = list(request.copies.copy_ids)
        else:
            raise InvalidArgument("say which deck to check: deck_id, copies or random")
        broken = await handlers.deck_violations(self._ctx, player, copy_ids)
        return c.CollectionServiceValidateDeckResponse(
            valid=not broken, violations=presenter.violations(broken)
        )

    async def ResolveDeckForMatch(
        self, request: c.CollectionServiceResolveDeckForMatchRequest, context: Any
    ) -> c.CollectionServiceResolveDeckForMatchResponse:
        player = require(request.player_id, "player_id")
        purpose = require(request.purpose_id, "purpose_id")
        bind(player, match_id=purpose)
        which = request.deck.WhichOneof("choice")
        if which is None:
            raise InvalidArgument("deck must be a saved deck_id or random")
        deck_id = require(request.deck.deck_id, "deck.deck_id") if which == "deck_id" else None
        lock_for = holder_of(request.lock_for, "lock_for") if request.HasField("lock_for") else None
        key = Request.of(
            player,
            require(request.request_id, "request_id"),
            "resolve",
            purpose,
            deck_id,
            lock_for,
        )
        done = await handlers.resolve_deck_for_match(
            self._ctx, key, player, deck_id, purpose, lock_for
        )
        copies = await self._ctx.store.copies_by_id(done["copy_ids"])
        return c.CollectionServiceResolveDeckForMatchResponse(
            cards=[copy_card(copies[i]) for i in done["copy_ids"] if i in copies],
            random_drawn=done["random"],
        )

    async def DrawBotDeck(
        self, request: c.CollectionServiceDrawBotDeckRequest, context: Any
    ) -> c.CollectionServiceDrawBotDeckResponse:
        request_id = require(request.request_id, "request_id")
        deck = handlers.draw_bot_deck(self._ctx, request_id, request.hand_size)
        return c.CollectionServiceDrawBotDeckResponse(
            cards=[
                pb.Card(
                    card_id=f"bot-{uuid5(NAMESPACE_URL, f'triad:bot-card:{request_id}:{n}')}",
                    origin=pb.CARD_ORIGIN_BOT,
                    character=character(x),
                    printed_sides=character(x).sides,
                )
                for n, x in enumerate(deck)
            ]
        )

    # --- locks ------------------------------------------------------------------------------

    async def LockCopies(
        self, request: c.CollectionServiceLockCopiesRequest, context: Any
    ) -> c.CollectionServiceLockCopiesResponse:
        player = require(request.player_id, "player_id")
        bind(player)
        holder = holder_of(request.holder)
        ids = [require(i, "copy_ids") for i in request.copy_ids]
        key = Request.of(player, require(request.request_id, "request_id"), "lock", holder, *ids)
        done = await handlers.lock_copies(self._ctx, key, player, ids, holder)
        return c.CollectionServiceLockCopiesResponse(copy_ids=done["copy_ids"])

    async def ReleaseCopies(
        self, request: c.CollectionServiceReleaseCopiesRequest, context: Any
    ) -> c.CollectionServiceReleaseCopiesResponse:
        holder = holder_of(request.holder)
        key = Request.of("release", require(request.request_id, "request_id"), holder)
        done = await handlers.release_copies(self._ctx, key, holder)
        return c.CollectionServiceReleaseCopiesResponse(copy_ids=done["copy_ids"])


def register(server: grpc.aio.Server, servicer: CollectionServicer) -> None:
    collection_pb2_grpc.add_CollectionServiceServicer_to_server(servicer, server)


SERVICE_NAME = c.DESCRIPTOR.services_by_name["CollectionService"].full_name
