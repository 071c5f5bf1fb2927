"""``triad-admin``: the operators' commands: matches and battles shown from their logs, and
the event stream's consumers listed and replayed.

``triad-admin match show MATCH_ID`` prints a match's events and its final board, rebuilt
from the log alone (``services/match/admin.py``: GetMatchEvents on ``--match-addr``).
``triad-admin battle show BATTLE_ID`` prints a battle's events, then its turn, each
team's units with their HP and the outcome, rebuilt from the log alone
(``services/battle/admin.py``: GetBattleEvents on ``--battle-addr``). Both send the
operator token from TRIAD_ADMIN_TOKEN, which the service must have been given.

``triad-admin consumer list`` shows every idempotent consumer of the event stream with
its position and what it has left; ``triad-admin consumer reset NAME --from POSITION``
has it apply again the events after POSITION (required: 0 is the beginning, everything
the stream still holds), safely while its service runs. These talk to PostgreSQL and
NATS (TRIAD_DATABASE_URL, TRIAD_NATS_URL): see ``services/platform/consumer_admin.py``
for how and why.

This module is no service's own: services never import each other's packages, so the
one tool that spans them takes each service's ``admin`` module from here.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable

import grpc

from services.battle import admin as battle_admin
from services.match import admin as match_admin
from services.platform import consumer_admin, settings
from services.platform.endpoints import default_address

SHOWS: dict[str, Callable[[str, str, str], Awaitable[None]]] = {
    "match": match_admin.show,
    "battle": battle_admin.show,
}
"""``show(address, token, id)`` of each service with events to show, by its name."""


async def show(service: str, address: str, token: str, item_id: str) -> int:
    """One ``show`` command: its output, or what went wrong on standard error and 1."""
    try:
        await SHOWS[service](address, token, item_id)
    except grpc.aio.AioRpcError as error:
        print(f"triad-admin: {refusal(service, address, error)}", file=sys.stderr)
        return 1
    return 0


def refusal(service: str, address: str, error: grpc.aio.AioRpcError) -> str:
    """One line for a failed ``show``: what to do when we know, else gRPC's own words."""
    option = f"--{service}-addr"
    if error.code() is grpc.StatusCode.PERMISSION_DENIED:
        return (
            f"the {service} service at {address} refused the operator token: "
            "set TRIAD_ADMIN_TOKEN to the one it was given"
        )
    if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        # In a pod the default is every pod of the service, which the network policies
        # keep from one another: the pod's own server is the one it may ask.
        return (
            f"no {service} service answered at {address}; give {option} "
            f"(in a {service} pod: {option} {default_address(service)})"
        )
    return f"{error.code().name}: {error.details()}"


def print_consumers(states: list[consumer_admin.ConsumerState], as_json: bool) -> None:
    if as_json:
        print(json.dumps([s.as_json() for s in states], indent=2))
        return
    if not states:
        print("no consumers registered; they register when their service starts")
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
        if not listed and args.schema:
            print(
                f"triad-admin: no consumers registered in schema {args.schema!r} "
                "(is the name right? `consumer list` names every schema)",
                file=sys.stderr,
            )
            return 1
        print_consumers(listed, args.json)
        return 0
    print(
        f"{result.name} ({result.schema}) moved from {result.previous} back to "
        f"{result.position}: {result.marks_forgotten} events will be applied again"
    )
    if result.previous > result.position:
        print(
            f"replaying stream sequences {result.position + 1} to {result.previous} "
            f"(those {result.name} takes); progress: triad-admin consumer list"
        )
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="triad-admin", description="Operator commands.")
    for service in SHOWS:
        variable = f"TRIAD_{service.upper()}_ADDR"
        parser.add_argument(
            f"--{service}-addr",
            default=os.environ.get(variable, default_address(service)),
            help=f"the {service} service (default ${variable} or %(default)s)",
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
    match_show = match_cmd.add_parser(
        "show",
        help="a match's events and final board from the log",
        epilog=_show_epilog("match"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    match_show.add_argument("item_id", metavar="match_id")
    battle_cmd = sub.add_parser("battle", help="Skirmish battles").add_subparsers(
        dest="action", required=True
    )
    battle_show = battle_cmd.add_parser(
        "show",
        help="a battle's events, then its teams and outcome, from the log",
        epilog=_show_epilog("battle"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    battle_show.add_argument("item_id", metavar="battle_id")
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
        required=True,
        metavar="POSITION",
        help="the stream sequence to go back to; later events are applied again (required: "
        "0 replays from the start, everything the stream still holds, up to "
        "TRIAD_NATS_STREAM_MAX_AGE_SECONDS back; `consumer list` shows each position)",
    )
    for cmd in (list_cmd, reset_cmd):
        cmd.add_argument("--schema", help="only the consumers of this schema (service)")
    return parser


def _show_epilog(service: str) -> str:
    port = default_address(service)
    return (
        f"Needs TRIAD_ADMIN_TOKEN: the operator token the {service} service was given\n"
        "(Secret triad-admin; a pod of the service has it in its environment).\n"
        f"In the cluster, ask the pod's own server (the network policies keep pods apart):\n"
        f"  kubectl -n triad exec deploy/triad-{service} -- \\\n"
        f"    triad-admin --{service}-addr {port} {service} show ID"
    )


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
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
        parser.error(
            f"set TRIAD_ADMIN_TOKEN to the operator token the {args.area} service was given"
        )
    address = getattr(args, f"{args.area}_addr")
    return asyncio.run(show(args.area, address, token, args.item_id))


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
