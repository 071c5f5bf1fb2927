"""One player sending the same move several times in the same instant, as a double tap or
a client retrying on its own does, through the TLS gateway with every service a process
on real PostgreSQL and NATS. Each write acts once: the others are refused with the rule
they break (or, sent under the same request id, answered with the first result), and
nothing is placed, paid, drawn or committed twice.

- PlaceCard: five cards at once, each to its own cell; and one move sent five times
  under one request id.
- BuyListing: six purchases of one listing at once; the buyer pays once.
- OpenBooster: five boosters at once with coins for three: three open, each with its own
  counter, and the balance never goes below zero.
- CommitPlan: five plans for one turn at once; one is the turn's.
- CreateListing: one copy listed six times at once; one listing.
- Enqueue and CreateTable retried (same request id) at once: one ticket, one table.
- Register, RefreshToken and FindGame retried (same request id) while the first try
  still runs, as a client whose deadline passed does: every try gets the first answer
  (or, for Find Game, ABORTED: the first is being handled, ask again), never "the name
  is taken", "log in again" or "no open table fits".
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD
from tests.e2e.races.race_players import (
    OPEN_TABLE,
    Player,
    cards_on,
    code_of,
    join,
    mover_of,
    table_match,
)

pytestmark = pytest.mark.integration


async def at_once(*calls: Awaitable[Any]) -> list[tuple[grpc.StatusCode, Any]]:
    return list(await asyncio.gather(*(code_of(c) for c in calls)))


def codes(outcomes: list[tuple[grpc.StatusCode, Any]]) -> Counter[grpc.StatusCode]:
    return Counter(code for code, _ in outcomes)


async def coins(player: Player) -> int:
    return int((await player.call("GetBalance", g.GetBalanceRequest())).balance.coins)


async def test_cards_placed_at_once_by_one_player_land_once(api: Any) -> None:
    ann, bea = await join(api), await join(api)
    match_id = await table_match(ann, bea, OPEN_TABLE)
    mover, view = await mover_of((ann, bea), match_id)
    empty = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
    outcomes = await at_once(
        *(
            mover.call(
                "PlaceCard",
                g.PlaceCardRequest(
                    request_id=uuid4().hex, match_id=match_id, card_id=c.card.card_id, cell=cell
                ),
            )
            for c, cell in zip(view.my_hand, empty, strict=False)
        )
    )
    assert codes(outcomes) == {grpc.StatusCode.OK: 1, grpc.StatusCode.FAILED_PRECONDITION: 4}
    assert all("not your turn" in d for code, d in outcomes if code != grpc.StatusCode.OK)
    after = await mover.view(match_id)
    assert cards_on(after) == 1 and after.version == view.version + 1

    mover, view = await mover_of((ann, bea), match_id)
    empty = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
    once = g.PlaceCardRequest(
        request_id=uuid4().hex,
        match_id=match_id,
        card_id=view.my_hand[0].card.card_id,
        cell=empty[0],
    )
    outcomes = await at_once(*(mover.call("PlaceCard", once) for _ in range(5)))
    assert codes(outcomes) == {grpc.StatusCode.OK: 5}
    assert {answer.view.version for _, answer in outcomes} == {view.version + 1}
    assert cards_on(await mover.view(match_id)) == 2


async def test_a_listing_bought_at_once_six_times_is_paid_once(api: Any) -> None:
    seller, buyer = await join(api), await join(api)
    copy_id = sorted(await seller.copies())[0]
    listing = (
        await seller.call(
            "CreateListing",
            g.CreateListingRequest(request_id=uuid4().hex, copy_id=copy_id, price=40),
        )
    ).listing
    before = await coins(buyer)
    outcomes = await at_once(
        *(
            buyer.call(
                "BuyListing",
                g.BuyListingRequest(request_id=uuid4().hex, listing_id=listing.listing_id),
            )
            for _ in range(6)
        )
    )
    assert codes(outcomes) == {grpc.StatusCode.OK: 1, grpc.StatusCode.FAILED_PRECONDITION: 5}
    assert all("no longer on sale" in d for code, d in outcomes if code != grpc.StatusCode.OK)
    assert await coins(buyer) == before - 40
    assert copy_id in await buyer.copies() and copy_id not in await seller.copies()


async def test_boosters_opened_at_once_draw_each_counter_once_and_never_overspend(
    api: Any,
) -> None:
    ann = await join(api)
    before, owned = await coins(ann), await ann.copies()
    price = (await ann.call("GetBoosterOdds", g.GetBoosterOddsRequest())).odds.price_coins
    affordable = before // price
    outcomes = await at_once(
        *(ann.call("OpenBooster", g.OpenBoosterRequest(request_id=uuid4().hex)) for _ in range(5))
    )
    opened = [answer.draw for code, answer in outcomes if code == grpc.StatusCode.OK]
    assert len(opened) == affordable
    assert all("balance too low" in d for code, d in outcomes if code != grpc.StatusCode.OK)
    assert sorted(d.counter for d in opened) == list(range(affordable))
    assert await coins(ann) == before - affordable * price
    drawn = [c.copy_id for d in opened for c in d.copies]
    assert len(set(drawn)) == len(drawn) and await ann.copies() == owned | set(drawn)


async def test_plans_committed_at_once_for_one_turn_count_once(api: Any) -> None:
    ann = await join(api)
    started = await ann.call(
        "StartPracticeBattle",
        g.StartPracticeBattleRequest(
            request_id=uuid4().hex, characters=["ember", "bastion", "wisp"]
        ),
    )
    battle_id = started.view.battle_id
    squares = [pb.BattleSquare(row=r, col=c) for r, c in ((0, 0), (1, 0), (1, 1))]
    placed = await ann.call(
        "SetFormation",
        g.SetFormationRequest(request_id=uuid4().hex, battle_id=battle_id, squares=squares),
    )
    turn = placed.view.turn
    outcomes = await at_once(
        *(
            ann.call(
                "CommitPlan",
                g.CommitPlanRequest(request_id=uuid4().hex, battle_id=battle_id, turn=turn),
            )
            for _ in range(5)
        )
    )
    assert codes(outcomes) == {grpc.StatusCode.OK: 1, grpc.StatusCode.FAILED_PRECONDITION: 4}
    assert all(f"for turn {turn}" in d for code, d in outcomes if code != grpc.StatusCode.OK)
    after = await ann.call("GetBattleView", g.GetBattleViewRequest(battle_id=battle_id))
    assert after.view.turn == turn + 1


async def test_one_copy_listed_at_once_six_times_is_listed_once(api: Any) -> None:
    ann = await join(api)
    copy_id = sorted(await ann.copies())[0]
    outcomes = await at_once(
        *(
            ann.call(
                "CreateListing",
                g.CreateListingRequest(request_id=uuid4().hex, copy_id=copy_id, price=5),
            )
            for _ in range(6)
        )
    )
    assert codes(outcomes) == {grpc.StatusCode.OK: 1, grpc.StatusCode.FAILED_PRECONDITION: 5}
    assert all("is locked by listing" in d for code, d in outcomes if code != grpc.StatusCode.OK)
    mine = (await ann.call("ListMyListings", g.ListMyListingsRequest())).listings
    assert [m.copy.copy_id for m in mine] == [copy_id]


async def test_a_register_retried_while_its_first_try_runs_gets_the_first_answer(
    api: Any,
) -> None:
    for _ in range(3):  # the tries overlap in a different order each time
        register = g.RegisterRequest(
            request_id=uuid4().hex, player_name=f"r{uuid4().hex[:12]}", password=PASSWORD
        )
        outcomes = await at_once(*(api.Register(register, timeout=20) for _ in range(4)))
        assert codes(outcomes) == {grpc.StatusCode.OK: 4}, outcomes
        assert len({answer.player.player_id for _, answer in outcomes}) == 1


async def test_a_refresh_retried_while_its_first_try_runs_gets_the_same_new_pair(
    api: Any,
) -> None:
    ann = await join(api)
    refresh_token = ann.tokens.refresh_token
    for _ in range(3):
        refresh = g.RefreshTokenRequest(request_id=uuid4().hex, refresh_token=refresh_token)
        outcomes = await at_once(*(api.RefreshToken(refresh, timeout=20) for _ in range(4)))
        assert codes(outcomes) == {grpc.StatusCode.OK: 4}, outcomes
        pairs = {(a.tokens.access_token, a.tokens.refresh_token) for _, a in outcomes}
        assert len(pairs) == 1, "one rotation, answered to every try"
        refresh_token = outcomes[0][1].tokens.refresh_token
    spent = g.RefreshTokenRequest(request_id=uuid4().hex, refresh_token=ann.tokens.refresh_token)
    code, details = await code_of(api.RefreshToken(spent, timeout=20))
    assert code == grpc.StatusCode.UNAUTHENTICATED and "log in again" in details


async def test_a_find_game_retried_while_its_first_try_runs_answers_the_match_it_found(
    api: Any,
) -> None:
    rules = pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN, same=True, elemental=True, same_wall=True)
    wanted = pb.TableFilter(visibilities=[pb.VISIBILITY_ALL_OPEN], elemental=True, same_wall=True)
    for _ in range(3):
        host, guest = await join(api), await join(api)
        await host.call(
            "CreateTable",
            g.CreateTableRequest(
                request_id=uuid4().hex, settings=pb.TableSettings(rules=rules, random_deck=True)
            ),
        )
        find = g.FindGameRequest(request_id=uuid4().hex, filter=wanted)
        outcomes = await at_once(*(guest.call("FindGame", find) for _ in range(4)))
        assert set(codes(outcomes)) <= {grpc.StatusCode.OK, grpc.StatusCode.ABORTED}, outcomes
        refused = [d for code, d in outcomes if code != grpc.StatusCode.OK]
        assert all("ask again" in d or "retry it" in d for d in refused), refused
        found = {answer.match_id for code, answer in outcomes if code == grpc.StatusCode.OK}
        retried = await guest.call("FindGame", find)
        assert found <= {retried.match_id} and retried.match_id
        assert (await host.call("GetActiveMatch", g.GetActiveMatchRequest())).view.match_id == (
            retried.match_id
        )


async def test_a_practice_battle_started_again_while_its_first_try_runs_is_that_battle(
    api: Any,
) -> None:
    """Found by the random-walk driver: the second try saw the first one's battle as "a
    battle in progress" and was refused (FAILED_PRECONDITION) though it is the same
    request."""
    for _ in range(10):  # the tries overlap in a different order each time
        ann = await join(api)
        start = g.StartPracticeBattleRequest(request_id=uuid4().hex)
        outcomes = await at_once(*(ann.call("StartPracticeBattle", start) for _ in range(12)))
        assert codes(outcomes) == {grpc.StatusCode.OK: 12}, outcomes
        assert len({answer.view.battle_id for _, answer in outcomes}) == 1


async def test_a_ticket_or_table_asked_again_while_its_first_try_runs_is_that_one(
    api: Any,
) -> None:
    """Found from outside: a Draft Enqueue sent three times under one request id at once
    was answered once, and twice ALREADY_EXISTS ("you already have queued ticket"): the
    tries after the first saw its ticket before they saw its answer."""
    for _ in range(5):  # the tries overlap in a different order each time
        ann = await join(api)
        enqueue = g.EnqueueRequest(request_id=uuid4().hex, mode=pb.MODE_DRAFT)
        outcomes = await at_once(*(ann.call("Enqueue", enqueue) for _ in range(6)))
        assert codes(outcomes) == {grpc.StatusCode.OK: 6}, outcomes
        assert len({answer.ticket.ticket_id for _, answer in outcomes}) == 1
        await ann.call(
            "CancelTicket",
            g.CancelTicketRequest(
                request_id=uuid4().hex, ticket_id=outcomes[0][1].ticket.ticket_id
            ),
        )
        create = g.CreateTableRequest(
            request_id=uuid4().hex,
            settings=pb.TableSettings(
                rules=pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN), random_deck=True
            ),
        )
        outcomes = await at_once(*(ann.call("CreateTable", create) for _ in range(6)))
        assert codes(outcomes) == {grpc.StatusCode.OK: 6}, outcomes
        assert len({answer.table.table_id for _, answer in outcomes}) == 1


async def test_sessions_opened_at_once_leave_one_and_tell_the_rest_only_replaced(
    api: Any,
) -> None:
    """Found from outside: six sessions of one player opened at once; one kept the
    player, but some of the others were told SessionOpened after it had been, and only
    then REPLACED. gateway.proto: the last one holds the player, and each other
    stream's only push is SessionClosed(REPLACED). A stream told SessionOpened before
    the survivor was is an older session, replaced later: that is allowed."""
    me = await join(api)
    for _ in range(5):
        pushes: list[list[g.OpenSessionResponse]] = [[] for _ in range(6)]

        async def open_one(seen: list[g.OpenSessionResponse]) -> None:
            async for push in api.OpenSession(g.OpenSessionRequest(), metadata=me.meta):
                seen.append(push)
                if push.HasField("session_closed"):
                    return

        open_ = {asyncio.create_task(open_one(seen)) for seen in pushes}
        done: set[asyncio.Task[None]] = set()
        while len(done) < 5:  # until every stream but the holder has ended
            more, open_ = await asyncio.wait(open_, timeout=15, return_when="FIRST_COMPLETED")
            assert more, [[p.WhichOneof("push") for p in seen] for seen in pushes]
            done |= more
        for _ in range(150):  # the holder may still be reading the state to send
            if all(pushes):
                break
            await asyncio.sleep(0.1)
        for stream in open_:
            stream.cancel()
        held = [seen for seen in pushes if not seen[-1].HasField("session_closed")]
        assert len(held) == 1, [[p.WhichOneof("push") for p in seen] for seen in pushes]
        holder = held[0][0]
        assert holder.HasField("session_opened"), holder
        for seen in pushes:
            if seen is held[0]:
                continue
            assert seen[-1].session_closed.reason == g.SESSION_CLOSE_REASON_REPLACED, seen
            if seen[0].HasField("session_opened"):
                told, kept = seen[0].send_time.ToNanoseconds(), holder.send_time.ToNanoseconds()
                assert told < kept, "a replaced session was told it opened after the holder"
