"""``triad-admin``: operator commands.

``triad-admin match show MATCH_ID`` prints a match's events and its final board, rebuilt
from the log alone (GetMatchEvents; the operator token comes from TRIAD_ADMIN_TOKEN).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

import grpc
from triad.v1 import match_pb2 as m
from triad.v1 import match_pb2_grpc

from services import wire
from services.match import domain, mapping
from services.match.events import CardPlaced, MatchEvent, MatchFinished
from services.match.rules import Seat


async def fetch_events(address: str, token: str, match_id: str) -> list[Any]:
    envelopes: list[Any] = []
    async with grpc.aio.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        version = 1
        while version:
            reply = await stub.GetMatchEvents(
                m.MatchServiceGetMatchEventsRequest(match_id=match_id, from_version=version),
                metadata=(("authorization", f"Bearer {token}"),),
                timeout=10,
            )
            envelopes.extend(reply.events)
            version = reply.next_version
    return envelopes


def describe(event: MatchEvent) -> str:
    if isinstance(event, CardPlaced):
        taken = ", ".join(f"{c.cell}:{c.cause.value}" for c in event.captures) or "none"
        auto = " (auto-played)" if event.auto_played else ""
        return f"{event.seat.name} places {event.card_id} on {event.cell}{auto}; captures {taken}"
    if isinstance(event, MatchFinished):
        winner = "draw" if event.winner is None else f"{event.winner.name} wins"
        return f"{winner} {event.scores[0]}-{event.scores[1]} ({event.reason.value})"
    return ", ".join(
        f"{name}={getattr(event, name)}"
        for name in getattr(event, "__slots__", ())
        if name not in ("match_id", "setup", "seats", "marks")
    )


def board_text(match: domain.Match) -> str:
    board = match.position.board
    rows = []
    for row in range(board.geometry.rows):
        cells = []
        for col in range(board.geometry.cols):
            index = row * board.geometry.cols + col
            card, owner = board.cards[index], board.owners[index]
            if index in board.geometry.blocked:
                cells.append("  ####  ")
            elif card is None or owner is None:
                cells.append(f"  ({index:2})  ")
            else:
                t, r, b, left = card.sides
                cells.append(f"{Seat(owner).name}:{t:X}{r:X}{b:X}{left:X} ")
        rows.append(" | ".join(cells))
    return "\n".join(rows)


async def show(address: str, token: str, match_id: str) -> int:
    try:
        envelopes = await fetch_events(address, token, match_id)
    except grpc.aio.AioRpcError as error:
        print(f"triad-admin: {error.code().name}: {error.details()}", file=sys.stderr)
        return 1
    state: domain.Match | None = None
    for envelope in envelopes:
        setup = state.setup if state is not None else None
        event = mapping.decode(
            envelope.event_type, envelope.payload, wire.moment(envelope.record_time), setup
        )
        state = domain.evolve(state, event)
        print(
            f"{envelope.version:4}  {envelope.event_type.removeprefix('triad.v1.'):20} "
            f"{describe(event)}"
        )
    if state is not None:
        a, b = (state.player(seat) for seat in (Seat.A, Seat.B))
        print(f"\nA = {a.name}   B = {b.name}   scores {state.scores()[0]}-{state.scores()[1]}")
        print(board_text(state))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="triad-admin", description="Operator commands.")
    parser.add_argument(
        "--match-addr",
        default=os.environ.get("TRIAD_MATCH_ADDR", "127.0.0.1:50061"),
        help="the match service (default $TRIAD_MATCH_ADDR or %(default)s)",
    )
    sub = parser.add_subparsers(dest="area", required=True)
    match_cmd = sub.add_parser("match", help="matches").add_subparsers(dest="action", required=True)
    show_cmd = match_cmd.add_parser("show", help="a match's events and final board from the log")
    show_cmd.add_argument("match_id")
    args = parser.parse_args(argv)
    token = os.environ.get("TRIAD_ADMIN_TOKEN", "")
    if not token:
        parser.error("set TRIAD_ADMIN_TOKEN to the operator token the match service was given")
    return asyncio.run(show(args.match_addr, token, args.match_id))


if __name__ == "__main__":
    sys.exit(main())
