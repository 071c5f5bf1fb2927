"""Players and their session streams as the end-to-end tests drive them through the
gateway: a registered player with their tokens, a session stream read in the background
(pushes kept in order, awaited by predicate), and the small moves the tests share."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any
from uuid import uuid4

import grpc
from google.protobuf.message import Message
from triad.v1 import collection_pb2 as c
from triad.v1 import collection_pb2_grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD
from devtools.stack import Stack
from services.collection.tests.process import ADMIN
from services.match.mapping import card_back
from services.rules import Board, Geometry, Position, Rules, Seat
from services.wire import ELEMENTS_BACK

WAIT = 15.0
"""Seconds any awaited push may take before the test fails."""


@dataclass
class Player:
    api: Any
    id: str
    name: str
    tokens: g.AuthTokens

    @property
    def meta(self) -> tuple[tuple[str, str]]:
        return (("authorization", f"Bearer {self.tokens.access_token}"),)

    async def call(self, rpc: str, request: Message) -> Any:
        return await getattr(self.api, rpc)(request, metadata=self.meta, timeout=20)

    async def view(self, match_id: str) -> pb.MatchView:
        reply = await self.call("GetMatchView", g.GetMatchViewRequest(match_id=match_id))
        return reply.view  # type: ignore[no-any-return]


def easy_practice() -> g.StartPracticeRequest:
    """A practice match against an easy bot, Unranked's rules, a Random deck."""
    return g.StartPracticeRequest(
        request_id=uuid4().hex,
        origin_mode=pb.MODE_UNRANKED,
        bot_level=pb.BOT_LEVEL_EASY,
        deck=pb.DeckChoice(random=pb.RandomDeck()),
    )


async def join(api: Any) -> Player:
    reply = await api.Register(
        g.RegisterRequest(
            request_id=uuid4().hex, player_name=f"n{uuid4().hex[:12]}", password=PASSWORD
        )
    )
    return Player(api, reply.player.player_id, reply.player.player_name, reply.tokens)


@dataclass
class Session:
    """A player's session stream, read in the background; pushes are kept in order."""

    player: Player
    api: Any
    pushes: list[g.OpenSessionResponse] = field(default_factory=list)
    _arrived: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, player: Player, api: Any | None = None) -> Session:
        session = cls(player, api or player.api)
        session._task = asyncio.create_task(session._read())
        await session.wait_for(lambda p: p.HasField("session_opened"))
        return session

    async def _read(self) -> None:
        with contextlib.suppress(grpc.aio.AioRpcError):
            async for push in self.api.OpenSession(
                g.OpenSessionRequest(), metadata=self.player.meta
            ):
                self.pushes.append(push)
                self._arrived.set()

    async def wait_for(
        self, found: Callable[[g.OpenSessionResponse], bool]
    ) -> g.OpenSessionResponse:
        async def look() -> g.OpenSessionResponse:
            seen = 0
            while True:
                for push in self.pushes[seen:]:
                    if found(push):
                        return push
                seen = len(self.pushes)
                self._arrived.clear()
                await self._arrived.wait()

        return await asyncio.wait_for(look(), WAIT)

    async def view_where(
        self, match_id: str, found: Callable[[pb.MatchView], bool]
    ) -> pb.MatchView:
        push = await self.wait_for(
            lambda p: (
                p.HasField("match_view")
                and p.match_view.match_id == match_id
                and found(p.match_view)
            )
        )
        return push.match_view

    async def attached(self, match_id: str) -> None:
        """Wait until the session shows the match (it follows it)."""
        await self.wait_for(
            lambda p: (
                (p.HasField("match_view") and p.match_view.match_id == match_id)
                or p.session_opened.active_match.match_id == match_id
            )
        )

    def notices(self, code: str) -> list[g.Notice]:
        return [p.notice for p in self.pushes if p.HasField("notice") and p.notice.code == code]

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


async def table_match(host: Player, guest: Player, rules: pb.Rules) -> str:
    table = await host.call(
        "CreateTable",
        g.CreateTableRequest(
            request_id=uuid4().hex, settings=pb.TableSettings(rules=rules, random_deck=True)
        ),
    )
    joined = await guest.call(
        "JoinTable", g.JoinTableRequest(request_id=uuid4().hex, table_id=table.table.table_id)
    )
    return str(joined.match_id)


