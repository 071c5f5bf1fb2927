"""``triad-client``: play Gacha TriadAlpha from a terminal, over gRPC to the gateway.

Every action is also a non-interactive subcommand; ``--json`` prints the gateway's
answer as JSON, for scripts and tests. Tokens are kept per profile in a state file
($TRIAD_CLIENT_STATE, default ~/.triad-client.json) and refreshed when they expire.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import json
import os
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.text import Text
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

from client import commands
from client.commands import CommandError
from client.keys import LineReader
from client.render import my_turn, screen

T = TypeVar("T")
DEV_CA = Path(".run/tls/gateway-dev.crt")
MODES = {m.removeprefix("MODE_").lower(): v for m, v in pb.Mode.items() if v}
QUEUES = ("unranked", "ranked", "roulette")
"""The queues a Random deck can join from here (Draft picks its deck in a draft)."""
LEVELS = {m.removeprefix("BOT_LEVEL_").lower(): v for m, v in pb.BotLevel.items() if v}


ClientError = CommandError


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


PROMPT = "card cell > "


def waiting_line(queue: pb.QueueStatus | None, received: datetime) -> Text:
    """What shows before a match: the queued ticket as the session stream told it at
    ``received``, its waiting time counted on since."""
    if queue is None or queue.ticket.status != pb.TICKET_STATUS_QUEUED:
        return Text(
            "No active match and no ticket: waiting for one. Start one with "
            "triad-client practice or triad-client queue (Ctrl-C leaves)."
        )
    mode = pb.Mode.Name(queue.ticket.mode).removeprefix("MODE_").capitalize()
    waited = queue.wait_duration.ToTimedelta() + (datetime.now(UTC) - received)
    line = f"In the {mode} queue: {waited.total_seconds():.0f} s"
    if queue.rating_window:
        line += f", opponents within {queue.rating_window} points"
    if queue.HasField("bot_fill_delay"):
        line += f"; a bot takes the seat at {queue.bot_fill_delay.seconds} s"
    return Text(line + f" ({queue.queue_length} waiting; Ctrl-C leaves)")


def frame(
    view: pb.MatchView | None,
    received: datetime,
    queue: pb.QueueStatus | None,
    typing: str,
    note: str,
    trade: pb.Trade | None = None,
) -> Group:
    """The screen under Live: the match (or the queue), a note, and the prompt with the
    line being typed, all drawn together so that a refresh never hides the prompt.
    ``received``: when the view (or else the queue status) arrived."""
    if view is None:
        parts: list[RenderableType] = [waiting_line(queue, received)]
    elif trade is not None:  # the board gives way to the offer (80x24)
        scores = " - ".join(f"{p.player_name} {p.score}" for p in view.players)
        parts = [Text(f"You win! ({scores})", style="bold")]
    else:
        parts = [screen(view, received)]
    if note:
        parts.append(Text(note, style="yellow"))
    if view is not None and view.status != pb.MATCH_STATUS_FINISHED:
        hint = (
            "Type card and cell (0 4: your first card to the centre); q forfeits."
            if my_turn(view)
            else "Wait for your turn; q forfeits."
        )
        parts.append(Text(hint, style="dim"))
        prompt = Text(PROMPT, style="bold")
        prompt.append(typing)
        prompt.append("_", style="blink")
        parts.append(prompt)
    elif trade is not None:
        parts.append(commands.trade_table(trade))
        if choosing(trade):
            deadline = trade.choice_deadline_time.ToDatetime(tzinfo=UTC)
            left = max(0, int((deadline - datetime.now(UTC)).total_seconds()))
            parts.append(
                Text(
                    f"You won: take one card (0..{len(trade.offered_copies) - 1}); "
                    f"{left} s left, then the server picks; q leaves it to the server.",
                    style="dim",
                )
            )
            prompt = Text(TRADE_PROMPT, style="bold")
            prompt.append(typing)
            prompt.append("_", style="blink")
            parts.append(prompt)
        else:
            parts.append(Text(commands.trade_status(trade), style="bold"))
    return Group(*parts)


TRADE_PROMPT = "take card > "
TRADE_WAIT_SECONDS = 20.0
"""How long a winner's client waits for the Trade One offer after the match ends."""


