"""``triad-client``: play Gacha TriadAlpha from a terminal, over gRPC to the gateway.

Every action is also a non-interactive subcommand; ``--json`` prints the gateway's
answer as JSON, for scripts and tests. Tokens are kept per profile in a state file
($TRIAD_CLIENT_STATE, default ~/.triad-client.json) and refreshed when they expire.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import uuid
from pathlib import Path

import grpc
from rich.console import Console, Group, RenderableType
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

from client import commands
from client.arguments import Parser, within
from client.board import Layout
from client.commands_cards import deck_choice, practice_deck, queue_deck
from client.commands_lobby import rules_options, table_settings
from client.connection import (
    Client,
    ClientError,
    State,
    as_json,
    channel,
    out,
    password,
)
from client.failures import MAKE_RUN, advised
from client.leaving import stop_as_ctrl_c, ticket_named
from client.play import (
    LEVELS,
    MODES,
    QUEUES,
    card_id,
    play,
    queue_and_play,
    resume,
    switch_to_practice,
)
from client.render import earlier_boards, fitted, plain_console, screen
from client.scripted import play_json, queue_json
from client.status import battle_line, challenge_lines, status_text


async def current(client: Client, match_id: str) -> pb.MatchView:
    """The match as the server shows the caller now."""
    reply = await client.call(client.stub.GetMatchView, g.GetMatchViewRequest(match_id=match_id))
    return reply.view  # type: ignore[no-any-return]


ID_LENGTH = 32
"""A match id typed whole (32 hex digits, or 36 with dashes) is sent as typed."""


async def match_id(client: Client, typed: str) -> str:
    """The match ``typed`` names: its whole id, or the start of your active match's id,
    which the client prints cut to 8 characters ("Active match 3f2a9c1e"), or of one of
    your latest matches this client showed (found from outside: `view` of the match a
    screen had just shown as "match e8f7bb50" was refused for want of its whole id,
    which the player had never been shown)."""
    if len(typed) >= ID_LENGTH:
        return typed
    reply = await client.call(client.stub.GetActiveMatch, g.GetActiveMatchRequest())
    active = str(reply.view.match_id)
    if active and active.startswith(typed):  # "" (forfeit alone): the active match
        return active
    state = getattr(client, "state", None)
    seen = {m for m in (state.matches() if state else []) if typed and m.startswith(typed)}
    if len(seen) == 1:
        return str(seen.pop())
    raise ClientError(
        f"{typed!r} is not the start of your active match's id"
        + (f" ({active[:8]})" if active else " (you have none)")
        + " nor of one match this client showed you lately; name it by its whole id"
    )


async def match_command(client: Client, args: argparse.Namespace) -> pb.MatchView:
    """``view``, ``place`` or ``forfeit`` on ``args.match``: the match as it is after."""
    stub = client.stub
    named = await match_id(client, args.match)
    if args.command == "forfeit":
        ended = await client.call(
            stub.Forfeit, g.ForfeitRequest(request_id=uuid.uuid4().hex, match_id=named)
        )
        return ended.view  # type: ignore[no-any-return]
    if args.command == "view":
        return await current(client, named)
    cid = args.card
    if cid.isdigit():  # a place in the hand: the hand as it is now
        cid = card_id(await current(client, named), cid)
    placed = await client.call(
        stub.PlaceCard,
        g.PlaceCardRequest(
            request_id=args.request_id or uuid.uuid4().hex,
            match_id=named,
            card_id=cid,
            cell=args.cell,
            lair=args.lair,
        ),
    )
    return placed.view  # type: ignore[no-any-return]


def shown(console: Console, view: pb.MatchView, rounds: bool = False) -> RenderableType:
    """The match as the widest layout that fits the terminal's width draws it;
    ``rounds``: a Sudden Death match's earlier rounds' final boards above it (``view``,
    ``active``: the screen shows them five seconds only)."""

    def build(layout: Layout) -> RenderableType:
        drawn = screen(view, layout=layout)
        return Group(*earlier_boards(view, layout), drawn) if rounds else drawn

    return fitted(console, build, console.width)


async def run(args: argparse.Namespace) -> int:
    state = State(Path(args.state), args.profile)
    console = plain_console()
    async with channel(args) as chan:
        stub: gateway_pb2_grpc.TriadGatewayAsyncStub = gateway_pb2_grpc.TriadGatewayStub(chan)
        client = Client(stub, state)
        command = args.command
        if command in ("register", "login"):
            fields = {
                "request_id": uuid.uuid4().hex,
                "player_name": args.name,
                "password": password(args),
            }
            answer: g.RegisterResponse | g.LoginResponse
            if command == "register":
                answer = await stub.Register(g.RegisterRequest(**fields), timeout=15)
            else:
                answer = await stub.Login(g.LoginRequest(**fields), timeout=15)
            state.save(answer.player, answer.tokens)
            out(args, answer.player, f"Logged in as {answer.player.player_name}.")
        elif command == "logout":
            done = await client.call(
                stub.Logout, g.LogoutRequest(request_id=uuid.uuid4().hex, all_sessions=args.all)
            )
            state.forget()
            out(args, done, "Logged out.")  # found from outside: --json printed the words
        elif command == "status":
            status = (await client.call(stub.GetPlayerStatus, g.GetPlayerStatusRequest())).status
            # --json: the status as sent; in words, with the challenges to the player
            challenges = [] if args.json else await challenge_lines(client)
            out(args, status, status_text(status, challenges))
        elif command == "active":
            view = (await client.call(stub.GetActiveMatch, g.GetActiveMatchRequest())).view
            if args.json:
                out(args, view)
            elif view.match_id:
                console.print("You have an active battle!")  # RULES.md 5's words
                console.print(shown(console, view, rounds=True))
            else:
                print("No active match.")
                battle = g.GetActiveBattleResponse()
                with contextlib.suppress(grpc.aio.AioRpcError):  # no battle service here
                    battle = await client.call(stub.GetActiveBattle, g.GetActiveBattleRequest())
                if battle.battle_id:  # one game at a time: it keeps the player from a match
                    print(battle_line(battle.battle_id))
        elif command in ("view", "place", "forfeit"):
            view = await match_command(client, args)
            rounds = command == "view"
            out(args, view) if args.json else console.print(shown(console, view, rounds))
        elif command == "watch":
            seen = 0
            async for push in client.pushes():
                print(as_json(push), flush=True)
                seen += 1
                if args.count and seen >= args.count:
                    break
        elif command == "practice":
            custom = table_settings(args, None) if practice_mode(args) == "custom" else None
            started = await client.call(
                stub.StartPractice,
                g.StartPracticeRequest(
                    request_id=uuid.uuid4().hex,
                    origin_mode=MODES[practice_mode(args)],
                    bot_level=LEVELS[args.level],
                    deck=await practice_deck(client, args, custom),
                    custom_settings=custom,
                ),
            )
            if args.json:  # a script plays it with place
                out(args, started)
            else:
                console.print(f"Practice match {started.match_id} against a bot.")
                await play(client, console)
        elif command == "play":
            await (play_json(client) if args.json else resume(client, console))
        elif command == "queue":
            chosen = await deck_choice(client, args)
            if args.json:
                await queue_json(client, args.mode, chosen)
            else:
                await queue_and_play(client, console, args.mode, chosen)
        elif command == "enqueue":
            enqueued = await client.call(
                stub.Enqueue,
                g.EnqueueRequest(
                    request_id=uuid.uuid4().hex,
                    mode=MODES[args.mode],
                    deck=await queue_deck(client, args),
                ),
            )
            out(args, enqueued, f"Queued: ticket {enqueued.ticket.ticket_id}")
        elif command == "switch":
            ticket = (
                await client.call(stub.GetPlayerStatus, g.GetPlayerStatusRequest())
            ).status.ticket
            if ticket.status != pb.TICKET_STATUS_QUEUED:
                raise ClientError("you are in no queue: triad-client queue joins one")
            deck = await deck_choice(client, args) if args.deck else None
            switched = await switch_to_practice(client, ticket, args.level, deck)
            if args.json:
                out(args, switched)
            else:
                # Not played here: the queue screen of the terminal this comes from
                # plays it (a session here would take the player's from it).
                console.print(
                    f"Left the queue: practice match {switched.match_id[:8]} against a bot. "
                    "Your queue screen plays it; else triad-client play."
                )
        elif command == "cancel":
            cancelled = await client.call(
                stub.CancelTicket,
                g.CancelTicketRequest(
                    request_id=uuid.uuid4().hex, ticket_id=await ticket_named(client, args.ticket)
                ),
            )
            out(args, cancelled.ticket, "Left the queue.")
        elif command in commands.COMMANDS:
            return await commands.COMMANDS[command](client, args, console)
    return 0


RULE_OPTIONS = (
    "visibility", "same", "plus", "combo", "elemental", "same_wall", "board", "blocked",
    "house_hands", "sudden_death", "realm",
)  # fmt: skip
"""The table options a practice takes (``rules_options``): any of them makes it custom."""


def practice_mode(args: argparse.Namespace) -> str:
    """The mode whose rules a practice plays: ``--mode``, else custom when a table option
    is given (``--board 4x4`` alone is a custom practice), else unranked. A table option
    beside another mode is refused: it would be ignored."""
    chosen = [n for n, default in args.rule_defaults.items() if getattr(args, n) != default]
    mode = args.mode or ("custom" if chosen else "unranked")
    if chosen and mode != "custom":
        option = "--" + chosen[0].replace("_", "-")
        raise ClientError(
            f"{option} sets a custom practice's rules; {mode} has its own: "
            "leave --mode out (or use --mode custom)"
        )
    return str(mode)


def parser() -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = Parser(
        prog="triad-client", description=__doc__.split("\n\n")[0] if __doc__ else ""
    )
    p.add_argument(
        "--addr",
        default=os.environ.get("TRIAD_GATEWAY", "").strip() or MAKE_RUN,  # empty: unset
        help=f"the gateway's HOST:PORT (default: $TRIAD_GATEWAY if not empty, else {MAKE_RUN})",
    )
    p.add_argument("--ca", help="the gateway's CA certificate (default: .run/tls/gateway-dev.crt)")
    p.add_argument("--plaintext", action="store_true", help="no TLS (local tests only)")
    p.add_argument(
        "--state",
        default=os.environ.get("TRIAD_CLIENT_STATE", str(Path.home() / ".triad-client.json")),
        help="where your login is kept (default: $TRIAD_CLIENT_STATE, else ~/.triad-client.json)",
    )
    p.add_argument("--profile", default="default", help="several players on one machine")
    p.add_argument("--json", action="store_true", help="print answers as JSON")
    # --json and --profile also after the subcommand; SUPPRESS keeps one given before it.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print answers as JSON"
    )
    common.add_argument("--profile", default=argparse.SUPPRESS, help="players on one machine")
    sub = p.add_subparsers(dest="command", required=True)
    for name in ("register", "login"):
        cmd = sub.add_parser(name, parents=[common], help=f"{name} and keep the tokens")
        cmd.add_argument("name", help="your player name")
        cmd.add_argument("--password", help="or $TRIAD_PASSWORD, or asked")
    sub.add_parser(
        "logout", parents=[common], help="end this login (--all: every one)"
    ).add_argument("--all", action="store_true", help="every login of this player, anywhere")
    sub.add_parser("status", parents=[common], help="account, active match, obligations")
    sub.add_parser("active", parents=[common], help="your active match, if any")
    sub.add_parser("view", parents=[common], help="a match as you see it").add_argument(
        "match", help="its id, or the start of your active match's id"
    )
    place = sub.add_parser(
        "place", parents=[common], help="place a card: its hand index or id, and a cell"
    )
    place.add_argument("match", help="its id, or the start of your active match's id")
    place.add_argument("card", help="its number in your hand (0, 1, ...: view shows it) or id")
    place.add_argument("cell", type=int, help="0 at the top left, row by row")
    place.add_argument("--lair", action="store_true", help="declare Lair (Realm tables)")
    place.add_argument("--request-id")
    sub.add_parser("forfeit", parents=[common], help="give up a match: you lose it").add_argument(
        "match", nargs="?", default="", help="its id or its start (default: your active match)"
    )
    sub.add_parser(
        "watch", parents=[common], help="print session pushes as JSON lines"
    ).add_argument(
        "--count", type=within(0, 10**9), default=0, help="stop after this many (default: never)"
    )
    practice = sub.add_parser(
        "practice",
        parents=[common],
        help="play a practice match against a bot",
        epilog="A Skirmish battle against the CPU: triad-client battle.",
    )
    practice.add_argument(
        "--mode",
        choices=[m for m in sorted(MODES) if m not in ("practice", "battle")],
        help="whose rules (default unranked); custom: the table options below, which imply it",
    )
    practice.add_argument("--level", choices=sorted(LEVELS), default="novice")
    practice.add_argument(
        "--deck", help="a saved deck (its name, id or the start of it); default Random"
    )
    rules_options(practice, realm=True)
    practice.set_defaults(rule_defaults={n: practice.get_default(n) for n in RULE_OPTIONS})
    sub.add_parser(
        "play", parents=[common], help="play your active match, or wait for your next one"
    )
    queue = sub.add_parser(
        "queue", parents=[common], help="queue (a Random deck or --deck) and play the match found"
    )
    queue.add_argument("--mode", choices=QUEUES, default="unranked")
    queue.add_argument(
        "--deck", help="a saved deck (its name, id or the start of it); default Random"
    )
    enqueue = sub.add_parser(
        "enqueue", parents=[common], help="queue (a Random deck or --deck); watch shows the rest"
    )
    enqueue.add_argument("mode", choices=QUEUES)
    enqueue.add_argument(
        "--deck", help="a saved deck (its name, id or the start of it); default Random"
    )
    sub.add_parser("cancel", parents=[common], help="leave the queue").add_argument(
        "ticket", nargs="?", help="its id or the start of it (default: yours)"
    )
    switch = sub.add_parser(
        "switch", parents=[common], help="leave the queue for a practice match against a bot"
    )
    switch.add_argument("--level", choices=sorted(LEVELS), default="novice")
    switch.add_argument("--deck", help="a saved deck; default the ticket's (Draft: Random)")
    commands.add_parsers(sub, common)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    stop_as_ctrl_c()
    try:
        if args.command in ("register", "login"):
            # Where the tokens go, before an account is made that they could not reach
            # (found from outside: a state path in no directory registered the name, then
            # failed): its lock, as State writes it.
            Path(args.state).with_name(Path(args.state).name + ".lock").open("a").close()
            # Asked before the event loop runs: inside it, the loop's own SIGINT handler
            # took the first Ctrl-C while the prompt blocked, and a second was needed.
            args.password = password(args)
        return asyncio.run(run(args))
    except ClientError as error:
        print(f"triad-client: {error}", file=sys.stderr)
        return 2
    except grpc.aio.AioRpcError as error:
        print(f"triad-client: {advised(error, args)}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader went away (`watch | head`): not our failure
        # Nothing more reaches the reader; stdout's last flush at exit must not fail.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:  # the --ca or state file, say
        print(f"triad-client: {error.strerror or error}: {error.filename or ''}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
