"""Players for the race tests (and the e2e tests that reuse them): registered through the
API, a session kept open, a match at a custom table, placing cards on their turns, and
the shortened durations the races run against.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from typing import Any
from uuid import uuid4

import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD
from tests.e2e import sessions

TURN_SECONDS = 3.0


DISCONNECT_SECONDS = 3.0


TRADE_SECONDS = 2.0


SHORT_TOKEN_MINUTES = 0.06  # 3.6 s


MARGIN = 1.5
"""Seconds before a turn's end at which the scenarios that keep a match going place."""


ATTENDING: list[asyncio.Task[None]] = []


async def attend(p: Player) -> None:
    """Open a session for ``p`` (with their current token) and keep reading it until the
    test ends: without one a player counts as disconnected from their match."""
    opened = asyncio.Event()

    async def read() -> None:
        with contextlib.suppress(grpc.aio.AioRpcError):
            async for _ in p.api.OpenSession(g.OpenSessionRequest(), metadata=p.meta):
                opened.set()

    ATTENDING.append(asyncio.create_task(read()))
    await asyncio.wait_for(opened.wait(), 20)


async def stop_attending() -> None:
    """End the sessions ``attend`` kept open: the ``api`` fixtures call it as a test ends.
    Only this event loop's: a task of a test whose loop is closed went with it."""
    loop = asyncio.get_running_loop()
    mine = [session for session in ATTENDING if session.get_loop() is loop]
    ATTENDING.clear()
    for session in mine:
        session.cancel()
    await asyncio.gather(*mine, return_exceptions=True)


class Player(sessions.Player):
    """A player of the e2e sessions helpers, who can also list their copies."""

    async def copies(self) -> set[str]:
        reply = await self.call("ListCollection", g.ListCollectionRequest(page_size=200))
        return {e.copy.copy_id for e in reply.entries}


async def join(api: Any) -> Player:
    reply = await api.Register(
        g.RegisterRequest(
            request_id=uuid4().hex, player_name=f"r{uuid4().hex[:12]}", password=PASSWORD
        )
    )
    return Player(api, reply.player.player_id, reply.player.player_name, reply.tokens)


async def table_match(host: Player, guest: Player, rules: pb.Rules) -> str:
    """A match at a custom table, both players with a session open."""
    await asyncio.gather(attend(host), attend(guest))
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


async def code_of(pending: Any) -> tuple[grpc.StatusCode, Any]:
    try:
        return grpc.StatusCode.OK, await pending
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""


def cards_on(view: pb.MatchView) -> int:
    return sum(1 for c in view.board if c.WhichOneof("content") == "card")


async def mover_of(players: tuple[Player, Player], match_id: str) -> tuple[Player, pb.MatchView]:
    for p in players:
        view = await p.view(match_id)
        if view.status != pb.MATCH_STATUS_IN_PROGRESS or view.turn_seat == view.my_seat:
            return p, view
    raise AssertionError("nobody's turn")


async def place(p: Player, view: pb.MatchView, rng: random.Random) -> tuple[grpc.StatusCode, Any]:
    empty = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
    return await code_of(
        p.call(
            "PlaceCard",
            g.PlaceCardRequest(
                request_id=uuid4().hex,
                match_id=view.match_id,
                card_id=rng.choice(list(view.my_hand)).card.card_id,
                cell=rng.choice(empty),
            ),
        )
    )


async def play_out(
    players: tuple[Player, Player], match_id: str, rng: random.Random
) -> pb.MatchView:
    """Both place promptly on their turns until the match ends."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        mover, view = await mover_of(players, match_id)
        if view.status != pb.MATCH_STATUS_IN_PROGRESS:
            return view
        code, _ = await place(mover, view, rng)
        assert code in (grpc.StatusCode.OK, grpc.StatusCode.FAILED_PRECONDITION), code
    raise AssertionError("the match did not end")


async def one_way(p: Player, match_id: str) -> float:
    """About how long a call takes to reach the server now (half a round trip), so that
    a call aimed at a deadline lands on it rather than always after it."""
    started = time.monotonic()
    await p.view(match_id)
    return (time.monotonic() - started) / 2


TRADE_TABLE = pb.Rules(
    visibility=pb.VISIBILITY_CLOSED,
    same=True,
    plus=True,
    combo=True,
    trade_rule=pb.TRADE_RULE_ONE,
)
