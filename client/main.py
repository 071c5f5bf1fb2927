"""``triad-client``: play Gacha TriadAlpha from a terminal, over gRPC to the gateway.

Every action is also a non-interactive subcommand; ``--json`` prints the gateway's
answer as JSON, for scripts and tests. Tokens are kept per profile in a state file
($TRIAD_CLIENT_STATE, default ~/.triad-client.json) and refreshed when they expire.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
import sys
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from rich.console import Console
from rich.live import Live
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

from client.render import screen

T = TypeVar("T")
DEV_CA = Path(".run/tls/gateway-dev.crt")
MODES = {m.removeprefix("MODE_").lower(): v for m, v in pb.Mode.items() if v}
LEVELS = {m.removeprefix("BOT_LEVEL_").lower(): v for m, v in pb.BotLevel.items() if v}


class ClientError(Exception):
    """Something the user must fix; printed without a traceback."""


class State:
    def __init__(self, path: Path, profile: str) -> None:
        self.path, self.profile = path, profile
        self.data: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}

    @property
    def tokens(self) -> dict[str, str]:
        found = self.data.get(self.profile)
        if not found:
            raise ClientError(f"not logged in as profile {self.profile!r}: run register or login")
        return dict(found)

    def save(self, player: g.Player, tokens: g.AuthTokens) -> None:
        self.data[self.profile] = {
            "player_id": player.player_id,
            "player_name": player.player_name,
            "access_token": tokens.access_token,
            "refresh_token": tokens.refresh_token,
        }
        self._write()

    def update(self, tokens: g.AuthTokens) -> None:
        entry = self.tokens
        entry.update(access_token=tokens.access_token, refresh_token=tokens.refresh_token)
        self.data[self.profile] = entry
        self._write()

    def forget(self) -> None:
        self.data.pop(self.profile, None)
        self._write()

    def _write(self) -> None:
        self.path.write_text(json.dumps(self.data, indent=1))
        self.path.chmod(0o600)


class Client:
    def __init__(self, stub: Any, state: State) -> None:
        self.stub, self.state = stub, state

    def metadata(self) -> tuple[tuple[str, str]]:
        return (("authorization", f"Bearer {self.state.tokens['access_token']}"),)

    async def call(self, method: Callable[..., Awaitable[T]], request: Message) -> T:
        """An authenticated call; an expired access token is refreshed once."""
        try:
            return await method(request, metadata=self.metadata(), timeout=15)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAUTHENTICATED or "expired" not in (
                error.details() or ""
            ):
                raise
        refreshed = await self.stub.RefreshToken(
            g.RefreshTokenRequest(
                request_id=uuid.uuid4().hex, refresh_token=self.state.tokens["refresh_token"]
            ),
            timeout=15,
        )
        self.state.update(refreshed.tokens)
        return await method(request, metadata=self.metadata(), timeout=15)


def channel(args: argparse.Namespace) -> grpc.aio.Channel:
    if args.plaintext:
        return grpc.aio.insecure_channel(args.addr)
    ca = Path(args.ca) if args.ca else (DEV_CA if DEV_CA.exists() else None)
    root = ca.read_bytes() if ca is not None else None
    return grpc.aio.secure_channel(args.addr, grpc.ssl_channel_credentials(root_certificates=root))


def password(args: argparse.Namespace) -> str:
    return args.password or os.environ.get("TRIAD_PASSWORD") or getpass.getpass("Password: ")


def out(args: argparse.Namespace, message: Message, text: str = "") -> None:
    if args.json or not text:
        print(json.dumps(json_format.MessageToDict(message), indent=None if args.json else 1))
    else:
        print(text)


async def card_id(client: Client, match_id: str, card: str) -> str:
    """A card given as its index in the hand (0, 1, ...) or as its id."""
    if not card.isdigit():
        return card
    view = (
        await client.call(client.stub.GetMatchView, g.GetMatchViewRequest(match_id=match_id))
    ).view
    index = int(card)
    if not 0 <= index < len(view.my_hand):
        raise ClientError(f"your hand has cards 0..{len(view.my_hand) - 1}")
    return str(view.my_hand[index].card.card_id)


async def play(client: Client, console: Console, practice: argparse.Namespace | None) -> None:
    """Interactive: the session stream redraws the board; type "CARD CELL" to place."""
    if practice is not None:
        started = await client.call(
            client.stub.StartPractice,
            g.StartPracticeRequest(
                request_id=uuid.uuid4().hex,
                origin_mode=MODES[practice.mode],
                bot_level=LEVELS[practice.level],
                deck=pb.DeckChoice(random=pb.RandomDeck()),
            ),
        )
        console.print(f"Practice match {started.match_id} against a bot.")
    latest: dict[str, pb.MatchView] = {}
    stream = client.stub.OpenSession(
        g.OpenSessionRequest(client_version="triad-client/0.1"), metadata=client.metadata()
    )

    async def follow(live: Live) -> None:
        async for push in stream:
            kind = push.WhichOneof("push")
            view = None
            if kind == "session_opened" and push.session_opened.HasField("active_match"):
                view = push.session_opened.active_match
            elif kind == "match_view":
                view = push.match_view
            elif kind == "session_closed":
                live.console.print(f"Session closed: {push.session_closed.message}")
                return
            elif kind == "notice":
                live.console.print(push.notice.message)
            if view is not None:
                latest["view"] = view
                live.update(screen(view))

    with Live(console=console, auto_refresh=True, refresh_per_second=2) as live:
        follower = asyncio.create_task(follow(live))
        while not follower.done():
            view = latest.get("view")
            if view is None or view.status == pb.MATCH_STATUS_FINISHED:
                if view is not None:
                    break
                await asyncio.sleep(0.2)
                continue
            live.update(screen(view))
            if view.turn_seat != view.my_seat:
                await asyncio.sleep(0.2)
                continue
            line = await asyncio.to_thread(console.input, "card cell (or q to forfeit) > ")
            if line.strip() == "q":
                await client.call(
                    client.stub.Forfeit,
                    g.ForfeitRequest(request_id=uuid.uuid4().hex, match_id=view.match_id),
                )
                continue
            try:
                card, cell = line.split()
                cid = await card_id(client, view.match_id, card)
                reply = await client.call(
                    client.stub.PlaceCard,
                    g.PlaceCardRequest(
                        request_id=uuid.uuid4().hex,
                        match_id=view.match_id,
                        card_id=cid,
                        cell=int(cell),
                    ),
                )
                latest["view"] = reply.view
            except (ValueError, ClientError) as error:
                console.print(f"[red]{error}: type a card number and a cell number, e.g. 0 4")
            except grpc.aio.AioRpcError as error:
                console.print(f"[red]{error.details()}")
        follower.cancel()
    final = latest.get("view")
    if final is not None:
        console.print(screen(final))


async def run(args: argparse.Namespace) -> int:
    state = State(Path(args.state), args.profile)
    console = Console()
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
            await client.call(
                stub.Logout, g.LogoutRequest(request_id=uuid.uuid4().hex, all_sessions=args.all)
            )
            state.forget()
            print("Logged out.")
        elif command == "status":
            out(args, (await client.call(stub.GetPlayerStatus, g.GetPlayerStatusRequest())).status)
        elif command == "active":
            view = (await client.call(stub.GetActiveMatch, g.GetActiveMatchRequest())).view
            if args.json:
                out(args, view)
            elif view.match_id:
                console.print("You have an active battle!")
                console.print(screen(view))
            else:
                print("No active match.")
        elif command == "view":
            view = (
                await client.call(stub.GetMatchView, g.GetMatchViewRequest(match_id=args.match))
            ).view
            out(args, view) if args.json else console.print(screen(view))
        elif command == "place":
            cid = await card_id(client, args.match, args.card)
            placed = await client.call(
                stub.PlaceCard,
                g.PlaceCardRequest(
                    request_id=args.request_id or uuid.uuid4().hex,
                    match_id=args.match,
                    card_id=cid,
                    cell=args.cell,
                ),
            )
            out(args, placed.view) if args.json else console.print(screen(placed.view))
        elif command == "forfeit":
            ended = await client.call(
                stub.Forfeit, g.ForfeitRequest(request_id=uuid.uuid4().hex, match_id=args.match)
            )
            out(args, ended.view) if args.json else console.print(screen(ended.view))
        elif command == "watch":
            stream = stub.OpenSession(
                g.OpenSessionRequest(client_version="triad-client/0.1"), metadata=client.metadata()
            )
            seen = 0
            async for push in stream:
                print(json.dumps(json_format.MessageToDict(push)), flush=True)
                seen += 1
                if args.count and seen >= args.count:
                    break
        elif command == "practice":
            await play(client, console, args)
        elif command == "play":
            await play(client, console, None)
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="triad-client", description=__doc__.split("\n\n")[0] if __doc__ else ""
    )
    p.add_argument("--addr", default=os.environ.get("TRIAD_GATEWAY", "127.0.0.1:50051"))
    p.add_argument("--ca", help="the gateway's CA certificate (default: .run/tls/gateway-dev.crt)")
    p.add_argument("--plaintext", action="store_true", help="no TLS (local tests only)")
    p.add_argument(
        "--state",
        default=os.environ.get("TRIAD_CLIENT_STATE", str(Path.home() / ".triad-client.json")),
    )
    p.add_argument("--profile", default="default", help="several players on one machine")
    p.add_argument("--json", action="store_true", help="print answers as JSON")
    sub = p.add_subparsers(dest="command", required=True)
    for name in ("register", "login"):
        cmd = sub.add_parser(name, help=f"{name} and keep the tokens")
        cmd.add_argument("name")
        cmd.add_argument("--password", help="or $TRIAD_PASSWORD, or asked")
    sub.add_parser("logout").add_argument("--all", action="store_true")
    sub.add_parser("status", help="account, active match, obligations")
    sub.add_parser("active", help="your active match, if any")
    sub.add_parser("view", help="a match as you see it").add_argument("match")
    place = sub.add_parser("place", help="place a card: its hand index or id, and a cell")
    place.add_argument("match")
    place.add_argument("card")
    place.add_argument("cell", type=int)
    place.add_argument("--request-id")
    sub.add_parser("forfeit").add_argument("match")
    sub.add_parser("watch", help="print session pushes as JSON lines").add_argument(
        "--count", type=int, default=0
    )
    practice = sub.add_parser("practice", help="play a practice match against a bot")
    practice.add_argument("--mode", choices=sorted(MODES), default="unranked")
    practice.add_argument("--level", choices=sorted(LEVELS), default="novice")
    sub.add_parser("play", help="play your active match (and the next ones) interactively")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return asyncio.run(run(args))
    except ClientError as error:
        print(f"triad-client: {error}", file=sys.stderr)
        return 2
    except grpc.aio.AioRpcError as error:
        print(f"triad-client: {error.code().name}: {error.details()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
