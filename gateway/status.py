"""What is going on for a player, gathered from every configured service at once: the
active match (match), balance, obligations, pending trade and open draft (collection),
the queued ticket and hosted table (matchmaker), the Skirmish battle in progress
(battle). GetPlayerStatus and the first push of the session stream show it; the session
also shows the open challenges addressed to the player (``_challenges``), which were
pushed once, perhaps before it opened."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

import structlog
from triad.v1 import battle_pb2 as b
from triad.v1 import collection_pb2 as c
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import matchmaker_pb2 as mm

from gateway.forwarding import Downstreams, internal
from services.platform.errors import DomainError, Unavailable

log = structlog.get_logger()

T = TypeVar("T")
MAX_PAGE = 200
"""The matchmaker's largest page of tables."""


@dataclass(frozen=True, slots=True)
class Holdings:
    """What the collection adds to a player's status."""

    balance: pb.Balance | None = None
    obligations: list[pb.Obligation] = field(default_factory=list)
    pending_trade: pb.Trade | None = None


NO_HOLDINGS = Holdings()


@dataclass(frozen=True, slots=True)
class Queued:
    """What the matchmaker adds: the ticket waiting in a queue, the open table hosted."""

    ticket: pb.Ticket | None = None
    table: pb.Table | None = None

    def made_before(self, moment: datetime) -> Queued:
        """The ticket and the table, each only if it was made before ``moment``."""
        ticket, table = self.ticket, self.table
        if ticket is not None and ticket.enqueue_time.ToDatetime(UTC) > moment:
            ticket = None
        if table is not None and table.create_time.ToDatetime(UTC) > moment:
            table = None
        return Queued(ticket, table)


NOT_QUEUED = Queued()


async def or_else(pending: Awaitable[T], fallback: T) -> T:
    """``pending``'s answer, or ``fallback`` if its service is unavailable."""
    try:
        return await pending
    except Unavailable:
        return fallback


