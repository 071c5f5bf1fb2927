"""The CollectionService edge for currency, seeds and boosters."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from triad.v1 import collection_pb2 as c
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.collection import handlers, presenter
from services.collection.domain import ActiveSeed
from services.collection.edge import bind, next_token, page, require
from services.collection.handlers import Context
from services.collection.mapping import REASONS_BACK
from services.collection.store import Request, Result
from services.platform.enums import require_enum
from services.platform.errors import InvalidArgument, NotFound
from services.wire import timestamp


def _commitment(seed: ActiveSeed) -> pb.SeedCommitment:
    return pb.SeedCommitment(
        seed_id=seed.seed_id,
        server_seed_hash=seed.seed_hash,
        client_seed=seed.client_seed,
        next_counter=seed.draw_count,
        commit_time=timestamp(seed.committed_at),
    )


def _server_seed(row: Any) -> pb.ServerSeed:
    revealed = row["revealed_at"] is not None
    return pb.ServerSeed(
        seed_id=row["seed_id"],
        server_seed_hash=row["seed_hash"],
        server_seed=row["server_seed"] if revealed else "",
        commit_time=timestamp(row["committed_at"]),
        reveal_time=timestamp(row["revealed_at"]),
        draw_count=row["draw_count"],
    )


def _balance(done: Result) -> pb.Balance:
    return presenter.balance(done["coins"], datetime.fromisoformat(done["at"]))


def _reason(value: int) -> Any:
    return REASONS_BACK[require_enum(value, pb.CurrencyReason.DESCRIPTOR, "reason")]  # type: ignore[index]


class EconomyRpcs:
    _ctx: Context

    async def GetBalance(
        self, request: c.CollectionServiceGetBalanceRequest, context: Any
    ) -> c.CollectionServiceGetBalanceResponse:
        player = require(request.player_id, "player_id")
        bind(player)
        coins, at = await self._ctx.store.balance(player)
        return c.CollectionServiceGetBalanceResponse(balance=presenter.balance(coins, at))

    async def CreditCurrency(
        self, request: c.CollectionServiceCreditCurrencyRequest, context: Any
    ) -> c.CollectionServiceCreditCurrencyResponse:
        player = require(request.player_id, "player_id")
        bind(player)
        request_id = require(request.request_id, "request_id")
        reason = _reason(request.reason)
        if request.amount <= 0:
            raise InvalidArgument(f"a credit adds a positive amount of coins, not {request.amount}")
        reference = request.reference_id or request_id
        key = Request.of(player, request_id, "credit", request.amount, reason, reference)
        done = await handlers.credit(self._ctx, key, player, request.amount, reason, reference)
        return c.CollectionServiceCreditCurrencyResponse(balance=_balance(done))

    async def SpendCurrency(
        self, request: c.CollectionServiceSpendCurrencyRequest, context: Any
    ) -> c.CollectionServiceSpendCurrencyResponse:
        player = require(request.player_id, "player_id")
        bind(player)
        request_id = require(request.request_id, "request_id")
        reason = _reason(request.reason)
        if request.amount <= 0:
            raise InvalidArgument(f"a spend takes a positive amount of coins, not {request.amount}")
        key = Request.of(player, request_id, "spend", request.amount, reason, request.reference_id)
        done = await handlers.spend(
            self._ctx, key, player, request.amount, reason, request.reference_id or request_id
        )
        return c.CollectionServiceSpendCurrencyResponse(balance=_balance(done))

    async def GetBoosterOdds(
        self, request: c.CollectionServiceGetBoosterOddsRequest, context: Any
    ) -> c.CollectionServiceGetBoosterOddsResponse:
        since = 0
        if request.player_id:
            since = await self._ctx.store.boosters_since_pity(require(request.player_id, "player"))
        return c.CollectionServiceGetBoosterOddsResponse(
            odds=presenter.odds(), boosters_since_pity=since
        )

    async def GetSeedCommitment(
        self, request: c.CollectionServiceGetSeedCommitmentRequest, context: Any
    ) -> c.CollectionServiceGetSeedCommitmentResponse:
        player = require(request.player_id, "player_id")
        bind(player)
        seed = await handlers.seed_commitment(self._ctx, player)
        return c.CollectionServiceGetSeedCommitmentResponse(commitment=_commitment(seed))

    async def SetClientSeed(
        self, request: c.CollectionServiceSetClientSeedRequest, context: Any
    ) -> c.CollectionServiceSetClientSeedResponse:
        player = require(request.player_id, "player_id")
        bind(player)
        key = Request.of(
            player, require(request.request_id, "request_id"), "client-seed", request.client_seed
        )
        done = await handlers.set_client_seed(self._ctx, key, player, request.client_seed)
        rows = {r["seed_id"]: r for r in await self._ctx.store.seeds(player, 2, 0)}
        current = rows.get(done["seed_id"])
        response = c.CollectionServiceSetClientSeedResponse()
        if current is not None:
            response.commitment.CopyFrom(
                pb.SeedCommitment(
                    seed_id=current["seed_id"],
                    server_seed_hash=current["seed_hash"],
                    client_seed=current["client_seed"],
                    next_counter=current["draw_count"],
                    commit_time=timestamp(current["committed_at"]),
                )
            )
        revealed = rows.get(done["revealed"] or "")
        if revealed is not None:
            response.revealed_seed.CopyFrom(_server_seed(revealed))
        return response

    async def OpenBooster(
        self, request: c.CollectionServiceOpenBoosterRequest, context: Any
    ) -> c.CollectionServiceOpenBoosterResponse:
        player = require(request.player_id, "player_id")
        bind(player)
        key = Request.of(
            player,
            require(request.request_id, "request_id"),
            "booster",
            request.expected_server_seed_hash,
        )
        done = await handlers.open_booster(
            self._ctx, key, player, request.expected_server_seed_hash
        )
        data = await self._ctx.store.draw(done["draw_id"])
        assert data is not None
        return c.CollectionServiceOpenBoosterResponse(
            draw=ev.BoosterOpened.FromString(data).draw, balance=_balance(done)
        )

    async def ListBoosterDraws(
        self, request: c.CollectionServiceListBoosterDrawsRequest, context: Any
    ) -> c.CollectionServiceListBoosterDrawsResponse:
        player = require(request.player_id, "player_id")
        bind(player)
        limit, offset = page(request.page_size, request.page_token, 1000)
        if request.seed_id:
            mine = {r["seed_id"] for r in await self._ctx.store.seeds(player, 10_000, 0)}
            if request.seed_id not in mine:
                raise NotFound(f"you have no server seed {request.seed_id}")
        rows = await self._ctx.store.draws(player, request.seed_id, limit + 1, offset)
        return c.CollectionServiceListBoosterDrawsResponse(
            draws=[ev.BoosterOpened.FromString(data).draw for data, _ in rows[:limit]],
            next_page_token=next_token(offset, limit, len(rows)),
        )

    async def ListServerSeeds(
        self, request: c.CollectionServiceListServerSeedsRequest, context: Any
    ) -> c.CollectionServiceListServerSeedsResponse:
        player = require(request.player_id, "player_id")
        bind(player)
        limit, offset = page(request.page_size, request.page_token, 200)
        rows = await self._ctx.store.seeds(player, limit + 1, offset)
        return c.CollectionServiceListServerSeedsResponse(
            seeds=[_server_seed(r) for r in rows[:limit]],
            next_page_token=next_token(offset, limit, len(rows)),
        )
