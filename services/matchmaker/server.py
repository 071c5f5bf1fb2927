"""The MatchmakerService gRPC edge: protobuf in, handlers, protobuf out. Nothing else."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any, Protocol

import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import matchmaker_pb2 as mm
from triad.v1 import matchmaker_pb2_grpc

from services.matchmaker import (
    handlers_find,
    handlers_lobby,
    handlers_queues,
    handlers_status,
    mapping,
)
from services.matchmaker.domain import MODE_RULES, DeckChoice, Mode, TableSettings
from services.matchmaker.handlers import Context, Player
from services.matchmaker.pushes import status
from services.platform.edge import bind, require
from services.platform.errors import InvalidArgument, require_found
from services.platform.notifier import Notifier


def _player(ref: pb.PlayerRef, field: str) -> Player:
    player = Player(
        require(ref.player_id, f"{field}.player_id"), require(ref.player_name, f"{field}.name")
    )
    bind(player_id=player.player_id)
    return player


class _Keyed(Protocol):
    """A request a player sends under an idempotency key."""

    @property
    def request_id(self) -> str: ...

    @property
    def player(self) -> pb.PlayerRef: ...


def _keyed(request: _Keyed) -> tuple[str, Player]:
    """The request's id and its player, checked in that order: the first two arguments
    of every use case a player asks for under an idempotency key."""
    return require(request.request_id, "request_id"), _player(request.player, "player")


def _deck(request: Any) -> DeckChoice | None:
    """The deck a request brings in its ``deck`` field; None when it is left out."""
    return mapping.deck_choice_back(request.deck, request.HasField("deck"))


class MatchmakerServicer(matchmaker_pb2_grpc.MatchmakerServiceServicer):
    def __init__(self, ctx: Context, notifier: Notifier, heartbeat: float = 3.0) -> None:
        self._ctx = ctx
        self._notifier = notifier
        self._heartbeat = heartbeat

    async def Enqueue(
        self, request: mm.MatchmakerServiceEnqueueRequest, context: Any
    ) -> mm.MatchmakerServiceEnqueueResponse:
        player = _player(request.player, "player")
        ticket = await handlers_queues.enqueue(
            self._ctx,
            require(request.request_id, "request_id"),
            player,
            mapping.mode_back(request.mode, "mode", mapping.QUEUE_MODES),
            _deck(request),
        )
        view = await handlers_status.view_of(self._ctx, ticket, self._ctx.clock())
        return mm.MatchmakerServiceEnqueueResponse(
            ticket=mapping.ticket(ticket), status=status(view)
        )

    async def CancelTicket(
        self, request: mm.MatchmakerServiceCancelTicketRequest, context: Any
    ) -> mm.MatchmakerServiceCancelTicketResponse:
        ticket = await handlers_queues.cancel(
            self._ctx,
            require(request.request_id, "request_id"),
            require(request.player_id, "player_id"),
            require(request.ticket_id, "ticket_id"),
        )
        return mm.MatchmakerServiceCancelTicketResponse(ticket=mapping.ticket(ticket))

    async def GetQueueStatus(
        self, request: mm.MatchmakerServiceGetQueueStatusRequest, context: Any
    ) -> mm.MatchmakerServiceGetQueueStatusResponse:
        found = await handlers_queues.queue_status(
            self._ctx, require(request.player_id, "player_id")
        )
        return mm.MatchmakerServiceGetQueueStatusResponse(
            status=None if found.view is None else status(found.view),
            hosted_table=None if found.hosted is None else mapping.table(found.hosted),
        )

    async def WatchQueue(
        self, request: mm.MatchmakerServiceWatchQueueRequest, context: Any
    ) -> AsyncIterator[mm.MatchmakerServiceWatchQueueResponse]:
        player_id = require(request.player_id, "player_id")
        with self._notifier.watch(player_id) as changed:
            view = require_found(
                (await handlers_queues.queue_status(self._ctx, player_id)).view,
                "you have no ticket: enqueue first",
            )
            ticket_id, last, sent_at = view.ticket.ticket_id, None, 0.0
            while True:
                changed.clear()
                message = status(view)
                shown = (message.ticket.status, view.window, view.queue_length)
                if shown != last or time.monotonic() - sent_at >= self._heartbeat:
                    yield mm.MatchmakerServiceWatchQueueResponse(status=message)
                    last, sent_at = shown, time.monotonic()
                if not view.ticket.waiting:
                    return
                pause = self._heartbeat - (time.monotonic() - sent_at)
                soon = handlers_queues.next_change(self._ctx, view)
                if soon is not None:
                    pause = min(pause, soon + 0.01)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), max(pause, 0.01))
                view = await handlers_queues.ticket_view(self._ctx, ticket_id)

    async def StartPractice(
        self, request: mm.MatchmakerServiceStartPracticeRequest, context: Any
    ) -> mm.MatchmakerServiceStartPracticeResponse:
        player = _player(request.player, "player")
        custom = None
        deck = _deck(request)
        if request.HasField("custom_settings"):
            if request.custom_settings.battle:
                raise InvalidArgument(
                    "a practice battle (Skirmish) is started with StartPracticeBattle, "
                    "not StartPractice"
                )
            custom = mapping.rules_back(request.custom_settings.rules)
            if request.custom_settings.random_deck and deck is None:
                deck = DeckChoice(random=True)
        match_id = await handlers_queues.start_practice(
            self._ctx,
            require(request.request_id, "request_id"),
            player,
            mapping.mode_back(request.origin_mode, "origin_mode", mapping.PRACTICE_ORIGINS),
            mapping.bot_level_back(request.bot_level),
            deck,
            custom,
        )
        return mm.MatchmakerServiceStartPracticeResponse(match_id=match_id)

    async def StartPracticeBattle(
        self, request: mm.MatchmakerServiceStartPracticeBattleRequest, context: Any
    ) -> mm.MatchmakerServiceStartPracticeBattleResponse:
        battle_id = await handlers_queues.start_practice_battle(
            self._ctx,
            *_keyed(request),
            mapping.battle_level_back(request.bot_level),
            tuple(request.characters),
        )
        return mm.MatchmakerServiceStartPracticeBattleResponse(battle_id=battle_id)

    async def SwitchToPractice(
        self, request: mm.MatchmakerServiceSwitchToPracticeRequest, context: Any
    ) -> mm.MatchmakerServiceSwitchToPracticeResponse:
        switched = await handlers_queues.switch_to_practice(
            self._ctx,
            *_keyed(request),
            require(request.ticket_id, "ticket_id"),
            mapping.bot_level_back(request.bot_level),
            _deck(request),
        )
        return mm.MatchmakerServiceSwitchToPracticeResponse(
            ticket=mapping.ticket(switched.ticket), match_id=switched.match_id
        )

    async def CreateTable(
        self, request: mm.MatchmakerServiceCreateTableRequest, context: Any
    ) -> mm.MatchmakerServiceCreateTableResponse:
        host = _player(request.host, "host")
        if request.settings.battle:  # Skirmish: no Triad rules, no decks
            settings = TableSettings(MODE_RULES[Mode.BATTLE], battle=True)
        else:
            settings = TableSettings(
                mapping.rules_back(request.settings.rules), request.settings.random_deck
            )
        table = await handlers_lobby.create_table(
            self._ctx,
            require(request.request_id, "request_id"),
            host,
            settings,
            _deck(request),
            _challenged(request),
        )
        return mm.MatchmakerServiceCreateTableResponse(table=mapping.table(table))

    async def ListTables(
        self, request: mm.MatchmakerServiceListTablesRequest, context: Any
    ) -> mm.MatchmakerServiceListTablesResponse:
        page = await handlers_lobby.list_tables(
            self._ctx,
            _player(request.player, "player"),
            mapping.table_filter_back(request.filter),
            request.page_size,
            request.page_token,
        )
        return mm.MatchmakerServiceListTablesResponse(
            tables=[mapping.table(t) for t in page.tables], next_page_token=page.next_page_token
        )

    async def GetTable(
        self, request: mm.MatchmakerServiceGetTableRequest, context: Any
    ) -> mm.MatchmakerServiceGetTableResponse:
        table = await handlers_lobby.get_table(
            self._ctx, _player(request.player, "player"), require(request.table_id, "table_id")
        )
        return mm.MatchmakerServiceGetTableResponse(table=mapping.table(table))

    async def JoinTable(
        self, request: mm.MatchmakerServiceJoinTableRequest, context: Any
    ) -> mm.MatchmakerServiceJoinTableResponse:
        joined = await handlers_lobby.join_table(
            self._ctx, *_keyed(request), require(request.table_id, "table_id"), _deck(request)
        )
        return mm.MatchmakerServiceJoinTableResponse(
            table=mapping.table(joined.table), match_id=joined.match_id
        )

    async def CloseTable(
        self, request: mm.MatchmakerServiceCloseTableRequest, context: Any
    ) -> mm.MatchmakerServiceCloseTableResponse:
        table = await handlers_lobby.close_table(
            self._ctx,
            require(request.request_id, "request_id"),
            require(request.player_id, "player_id"),
            require(request.table_id, "table_id"),
        )
        return mm.MatchmakerServiceCloseTableResponse(table=mapping.table(table))

    async def FindGame(
        self, request: mm.MatchmakerServiceFindGameRequest, context: Any
    ) -> mm.MatchmakerServiceFindGameResponse:
        joined = await handlers_find.find_game(
            self._ctx, *_keyed(request), mapping.table_filter_back(request.filter), _deck(request)
        )
        return mm.MatchmakerServiceFindGameResponse(
            table=mapping.table(joined.table), match_id=joined.match_id
        )

    async def DeclineChallenge(
        self, request: mm.MatchmakerServiceDeclineChallengeRequest, context: Any
    ) -> mm.MatchmakerServiceDeclineChallengeResponse:
        table = await handlers_lobby.decline_challenge(
            self._ctx, *_keyed(request), require(request.table_id, "table_id")
        )
        return mm.MatchmakerServiceDeclineChallengeResponse(table=mapping.table(table))


def _challenged(request: mm.MatchmakerServiceCreateTableRequest) -> Player | None:
    """The challenged player: as the gateway found them (id and name), or by name alone
    from a caller that does not know the id; None for a public table."""
    if request.HasField("challenged"):
        return Player(
            require(request.challenged.player_id, "challenged.player_id"),
            require(request.challenged.player_name, "challenged.player_name"),
        )
    if request.challenged_player_name:
        return Player("", request.challenged_player_name)
    return None


def register(server: grpc.aio.Server, servicer: MatchmakerServicer) -> None:
    matchmaker_pb2_grpc.add_MatchmakerServiceServicer_to_server(servicer, server)


SERVICE_NAME = mm.DESCRIPTOR.services_by_name["MatchmakerService"].full_name
