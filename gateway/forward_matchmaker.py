"""The public RPCs the matchmaker answers: queues, practice, the custom-table lobby, Find
Game and challenges. The player goes as a PlayerRef (id and name from the token); a call
that starts a match answers with the caller's first view of it, read from the match
service. A challenged player is named by the client and found here, among the accounts
(the matchmaker knows no names): an unknown name is NOT_FOUND."""

from __future__ import annotations

from typing import Any

from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import matchmaker_pb2 as mm

from gateway.accounts import NAME
from gateway.auth import caller
from gateway.forwarding import Downstreams, me, page_size, present, request_id
from gateway.store import GatewayStore
from services.platform.downstream import INTERNAL_DEADLINE, call
from services.platform.errors import NotFound

WHAT = "matchmaker"


class MatchmakerRpcs(Downstreams):
    _store: GatewayStore

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
        key = request_id(request.request_id)
        challenged = await self._challenged(request.challenged_player_name)
        reply = await call(
            WHAT,
            self._matchmaker_stub().CreateTable(
                mm.MatchmakerServiceCreateTableRequest(
                    request_id=key,
                    host=me(),
                    settings=present(request, "settings", request.settings),
                    deck=present(request, "deck", request.deck),
                    challenged_player_name=challenged.player_name if challenged else "",
                    challenged=challenged,
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
            view=await self._started_view(reply.table, reply.match_id, player.player_id),
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

    async def FindGame(self, request: g.FindGameRequest, context: Any) -> g.FindGameResponse:
        player = me()
        reply = await call(
            WHAT,
            self._matchmaker_stub().FindGame(
                mm.MatchmakerServiceFindGameRequest(
                    request_id=request_id(request.request_id),
                    player=player,
                    filter=present(request, "filter", request.filter),
                    deck=present(request, "deck", request.deck),  # unset: Random tables
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.FindGameResponse(
            table=reply.table,
            match_id=reply.match_id,
            view=await self._started_view(reply.table, reply.match_id, player.player_id),
        )

    async def _started_view(
        self, table: pb.Table, match_id: str, player_id: str
    ) -> pb.MatchView | None:
        """The match a table started, as the guest sees it; none for a battle table
        (Skirmish: ``match_id`` is the battle's, read with GetBattleView)."""
        if table.settings.battle:
            return None
        return await self._view(match_id, player_id)

    async def DeclineChallenge(
        self, request: g.DeclineChallengeRequest, context: Any
    ) -> g.DeclineChallengeResponse:
        reply = await call(
            WHAT,
            self._matchmaker_stub().DeclineChallenge(
                mm.MatchmakerServiceDeclineChallengeRequest(
                    request_id=request_id(request.request_id),
                    player=me(),
                    table_id=request.table_id,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.DeclineChallengeResponse(table=reply.table)

    async def _challenged(self, name: str) -> pb.PlayerRef | None:
        """The player a challenge names, as the accounts know them (their name as they
        wrote it, whatever case the challenger used); None for a public table."""
        if not name:
            return None
        if not NAME.fullmatch(name):  # no account can have it: not worth a query
            raise NotFound(
                "no player has that name (names are 3 to 20 letters, digits, '_' or '-')"
            )
        account = await self._store.account_named(name)
        if account is None:
            raise NotFound(f"no player is named {name!r}: check the spelling")
        return pb.PlayerRef(player_id=account.player_id, player_name=account.name)