def choosing(trade: pb.Trade) -> bool:
    return trade.my_role == pb.TRADE_ROLE_CHOOSER and trade.status == (
        pb.TRADE_STATUS_AWAITING_CHOICE
    )


def won_a_trade(view: pb.MatchView) -> bool:
    """The match is over, was played for Trade One, and this player won it."""
    return (
        view.status == pb.MATCH_STATUS_FINISHED
        and view.rules.trade_rule == pb.TRADE_RULE_ONE
        and view.outcome.WhichOneof("result") != "draw"
        and view.outcome.winner_seat == view.my_seat
    )


async def play(client: Client, console: Console) -> pb.MatchView | None:
    """Interactive: the session stream redraws the board; type "CARD CELL" to place.
    Plays the active match, or waits for the next one; its last view."""
    latest: dict[str, pb.MatchView] = {}
    received = datetime.now(UTC)
    queue: dict[str, pb.QueueStatus] = {}
    trades: dict[str, pb.Trade] = {}
    note = ""
    stream = client.stub.OpenSession(
        g.OpenSessionRequest(client_version="triad-client/0.1"), metadata=client.metadata()
    )

    def show(view: pb.MatchView) -> None:
        nonlocal received
        shown = latest.get("view")
        if shown is None or shown.match_id != view.match_id or view.version > shown.version:
            latest["view"], received = view, datetime.now(UTC)

    async def follow() -> None:
        nonlocal note, received
        async for push in stream:
            kind = push.WhichOneof("push")
            if kind == "session_opened" and push.session_opened.HasField("active_match"):
                show(push.session_opened.active_match)
            elif kind == "match_view":
                show(push.match_view)
            elif kind == "queue_status":
                queue["status"] = push.queue_status
                if "view" not in latest:
                    received = datetime.now(UTC)
            elif kind in ("trade_prompt", "trade_result"):
                trades["trade"] = getattr(push, kind)
            elif kind == "match_found":
                found = push.match_found
                note = f"Match found: you play {found.opponent_name}."
            elif kind == "notice":
                note = push.notice.message
            elif kind == "session_closed":
                note = f"Session closed: {push.session_closed.message}"
                return

    with (
        LineReader() as reader,
        Live(console=console, auto_refresh=False) as live,
    ):
        follower = asyncio.create_task(follow())
        ended: float | None = None  # when the match was seen finished (monotonic)
        asked = 0.0
        while True:
            view = latest.get("view")
            trade = trades.get("trade")
            over = follower.done() or reader.done  # a line piped in before EOF counts
            if view is not None and view.status == pb.MATCH_STATUS_FINISHED:
                ended = ended or time.monotonic()
                if not won_a_trade(view):
                    over = True
                elif trade is not None and trade.match_id == view.match_id:
                    over |= not choosing(trade)
                elif time.monotonic() - ended > TRADE_WAIT_SECONDS:
                    note = "No Trade One offer came: triad-client trade shows it."
                    over = True
                elif time.monotonic() - asked > 1:  # the push may have come before us
                    asked = time.monotonic()
                    with contextlib.suppress(grpc.aio.AioRpcError):
                        pending = await client.call(
                            client.stub.GetPendingTrade, g.GetPendingTradeRequest()
                        )
                        if pending.trade.match_id == view.match_id:
                            trades["trade"] = pending.trade
            shown = trades.get("trade") if ended else None
            live.update(
                frame(view, received, queue.get("status"), reader.typing, note, shown),
                refresh=True,
            )
            if over:
                break
            # Wakes at a key (to draw it) or after a quarter second (the timer).
            line = await reader.line(timeout=0.25)
            if line is None or not line.strip():
                continue
            if ended and trade is not None and choosing(trade):
                if line.strip() == "q":
                    note = "The server picks a card for you at the deadline."
                    break
                try:
                    trades["trade"] = await commands.choose(client, trade, line.strip())
                    note = ""
                except (ClientError, grpc.aio.AioRpcError) as error:
                    note = str(error) if isinstance(error, ClientError) else describe(error)
                continue
            if ended:
                continue
            if view is None:
                note = "No match yet."
                continue
            try:
                if line.strip() == "q":
                    reply = await client.call(
                        client.stub.Forfeit,
                        g.ForfeitRequest(request_id=uuid.uuid4().hex, match_id=view.match_id),
                    )
                    show(reply.view)
                    note = ""
                    continue
                if not my_turn(view):
                    note = "Not your turn yet."
                    continue
                words = line.split()
                if len(words) != 2 or not words[1].isdigit():
                    note = "Type a card number and a cell number, e.g. 0 4."
                    continue
                card, cell = words
                cid = await card_id(client, view.match_id, card)
                placed = await client.call(
                    client.stub.PlaceCard,
                    g.PlaceCardRequest(
                        request_id=uuid.uuid4().hex,
                        match_id=view.match_id,
                        card_id=cid,
                        cell=int(cell),
                    ),
                )
                show(placed.view)
                note = ""
            except ClientError as error:
                note = str(error)
            except grpc.aio.AioRpcError as error:
                note = error.details() or error.code().name
        if not follower.done():
            follower.cancel()
        elif (broke := follower.exception()) is not None:
            raise broke  # the session stream broke: say why
    return latest.get("view")


