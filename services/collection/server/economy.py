"""The CollectionService edge for coins, server seeds and boosters."""

from __future__ import annotations

from functools import partial
from typing import Any

from triad.v1 import collection_pb2 as c

from services.collection import handlers_economy as economy
from services.collection import presenter
from services.collection.domain import wealth
from services.collection.domain.events import CurrencyReason
from services.collection.handlers import Context
from services.collection.mapping import booster_draw, draw_token, draw_token_back, keyed, reason_of
from services.platform.edge import require, require_bound
from services.platform.pages import key_token, key_token_back
from services.platform.requests import Request


def _coins(
    request: c.CollectionServiceCreditCurrencyRequest | c.CollectionServiceSpendCurrencyRequest,
) -> tuple[str, str, CurrencyReason]:
    """The player, request id and reason of a credit or a spend, checked and logged."""
    player = require_bound(request.player_id, "player_id")
    return player, require(request.request_id, "request_id"), reason_of(request.reason)


class EconomyRpcs:
    _ctx: Context

    async def GetBalance(
        self, request: c.CollectionServiceGetBalanceRequest, context: Any
    ) -> c.CollectionServiceGetBalanceResponse:
        player = require_bound(request.player_id, "player_id")
        balance = await economy.balance(self._ctx, player)
        return c.CollectionServiceGetBalanceResponse(balance=presenter.balance(balance))

    async def CreditCurrency(
        self, request: c.CollectionServiceCreditCurrencyRequest, context: Any
    ) -> c.CollectionServiceCreditCurrencyResponse:
        player, request_id, reason = _coins(request)
        amount = wealth.check_credit(request.amount)
        reference = request.reference_id or request_id
        key = Request.of(player, request_id, "credit", amount, reason, reference)
        done = await economy.credit(self._ctx, key, player, amount, reason, reference)
        return c.CollectionServiceCreditCurrencyResponse(balance=presenter.balance(done))

    async def SpendCurrency(
        self, request: c.CollectionServiceSpendCurrencyRequest, context: Any
    ) -> c.CollectionServiceSpendCurrencyResponse:
        player, request_id, reason = _coins(request)
        amount = wealth.check_spend(request.amount)
        # The key names the reference as sent: a spend's default one is not part of it.
        key = Request.of(player, request_id, "spend", amount, reason, request.reference_id)
        reference = request.reference_id or request_id
        done = await economy.spend(self._ctx, key, player, amount, reason, reference)
        return c.CollectionServiceSpendCurrencyResponse(balance=presenter.balance(done))

    async def GetBoosterOdds(
        self, request: c.CollectionServiceGetBoosterOddsRequest, context: Any
    ) -> c.CollectionServiceGetBoosterOddsResponse:
        since = 0
        if request.player_id:
            player = require(request.player_id, "player")
            since = await economy.boosters_since_pity(self._ctx, player)
        return c.CollectionServiceGetBoosterOddsResponse(
            odds=presenter.odds(),
            boosters_since_pity=since,
            draft_slots=presenter.draft_odds(list(self._ctx.catalog)),
        )

    async def GetSeedCommitment(
        self, request: c.CollectionServiceGetSeedCommitmentRequest, context: Any
    ) -> c.CollectionServiceGetSeedCommitmentResponse:
        player = require_bound(request.player_id, "player_id")
        seed = await economy.seed_commitment(self._ctx, player)
        return c.CollectionServiceGetSeedCommitmentResponse(commitment=presenter.commitment(seed))

    async def SetClientSeed(
        self, request: c.CollectionServiceSetClientSeedRequest, context: Any
    ) -> c.CollectionServiceSetClientSeedResponse:
        player = require_bound(request.player_id, "player_id")
        key = Request.of(
            player, require(request.request_id, "request_id"), "client-seed", request.client_seed
        )
        done = await economy.set_client_seed(self._ctx, key, player, request.client_seed)
        found = await economy.seed_records(self._ctx, player, done.seed_id, done.revealed or "")
        response = c.CollectionServiceSetClientSeedResponse()
        if done.seed_id in found:
            response.commitment.CopyFrom(presenter.commitment(found[done.seed_id]))
        if done.revealed in found:
            response.revealed_seed.CopyFrom(presenter.server_seed(found[done.revealed]))
        return response

    async def OpenBooster(
        self, request: c.CollectionServiceOpenBoosterRequest, context: Any
    ) -> c.CollectionServiceOpenBoosterResponse:
        player = require_bound(request.player_id, "player_id")
        key = Request.of(
            player,
            require(request.request_id, "request_id"),
            "booster",
            request.expected_server_seed_hash,
        )
        done = await economy.open_booster(self._ctx, key, player, request.expected_server_seed_hash)
        draw = await economy.booster_draw(self._ctx, done.draw_id)
        return c.CollectionServiceOpenBoosterResponse(
            draw=booster_draw(draw), balance=presenter.balance(done.balance)
        )

    async def ListBoosterDraws(
        self, request: c.CollectionServiceListBoosterDrawsRequest, context: Any
    ) -> c.CollectionServiceListBoosterDrawsResponse:
        player = require_bound(request.player_id, "player_id")
        seed_id = request.seed_id and require(request.seed_id, "seed_id")  # "" for every seed
        # A keyset token: a booster opened between two pages moves none past the cursor.
        draws, token = await keyed(
            request,
            1000,
            draw_token_back,
            partial(economy.booster_draws, self._ctx, player, seed_id),
            draw_token,
        )
        return c.CollectionServiceListBoosterDrawsResponse(
            draws=[booster_draw(d) for d in draws], next_page_token=token
        )

    async def ListServerSeeds(
        self, request: c.CollectionServiceListServerSeedsRequest, context: Any
    ) -> c.CollectionServiceListServerSeedsResponse:
        player = require_bound(request.player_id, "player_id")
        # A keyset token: a seed committed between two pages moves none past the cursor.
        found, token = await keyed(
            request,
            200,
            key_token_back,
            partial(economy.seed_page, self._ctx, player),
            lambda s: key_token(s.committed_at, s.seed_id),
        )
        return c.CollectionServiceListServerSeedsResponse(
            seeds=[presenter.server_seed(s) for s in found], next_page_token=token
        )
