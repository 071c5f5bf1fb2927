"""Forwarded calls with more to them than one request, against recording stand-ins of the
internal services: practice battles, unset choices and capped pages, a started match
with its view, challenges by name, request ids, internal errors, the status of every
service, and battle views pushed out of order.
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from typing import Any, cast

import grpc
import pytest
from triad.v1 import collection_pb2, match_pb2, matchmaker_pb2
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from gateway.forwarding import MAX_PAGE_SIZE
from gateway.store import Account
from gateway.tests.forwarding_stand_ins import DECK, ME, RULES, Backend, caller  # noqa: F401
from services.platform.downstream import INTERNAL_DEADLINE
from services.platform.errors import FailedPrecondition, InvalidArgument, NotFound, Unavailable


async def test_a_practice_battle_is_started_by_the_matchmaker_as_the_caller() -> None:
    """The matchmaker starts it (its hold on the player keeps one game at a time); the
    view is then read from the battle service, as the caller, of the battle it names."""
    backend = Backend()
    backend.answers["StartPracticeBattle"] = (
        matchmaker_pb2.MatchmakerServiceStartPracticeBattleResponse(battle_id="b1")
    )
    request = g.StartPracticeBattleRequest(
        request_id="p1", bot_level=pb.BATTLE_BOT_LEVEL_SEARCH, characters=["a", "b", "c"]
    )
    await backend.servicer().StartPracticeBattle(request, None)
    start, view = backend.calls
    assert start.method == "StartPracticeBattle" and start.request.request_id == "p1"
    assert start.request.player.player_id == ME.player_id
    assert start.request.bot_level == pb.BATTLE_BOT_LEVEL_SEARCH
    assert list(start.request.characters) == ["a", "b", "c"]
    assert view.method == "GetBattleView"
    assert (view.request.player_id, view.request.battle_id) == (ME.player_id, "b1")
    assert all(c.timeout == INTERNAL_DEADLINE for c in backend.calls)


async def test_unset_choices_stay_unset_and_pages_are_capped() -> None:
    backend = Backend()
    servicer = backend.servicer()
    await servicer.Enqueue(g.EnqueueRequest(request_id="r", mode=pb.MODE_DRAFT), None)
    await servicer.StartPractice(
        g.StartPracticeRequest(request_id="r", origin_mode=pb.MODE_RANKED, deck=DECK), None
    )
    await servicer.ListCollection(g.ListCollectionRequest(page_size=5000), None)
    enqueue, practice, _view, copies = (c.request for c in backend.calls)
    assert not enqueue.HasField("deck")  # Draft refuses a deck, even an empty one
    assert practice.HasField("deck") and not practice.HasField("custom_settings")
    assert copies.page_size == MAX_PAGE_SIZE and not copies.HasField("filter")


async def test_a_started_match_comes_with_the_callers_view() -> None:
    backend = Backend()
    backend.answers["JoinTable"] = matchmaker_pb2.MatchmakerServiceJoinTableResponse(
        table=pb.Table(table_id="tb"), match_id="m1"
    )
    backend.answers["GetView"] = match_pb2.MatchServiceGetViewResponse(
        view=pb.MatchView(match_id="m1", version=3)
    )
    reply = await backend.servicer().JoinTable(
        g.JoinTableRequest(request_id="r", table_id="tb"), None
    )
    assert (reply.match_id, reply.view.version, reply.table.table_id) == ("m1", 3, "tb")
    view = backend.calls[-1]
    assert (view.method, view.request.player_id) == ("GetView", ME.player_id)


class Accounts:
    """The gateway's accounts as a challenge looks a name up."""

    def __init__(self, *accounts: Account) -> None:
        self.named = {a.name.lower(): a for a in accounts}
        self.asked: list[str] = []

    async def account_named(self, name: str) -> Account | None:
        self.asked.append(name)
        return self.named.get(name.lower())


async def test_a_challenge_names_the_player_the_accounts_know_or_is_not_found() -> None:
    backend = Backend()
    servicer = backend.servicer()
    bea = Account("player-bea", "Bea", "hash", datetime.now(UTC))
    servicer._store = cast(Any, Accounts(bea))
    request = g.CreateTableRequest(
        request_id="r", settings=RULES, deck=DECK, challenged_player_name="bea"
    )
    await servicer.CreateTable(request, None)
    (call,) = backend.calls
    assert call.request.challenged == pb.PlayerRef(player_id="player-bea", player_name="Bea")
    assert call.request.challenged_player_name == "Bea"
    with pytest.raises(NotFound, match="no player is named 'Bob': check the spelling"):
        await servicer.CreateTable(
            g.CreateTableRequest(request_id="r", challenged_player_name="Bob"), None
        )
    with pytest.raises(NotFound, match="no player has that name"):
        await servicer.CreateTable(
            g.CreateTableRequest(request_id="r", challenged_player_name="x" * 5000), None
        )
    # A bot is no account: its "[BOT]" name is no player's name (RULES.md 14, 6).
    with pytest.raises(NotFound, match="no player has that name"):
        await servicer.CreateTable(
            g.CreateTableRequest(request_id="r", challenged_player_name="[BOT] Echo Lark"), None
        )
    assert len(backend.calls) == 1 and servicer._store.asked == ["bea", "Bob"]  # type: ignore[attr-defined]


async def test_request_ids_are_checked_before_anything_leaves() -> None:
    backend = Backend()
    for bad in ("", "x" * 65):
        with pytest.raises(InvalidArgument, match="request_id"):
            await backend.servicer().OpenBooster(g.OpenBoosterRequest(request_id=bad), None)
    assert not backend.calls


