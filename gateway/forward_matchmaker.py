"""The public RPCs the matchmaker answers: queues, practice, the custom-table lobby, Find
Game and challenges. The player goes as a PlayerRef (id and name from the token); a call
that starts a match answers with the caller's first view of it, read from the match
service. A challenged player is named by the client and found here, among the accounts
(the matchmaker knows no names): an unknown name is NOT_FOUND."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import matchmaker_pb2 as mm

from gateway.accounts import NAME
from gateway.auth import caller
from gateway.forwarding import (
    Downstreams,
    P,
    answer,
    ask,
    forwarded,
    internal_kind,
    me,
    request_id,
)
from gateway.store import GatewayStore
from services.platform.errors import NotFound

WHAT = "matchmaker"


def starting(rpc: str, response: type[P]) -> Callable[[MatchmakerRpcs, Message, Any], Awaitable[P]]:
    """The public RPC that is the matchmaker's ``rpc`` field for field and starts a
    match, as a servicer method: ``ask``, then ``MatchmakerRpcs._started``."""
    kind = internal_kind(WHAT, rpc)

    async def method(self: MatchmakerRpcs, request: Message, context: Any) -> P:
        reply = await ask(WHAT, getattr(self._matchmaker_stub(), rpc), kind, request)
        return await self._started(response, reply)

    return method


class MatchmakerRpcs(Downstreams):
    _store: GatewayStore

    # Draft must leave the deck unset: presence is passed on as it came.
    Enqueue = forwarded(WHAT, "Enqueue", g.EnqueueResponse)
    CancelTicket = forwarded(WHAT, "CancelTicket", g.CancelTicketResponse)

    # The player goes too: private challenges show only to the challenged player.
    ListTables = forwarded(WHAT, "ListTables", g.ListTablesResponse)
    CloseTable = forwarded(WHAT, "CloseTable", g.CloseTableResponse)
    DeclineChallenge = forwarded(WHAT, "DeclineChallenge", g.DeclineChallengeResponse)

    # Only CUSTOM carries settings; an empty one would read as "custom rules, all off" to
    # the matchmaker, so custom_settings goes only when given.
    StartPractice = starting("StartPractice", g.StartPracticeResponse)
    # An unset deck: the ticket's deck.
    SwitchToPractice = starting("SwitchToPractice", g.SwitchToPracticeResponse)

    async def CreateTable(
        self, request: g.CreateTableRequest, context: Any
    ) -> g.CreateTableResponse:
        request_id(request.request_id)  # refused before the accounts are asked
        challenged = await self._challenged(request.challenged_player_name)
        reply = await ask(
            WHAT,
            self._matchmaker_stub().CreateTable,
            mm.MatchmakerServiceCreateTableRequest,
            request,
            host=me(),
            challenged_player_name=challenged.player_name if challenged else "",
            challenged=challenged,
        )
        return answer(g.CreateTableResponse, reply)

    JoinTable = starting("JoinTable", g.JoinTableResponse)
    # An unset deck: Random tables.
    FindGame = starting("FindGame", g.FindGameResponse)

    async def _started(self, kind: type[P], reply: Any) -> P:
        """The public ``kind`` of a call that started a match: the reply (an internal
        response naming its ``match_id``), and the caller's first view of the match; no
        view for a battle table joined (Skirmish: ``match_id`` is the battle's, read with
        GetBattleView)."""
        table = getattr(reply, "table", None)  # JoinTable and FindGame join a table
        if table is not None and table.settings.battle:
            return answer(kind, reply)
        return answer(kind, reply, view=await self._view(reply.match_id, caller().player_id))

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
