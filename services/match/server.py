"""The MatchService gRPC edge: protobuf in, handlers, protobuf out. Nothing else."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from functools import partial
from typing import Any

import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import match_pb2 as m
from triad.v1 import match_pb2_grpc

from services import wire
from services.match import handlers, handlers_reads, mapping
from services.match.domain import Match
from services.match.domain.events import MatchCard, MatchRules, SeatPlayer
from services.match.handlers import Context
from services.match.presenter import SeatViews
from services.platform.edge import bind, require
from services.platform.enums import require_enum
from services.platform.errors import InvalidArgument
from services.platform.eventpages import answer_events
from services.platform.notifier import Notifier
from services.platform.requests import Request
from services.rules import validate_deck
from services.rules.compatibility import (
    board_problem,
    rule_set_problem,
    sudden_death_problem,
)
from services.rules.deck import STAR_LIMITS, DeckEntry, hand_size_for

STREAM_RECHECK_SECONDS = 5.0


def _setup(request: m.MatchServiceCreateMatchRequest) -> tuple[MatchRules, int]:
    """The match's rules, and how many cells its start draws blocked (RULES.md 11)."""
    rules = request.rules
    require_enum(request.mode, pb.Mode.DESCRIPTOR, "mode")
    require_enum(rules.visibility, pb.Visibility.DESCRIPTOR, "rules.visibility")
    require_enum(rules.trade_rule, pb.TradeRule.DESCRIPTOR, "rules.trade_rule", unspecified_ok=True)
    problem = rule_set_problem(
        closed=rules.visibility == pb.VISIBILITY_CLOSED,
        same=rules.same,
        plus=rules.plus,
        combo=rules.combo,
        trade=mapping.TRADE_NAMES.get(rules.trade_rule, ""),
        realm=rules.family == pb.RULES_FAMILY_REALM,
        same_wall=rules.same_wall,
    )
    if problem is not None:
        raise InvalidArgument(problem)
    require_enum(rules.family, pb.RulesFamily.DESCRIPTOR, "rules.family", unspecified_ok=True)
    if rules.sudden_death and (
        refused := sudden_death_problem(pb.Mode.Name(request.mode).removeprefix("MODE_").lower())
    ):
        raise InvalidArgument(refused)
    board = rules.board
    given = len(set(board.blocked_cells))
    if given and board.blocked_count and board.blocked_count != given:
        raise InvalidArgument(
            f"board.blocked_count is {board.blocked_count} but {given} blocked cells are given"
        )
    count = given or board.blocked_count
    problem = board_problem(
        rows=board.rows or 3,
        cols=board.columns or 3,
        blocked=count,
        house_hands=rules.house_hands,
        trades=rules.trade_rule not in (pb.TRADE_RULE_UNSPECIFIED, pb.TRADE_RULE_NONE),
        realm=rules.family == pb.RULES_FAMILY_REALM,
    )
    if problem is not None:
        raise InvalidArgument(problem)
    try:
        setup = mapping.setup_back(
            request.mode,
            request.origin_mode,
            rules,
            request.ladder if request.HasField("ladder") else None,
        )
    except (KeyError, ValueError) as error:
        raise InvalidArgument(f"rules or mode are not valid: {error}") from None
    return setup, 0 if given else count


def _card(message: pb.Card, field: str) -> MatchCard:
    """A card the request brings (``field`` names where, for the error): it has an id,
    and every side, printed or played, is 1 to 10."""
    value = mapping.card_back(message)
    require(value.card_id, f"{field}.card_id")
    if not all(1 <= s <= 10 for s in (*value.sides, *value.base_sides)):
        raise InvalidArgument(f"card {value.card_id}: sides run from 1 to 10")
    return value


