"""Custom tables with a trade rule in the load generator's mix (RULES.md 13, 14):
``direct``, ``difference`` and ``all`` in ``--mix`` are tables, not queues.

Two simulated players who drew the same table kind meet in the run (``Rendezvous``):
the one who was waiting is the guest, the other hosts a Closed Same/Plus/Combo table
with that trade rule as a challenge to the guest, who joins it when the challenge
arrives (pushed, or listed when the stream is down); both then play it like any match
(bench/load_client.py), and the winner of a Difference chooses d copies in one
ChooseTradeCard, or leaves them to the server's deadline.

A meeting that goes nowhere (no partner in time, a challenge refused, the host's table
closed before the guest came, a deck that cannot play: the guest declines) costs one
round: each player closes what it opened and starts again from the server's state, as
every round does.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Mapping
from typing import Any, Protocol
from uuid import uuid4

import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from bench.load_connection import Pushes
from bench.load_records import Meeting, Role, Shared

TABLES: Mapping[str, pb.TradeRule.ValueType] = {
    "direct": pb.TRADE_RULE_DIRECT,
    "difference": pb.TRADE_RULE_DIFFERENCE,
    "all": pb.TRADE_RULE_ALL,
}
"""Mix names of table kinds -> the table's trade rule."""
TABLE_NAMES = {rule: name for name, rule in TABLES.items()}

MEET_PATIENCE = 10.0
"""Seconds a player waits for a partner before it chooses again."""
TABLE_PATIENCE = 30.0
"""Seconds the host waits for its guest (and the guest for the challenge)."""
RANDOM_DECKS = 0.25
"""Share of tables hosted with Random decks (the rest: both players' saved decks)."""


def table_rules(rule: pb.TradeRule.ValueType) -> pb.Rules:
    """Every trade rule needs Closed visibility with Same, Plus and Combo (RULES.md 13)."""
    return pb.Rules(
        visibility=pb.VISIBILITY_CLOSED, same=True, plus=True, combo=True, trade_rule=rule
    )


class Rendezvous:
    """Pairs the run's players by table kind: the first to come waits, the second
    hosts a challenge to it (one event loop: no lock needed)."""

    def __init__(self) -> None:
        self._waiting: dict[str, tuple[str, asyncio.Future[str]]] = {}

    async def meet(self, kind: str, name: str, patience: float) -> Meeting | None:
        waiting = self._waiting.get(kind)
        if waiting is not None and waiting[0] == name:
            return None  # already waiting there: nobody meets themselves
        if waiting is not None:
            del self._waiting[kind]
            waiting[1].set_result(name)
            return Meeting(Role.HOST, waiting[0])
        partner: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._waiting[kind] = (name, partner)
        try:
            await asyncio.wait({partner}, timeout=patience)
        finally:
            if self._waiting.get(kind, ("", None))[1] is partner:
                del self._waiting[kind]
        if partner.done():
            return Meeting(Role.GUEST, partner.result())
        partner.cancel()
        return None


class TableClient(Protocol):
    """What the table flows use of a simulated player (bench/load_client.SimClient)."""

    name: str
    run: Shared
    rng: random.Random
    push: Pushes
    stream_up: bool
    tables: dict[str, pb.Table]
    """Tables hosted and challenges received, their newest state (pushed or listed)."""

    async def call(self, rpc: str, request: Any, *, retry: bool = True) -> Any: ...

    async def deck(self) -> pb.DeckChoice: ...

    async def play(self, match_id: str) -> None: ...


