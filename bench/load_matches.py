"""A simulated player at the table (bench/load_client.py's ``SimClient`` is one): it
plays a match to its end from its own views, placing a random legal card when it is
its turn (at a custom table it sometimes forfeits instead), reports every placement
the gateway acknowledged and every match it saw finished to the run, and as the winner
of a Ranked match (or a Trade One or Difference table) takes its trade.

Views come from the session stream's pushes; when none came in time (the stream may be
down, or a push lost with a gateway that died) the client fetches the view instead.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any
from uuid import uuid4

import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from bench.load_connection import Connection
from bench.load_decks import strength
from bench.load_records import AckedPlacement, FinishedMatch
from bench.load_tables import TABLE_NAMES

CHOICE_RULES = (pb.TRADE_RULE_ONE, pb.TRADE_RULE_DIFFERENCE)
"""Trade rules whose winner chooses (Direct and All move their copies at once)."""
FORFEIT_SHARE = 0.015
"""At a custom table, the chance on each turn that the player forfeits instead (about
one match in eight ends so: RULES.md 13 settles a forfeit from that moment's board)."""
LEAVE_SHARE = 0.25
"""The share of Difference trades the winner leaves to the server's deadline."""


class MatchPlayer(Connection):
    """A player who plays its matches out and takes what it wins."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.done: set[str] = set()
        """Matches seen to their end (and reported to the run)."""
        self.matches = 0
        self.leaving: set[str] = set()
        """Difference trades this player won and leaves to the server's deadline."""

    async def play(self, match_id: str) -> None:
        """Place when it is our turn, wait for the opponent otherwise, until the end."""
        view = self.views.get(match_id) or await self._fetch(match_id)
        while view.status != pb.MATCH_STATUS_FINISHED:
            if view.turn_seat == view.my_seat:
                if view.mode == pb.MODE_CUSTOM and self.rng.random() < FORFEIT_SHARE:
                    view = await self.forfeit(view)
                else:
                    view = await self.place(view)
                continue
            view = await self._next_view(view)
        await self._finished(view)

    async def _next_view(self, view: pb.MatchView) -> pb.MatchView:
        """A newer view of the match: pushed, or fetched when none came in time (the
        stream may be down, or a push lost with a gateway that died)."""
        deadline = time.monotonic() + (3.0 if self.stream_up else 0.5)
        while (left := deadline - time.monotonic()) > 0:
            newer = self.views.get(view.match_id)
            if newer is not None and newer.version > view.version:
                return newer
            await self.push.after(self.push.count, left)
        return await self._fetch(view.match_id)

    async def place(self, view: pb.MatchView) -> pb.MatchView:
        cards = [c.card.card_id for c in view.my_hand]
        cells = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
        request = g.PlaceCardRequest(
            request_id=uuid4().hex,
            match_id=view.match_id,
            card_id=self.rng.choice(cards),
            cell=self.rng.choice(cells),
            expected_version=view.version,
        )
        try:
            reply = await self.call("PlaceCard", request)
        except grpc.aio.AioRpcError as error:
            refused = (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED)
            if error.code() not in refused:
                raise
            return await self._fetch(view.match_id)  # a timer or a retry moved first
        self.run.acked(
            AckedPlacement(
                match_id=view.match_id,
                player_id=self.player_id,
                request_id=request.request_id,
                cell=request.cell,
                card_id=request.card_id,
                answered_at=time.time(),
                version=reply.view.version,
            )
        )
        return self._view(reply.view)

    async def forfeit(self, view: pb.MatchView) -> pb.MatchView:
        with contextlib.suppress(grpc.aio.AioRpcError):  # FAILED_PRECONDITION: over already
            await self.call(
                "Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=view.match_id)
            )
        return await self._fetch(view.match_id)

    async def _finished(self, view: pb.MatchView) -> None:
        if view.match_id in self.done:
            return
        self.done.add(view.match_id)
        self.matches += 1
        names = {p.seat: p.player_name for p in view.players}
        outcome = view.outcome
        winner = names.get(outcome.winner_seat) if outcome.HasField("winner_seat") else None
        mode = pb.Mode.Name(view.mode).removeprefix("MODE_").lower()
        if view.mode == pb.MODE_CUSTOM:  # named as in the mix, by its trade rule
            mode = TABLE_NAMES.get(view.rules.trade_rule, mode)
        self.run.finished_match(
            FinishedMatch(
                match_id=view.match_id,
                mode=mode,
                players=tuple(p.player_name for p in view.players),
                winner=winner,
                reason=pb.FinishReason.Name(outcome.reason).removeprefix("FINISH_REASON_").lower(),
                finished_at=time.time(),
            )
        )
        self.views.pop(view.match_id, None)
        choice = view.mode == pb.MODE_RANKED or view.rules.trade_rule in CHOICE_RULES
        if choice and outcome.HasField("winner_seat") and outcome.winner_seat == view.my_seat:
            await self.take_trade(view.match_id)

    # ------------------------------------------------------------------ trades

    async def take_trade(self, match_id: str) -> None:
        """The winner of a Ranked match (or a One or Difference table) chooses."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and self.run.alive:
            seen = self.push.count
            trade = self.trade
            if trade is None or trade.match_id != match_id:
                trade = (await self.call("GetPendingTrade", g.GetPendingTradeRequest())).trade
            if trade.match_id == match_id:
                if trade.status == pb.TRADE_STATUS_AWAITING_CHOICE:
                    await self.choose(trade)
                return
            await self.push.after(seen, 1.0 if self.stream_up else 0.5)

    async def choose(self, trade: pb.Trade) -> bool:
        """The strongest of the loser's cards: one for Trade One, all d at once for
        Difference, or (LEAVE_SHARE of Differences) none, for the server to draw at the
        deadline; whether a choice was sent."""
        if trade.trade_id in self.leaving:
            return False
        if trade.trade_rule == pb.TRADE_RULE_DIFFERENCE and self.rng.random() < LEAVE_SHARE:
            self.leaving.add(trade.trade_id)
            return False
        best = sorted(trade.offered_copies, key=lambda c: -strength(c.printed_sides))
        if not best:
            return False
        request = g.ChooseTradeCardRequest(request_id=uuid4().hex, trade_id=trade.trade_id)
        if trade.trade_rule == pb.TRADE_RULE_DIFFERENCE:
            request.copy_ids.extend(c.copy_id for c in best[: max(1, trade.take_count)])
        else:
            request.copy_id = best[0].copy_id
        with contextlib.suppress(grpc.aio.AioRpcError):  # FAILED_PRECONDITION: chosen already
            await self.call("ChooseTradeCard", request)
        return True