async def deck_choice(client: Client, args: argparse.Namespace) -> pb.DeckChoice:
    """The saved deck --deck names (its id or the start of it), else Random."""
    if not getattr(args, "deck", None):
        return pb.DeckChoice(random=pb.RandomDeck())
    return pb.DeckChoice(deck_id=await commands.resolve_deck(client, args.deck))


async def queue_and_play(client: Client, console: Console, mode: str, deck: pb.DeckChoice) -> None:
    """Enqueue with the deck, show the queue until a match is found, play it. A
    ticket still waiting when the player leaves is cancelled."""
    ticket = (
        await client.call(
            client.stub.Enqueue,
            g.EnqueueRequest(
                request_id=uuid.uuid4().hex,
                mode=MODES[mode],
                deck=deck,
            ),
        )
    ).ticket
    with_deck = "a Random deck" if deck.HasField("random") else "your deck"
    console.print(f"Queued for {mode} with {with_deck} (ticket {ticket.ticket_id[:8]}).")
    played = None
    try:
        played = await play(client, console)
    finally:
        if played is None:
            with contextlib.suppress(grpc.aio.AioRpcError):  # paired meanwhile: play on
                await client.call(
                    client.stub.CancelTicket,
                    g.CancelTicketRequest(request_id=uuid.uuid4().hex, ticket_id=ticket.ticket_id),
                )
                console.print("Left the queue.")


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
            started = await client.call(
                stub.StartPractice,
                g.StartPracticeRequest(
                    request_id=uuid.uuid4().hex,
                    origin_mode=MODES[args.mode],
                    bot_level=LEVELS[args.level],
                    deck=await deck_choice(client, args),
                ),
            )
            console.print(f"Practice match {started.match_id} against a bot.")
            await play(client, console)
        elif command == "play":
            await play(client, console)
        elif command == "queue":
            await queue_and_play(client, console, args.mode, await deck_choice(client, args))
        elif command == "enqueue":
            enqueued = await client.call(
                stub.Enqueue,
                g.EnqueueRequest(
                    request_id=uuid.uuid4().hex,
                    mode=MODES[args.mode],
                    deck=await deck_choice(client, args),
                ),
            )
            out(args, enqueued, f"Queued: ticket {enqueued.ticket.ticket_id}")
        elif command == "cancel":
            cancelled = await client.call(
                stub.CancelTicket,
                g.CancelTicketRequest(request_id=uuid.uuid4().hex, ticket_id=args.ticket),
            )
            out(args, cancelled.ticket, "Left the queue.")
        elif command in commands.COMMANDS:
            return await commands.COMMANDS[command](client, args, console)
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
    # --json also after the subcommand; SUPPRESS keeps one given before it.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print answers as JSON"
    )
    sub = p.add_subparsers(dest="command", required=True)
    for name in ("register", "login"):
        cmd = sub.add_parser(name, parents=[common], help=f"{name} and keep the tokens")
        cmd.add_argument("name")
        cmd.add_argument("--password", help="or $TRIAD_PASSWORD, or asked")
    sub.add_parser("logout", parents=[common]).add_argument("--all", action="store_true")
    sub.add_parser("status", parents=[common], help="account, active match, obligations")
    sub.add_parser("active", parents=[common], help="your active match, if any")
    sub.add_parser("view", parents=[common], help="a match as you see it").add_argument("match")
    place = sub.add_parser(
        "place", parents=[common], help="place a card: its hand index or id, and a cell"
    )
    place.add_argument("match")
    place.add_argument("card")
    place.add_argument("cell", type=int)
    place.add_argument("--request-id")
    sub.add_parser("forfeit", parents=[common]).add_argument("match")
    sub.add_parser(
        "watch", parents=[common], help="print session pushes as JSON lines"
    ).add_argument("--count", type=int, default=0)
    practice = sub.add_parser(
        "practice", parents=[common], help="play a practice match against a bot"
    )
    practice.add_argument("--mode", choices=sorted(MODES), default="unranked")
    practice.add_argument("--level", choices=sorted(LEVELS), default="novice")
    practice.add_argument("--deck", help="a saved deck (id or its start); default Random")
    sub.add_parser(
        "play", parents=[common], help="play your active match, or wait for your next one"
    )
    queue = sub.add_parser(
        "queue", parents=[common], help="queue (a Random deck or --deck) and play the match found"
    )
    queue.add_argument("--mode", choices=QUEUES, default="unranked")
    queue.add_argument("--deck", help="a saved deck (id or its start); default Random")
    enqueue = sub.add_parser(
        "enqueue", parents=[common], help="queue (a Random deck or --deck); watch shows the rest"
    )
    enqueue.add_argument("mode", choices=QUEUES)
    enqueue.add_argument("--deck", help="a saved deck (id or its start); default Random")
    sub.add_parser("cancel", parents=[common], help="leave the queue").add_argument("ticket")
    commands.add_parsers(sub, common)
    return p


