"""The public RPCs the matchmaker answers: queues, practice and the custom-table lobby.
The player goes as a PlayerRef (id and name from the token); a call that starts a match
answers with the caller's first view of it, read from the match service."""

from __future__ import annotations

from typing import Any

from triad.v1 import gateway_pb2 as g
from triad.v1 import matchmaker_pb2 as mm

from gateway.auth import caller
from gateway.forwarding import Downstreams, me, page_size, present, request_id
from services.platform.downstream import INTERNAL_DEADLINE, call

WHAT = "matchmaker"


class MatchmakerRpcs(Downstreams):
    async def Enqueue(self, request: g.EnqueueRequest, context: Any) -> g.EnqueueResponse:
        reply = await call(
            WHAT,
            self._matchmaker_stub().Enqueue(
                mm.MatchmakerServiceEnqueueRequest(
                    request_id=request_id(request.request_id),
                    player=me(),
                    mode=request.mode,
                    # Draft must leave the deck unset: presence is passed on as it came.
                    deck=present(request, "deck", request.deck),
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.EnqueueResponse(ticket=reply.ticket, status=reply.status)

    async def CancelTicket(
        self, request: g.CancelTicketRequest, context: Any
    ) -> g.CancelTicketResponse:
        reply = await call(
            WHAT,
            self._matchmaker_stub().CancelTicket(
                mm.MatchmakerServiceCancelTicketRequest(
                    request_id=request_id(request.request_id),
                    player_id=caller().player_id,
                    ticket_id=request.ticket_id,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.CancelTicketResponse(ticket=reply.ticket)

    async def StartPractice(
        self, request: g.StartPracticeRequest, context: Any
    ) -> g.StartPracticeResponse:
        player = me()
        reply = await call(
            WHAT,
            self._matchmaker_stub().StartPractice(
                mm.MatchmakerServiceStartPracticeRequest(
                    request_id=request_id(request.request_id),
                    player=player,
                    origin_mode=request.origin_mode,
                    bot_level=request.bot_level,
                    deck=present(request, "deck", request.deck),
                    # Only CUSTOM carries settings; an empty one would read as "custom
                    # rules, all off" to the matchmaker.
                    custom_settings=present(request, "custom_settings", request.custom_settings),
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.StartPracticeResponse(
            match_id=reply.match_id, view=await self._view(reply.match_id, player.player_id)
        )

    async def SwitchToPractice(
        self, request: g.SwitchToPracticeRequest, context: Any
    ) -> g.SwitchToPracticeResponse:
        player = me()
        reply = await call(
            WHAT,
            self._matchmaker_stub().SwitchToPractice(
                mm.MatchmakerServiceSwitchToPracticeRequest(
                    request_id=request_id(request.request_id),
                    player=player,
                    ticket_id=request.ticket_id,
                    bot_level=request.bot_level,
                    deck=present(request, "deck", request.deck),  # unset: the ticket's deck
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.SwitchToPracticeResponse(
            ticket=reply.ticket,
            match_id=reply.match_id,
            view=await self._view(reply.match_id, player.player_id),
        )

    async def CreateTable(
        self, request: g.CreateTableRequest, context: Any
    ) -> g.CreateTableResponse:
        reply = await call(
            WHAT,
            self._matchmaker_stub().CreateTable(
                mm.MatchmakerServiceCreateTableRequest(
                    request_id=request_id(request.request_id),
                    host=me(),
                    settings=present(request, "settings", request.settings),
                    deck=present(request, "deck", request.deck),
                    challenged_player_name=request.challenged_player_name,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.CreateTableResponse(table=reply.table)

    async def ListTables(self, request: g.ListTablesRequest, context: Any) -> g.ListTablesResponse:
        reply = await call(
            WHAT,
            self._matchmaker_stub().ListTables(
                mm.MatchmakerServiceListTablesRequest(
                    player=me(),  # private challenges show only to the challenged player
                    filter=present(request, "filter", request.filter),
                    page_size=page_size(request.page_size),
                    page_token=request.page_token,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.ListTablesResponse(tables=reply.tables, next_page_token=reply.next_page_token)

    async def JoinTable(self, request: g.JoinTableRequest, context: Any) -> g.JoinTableResponse:
        player = me()
        reply = await call(
            WHAT,
            self._matchmaker_stub().JoinTable(
                mm.MatchmakerServiceJoinTableRequest(
                    request_id=request_id(request.request_id),
                    player=player,
                    table_id=request.table_id,
                    deck=present(request, "deck", request.deck),
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.JoinTableResponse(
            table=reply.table,
            match_id=reply.match_id,
            view=await self._view(reply.match_id, player.player_id),
        )

    async def CloseTable(self, request: g.CloseTableRequest, context: Any) -> g.CloseTableResponse:
        reply = await call(
            WHAT,
            self._matchmaker_stub().CloseTable(
                mm.MatchmakerServiceCloseTableRequest(
                    request_id=request_id(request.request_id),
                    player_id=caller().player_id,
                    table_id=request.table_id,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.CloseTableResponse(table=reply.table)