class PlayerStatusReads(Downstreams):
    async def _status(self, player: g.Player, *, partial: bool = False) -> g.PlayerStatus:
        """The player's status. ``partial``: a collection or matchmaker that does not
        answer leaves its part out instead of failing (the match part is always needed)."""
        player_id = player.player_id
        match = asyncio.ensure_future(self._active_match_id(player_id))
        holdings: Awaitable[Holdings] = self._holdings(player_id, match)
        queue: Awaitable[Queued] = self._queue(player_id)
        battle: Awaitable[str | None] = self._active_battle_id(player_id)
        if partial:
            holdings = or_else(holdings, NO_HOLDINGS)
            queue = or_else(queue, NOT_QUEUED)
            battle = or_else(battle, None)
        active, wealth, queued, battle_id = await asyncio.gather(match, holdings, queue, battle)
        status = g.PlayerStatus(
            player=player,
            ticket=queued.ticket,
            hosted_table=queued.table,
            active_match_id=active or "",
            pending_trade=wealth.pending_trade,
            balance=wealth.balance,
            active_battle_id=battle_id or "",
        )
        if battle_id is not None:  # one game at a time, whichever game (RULES.md 5)
            status.obligations.append(
                pb.Obligation(
                    kind=pb.OBLIGATION_KIND_ACTIVE_BATTLE,
                    id=battle_id,
                    message="finish your battle before starting another game",
                )
            )
        if active is not None:  # the collection knows trades and drafts, not matches
            status.obligations.append(
                pb.Obligation(
                    kind=pb.OBLIGATION_KIND_ACTIVE_MATCH,
                    id=active,
                    message="finish your active match before starting another",
                )
            )
        status.obligations.extend(wealth.obligations)
        status.draft_id = next(
            (o.id for o in wealth.obligations if o.kind == pb.OBLIGATION_KIND_OPEN_DRAFT), ""
        )
        return status

    async def _holdings(self, player_id: str, match: Awaitable[str | None]) -> Holdings:
        """Balance, obligations and pending trade; none when collection is not
        configured here (no player owns anything then). The obligations are asked
        once ``match`` (the active match) is known: the collection counts a trading
        match's deck locks as the Trade One being opened, unless the match is the
        active one (whose obligation is the active match). Asked after the match
        service, they leave no moment between a match's end and its trade unseen."""
        if self._collection is None:
            return NO_HOLDINGS
        stub = self._collection

        async def obligations_after_match() -> c.CollectionServiceHasPendingObligationsResponse:
            active = await match
            return await internal(
                "collection",
                stub.HasPendingObligations,
                c.CollectionServiceHasPendingObligationsRequest(
                    player_id=player_id, current_match_id=active or ""
                ),
            )

        balance, obligations, trade = await asyncio.gather(
            internal(
                "collection",
                stub.GetBalance,
                c.CollectionServiceGetBalanceRequest(player_id=player_id),
            ),
            obligations_after_match(),
            internal(
                "collection",
                stub.GetPendingTrade,
                c.CollectionServiceGetPendingTradeRequest(player_id=player_id),
            ),
        )
        return Holdings(
            balance=balance.balance,
            obligations=list(obligations.obligations),
            pending_trade=trade.trade if trade.HasField("trade") else None,
        )

    async def _queue(self, player_id: str) -> Queued:
        """The queued ticket and the hosted open table; none when the matchmaker is not
        configured here (nobody can queue then)."""
        if self._matchmaker is None:
            return NOT_QUEUED
        reply = await internal(
            "matchmaker",
            self._matchmaker.GetQueueStatus,
            mm.MatchmakerServiceGetQueueStatusRequest(player_id=player_id),
        )
        ticket = reply.status.ticket
        # The matchmaker also returns a ticket that ended a moment ago; the status shows
        # one only while the player is in the queue, and only a table still open.
        queued = ticket if ticket.status == pb.TICKET_STATUS_QUEUED else None
        table = reply.hosted_table if reply.HasField("hosted_table") else None
        if table is not None and table.status != pb.TABLE_STATUS_OPEN:
            table = None
        return Queued(ticket=queued, table=table)

    async def _leave_waiting(
        self, player_id: str, key: str, made_before: datetime | None = None
    ) -> None:
        """Give up what waits for the player to be there (Logout, or gone without it:
        ``presence.PresenceReports._gone``): a queued ticket is cancelled and an open
        table they host is closed, so nobody is paired with or joins a player who left
        (a match in progress goes on: RULES.md 5's grace). ``made_before``: only a ticket
        or table made before then (one made since, by a command without a session, is
        the player's, there). ``key`` makes both idempotent; a matchmaker that does not
        answer is logged."""
        if self._matchmaker is None:
            return
        stub = self._matchmaker
        try:
            queued = await self._queue(player_id)
            if made_before is not None:
                queued = queued.made_before(made_before)
            if queued.ticket is not None:
                ticket = mm.MatchmakerServiceCancelTicketRequest(
                    request_id=f"{key}:ticket",
                    player_id=player_id,
                    ticket_id=queued.ticket.ticket_id,
                )
                await internal("matchmaker", stub.CancelTicket, ticket)
            if queued.table is not None:
                table = mm.MatchmakerServiceCloseTableRequest(
                    request_id=f"{key}:table", player_id=player_id, table_id=queued.table.table_id
                )
                await internal("matchmaker", stub.CloseTable, table)
        except DomainError as error:  # paired or joined meanwhile, or the matchmaker away
            log.info("logout left the queue as it was", player_id=player_id, error=str(error))

    async def _challenges(self, player: pb.PlayerRef) -> list[pb.Table]:
        """The open challenges addressed to the player, Triad and Skirmish battle ones
        together, newest first, as the lobby lists them (a challenge may name the player
        by id or, made before they were found, by name); none when the matchmaker is not
        configured here."""
        if self._matchmaker is None:
            return []
        stub = self._matchmaker
        tables: list[pb.Table] = []
        for battles in (False, True):  # the lobby lists one family at a time
            mine = pb.TableFilter(challenges_only=True, battles=battles)
            token = ""
            while True:
                reply = await internal(
                    "matchmaker",
                    stub.ListTables,
                    mm.MatchmakerServiceListTablesRequest(
                        player=player, filter=mine, page_size=MAX_PAGE, page_token=token
                    ),
                )
                tables.extend(reply.tables)
                token = reply.next_page_token
                if not token:
                    break
        return sorted(tables, key=lambda t: t.create_time.ToNanoseconds(), reverse=True)

    async def _draft_view(self, draft_id: str, player_id: str) -> pb.DraftView | None:
        """The player's view of their open draft; None when collection is not here."""
        if self._collection is None:
            return None
        reply = await internal(
            "collection",
            self._collection.GetDraft,
            c.CollectionServiceGetDraftRequest(draft_id=draft_id, player_id=player_id),
        )
        return reply.draft

    async def _active_battle_id(self, player_id: str) -> str | None:
        """The player's Skirmish battle in progress; None when they have none or the
        battle service is not here."""
        if self._battle is None:
            return None
        active = await internal(
            "battle",
            self._battle.GetActiveBattle,
            b.BattleServiceGetActiveBattleRequest(player_id=player_id),
        )
        return str(active.battle_id) or None

    async def _battle_now(self, player_id: str) -> pb.BattleView | None:
        """The player's view of their battle in progress; None when they have none or
        the battle service is not here."""
        battle_id = await self._active_battle_id(player_id)
        if battle_id is None or self._battle is None:
            return None
        return await self._battle_view_for(battle_id, player_id)