async def host(client: TableClient, guest: str, rule: pb.TradeRule.ValueType) -> None:
    """Open a challenge to ``guest`` with ``rule``, wait for them to join, play it."""
    random_deck = client.rng.random() < RANDOM_DECKS
    request = g.CreateTableRequest(
        request_id=uuid4().hex,
        settings=pb.TableSettings(rules=table_rules(rule), random_deck=random_deck),
        challenged_player_name=guest,
    )
    if not random_deck:
        request.deck.CopyFrom(await client.deck())
    try:
        table = (await client.call("CreateTable", request)).table
    except grpc.aio.AioRpcError as error:
        # the guest still in a match, or this player held by something: choose again
        if error.code() not in (
            grpc.StatusCode.FAILED_PRECONDITION,
            grpc.StatusCode.ALREADY_EXISTS,
        ):
            raise
        return
    client.tables.setdefault(table.table_id, table)
    match_id = await _joined(client, table.table_id)
    if match_id:
        await client.play(match_id)


async def _joined(client: TableClient, table_id: str) -> str | None:
    """The match once the guest joined; ``None`` when the table ended otherwise, or
    (closed here) when the guest did not come in time or the run stops."""
    give_up = time.monotonic() + TABLE_PATIENCE
    polled = time.monotonic()
    while True:
        seen = client.push.count
        table = client.tables.get(table_id)
        if table is not None and table.status == pb.TABLE_STATUS_STARTED:
            return table.match_id
        if table is not None and table.status != pb.TABLE_STATUS_OPEN:
            return None
        if time.monotonic() - polled >= (3.0 if client.stream_up else 0.5):
            polled = time.monotonic()
            status = (await client.call("GetPlayerStatus", g.GetPlayerStatusRequest())).status
            if status.active_match_id:
                return str(status.active_match_id)
            if status.hosted_table.table_id != table_id:
                return None  # started and over already, or ended: the round looks again
        if not client.run.playing or time.monotonic() > give_up:
            await close(client, table_id)  # started meanwhile: the next round plays it
            return None
        await client.push.after(seen, 0.5)


async def close(client: TableClient, table_id: str) -> None:
    with contextlib.suppress(grpc.aio.AioRpcError):  # started or ended meanwhile: fine
        await client.call(
            "CloseTable", g.CloseTableRequest(request_id=uuid4().hex, table_id=table_id)
        )


async def guest(client: TableClient, host_name: str) -> None:
    """Wait for ``host_name``'s challenge, join it, play it."""
    table = await _challenge(client, host_name)
    if table is None:
        return
    request = g.JoinTableRequest(request_id=uuid4().hex, table_id=table.table_id)
    if not table.settings.random_deck:
        request.deck.CopyFrom(await client.deck())
    try:
        joined = await client.call("JoinTable", request)
    except grpc.aio.AioRpcError as error:
        # closed by a host that gave up, or a deck that cannot play (a Random one drawn
        # from too few free copies): decline, so the host knows at once
        if error.code() not in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND):
            raise
        client.tables.pop(table.table_id, None)  # a closing push lost: not offered again
        with contextlib.suppress(grpc.aio.AioRpcError):  # not open any more: fine
            await client.call(
                "DeclineChallenge",
                g.DeclineChallengeRequest(request_id=uuid4().hex, table_id=table.table_id),
            )
        return
    await client.play(joined.match_id)


async def _challenge(client: TableClient, host_name: str) -> pb.Table | None:
    """The open challenge from ``host_name``: pushed, or listed while no push came."""
    give_up = time.monotonic() + TABLE_PATIENCE
    polled = time.monotonic()
    while True:
        seen = client.push.count
        pushed = [
            t
            for t in client.tables.values()
            if t.host_name == host_name and t.status == pb.TABLE_STATUS_OPEN
        ]
        if pushed:
            return max(pushed, key=lambda t: t.create_time.ToNanoseconds())
        if time.monotonic() - polled >= (3.0 if client.stream_up else 0.5):
            polled = time.monotonic()
            listed = await client.call(
                "ListTables",
                g.ListTablesRequest(filter=pb.TableFilter(challenges_only=True)),
            )
            for table in listed.tables:
                if table.host_name == host_name:
                    return table  # type: ignore[no-any-return]
        if not client.run.playing or time.monotonic() > give_up:
            return None
        await client.push.after(seen, 0.5)
