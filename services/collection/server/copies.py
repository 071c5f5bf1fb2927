"""The CollectionService edge for the catalog and a player's copies (and their grants)."""

from __future__ import annotations

from typing import Any

from triad.v1 import collection_pb2 as c

from services.collection import handlers, handlers_economy, presenter
from services.collection.domain.catalog import CatalogFilter
from services.collection.domain.events import PlayerRef
from services.collection.handlers import Context
from services.collection.mapping import character, elements, next_token, owned_copy, page, stars
from services.platform.edge import bind, check_operator, require, require_bound
from services.platform.errors import InvalidArgument, NotFound, require_found
from services.platform.pages import key_token, key_token_back
from services.platform.requests import Request
from services.rules.deck import card_label

MAX_BATCH = 500


class CopyRpcs:
    _ctx: Context
    _admin_token: str | None

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

    async def ListCopies(
        self, request: c.CollectionServiceListCopiesRequest, context: Any
    ) -> c.CollectionServiceListCopiesResponse:
        player = require_bound(request.player_id, "player_id")
        limit, _ = page(request.page_size, "", 500)
        # A keyset token: a copy leaving between two pages moves none past the cursor.
        after = key_token_back(request.page_token)
        f = request.filter
        where = CatalogFilter(stars(f.stars), elements(f.elements), f.name_contains)
        copies = await handlers.copies(self._ctx, player)
        locks = await handlers.copy_locks(self._ctx, list(copies))
        wanted = set(f.character_ids)
        found = [
            x
            for x in copies.values()
            if where.matches(x.character)
            and (not wanted or x.character.id in wanted)
            and (not f.HasField("holo") or x.holo == f.holo)
            and (not f.HasField("locked") or (x.copy_id in locks) == f.locked)
        ]
        found.sort(key=lambda x: (x.acquired_at, x.copy_id))  # the cursor's order
        chunk = [x for x in found if after is None or (x.acquired_at, x.copy_id) > after]
        last = chunk[limit - 1] if len(chunk) > limit else None
        return c.CollectionServiceListCopiesResponse(
            entries=[presenter.entry(x, locks.get(x.copy_id)) for x in chunk[:limit]],
            next_page_token="" if last is None else key_token(last.acquired_at, last.copy_id),
            total_size=len(found),
        )

    async def GetCopy(
        self, request: c.CollectionServiceGetCopyRequest, context: Any
    ) -> c.CollectionServiceGetCopyResponse:
        player = require(request.player_id, "player_id")
        copy_id = require(request.copy_id, "copy_id")
        bind(player_id=player, copy_id=copy_id)
        found = require_found(
            (await handlers.copies(self._ctx, player, [copy_id])).get(copy_id),
            f"you have no {card_label(copy_id)}",
        )
        lock = (await handlers.copy_locks(self._ctx, [copy_id])).get(copy_id)
        return c.CollectionServiceGetCopyResponse(entry=presenter.entry(found, lock))

    async def GrantStarterCollection(
        self, request: c.CollectionServiceGrantStarterCollectionRequest, context: Any
    ) -> c.CollectionServiceGrantStarterCollectionResponse:
        player = require(request.player.player_id, "player.player_id")
        bind(player_id=player)
        key = Request.of(player, require(request.request_id, "request_id"), "starter")
        done = await handlers.grant_starter(
            self._ctx, key, PlayerRef(player, request.player.player_name)
        )
        copies = await handlers.copies_granted(self._ctx, done.grant_id)
        balance = await handlers_economy.balance(self._ctx, player)
        return c.CollectionServiceGrantStarterCollectionResponse(
            copies=[owned_copy(x) for x in copies], balance=presenter.balance(balance)
        )

    async def GrantCopies(
        self, request: c.CollectionServiceGrantCopiesRequest, context: Any
    ) -> c.CollectionServiceGrantCopiesResponse:
        check_operator(self._admin_token, context)
        player = require_bound(request.player_id, "player_id")
        if len(request.character_ids) > MAX_BATCH:
            raise InvalidArgument(f"grant at most {MAX_BATCH} copies at once")
        key = Request.of(
            "operator", require(request.request_id, "request_id"), player, *request.character_ids
        )
        done = await handlers.grant_copies(
            self._ctx, key, player, list(request.character_ids), request.reason
        )
        copies = await handlers.copies_granted(self._ctx, done.grant_id)
        return c.CollectionServiceGrantCopiesResponse(copies=[owned_copy(x) for x in copies])