OPEN_TABLE = pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN, same=True, plus=True, combo=True)
TRADE_TABLE = pb.Rules(
    visibility=pb.VISIBILITY_CLOSED, same=True, plus=True, combo=True, trade_rule=pb.TRADE_RULE_ONE
)


def seat_of(view: pb.MatchView, name: str) -> pb.MatchPlayerView:
    return next(p for p in view.players if p.player_name == name)


def seconds(stamp: Any) -> float:
    return float(stamp.ToDatetime(tzinfo=UTC).timestamp())


async def place_any(player: Player, view: pb.MatchView, session_id: str = "") -> pb.MatchView:
    """A card of the hand on an empty cell (naming ``session_id`` as the client's own:
    PlaceCardRequest.session_id)."""
    empty = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
    reply = await player.call(
        "PlaceCard",
        g.PlaceCardRequest(
            request_id=uuid4().hex,
            match_id=view.match_id,
            card_id=view.my_hand[0].card.card_id,
            cell=empty[0],
            session_id=session_id,
        ),
    )
    return reply.view  # type: ignore[no-any-return]


async def mover(players: tuple[Player, Player], match_id: str) -> tuple[Player, Player]:
    """(the player to move, the other)."""
    first, second = players
    view = await first.view(match_id)
    return (first, second) if view.turn_seat == view.my_seat else (second, first)


SEAT_OF = {pb.SEAT_A: Seat.A, pb.SEAT_B: Seat.B}
PB_SEAT = {Seat.A: pb.SEAT_A, Seat.B: pb.SEAT_B}


def position_of(view: pb.MatchView) -> Position:
    """The rules engine's position of the round a view shows, for a view that shows
    both hands in full (All Open): its board with the round's blocked cells and marks,
    each card on it with its owner, both hands and the seat to move."""
    shape = view.rules.board
    rows, cols = shape.rows or 3, shape.columns or 3
    blocked = frozenset(c.index for c in view.board if c.WhichOneof("content") == "blocked")
    r = view.rules
    rules = Rules(
        same=r.same, plus=r.plus, combo=r.combo, elemental=r.elemental, same_wall=r.same_wall
    )
    board = Board.empty(
        Geometry.of(rows, cols, blocked), rules, [ELEMENTS_BACK[c.mark] for c in view.board]
    )
    for cell in view.board:
        if cell.WhichOneof("content") == "card":
            placed = cell.card
            card = card_back(placed.card).rules_card()
            board = board.with_card(cell.index, card, SEAT_OF[placed.owner_seat])
    mine = tuple(card_back(c.card).rules_card() for c in view.my_hand)
    theirs = []
    for slot in view.opponent_hand:
        assert slot.WhichOneof("slot") == "revealed", "a hidden card: not an All Open view"
        theirs.append(card_back(slot.revealed).rules_card())
    seat = SEAT_OF[view.my_seat]
    hands = (mine, tuple(theirs)) if seat is Seat.A else (tuple(theirs), mine)
    return Position(board, hands, SEAT_OF[view.turn_seat])


async def granted_deck(
    backend: Stack, player: Player, characters: list[str], name: str = "Granted"
) -> str:
    """A saved deck of copies an operator granted the player: exactly these characters."""
    async with grpc.aio.insecure_channel(backend.backend.address("collection")) as channel:
        stub = collection_pb2_grpc.CollectionServiceStub(channel)
        granted = await stub.GrantCopies(
            c.CollectionServiceGrantCopiesRequest(
                request_id=uuid4().hex,
                player_id=player.id,
                character_ids=characters,
                reason="e2e",
            ),
            metadata=(("authorization", f"Bearer {ADMIN}"),),
            timeout=20,
        )
    saved = await player.call(
        "SaveDeck",
        g.SaveDeckRequest(
            request_id=uuid4().hex, name=name, copy_ids=[x.copy_id for x in granted.copies]
        ),
    )
    assert not saved.deck.violations, saved.deck.violations
    return str(saved.deck.deck_id)
