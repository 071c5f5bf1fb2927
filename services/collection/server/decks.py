"""The CollectionService edge for decks, the deck a match is played with, and locks."""

from __future__ import annotations

from functools import partial
from typing import Any

from triad.v1 import collection_pb2 as c
from triad.v1 import common_pb2 as pb

from services.collection import handlers, handlers_decks, presenter
from services.collection.handlers import Context
from services.collection.mapping import bot_card, copy_card, holder_of, house_card, keyed
from services.collection.results import DeckRecord
from services.platform.edge import bind, require, require_bound
from services.platform.errors import InvalidArgument
from services.platform.pages import key_token, key_token_back
from services.platform.requests import Request
from services.rules.deck import HAND_SIZES, deck_size_problem


class DeckRpcs:
    _ctx: Context

    async def _deck(self, player: str, record: DeckRecord) -> pb.Deck:
        broken = await handlers_decks.deck_violations(
            self._ctx, player, record.copy_ids, saved=True
        )
        copies = await handlers.copies(self._ctx, player, record.copy_ids)
        return presenter.deck(record, copies, broken)

    async def SaveDeck(
        self, request: c.CollectionServiceSaveDeckRequest, context: Any
    ) -> c.CollectionServiceSaveDeckResponse:
        player = require(request.player_id, "player_id")
        bind(player_id=player, deck_id=request.deck_id)
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
        done = await handlers_decks.save_deck(
            self._ctx, key, player, request.deck_id, request.name, list(request.copy_ids)
        )
        saved = await handlers_decks.deck(self._ctx, player, done.deck_id)
        return c.CollectionServiceSaveDeckResponse(deck=await self._deck(player, saved))

    async def GetDeck(
        self, request: c.CollectionServiceGetDeckRequest, context: Any
    ) -> c.CollectionServiceGetDeckResponse:
        player = require(request.player_id, "player_id")
        deck_id = require(request.deck_id, "deck_id")
        bind(player_id=player, deck_id=deck_id)
        found = await handlers_decks.deck(self._ctx, player, deck_id)
        return c.CollectionServiceGetDeckResponse(deck=await self._deck(player, found))

    async def ListDecks(
        self, request: c.CollectionServiceListDecksRequest, context: Any
    ) -> c.CollectionServiceListDecksResponse:
        player = require_bound(request.player_id, "player_id")
        # A keyset token: a deck deleted between two pages moves none past the cursor.
        found, token = await keyed(
            request,
            200,
            key_token_back,
            partial(handlers_decks.deck_page, self._ctx, player),
            lambda d: key_token(d.updated_at, d.deck_id),
        )
        decks = [await self._deck(player, record) for record in found]
        return c.CollectionServiceListDecksResponse(decks=decks, next_page_token=token)

    async def DeleteDeck(
        self, request: c.CollectionServiceDeleteDeckRequest, context: Any
    ) -> c.CollectionServiceDeleteDeckResponse:
        player = require(request.player_id, "player_id")
        deck_id = require(request.deck_id, "deck_id")
        bind(player_id=player, deck_id=deck_id)
        key = Request.of(player, require(request.request_id, "request_id"), "delete", deck_id)
        await handlers_decks.delete_deck(self._ctx, key, player, deck_id)
        return c.CollectionServiceDeleteDeckResponse()

    async def ValidateDeck(
        self, request: c.CollectionServiceValidateDeckRequest, context: Any
    ) -> c.CollectionServiceValidateDeckResponse:
        player = require_bound(request.player_id, "player_id")
        which = request.WhichOneof("deck")
        if which == "random":
            reason = await handlers_decks.random_deck_possible(
                self._ctx, player, request.hand_size or 5
            )
            if reason is None:
                return c.CollectionServiceValidateDeckResponse(valid=True)
            return c.CollectionServiceValidateDeckResponse(
                valid=False,
                violations=[
                    pb.DeckViolation(
                        rule=pb.DECK_RULE_DISTINCT_CHARACTERS, card_ids=[], message=reason
                    )
                ],
            )
        if which == "deck_id":
            found = await handlers_decks.deck(
                self._ctx, player, require(request.deck_id, "deck_id")
            )
            copy_ids: list[str] = list(found.copy_ids)
        elif which == "copies":
            copy_ids = list(request.copies.copy_ids)
            if len(copy_ids) > max(HAND_SIZES):  # no deck holds them: nothing to check
                raise InvalidArgument(str(deck_size_problem(len(copy_ids))))
            for copy_id in copy_ids:  # as SaveDeck checks them (found from outside)
                require(copy_id, "copies.copy_ids")
        else:
            raise InvalidArgument("say which deck to check: deck_id, copies or random")
        broken = await handlers_decks.deck_violations(
            self._ctx, player, copy_ids, request.hand_size, saved=which == "deck_id"
        )
        return c.CollectionServiceValidateDeckResponse(
            valid=not broken, violations=presenter.violations(broken)
        )

    async def ResolveDeckForMatch(
        self, request: c.CollectionServiceResolveDeckForMatchRequest, context: Any
    ) -> c.CollectionServiceResolveDeckForMatchResponse:
        player = require(request.player_id, "player_id")
        purpose = require(request.purpose_id, "purpose_id")
        bind(player_id=player, match_id=purpose)
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
            # A 3x3 request keeps the fingerprint it had before boards (a retry across
            # an upgrade is the same request).
            *(() if request.hand_size in (0, 5) else (request.hand_size,)),
        )
        done = await handlers_decks.resolve_deck_for_match(
            self._ctx, key, player, deck_id, purpose, lock_for, request.hand_size or 5
        )
        copies = await handlers.copies_by_id(self._ctx, done.copy_ids)
        return c.CollectionServiceResolveDeckForMatchResponse(
            cards=[copy_card(copies[i]) for i in done.copy_ids if i in copies],
            random_drawn=done.random,
        )

    async def DrawBotDeck(
        self, request: c.CollectionServiceDrawBotDeckRequest, context: Any
    ) -> c.CollectionServiceDrawBotDeckResponse:
        request_id = require(request.request_id, "request_id")
        if request.house:
            hand = handlers_decks.deal_house_hand(self._ctx, request_id, request.hand_size or 5)
            return c.CollectionServiceDrawBotDeckResponse(
                cards=[
                    house_card(handlers_decks.house_card_id(request_id, n), card)
                    for n, card in enumerate(hand)
                ]
            )
        deck = handlers_decks.draw_bot_deck(self._ctx, request_id, request.hand_size)
        return c.CollectionServiceDrawBotDeckResponse(
            cards=[
                bot_card(handlers_decks.bot_card_id(request_id, n), x) for n, x in enumerate(deck)
            ]
        )

    # --- locks ------------------------------------------------------------------------------

    async def LockCopies(
        self, request: c.CollectionServiceLockCopiesRequest, context: Any
    ) -> c.CollectionServiceLockCopiesResponse:
        player = require_bound(request.player_id, "player_id")
        holder = holder_of(request.holder)
        ids = [require(i, "copy_ids") for i in request.copy_ids]
        key = Request.of(player, require(request.request_id, "request_id"), "lock", holder, *ids)
        done = await handlers_decks.lock_copies(self._ctx, key, player, ids, holder)
        return c.CollectionServiceLockCopiesResponse(copy_ids=done.copy_ids)

    async def ReleaseCopies(
        self, request: c.CollectionServiceReleaseCopiesRequest, context: Any
    ) -> c.CollectionServiceReleaseCopiesResponse:
        holder = holder_of(request.holder)
        key = Request.of("release", require(request.request_id, "request_id"), holder)
        done = await handlers_decks.release_copies(self._ctx, key, holder)
        return c.CollectionServiceReleaseCopiesResponse(copy_ids=done.copy_ids)
