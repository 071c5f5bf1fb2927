"""``triad-admin``: operator commands.

``triad-admin match show MATCH_ID`` prints a match's events and its final board, rebuilt
from the log alone (GetMatchEvents; the operator token comes from TRIAD_ADMIN_TOKEN).

``triad-admin consumer list`` shows every idempotent consumer of the event stream with
its position and what it has left; ``triad-admin consumer reset NAME [--from POSITION]``
has it apply again the events after POSITION (default 0, the beginning), safely while
its service runs. These talk to PostgreSQL and NATS (TRIAD_DATABASE_URL,
TRIAD_NATS_URL): see ``services/platform/consumer_admin.py`` for how and why.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

import grpc
from triad.v1 import match_pb2 as m
from triad.v1 import match_pb2_grpc

from services import wire
from services.match import codec, domain
from services.match.domain.events import CardPlaced, MatchEvent, MatchFinished
from services.platform import consumer_admin, settings
from services.rules import Seat


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
        if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            # In a pod the default is every match pod, which the network policies keep
            # from one another: the pod's own server is the one it may ask.
            print(
                f"triad-admin: no match service answered at {address}; give --match-addr "
                "(in a match pod: --match-addr 127.0.0.1:50061)",
                file=sys.stderr,
            )
        return 1
    state: domain.Match | None = None
    for envelope in envelopes:
        setup = state.setup if state is not None else None
        event = codec.decode(
            envelope.event_type,
            envelope.schema_version,
            envelope.payload,
            wire.moment(envelope.record_time),
            setup,
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


def print_consumers(
    states: list[consumer_admin.ConsumerState], as_json: bool, schema: str | None = None
) -> None:
    if as_json:
        print(json.dumps([s.as_json() for s in states], indent=2))
        return
    if not states:
        where = f" in schema {schema!r} (is the name right?)" if schema else ""
        print(f"no consumers registered{where}; they register when their service starts")
        return
    header = f"{'schema':22} {'consumer':40} {'position':>9} {'left':>6}  last applied"
    print(header)
    for s in states:
        position = "absent" if s.position is None else str(s.position)
        left = "?" if s.pending is None else str((s.pending or 0) + (s.in_flight or 0))
        last = "never" if s.last_applied_at is None else s.last_applied_at.isoformat()
        print(f"{s.schema:22} {s.name:40} {position:>9} {left:>6}  {last}")
    print(f"\nposition: the stream sequence applied up to (stream at {states[0].stream_last});")
    print("left: events not yet delivered or not yet acknowledged")


async def consumers(args: argparse.Namespace) -> int:
    listed: list[consumer_admin.ConsumerState] | None = None
    try:
        async with consumer_admin.connections(args.database_url, args.nats_url) as servers:
            conn, js = servers.conn, servers.js
            if args.action == "list":
                listed = await consumer_admin.list_consumers(conn, js, args.schema)
            else:
                result = await consumer_admin.reset_consumer(
                    conn,
                    js,
                    args.name,
                    args.position,
                    args.schema,
                    nats_version=servers.nats_version,
                )
    except consumer_admin.AdminError as error:
        print(f"triad-admin: {error}", file=sys.stderr)
        return 1
    except (OSError, TimeoutError) as error:
        print(
            f"triad-admin: cannot reach PostgreSQL or NATS ({error!r}); check "
            "--database-url and --nats-url (make run writes them to .run/operator.env)",
            file=sys.stderr,
        )
        return 1
    # Printed once the servers are closed: a reader that goes away (| head) is not an
    # unreachable server.
    if listed is not None:
        print_consumers(listed, args.json, args.schema)
        return 0
    print(
        f"{result.name} ({result.schema}) moved from {result.previous} back to "
        f"{result.position}: {result.marks_forgotten} events will be applied again"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="triad-admin", description="Operator commands.")
    parser.add_argument(
        "--match-addr",
        default=os.environ.get("TRIAD_MATCH_ADDR", "127.0.0.1:50061"),
        help="the match service (default $TRIAD_MATCH_ADDR or %(default)s)",
    )
    parser.add_argument(
        "--database-url",
        default=os.environ.get("TRIAD_DATABASE_URL", ""),
        help="PostgreSQL, for consumer commands (default $TRIAD_DATABASE_URL)",
    )
    parser.add_argument(
        "--nats-url",
        default=os.environ.get("TRIAD_NATS_URL", ""),
        help="NATS, for consumer commands (default $TRIAD_NATS_URL)",
    )
    sub = parser.add_subparsers(dest="area", required=True)
    match_cmd = sub.add_parser("match", help="matches").add_subparsers(dest="action", required=True)
    show_cmd = match_cmd.add_parser("show", help="a match's events and final board from the log")
    show_cmd.add_argument("match_id")
    consumer_cmd = sub.add_parser(
        "consumer", help="the event stream's idempotent consumers"
    ).add_subparsers(dest="action", required=True)
    list_cmd = consumer_cmd.add_parser("list", help="each consumer's position and what it has left")
    list_cmd.add_argument("--json", action="store_true", help="as JSON")
    reset_cmd = consumer_cmd.add_parser(
        "reset", help="apply the events after a position again (safe while the service runs)"
    )
    reset_cmd.add_argument("name", help="the consumer, as `consumer list` names it")
    reset_cmd.add_argument(
        "--from",
        dest="position",
        type=int,
        default=0,
        metavar="POSITION",
        help="the stream sequence to go back to; later events are applied again (default 0)",
    )
    for cmd in (list_cmd, reset_cmd):
        cmd.add_argument("--schema", help="only the consumers of this schema (service)")
    args = parser.parse_args(argv)
    if args.area == "consumer":
        if not args.database_url or not args.nats_url:
            parser.error(
                "consumer commands need --database-url and --nats-url (or TRIAD_DATABASE_URL "
                "and TRIAD_NATS_URL): the ones the services use; make run writes them to "
                ".run/operator.env"
            )
        try:  # a malformed URL is the operator's to fix, said as the services say it
            settings.postgres_url({"--database-url": args.database_url}, "--database-url")
            settings.nats_url({"--nats-url": args.nats_url}, "--nats-url")
        except settings.SettingsError as error:
            parser.error(str(error))
        return asyncio.run(consumers(args))
    token = os.environ.get("TRIAD_ADMIN_TOKEN", "")
    if not token:
        parser.error("set TRIAD_ADMIN_TOKEN to the operator token the match service was given")
    return asyncio.run(show(args.match_addr, token, args.match_id))


def run(argv: list[str] | None = None) -> int:
    """``main``, where a reader that stops reading (``| head``) ends the output quietly,
    as it does any command's: it is no failure of the servers."""
    try:
        return main(argv)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to flush
        return 0


if __name__ == "__main__":
    sys.exit(run())