async def test_internal_errors_reach_the_player_as_the_contract_says() -> None:
    backend = Backend()
    servicer = backend.servicer()
    meta = grpc.aio.Metadata()
    backend.answers["GetCopy"] = grpc.aio.AioRpcError(
        grpc.StatusCode.NOT_FOUND, meta, meta, details="you have no copy c"
    )
    with pytest.raises(NotFound, match="you have no copy c"):
        await servicer.GetCopy(g.GetCopyRequest(copy_id="c"), None)
    backend.answers["GetRating"] = grpc.aio.AioRpcError(
        grpc.StatusCode.INTERNAL, meta, meta, details="relation rating.x does not exist"
    )
    with pytest.raises(Unavailable) as hidden:
        await servicer.GetRating(g.GetRatingRequest(), None)
    assert "relation" not in str(hidden.value)


async def test_the_status_gathers_every_service() -> None:
    backend = Backend()
    backend.answers.update(
        GetActiveMatch=match_pb2.MatchServiceGetActiveMatchResponse(
            active_match=match_pb2.ActiveMatch(match_id="m1")
        ),
        GetBalance=collection_pb2.CollectionServiceGetBalanceResponse(
            balance=pb.Balance(coins=120)
        ),
        HasPendingObligations=collection_pb2.CollectionServiceHasPendingObligationsResponse(
            blocked=True,
            obligations=[pb.Obligation(kind=pb.OBLIGATION_KIND_OPEN_DRAFT, id="dr")],
        ),
        GetQueueStatus=matchmaker_pb2.MatchmakerServiceGetQueueStatusResponse(
            status=pb.QueueStatus(ticket=pb.Ticket(status=pb.TICKET_STATUS_CANCELLED)),
            hosted_table=pb.Table(table_id="tb", status=pb.TABLE_STATUS_OPEN),
        ),
    )
    player = g.Player(player_id=ME.player_id, player_name=ME.name)
    status = await backend.servicer()._status(player)
    assert (status.active_match_id, status.balance.coins, status.draft_id) == ("m1", 120, "dr")
    assert [o.kind for o in status.obligations] == [
        pb.OBLIGATION_KIND_ACTIVE_MATCH,
        pb.OBLIGATION_KIND_OPEN_DRAFT,
    ]
    assert not status.HasField("ticket")  # a cancelled ticket is not a queue
    assert status.hosted_table.table_id == "tb" and not status.HasField("pending_trade")
    assert all(c.timeout == INTERNAL_DEADLINE for c in backend.calls)

    # the session's status does without a collection that does not answer
    backend.answers["GetBalance"] = grpc.aio.AioRpcError(
        grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata()
    )
    with pytest.raises(Unavailable):
        await backend.servicer()._status(player)
    partial = await backend.servicer()._status(player, partial=True)
    assert partial.active_match_id == "m1" and not partial.HasField("balance")


async def test_a_battle_view_not_newer_than_the_one_shown_is_dropped() -> None:
    """Pushes are hints that may arrive out of order (two replicas, a restart's
    re-announcement): a session shows each battle's views in version order only."""
    from gateway.pushes import Push
    from gateway.shown import Shown

    servicer = Backend().servicer()
    shown = Shown("player-me", "s1", datetime.now(UTC))

    async def show(battle_id: str, version: int) -> list[int]:
        view = pb.BattleView(battle_id=battle_id, version=version)
        return [
            cast(pb.BattleView, v).version
            for _, v in await servicer._show(shown, Push("battle", view))
        ]

    assert await show("b1", 3) == [3]
    assert await show("b1", 2) == [] and await show("b1", 3) == []
    assert await show("b1", 4) == [4]
    assert await show("b2", 1) == [1], "each battle has its own versions"


async def test_a_placement_naming_a_session_held_here_is_passed_to_it_not_pushed() -> None:
    """PlaceCardRequest.session_id (issue 18: the placer received its view twice). The
    session named, the caller's and held here, is given the reply's view; the match
    service is asked not to publish it. A refusal tells it nothing; a failure that may
    have placed the card has it read the state again; another player's session is
    ignored."""
    from gateway.pushes import ANSWERED, RESYNC, Inbox

    backend = Backend()
    servicer = backend.servicer()
    meta = grpc.aio.Metadata()

    async def place(session_id: str) -> list[str]:
        request = g.PlaceCardRequest(
            request_id="r1", match_id="m1", card_id="c1", cell=4, session_id=session_id
        )
        with contextlib.suppress(FailedPrecondition, Unavailable):
            await servicer.PlaceCard(request, None)
        told = []
        while inbox._pushes:
            told.append((await inbox.get()).field)
        return told

    inbox = Inbox()
    async with servicer._hub.listen(ME.player_id, inbox, "s1"):
        view = pb.MatchView(match_id="m1", version=5)
        backend.answers["PlaceCard"] = match_pb2.MatchServicePlaceCardResponse(view=view)
        assert await place("s1") == [ANSWERED]
        assert backend.calls[-1].request.placer_view_in_reply
        assert await place("") == [] and not backend.calls[-1].request.placer_view_in_reply
        assert await place("someone-else") == []  # not a session of the caller's here
        assert not backend.calls[-1].request.placer_view_in_reply
        backend.answers["PlaceCard"] = grpc.aio.AioRpcError(
            grpc.StatusCode.FAILED_PRECONDITION, meta, meta, details="not your turn"
        )
        assert await place("s1") == []
        backend.answers["PlaceCard"] = grpc.aio.AioRpcError(
            grpc.StatusCode.DEADLINE_EXCEEDED, meta, meta
        )
        assert await place("s1") == [RESYNC]
    assert await place("s1") == []  # the session ended: nothing held, nothing told
    assert not backend.calls[-1].request.placer_view_in_reply