def _seat(
    setup_message: m.SeatSetup, setup: MatchRules
) -> tuple[SeatPlayer, tuple[MatchCard, ...]]:
    player = mapping.seat_player_back(setup_message.player)
    require(player.player_id, "seats.player.player_id")
    require(player.name, "seats.player.player_name")
    if player.is_bot and not player.name.startswith("[BOT] "):
        raise InvalidArgument("a bot's name must carry the [BOT] label")
    cards = []
    for card in setup_message.deck:
        value = _card(card, "seats.deck")
        if not 1 <= value.stars <= 5:
            raise InvalidArgument(f"card {value.card_id}: stars run from 1 to 5")
        cards.append(value)
    wanted = hand_size_for(setup.rows)
    if len(cards) != wanted:
        raise InvalidArgument(
            f"{player.name}'s deck: a {setup.rows}x{setup.cols} table needs a deck of "
            f"{wanted}; this one holds {len(cards)}"
        )
    if len(cards) in STAR_LIMITS:
        broken = validate_deck([DeckEntry(c.card_id, c.character_id, c.stars) for c in cards])
        if broken:
            raise InvalidArgument(f"{player.name}'s deck: {broken[0].message}")
    return player, tuple(cards)


class MatchServicer(match_pb2_grpc.MatchServiceServicer):
    def __init__(
        self, ctx: Context, notifier: Notifier, admin_token: str | None, views: SeatViews
    ) -> None:
        """``views``: what ``ctx.announce`` pushes; a command's reply reuses the view
        pushed to its caller."""
        self._ctx = ctx
        self._notifier = notifier
        self._admin_token = admin_token
        self._views = views

    def _view(self, match: Match, player_id: str) -> pb.MatchView:
        return self._views.build(match, player_id)

    async def CreateMatch(
        self, request: m.MatchServiceCreateMatchRequest, context: Any
    ) -> m.MatchServiceCreateMatchResponse:
        bind(match_id=request.match_id, player_id="")
        require(request.request_id, "request_id")
        match_id = require(request.match_id, "match_id")
        setup, blocked_count = _setup(request)
        if len(request.seats) != 2:
            raise InvalidArgument(f"a match has two seats, got {len(request.seats)}")
        (p_a, hand_a), (p_b, hand_b) = (_seat(s, setup) for s in request.seats)
        if setup.trades and (p_a.is_bot or p_b.is_bot):
            raise InvalidArgument("games with a bot never trade")
        key = Request.of(
            "create", request.request_id, request.SerializeToString(deterministic=True)
        )
        started = await handlers.start_match(
            self._ctx,
            key,
            match_id,
            setup,
            (p_a, p_b),
            (hand_a, hand_b),
            request.origin_id,
            blocked_count,
            tuple(_card(c, "realm_draw_pile") for c in request.realm_draw_pile),
        )
        return m.MatchServiceCreateMatchResponse(
            match_id=started.match.match_id,
            version=started.match.version,
            created=started.created,
        )

    async def GetView(
        self, request: m.MatchServiceGetViewRequest, context: Any
    ) -> m.MatchServiceGetViewResponse:
        bind(match_id=request.match_id, player_id=request.player_id)
        match = await handlers_reads.view(
            self._ctx, require(request.match_id, "match_id"), request.player_id
        )
        return m.MatchServiceGetViewResponse(view=self._view(match, request.player_id))

    async def StreamView(
        self, request: m.MatchServiceStreamViewRequest, context: Any
    ) -> AsyncIterator[m.MatchServiceStreamViewResponse]:
        bind(match_id=request.match_id, player_id=request.player_id)
        match_id = require(request.match_id, "match_id")
        await handlers_reads.view(self._ctx, match_id, request.player_id)
        sent = request.after_version
        with self._notifier.watch(match_id) as changed:
            known: int | None = None  # the first view comes from the log
            while True:
                changed.clear()
                match = await handlers_reads.view(self._ctx, match_id, request.player_id, known)
                if match.version > sent:
                    sent = match.version
                    yield m.MatchServiceStreamViewResponse(
                        view=self._view(match, request.player_id)
                    )
                if not match.in_progress:
                    return
                try:
                    await asyncio.wait_for(changed.wait(), STREAM_RECHECK_SECONDS)
                    # The version the notice named: the state this process cached when
                    # it wrote that version serves without a read of the log.
                    known = self._notifier.version_of(match_id)
                except TimeoutError:
                    known = None  # a notice may have been missed: read the log

    async def PlaceCard(
        self, request: m.MatchServicePlaceCardRequest, context: Any
    ) -> m.MatchServicePlaceCardResponse:
        bind(match_id=request.match_id, player_id=request.player_id)
        require(request.request_id, "request_id")
        match_id = require(request.match_id, "match_id")
        player = require(request.player_id, "player_id")
        card = require(request.card_id, "card_id")
        if request.cell < 0:
            raise InvalidArgument(f"cell {request.cell} is not on the board (cells count from 0)")
        lair = ("lair",) if request.lair else ()  # standard moves keep their fingerprint
        key = Request.of(player, request.request_id, match_id, card, request.cell, *lair)
        expected = request.expected_version if request.HasField("expected_version") else None
        if expected is not None and expected < 0:
            raise InvalidArgument(
                f"expected_version {expected} is not a version: send the view's version (0 or more)"
            )
        match = await handlers.place_card(
            self._ctx,
            key,
            match_id,
            player,
            card,
            request.cell,
            expected,
            request.lair,
            in_reply=request.placer_view_in_reply,
        )
        return m.MatchServicePlaceCardResponse(view=self._views.reply(match, player))

    async def Forfeit(
        self, request: m.MatchServiceForfeitRequest, context: Any
    ) -> m.MatchServiceForfeitResponse:
        bind(match_id=request.match_id, player_id=request.player_id)
        require(request.request_id, "request_id")
        match_id = require(request.match_id, "match_id")
        player = require(request.player_id, "player_id")
        key = Request.of(player, request.request_id, "forfeit", match_id)
        match = await handlers.forfeit(self._ctx, key, match_id, player)
        return m.MatchServiceForfeitResponse(view=self._views.reply(match, player))

    async def ReportPresence(
        self, request: m.MatchServiceReportPresenceRequest, context: Any
    ) -> m.MatchServiceReportPresenceResponse:
        bind(match_id="", player_id=request.player_id)
        player = require(request.player_id, "player_id")
        session = require(request.session_id, "session_id")
        require_enum(request.state, m.PresenceState.DESCRIPTOR, "state")
        connected = request.state == m.PRESENCE_STATE_CONNECTED
        opened = wire.moment(request.open_time) if request.HasField("open_time") else None
        leaving = request.state == m.PRESENCE_STATE_LEAVING  # recorded, not applied yet
        match_id = await handlers.report_presence(
            self._ctx, player, session, connected, opened, applied=not leaving
        )
        missed = await handlers.missed_match(self._ctx, player) if connected else None
        return m.MatchServiceReportPresenceResponse(
            match_id=match_id or "", missed_match_id=missed or ""
        )

    async def GetActiveMatch(
        self, request: m.MatchServiceGetActiveMatchRequest, context: Any
    ) -> m.MatchServiceGetActiveMatchResponse:
        bind(match_id="", player_id=request.player_id)
        player = require(request.player_id, "player_id")
        active, away = await asyncio.gather(
            handlers_reads.active_match(self._ctx, player),
            handlers_reads.away_since(self._ctx, player),
        )
        reply = m.MatchServiceGetActiveMatchResponse(away_since=wire.timestamp(away))
        if active is not None:
            reply.active_match.CopyFrom(
                m.ActiveMatch(
                    match_id=active.match.match_id,
                    mode=mapping.MODES[active.match.setup.mode],
                    seat=mapping.SEATS[active.seat],
                    version=active.match.version,
                )
            )
        return reply

    async def GetMatchEvents(
        self, request: m.MatchServiceGetMatchEventsRequest, context: Any
    ) -> m.MatchServiceGetMatchEventsResponse:
        read = partial(handlers_reads.match_events, self._ctx)
        reply = m.MatchServiceGetMatchEventsResponse
        return await answer_events(request, "match_id", read, reply, self._admin_token, context)


def register(server: grpc.aio.Server, servicer: MatchServicer) -> None:
    match_pb2_grpc.add_MatchServiceServicer_to_server(servicer, server)


SERVICE_NAME = m.DESCRIPTOR.services_by_name["MatchService"].full_name
