"""The BattleService gRPC edge: protobuf in, handlers, protobuf out. Nothing else.

``GetBattleEvents`` is the operators' (``triad-admin battle show``): it answers only a
call that carries the TRIAD_ADMIN_TOKEN the service was given (``answer_events``
checks it with ``check_operator``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import grpc
from triad.v1 import battle_pb2 as b
from triad.v1 import battle_pb2_grpc
from triad.v1 import common_pb2 as pb

from services import wire
from services.battle import handlers, handlers_create, handlers_timers, mapping
from services.battle.handlers import Context, SeatSpec, Seen
from services.battle.presenter import SeatViews
from services.battle.rules import Plan
from services.platform.edge import bind, require
from services.platform.errors import InvalidArgument
from services.platform.eventpages import answer_events
from services.platform.requests import Request, request_id

PlanCommand = Callable[[Context, Request, str, str, int, Plan], Awaitable[Seen]]
"""``handlers.set_plan`` or ``handlers.commit_plan``."""


class BattleServicer(battle_pb2_grpc.BattleServiceServicer):
    def __init__(self, ctx: Context, views: SeatViews, admin_token: str | None = None) -> None:
        """``admin_token``: the operators' (None: every operator call is refused)."""
        self._ctx = ctx
        self._views = views
        self._admin_token = admin_token

    def _view(self, seen: Seen) -> pb.BattleView:
        return self._views.view(seen.state, seen.seat)

    def _ids(self, battle_id: str, player_id: str) -> tuple[str, str]:
        bind(battle_id=battle_id, player_id=player_id)
        return require(battle_id, "battle_id"), require(player_id, "player_id")

    async def _plan(
        self,
        request: b.BattleServiceSetPlanRequest | b.BattleServiceCommitPlanRequest,
        kind: str,
        command: PlanCommand,
    ) -> pb.BattleView:
        """A SetPlan's or CommitPlan's view after ``command`` on its battle, player, turn
        and plan (``kind``: ``set`` or ``commit``, in its request key)."""
        battle_id, player = self._ids(request.battle_id, request.player_id)
        _check_turn(request.turn)
        plan = mapping.plan_back(request.actions)
        key = Request.of(
            player, request_id(request.request_id), kind, battle_id, request.turn, plan
        )
        return self._view(await command(self._ctx, key, battle_id, player, request.turn, plan))

    async def CreateBattle(
        self, request: b.BattleServiceCreateBattleRequest, context: Any
    ) -> b.BattleServiceCreateBattleResponse:
        bind(battle_id=request.battle_id, player_id="")
        battle_id = require(request.battle_id, "battle_id")
        if len(request.seats) != 2:
            raise InvalidArgument(f"a battle has two seats, got {len(request.seats)}")
        specs = []
        for seat in request.seats:
            level = mapping.level_back(seat.bot_level)
            if bool(seat.player_id) == bool(level):
                raise InvalidArgument("each seat is a player_id or a bot_level, not both")
            specs.append(SeatSpec(seat.player_id, seat.name, level, tuple(seat.characters)))
        state = await handlers_create.create_battle(self._ctx, battle_id, specs)
        return b.BattleServiceCreateBattleResponse(battle_id=state.battle_id)

    async def SetFormation(
        self, request: b.BattleServiceSetFormationRequest, context: Any
    ) -> b.BattleServiceSetFormationResponse:
        battle_id, player = self._ids(request.battle_id, request.player_id)
        squares = mapping.squares_back(request.squares)
        key = Request.of(player, request_id(request.request_id), "formation", battle_id, squares)
        seen = await handlers.set_formation(self._ctx, key, battle_id, player, squares)
        return b.BattleServiceSetFormationResponse(view=self._view(seen))

    async def SetPlan(
        self, request: b.BattleServiceSetPlanRequest, context: Any
    ) -> b.BattleServiceSetPlanResponse:
        view = await self._plan(request, "set", handlers.set_plan)
        return b.BattleServiceSetPlanResponse(view=view)

    async def CommitPlan(
        self, request: b.BattleServiceCommitPlanRequest, context: Any
    ) -> b.BattleServiceCommitPlanResponse:
        view = await self._plan(request, "commit", handlers.commit_plan)
        return b.BattleServiceCommitPlanResponse(view=view)

    async def GetBattleView(
        self, request: b.BattleServiceGetBattleViewRequest, context: Any
    ) -> b.BattleServiceGetBattleViewResponse:
        battle_id, player = self._ids(request.battle_id, request.player_id)
        seen = await handlers.view(self._ctx, battle_id, player)
        return b.BattleServiceGetBattleViewResponse(view=self._view(seen))

    async def GiveUp(
        self, request: b.BattleServiceGiveUpRequest, context: Any
    ) -> b.BattleServiceGiveUpResponse:
        battle_id, player = self._ids(request.battle_id, request.player_id)
        key = Request.of(player, request_id(request.request_id), "give_up", battle_id)
        seen = await handlers.give_up(self._ctx, key, battle_id, player)
        return b.BattleServiceGiveUpResponse(view=self._view(seen))

    async def GetActiveBattle(
        self, request: b.BattleServiceGetActiveBattleRequest, context: Any
    ) -> b.BattleServiceGetActiveBattleResponse:
        bind(battle_id="", player_id=request.player_id)
        player = require(request.player_id, "player_id")
        found = await handlers.active_battle(self._ctx, player)
        if found is None:
            return b.BattleServiceGetActiveBattleResponse()
        return b.BattleServiceGetActiveBattleResponse(
            battle_id=found.battle_id, taken_over=found.taken_over
        )

    async def ReportPresence(
        self, request: b.BattleServiceReportPresenceRequest, context: Any
    ) -> b.BattleServiceReportPresenceResponse:
        bind(battle_id="", player_id=request.player_id)
        player = require(request.player_id, "player_id")
        session = require(request.session_id, "session_id")
        if not request.HasField("open_time"):
            raise InvalidArgument("open_time is required: when the session opened")
        found = await handlers_timers.report_presence(
            self._ctx,
            player,
            session,
            request.connected and not request.leaving,
            wire.moment(request.open_time),
            applied=not request.leaving,
        )
        connected = request.connected and not request.leaving
        missed = await handlers_timers.missed_battle(self._ctx, player) if connected else None
        return b.BattleServiceReportPresenceResponse(
            battle_id=found or "", missed_battle_id=missed or ""
        )

    async def GetBattleEvents(
        self, request: b.BattleServiceGetBattleEventsRequest, context: Any
    ) -> b.BattleServiceGetBattleEventsResponse:
        read = partial(handlers.battle_events, self._ctx)
        reply = b.BattleServiceGetBattleEventsResponse
        return await answer_events(request, "battle_id", read, reply, self._admin_token, context)


def register(server: grpc.aio.Server, servicer: BattleServicer) -> None:
    battle_pb2_grpc.add_BattleServiceServicer_to_server(servicer, server)


SERVICE_NAME = b.DESCRIPTOR.services_by_name["BattleService"].full_name


def _check_turn(turn: int) -> None:
    """A turn before the first is malformed whatever the battle is at (INVALID_ARGUMENT),
    not a plan for another turn (FAILED_PRECONDITION)."""
    if turn < 1:
        raise InvalidArgument(
            f"turn {turn} is not a turn: turns count from 1 (send the view's turn)"
        )
