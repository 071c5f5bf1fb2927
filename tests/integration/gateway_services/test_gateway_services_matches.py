"""The gateway forwarding to the collection and rating services as a match settles.

Match, collection, rating and gateway run as processes on real PostgreSQL and NATS; the
test speaks the public API over TLS, and reaches an internal service only where the
matchmaker (not started here) would: to lock the decks and create a match. The match
service's MatchFinished goes over JetStream to collection (Trade One, coins) and rating.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from functools import partial
from typing import TYPE_CHECKING, Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import collection_pb2 as c
from triad.v1 import collection_pb2_grpc, match_pb2_grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import match_pb2 as m

from devtools.players import collect, expect
from tests.integration.gateway_services.gateway_services_players import (
    DRAFT,
    RANKED,
    STARTER_COINS,
    join,
    rid,
    until,
)

if TYPE_CHECKING:
    from tests.integration.gateway_services.gateway_services_players import Api

pytestmark = pytest.mark.integration


async def test_a_rated_trade_one_match_settles_through_the_services(
    api: Api, backend: dict[str, Any]
) -> None:
    ann, bea, cai = await join(api), await join(api), await join(api)
    match_id = str(uuid4())
    ann_ids = [x.copy_id for x in await ann.copies()]
    deck = (
        await ann.SaveDeck(g.SaveDeckRequest(request_id=rid(), name="A", copy_ids=ann_ids[:5]))
    ).deck
    # What the matchmaker does for a trading match: resolve and lock both decks, then
    # create the match with those cards.
    async with (
        grpc.aio.insecure_channel(backend["collection"].address) as cch,
        grpc.aio.insecure_channel(backend["match"].address) as mch,
    ):
        collection = collection_pb2_grpc.CollectionServiceStub(cch)
        seats = []
        for seat, player, choice in (
            (pb.SEAT_A, ann, pb.DeckChoice(deck_id=deck.deck_id)),
            (pb.SEAT_B, bea, pb.DeckChoice(random=pb.RandomDeck())),
        ):
            resolved = await collection.ResolveDeckForMatch(
                c.CollectionServiceResolveDeckForMatchRequest(
                    request_id=f"resolve-{match_id}",
                    player_id=player.id,
                    deck=choice,
                    purpose_id=match_id,
                    lock_for=pb.LockHolder(match_id=match_id),
                )
            )
            seats.append(
                m.SeatSetup(
                    player=pb.SeatPlayer(seat=seat, player_id=player.id, player_name=player.name),
                    deck=resolved.cards,
                )
            )
        await match_pb2_grpc.MatchServiceStub(mch).CreateMatch(
            m.MatchServiceCreateMatchRequest(
                request_id=f"create-{match_id}",
                match_id=match_id,
                mode=pb.MODE_RANKED,
                rules=pb.Rules(
                    visibility=pb.VISIBILITY_CLOSED,
                    same=True,
                    plus=True,
                    combo=True,
                    trade_rule=pb.TRADE_RULE_ONE,
                ),
                ladder=RANKED,
                seats=seats,
            )
        )
    locked = await ann.ListCollection(
        g.ListCollectionRequest(filter=pb.CollectionFilter(locked=True))
    )
    assert {e.copy.copy_id for e in locked.entries} == set(ann_ids[:5])
    assert all(e.lock.holder.match_id == match_id for e in locked.entries)
    status = (await ann.GetPlayerStatus(g.GetPlayerStatusRequest())).status
    assert status.active_match_id == match_id
    assert [(o.kind, o.id) for o in status.obligations] == [
        (pb.OBLIGATION_KIND_ACTIVE_MATCH, match_id)
    ]

    await ann.Forfeit(g.ForfeitRequest(request_id=rid(), match_id=match_id))  # Bea wins

    trade = (
        await until(
            lambda: bea.GetPendingTrade(g.GetPendingTradeRequest()),
            lambda r: r.HasField("trade"),
            "the trade opens for the winner",
        )
    ).trade
    assert trade.match_id == match_id and trade.my_role == pb.TRADE_ROLE_CHOOSER
    offered = [x.copy_id for x in trade.offered_copies]
    assert sorted(offered) == sorted(ann_ids[:5])
    given = (await ann.GetPendingTrade(g.GetPendingTradeRequest())).trade
    assert given.trade_id == trade.trade_id and given.my_role == pb.TRADE_ROLE_GIVER
    bea_status = (await bea.GetPlayerStatus(g.GetPlayerStatusRequest())).status
    assert bea_status.pending_trade.trade_id == trade.trade_id
    assert (pb.OBLIGATION_KIND_PENDING_TRADE, trade.trade_id) in [
        (o.kind, o.id) for o in bea_status.obligations
    ]
    assert not (await cai.GetPendingTrade(g.GetPendingTradeRequest())).HasField("trade")

    def choose(copy_id: str) -> g.ChooseTradeCardRequest:
        return g.ChooseTradeCardRequest(request_id=rid(), trade_id=trade.trade_id, copy_id=copy_id)

    await expect(grpc.StatusCode.NOT_FOUND, cai.ChooseTradeCard(choose(offered[0])))
    await expect(grpc.StatusCode.PERMISSION_DENIED, ann.ChooseTradeCard(choose(offered[0])))
    bea_own = (await bea.copies())[0].copy_id
    await expect(grpc.StatusCode.INVALID_ARGUMENT, bea.ChooseTradeCard(choose(bea_own)))
    chosen = (await bea.ChooseTradeCard(choose(offered[0]))).trade
    assert chosen.chosen_copy_id == offered[0]
    assert chosen.status == pb.TRADE_STATUS_COMPLETED

    # the copy moved with the choice: Bea's when the call answers
    moved = await bea.GetCopy(g.GetCopyRequest(copy_id=offered[0]))
    assert moved.entry.copy.owner_player_id == bea.id and not moved.entry.HasField("lock")
    await expect(grpc.StatusCode.NOT_FOUND, ann.GetCopy(g.GetCopyRequest(copy_id=offered[0])))
    ann_coins = (await ann.GetBalance(g.GetBalanceRequest())).balance.coins
    bea_coins = (await bea.GetBalance(g.GetBalanceRequest())).balance.coins
    # Ann gave up before either placed a card: not a match played, nobody is paid for it.
    assert bea_coins == ann_coins == STARTER_COINS

    # rating: both rated from 1500, K = 40
    rating = await until(
        lambda: bea.GetRating(g.GetRatingRequest(ladder=RANKED)),
        lambda r: r.rating.games == 1,
        "Bea's game is rated",
    )
    assert (rating.rating.rating, rating.rating.wins, rating.rating.provisional) == (1520, 1, True)
    lost = (await ann.GetRating(g.GetRatingRequest(ladder=RANKED))).rating
    assert (lost.rating, lost.losses) == (1480, 1)
    history = await bea.ListRatingHistory(g.ListRatingHistoryRequest(ladder=RANKED))
    assert [(h.match_id, h.delta) for h in history.changes] == [(match_id, 20)]
    board = await bea.GetLeaderboard(g.GetLeaderboardRequest(ladder=RANKED, top_n=100))
    assert board.my_entry.player_name == bea.name and board.my_entry.rating == 1520
    assert board.ranked_player_count >= 2


async def test_a_draft_forfeited_by_inactivity_is_the_forfeiters_loss_on_the_draft_ladder(
    api: Api, backend: dict[str, Any]
) -> None:
    """RULES.md 8 and 10: Ann stays idle past the inactivity limit while Bea drafts; the
    draft ends forfeited, its view names who forfeited and who won, and the Draft ladder
    rates it once as Ann's loss, the change naming the draft (there is no match)."""
    ann, bea = await join(api), await join(api)
    pushes: list[g.OpenSessionResponse] = []
    session = asyncio.create_task(collect(api, ann.tokens, pushes))
    draft_id = str(uuid4())
    async with grpc.aio.insecure_channel(backend["collection"].address) as cch:
        # What the matchmaker does when it pairs two Draft tickets.
        await collection_pb2_grpc.CollectionServiceStub(cch).CreateDraft(
            c.CollectionServiceCreateDraftRequest(
                request_id=f"draft-{draft_id}",
                draft_id=draft_id,
                pairing_id=str(uuid4()),
                ladder=DRAFT,
                participants=[pb.PlayerRef(player_id=p.id, player_name=p.name) for p in (ann, bea)],
            )
        )
    # Bea keeps drafting (every action restarts her clock) until her deck is complete or
    # the draft is over; Ann does nothing.
    view = (await bea.GetDraft(g.GetDraftRequest(draft_id=draft_id))).draft

    async def act(call: Awaitable[Any]) -> None:
        nonlocal view
        try:
            view = (await call).draft
        except grpc.aio.AioRpcError as error:  # a pick breaking the deck rules; the end
            assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error

    for booster in range(3):
        await act(
            bea.RevealDraftCards(
                g.RevealDraftCardsRequest(
                    request_id=rid(), draft_id=draft_id, booster_index=booster
                )
            )
        )
    for card in [s.revealed for b in view.boosters for s in b.slots if s.HasField("revealed")]:
        if len(view.picked_card_ids) == view.picks_required:
            break
        await act(
            bea.PickDraftCard(
                g.PickDraftCardRequest(
                    request_id=rid(), draft_id=draft_id, draft_card_id=card.card_id
                )
            )
        )

    for me in (ann, bea):
        ended = await until(
            partial(me.GetDraft, g.GetDraftRequest(draft_id=draft_id)),
            lambda r: r.draft.status != pb.DRAFT_STATUS_PICKING,
            "the draft ends",
        )
        assert ended.draft.status == pb.DRAFT_STATUS_FORFEITED
        assert list(ended.draft.forfeiting_player_names) == [ann.name]
        assert ended.draft.winner_player_name == bea.name
        assert not ended.draft.match_id

    lost = (
        await until(
            lambda: ann.GetRating(g.GetRatingRequest(ladder=DRAFT)),
            lambda r: r.rating.games == 1,
            "Ann's forfeit is rated",
        )
    ).rating
    assert (lost.rating, lost.losses, lost.wins) == (1480, 1, 0)
    won = (await bea.GetRating(g.GetRatingRequest(ladder=DRAFT))).rating
    assert (won.rating, won.wins, won.games) == (1520, 1, 1)
    for me, delta, opponent in ((ann, -20, bea), (bea, 20, ann)):
        history = (await me.ListRatingHistory(g.ListRatingHistoryRequest(ladder=DRAFT))).changes
        assert [(h.draft_id, h.match_id, h.delta, h.opponent_name) for h in history] == [
            (draft_id, "", delta, opponent.name)
        ]
        ranked = (await me.GetRating(g.GetRatingRequest(ladder=RANKED))).rating
        assert ranked.games == 0  # the Draft ladder only

    # Ann's session shows her the draft's end and her rating change.
    await until(
        lambda: asyncio.sleep(0, pushes),
        lambda got: (
            any(p.HasField("rating_change") for p in got)
            and any(p.draft.status == pb.DRAFT_STATUS_FORFEITED for p in got)
        ),
        "Ann's session shows the forfeit and the rating change",
    )
    final = [p.draft for p in pushes if p.draft.status == pb.DRAFT_STATUS_FORFEITED][-1]
    assert list(final.forfeiting_player_names) == [ann.name]
    assert final.winner_player_name == bea.name
    change = [p.rating_change for p in pushes if p.HasField("rating_change")]
    assert [(x.draft_id, x.match_id, x.delta) for x in change] == [(draft_id, "", -20)]
    session.cancel()