ADVICE = {
    grpc.StatusCode.UNAVAILABLE: "the gateway cannot be reached (is `make run` running? "
    "--addr, --ca); retrying is safe",
    grpc.StatusCode.UNAUTHENTICATED: "log in again: triad-client login NAME",
    grpc.StatusCode.DEADLINE_EXCEEDED: "the gateway did not answer in time; retrying is safe",
    grpc.StatusCode.RESOURCE_EXHAUSTED: "slow down and retry in a moment",
    grpc.StatusCode.NOT_FOUND: "",
    grpc.StatusCode.PERMISSION_DENIED: "",
}


def describe(error: grpc.aio.AioRpcError) -> str:
    """One line for a failed call: what the gateway said, and what to do about it."""
    code = error.code()
    if code == grpc.StatusCode.UNAVAILABLE and "connect" in (error.details() or ""):
        return (
            "cannot reach the gateway: is `make run` running? "
            "(--addr HOST:PORT, --ca CERT for another gateway)"
        )
    said = (error.details() or "").strip().splitlines()[0:1]
    words = code.name.lower().replace("_", " ")
    line = f"{words}: {said[0]}" if said else words
    advice = ADVICE.get(code, "")
    if advice and advice not in line:
        line += f" ({advice})"
    return line


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return asyncio.run(run(args))
    except ClientError as error:
        print(f"triad-client: {error}", file=sys.stderr)
        return 2
    except grpc.aio.AioRpcError as error:
        print(f"triad-client: {describe(error)}", file=sys.stderr)
        return 1
    except OSError as error:  # the --ca or state file, say
        print(f"triad-client: {error.strerror or error}: {error.filename or ''}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
