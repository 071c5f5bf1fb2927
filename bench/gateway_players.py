"""The players of the gateway benchmarks (bench/gateway.py, bench/battle_gateway.py):
each registered over TLS with its own token, its session stream kept open and read,
and pairs of them starting private custom tables against each other and playing the
match out, each placement timed.

Calls are retried with the same request (so the same request id) while the gateway or
a service behind it is briefly unavailable; a match start the gateway refused (the last
match not settled yet, a table from an earlier try) is tried again from what the
players' views say.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from uuid import uuid4

import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from bench.load_connection import RETRY_CODES

PASSWORD = "gateway-bench-password"
SETTINGS = pb.TableSettings(
    rules=pb.Rules(
        visibility=pb.VISIBILITY_THREE_OPEN,
        same=True,
        plus=True,
        combo=True,
        trade_rule=pb.TRADE_RULE_NONE,
    ),
    random_deck=True,
)
REFUSED = frozenset(
    {
        grpc.StatusCode.FAILED_PRECONDITION,  # the last match not settled yet
        grpc.StatusCode.ALREADY_EXISTS,  # a table from an earlier try
        grpc.StatusCode.ABORTED,  # "your match is being started; ask again in a moment"
        grpc.StatusCode.NOT_FOUND,  # the table is gone
    }
)


@dataclass
class Player:
    name: str
    player_id: str = ""
    metadata: tuple[tuple[str, str], ...] = ()
    messages: int = 0
    """Session stream messages received."""
    session_id: str = ""
    """The open session's, named in each PlaceCard as the clients do."""


@dataclass
class Pair:
    host: Player
    guest: Player
    match_id: str = ""
    hands: dict[str, list[str]] = field(default_factory=dict)
    """Card ids left in each player's hand, by player name."""
    seats: dict[int, Player] = field(default_factory=dict)
    empty: list[int] = field(default_factory=list)
    turn: int = 0
    errors: list[str] = field(default_factory=list)
    table_id: str = ""
    """The host's open table for the next match, once created."""


async def register(stub: Any, player: Player) -> None:
    reply = await stub.Register(
        g.RegisterRequest(request_id=uuid4().hex, player_name=player.name, password=PASSWORD),
        timeout=60,
    )
    player.player_id = reply.player.player_id
    player.metadata = (("authorization", f"Bearer {reply.tokens.access_token}"),)


async def drain_session(stub: Any, player: Player) -> None:
    """Keep the player's session stream open and read (and drop) what it pushes."""
    with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
        async for push in stub.OpenSession(
            g.OpenSessionRequest(client_version="bench-gateway/1"), metadata=player.metadata
        ):
            player.messages += 1
            if push.HasField("session_opened"):
                player.session_id = push.session_opened.session_id


@contextlib.asynccontextmanager
async def signed_in(stub: Any, players: list[Player]) -> AsyncIterator[None]:
    """``players`` registered, each with its session stream open and read until the
    block ends."""
    for start in range(0, len(players), 8):  # scrypt is slow on purpose: a few at a time
        await asyncio.gather(*(register(stub, p) for p in players[start : start + 8]))
    sessions = [asyncio.create_task(drain_session(stub, p)) for p in players]
    try:
        yield
    finally:
        for task in sessions:
            task.cancel()
        await asyncio.gather(*sessions, return_exceptions=True)


async def call(method: Any, request: Any, player: Player) -> Any:
    """One call, retried with the same request (so the same request id) while the
    gateway or a service behind it is briefly unavailable."""
    for _ in range(50):
        try:
            return await method(request, metadata=player.metadata, timeout=10)
        except grpc.aio.AioRpcError as error:
            if error.code() not in RETRY_CODES:
                raise
            await asyncio.sleep(0.1)
    return await method(request, metadata=player.metadata, timeout=10)


async def new_match(stub: Any, pair: Pair) -> None:
    """Start the pair's next match, or take up the one they already have (a start
    that answered too late the first time, or one left from the previous level)."""
    for _ in range(200):
        host = await call(stub.GetActiveMatch, g.GetActiveMatchRequest(), pair.host)
        guest = await call(stub.GetActiveMatch, g.GetActiveMatchRequest(), pair.guest)
        if host.view.match_id and host.view.match_id == guest.view.match_id:
            await adopt(stub, pair, host.view.match_id)
            return
        for player, view in ((pair.host, host.view), (pair.guest, guest.view)):
            if view.match_id:  # a match without the other: give it up
                pair.errors.append(f"forfeit {view.match_id} of {player.name}")
                with contextlib.suppress(grpc.aio.AioRpcError):
                    await call(
                        stub.Forfeit,
                        g.ForfeitRequest(request_id=uuid4().hex, match_id=view.match_id),
                        player,
                    )
        try:
            if not pair.table_id:
                table = await call(
                    stub.CreateTable,
                    g.CreateTableRequest(
                        request_id=uuid4().hex,
                        settings=SETTINGS,
                        challenged_player_name=pair.guest.name,
                    ),
                    pair.host,
                )
                pair.table_id = table.table.table_id
            joined = await call(
                stub.JoinTable,
                g.JoinTableRequest(request_id=uuid4().hex, table_id=pair.table_id),
                pair.guest,
            )
        except grpc.aio.AioRpcError as error:
            if error.code() not in REFUSED:
                raise
            pair.errors.append(f"{error.code().name}: {error.details()}")
            if error.code() == grpc.StatusCode.ALREADY_EXISTS:  # an earlier try's table
                pair.table_id = _table_named(error.details() or "")
            elif error.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION):
                pair.table_id = ""  # gone, or started (then the next look finds the match)
            await asyncio.sleep(0.05)
            continue
        pair.table_id = ""
        await adopt(stub, pair, joined.match_id)
        return
    raise RuntimeError(f"no match for {pair.host.name}: {pair.errors[-8:]}")


async def adopt(stub: Any, pair: Pair, match_id: str) -> None:
    """Play ``match_id`` from here: hands from each player's view, board and turn."""
    views = [
        (await call(stub.GetMatchView, g.GetMatchViewRequest(match_id=match_id), player)).view
        for player in (pair.host, pair.guest)
    ]
    pair.match_id = match_id
    pair.hands, pair.seats = {}, {}
    for player, view in zip((pair.host, pair.guest), views, strict=True):
        pair.hands[player.name] = [c.card.card_id for c in view.my_hand]
        pair.seats[view.my_seat] = player
    newest = max(views, key=lambda v: v.version)
    pair.empty = [c.index for c in newest.board if c.WhichOneof("content") == "empty"]
    pair.turn = newest.turn_seat


def _table_named(details: str) -> str:
    """The table an ALREADY_EXISTS names ("you already host open table <id>: ...")."""
    found = re.search(r"table ([0-9a-f-]{36})", details)
    return found.group(1) if found else ""


async def play_out(stub: Any, pair: Pair, latencies: list[float]) -> int:
    """Play the pair's match to its end; the placements made. Each PlaceCard is timed."""
    placed = 0
    while pair.match_id:
        player = pair.seats[pair.turn]
        card, cell = pair.hands[player.name].pop(), pair.empty.pop()
        began = time.perf_counter()
        reply = await call(
            stub.PlaceCard,
            g.PlaceCardRequest(
                request_id=uuid4().hex,
                match_id=pair.match_id,
                card_id=card,
                cell=cell,
                session_id=player.session_id,
            ),
            player,
        )
        latencies.append(time.perf_counter() - began)
        placed += 1
        if reply.view.status == pb.MATCH_STATUS_FINISHED:
            pair.match_id = ""
        else:
            pair.turn = reply.view.turn_seat
    return placed
