"""One simulated player of the load generator: a real gRPC client over TLS through the
gateway, behaving as a resilient game client would.

It registers, builds and validates a deck, keeps its session stream open, queues in
the modes it is told, plays each match to the end with legal moves chosen from its own
view, takes the Trade One card when it wins Ranked, and starts again.

Resilience is the point (the chaos test runs this same code while services die):

- UNAVAILABLE, DEADLINE_EXCEEDED and RESOURCE_EXHAUSTED are retried with the same
  request (so the same ``request_id``: the server answers a repeat with the first
  result, never acting twice), with a jittered exponential backoff;
- the session stream is reopened whenever it ends, errs or stays silent past three
  heartbeats; while it is down the client polls instead of waiting for pushes;
- each round starts from ``GetPlayerStatus`` (active match, pending trade, ticket),
  so whatever happened meanwhile (a retry that had acted, a timer that fired, a
  restart) the client carries on from the server's state, never from its own guess.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol
from uuid import uuid4

import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

PASSWORD = "load-generator-password"
RETRY_CODES = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
)
MODES: Mapping[str, pb.Mode.ValueType] = {
    "ranked": pb.MODE_RANKED,
    "unranked": pb.MODE_UNRANKED,
    "roulette": pb.MODE_ROULETTE,
    "practice": pb.MODE_PRACTICE,
}
CHANNEL_OPTIONS = (
    # A real client comes back soon after the gateway does, not after gRPC's
    # default backoff of up to two minutes.
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.min_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 2000),
)
QUEUE_PATIENCE = 30.0
"""Seconds a client waits in a queue before it gives up the ticket and chooses again."""


class Stopped(Exception):
    """The run is over: no more retries."""


@dataclass(frozen=True, slots=True)
class AckedPlacement:
    """A PlaceCard the gateway answered OK: it must be in the match's event log."""

    match_id: str
    player_id: str
    request_id: str
    cell: int
    card_id: str
    """The copy id (or bot/draft card id) placed."""
    answered_at: float
    """Unix time of the answer."""
    version: int
    """The match version in the answer's view."""


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    """A match seen finished, from a player's final view."""

    match_id: str
    mode: str
    players: tuple[str, ...]
    """The seats' player names, seat A first ("[BOT] ..." for a bot)."""
    winner: str | None
    """The winner's player name; ``None`` for a draw."""
    reason: str
    finished_at: float
    player_ids: tuple[str | None, ...] = ()
    """The seats' player ids, seat A first; ``None`` for a bot (the run fills them in)."""


@dataclass(slots=True)
class Sample:
    at: float
    """Seconds since the run started, when the call was answered."""
    rpc: str
    code: str
    seconds: float
    detail: str = ""
    """The error's message (empty when OK)."""


class Shared(Protocol):
    """What a client reports to and reads from its run."""

    samples: list[Sample]
    started: float

    @property
    def playing(self) -> bool: ...  # start new matches?

    @property
    def alive(self) -> bool: ...  # still retrying?

    def acked(self, placement: AckedPlacement) -> None: ...

    def finished(self, match: FinishedMatch) -> None: ...


@dataclass(slots=True)
class _Push:
    count: int = 0
    event: asyncio.Event = field(default_factory=asyncio.Event)

    def bump(self) -> None:
        self.count += 1
        self.event.set()

    async def after(self, seen: int, timeout: float) -> None:
        """Return once a push newer than ``seen`` arrived, or after ``timeout``."""
        deadline = time.monotonic() + timeout
        while self.count <= seen:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self.event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.event.wait(), left)


class SimClient:
    def __init__(
        self,
        index: int,
        gateway: str,
        root_cert: bytes,
        run: Shared,
        mix: Mapping[str, int],
        rng: random.Random,
        rpc_timeout: float,
        prefix: str,
    ) -> None:
        self.index = index
        self.gateway = gateway
        self.root_cert = root_cert
        self.run = run
        self.modes = list(mix)
        self.weights = [mix[m] for m in self.modes]
        self.rng = rng
        self.rpc_timeout = rpc_timeout
        self.name = f"{prefix}{index:03d}"[:20]
        self.player_id = ""
        self.tokens: g.AuthTokens | None = None
        self.deck_id = ""
        self.views: dict[str, pb.MatchView] = {}
        self.trade: pb.Trade | None = None
        self.tickets: dict[str, pb.Ticket] = {}
        """The newest state of each ticket, from queue status pushes."""
        self.push = _Push()
        self.stream_up = False
        self.heartbeat = 10.0
        self.done: set[str] = set()
        self.matches = 0
        self.ready = asyncio.Event()
        """Set once the player is registered, logged in and has its session stream."""
        self.failures: Counter[str] = Counter()
        """Rounds that ended in an error the client could only resync from."""
        self.stub: Any = None

    # ------------------------------------------------------------------ calls

    def _metadata(self) -> tuple[tuple[str, str], ...]:
        token = self.tokens.access_token if self.tokens else ""
        return (("authorization", f"Bearer {token}"),)

    async def call(self, rpc: str, request: Any, *, retry: bool = True) -> Any:
        """One RPC, retried with the same request on transient failures."""
        method = getattr(self.stub, rpc)
        backoff = 0.05
        logged_in = False
        while True:
            began = time.perf_counter()
            try:
                reply = await method(request, metadata=self._metadata(), timeout=self.rpc_timeout)
            except grpc.aio.AioRpcError as error:
                code = error.code()
                self._sample(rpc, code.name, began, error.details() or "")
                refused = code == grpc.StatusCode.UNAUTHENTICATED
                if refused and not logged_in and rpc not in ("Register", "Login"):
                    await self._log_in_again()  # the token expired or was revoked: once
                    logged_in = True
                    continue
                if not retry or code not in RETRY_CODES:
                    raise
                if not self.run.alive:
                    raise Stopped from error
                await asyncio.sleep(backoff * (0.5 + self.rng.random()))
                backoff = min(2.0, backoff * 2)
                continue
            self._sample(rpc, "OK", began)
            return reply

    def _sample(self, rpc: str, code: str, began: float, detail: str = "") -> None:
        now = time.perf_counter()
        self.run.samples.append(Sample(now - self.run.started, rpc, code, now - began, detail))

    async def _log_in_again(self) -> None:
        reply = await self.call(
            "Login",
            g.LoginRequest(request_id=uuid4().hex, player_name=self.name, password=PASSWORD),
        )
        self.tokens = reply.tokens

    # ------------------------------------------------------------------ life

    async def live(self, go: asyncio.Event | None = None) -> None:
        """Sign up (then set ``ready``), wait for ``go``, then play until the run stops
        starting matches; never give up on an error."""
        credentials = grpc.ssl_channel_credentials(root_certificates=self.root_cert)
        async with grpc.aio.secure_channel(
            self.gateway, credentials, options=CHANNEL_OPTIONS
        ) as channel:
            self.stub = gateway_pb2_grpc.TriadGatewayStub(channel)
            session: asyncio.Task[None] | None = None
            try:
                while not self.player_id:
                    try:
                        await self._register()
                    except Stopped:
                        return
                    except Exception as error:
                        self._failed(error)
                        await asyncio.sleep(0.2 + self.rng.random() * 0.3)
                session = asyncio.create_task(self._session())
                self.ready.set()
                if go is not None:
                    await go.wait()
                while self.run.playing or await self._unfinished():
                    try:
                        await self.round()
                    except Stopped:
                        break
                    except Exception as error:
                        self._failed(error)
                        await asyncio.sleep(0.2 + self.rng.random() * 0.3)  # then resync
            finally:
                self.ready.set()
                if session is not None:
                    session.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await session

    def _failed(self, error: Exception) -> None:
        """A step failed in a way only a fresh look at the server's state can mend."""
        code = error.code().name if isinstance(error, grpc.aio.AioRpcError) else ""
        self.failures[code or type(error).__name__] += 1

    async def _unfinished(self) -> bool:
        """After the run: is there still a match (or trade) of ours to see through?"""
        if not self.run.alive:
            return False
        try:
            status = (await self.call("GetPlayerStatus", g.GetPlayerStatusRequest())).status
        except (Stopped, grpc.aio.AioRpcError):
            return False
        trade = status.pending_trade
        choosing = trade.trade_id and trade.my_role == pb.TRADE_ROLE_CHOOSER
        if status.ticket.status == pb.TICKET_STATUS_QUEUED:
            with contextlib.suppress(grpc.aio.AioRpcError):
                await self.call(
                    "CancelTicket",
                    g.CancelTicketRequest(
                        request_id=uuid4().hex, ticket_id=status.ticket.ticket_id
                    ),
                )
            return True  # the ticket may have been paired meanwhile: look again
        # a trade still being opened: look again, the winner will have a choice to make
        opening = not trade.trade_id and any(
            o.kind == pb.OBLIGATION_KIND_PENDING_TRADE for o in status.obligations
        )
        return bool(status.active_match_id or choosing or opening)

    async def _register(self) -> None:
        try:
            reply = await self.call(
                "Register",
                g.RegisterRequest(request_id=uuid4().hex, player_name=self.name, password=PASSWORD),
            )
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.ALREADY_EXISTS:
                raise
            # An earlier attempt did register (its answer was lost): log in instead.
            reply = await self.call(
                "Login",
                g.LoginRequest(request_id=uuid4().hex, player_name=self.name, password=PASSWORD),
            )
        self.player_id, self.tokens = reply.player.player_id, reply.tokens
        # A fresh login, as a client starting again would do (and it checks Login).
        await self._log_in_again()

    async def round(self) -> None:
        """One step from the server's state: play, trade, wait, or start a match."""
        status = (await self.call("GetPlayerStatus", g.GetPlayerStatusRequest())).status
        if status.active_match_id:
            await self.play(status.active_match_id)
            return
        trade = status.pending_trade
        if trade.trade_id:
            if trade.my_role == pb.TRADE_ROLE_CHOOSER and trade.status == (
                pb.TRADE_STATUS_AWAITING_CHOICE
            ):
                await self.choose(trade)
            else:
                await self.push.after(self.push.count, 0.5)
            return
        if any(o.kind == pb.OBLIGATION_KIND_PENDING_TRADE for o in status.obligations):
            await self.push.after(self.push.count, 0.5)  # the trade is being opened
            return
        if status.ticket.status == pb.TICKET_STATUS_QUEUED:
            await self.wait_for_match(status.ticket)
            return
        if not self.run.playing:
            raise Stopped
        await self.start_match(self.rng.choices(self.modes, self.weights)[0])

    # ------------------------------------------------------------------ decks

    async def deck(self) -> pb.DeckChoice:
        """The saved deck if it is still valid, else a new one built and validated.

        Right after a match its copies stay locked until the match is settled (an
        event away): a deck invalid only for locks is waited for, not rebuilt."""
        for _ in range(20):
            if not self.deck_id:
                break
            check = await self.call("ValidateDeck", g.ValidateDeckRequest(deck_id=self.deck_id))
            if check.valid:
                return pb.DeckChoice(deck_id=self.deck_id)
            if any(v.rule != pb.DECK_RULE_NOT_LOCKED for v in check.violations):
                break
            await asyncio.sleep(0.25)
        copies = await self._pick_five()
        if copies is None:
            return pb.DeckChoice(random=pb.RandomDeck())
        check = await self.call(
            "ValidateDeck", g.ValidateDeckRequest(copies=pb.CopySelection(copy_ids=copies))
        )
        if not check.valid:
            return pb.DeckChoice(random=pb.RandomDeck())
        for deck_id in dict.fromkeys((self.deck_id, "")):  # replace it, else save anew
            try:
                saved = await self.call(
                    "SaveDeck",
                    g.SaveDeckRequest(
                        request_id=uuid4().hex, deck_id=deck_id, name="load", copy_ids=copies
                    ),
                )
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise
                continue
            self.deck_id = saved.deck.deck_id
            return pb.DeckChoice(deck_id=self.deck_id)
        return pb.DeckChoice(random=pb.RandomDeck())

    async def _pick_five(self) -> list[str] | None:
        """The strongest legal five of the free copies; boosters when too few."""
        for _ in range(3):
            listed = await self.call(
                "ListCollection",
                g.ListCollectionRequest(filter=pb.CollectionFilter(locked=False), page_size=200),
            )
            chosen = strongest_deck([entry.copy for entry in listed.entries])
            if chosen is not None:
                return chosen
            try:
                await self.call("OpenBooster", g.OpenBoosterRequest(request_id=uuid4().hex))
            except grpc.aio.AioRpcError as error:
                if error.code() == grpc.StatusCode.FAILED_PRECONDITION:
                    return None  # no coins left: let the server draw a Random deck
                raise
        return None

    # ------------------------------------------------------------------ queues

    async def start_match(self, mode: str) -> None:
        deck = await self.deck()
        if mode == "practice":
            reply = await self.call(
                "StartPractice",
                g.StartPracticeRequest(
                    request_id=uuid4().hex,
                    origin_mode=pb.MODE_UNRANKED,
                    bot_level=pb.BOT_LEVEL_EASY,
                    deck=deck,
                ),
            )
            self._view(reply.view)
            await self.play(reply.match_id)
            return
        reply = await self.call(
            "Enqueue", g.EnqueueRequest(request_id=uuid4().hex, mode=MODES[mode], deck=deck)
        )
        await self.wait_for_match(reply.ticket)

    async def wait_for_match(self, ticket: pb.Ticket) -> None:
        """Wait for the ticket's match (pushed, or seen by polling); give the ticket up
        when the run stops or after QUEUE_PATIENCE seconds, and choose again."""
        if ticket.match_id:
            await self.play(ticket.match_id)
            return
        given_up_at = time.monotonic() + QUEUE_PATIENCE
        polled = time.monotonic()  # Enqueue just answered: the first look can wait
        while True:
            seen = self.push.count
            found = self._running_match()
            pushed = self.tickets.get(ticket.ticket_id)
            if found is None and pushed is not None:
                if pushed.match_id:
                    found = pushed.match_id
                elif pushed.status == pb.TICKET_STATUS_CANCELLED:
                    return
            if found is None and time.monotonic() - polled >= (3.0 if self.stream_up else 0.5):
                polled = time.monotonic()
                status = (await self.call("GetPlayerStatus", g.GetPlayerStatusRequest())).status
                found = status.active_match_id or None
                if found is None and status.ticket.status != pb.TICKET_STATUS_QUEUED:
                    return  # paired and already over, or cancelled: the round looks again
            if found is not None:
                await self.play(found)
                return
            if not self.run.playing or time.monotonic() > given_up_at:
                with contextlib.suppress(grpc.aio.AioRpcError):  # paired meanwhile: fine
                    await self.call(
                        "CancelTicket",
                        g.CancelTicketRequest(request_id=uuid4().hex, ticket_id=ticket.ticket_id),
                    )
                return
            await self.push.after(seen, 0.5)

    def _running_match(self) -> str | None:
        for match_id, view in self.views.items():
            if view.status == pb.MATCH_STATUS_IN_PROGRESS and match_id not in self.done:
                return match_id
        return None

    # ------------------------------------------------------------------ matches

    def _view(self, view: pb.MatchView) -> pb.MatchView:
        """Keep the newest view of each match; an older one is discarded."""
        if not view.match_id:
            return view
        known = self.views.get(view.match_id)
        if known is None or view.version > known.version:
            self.views[view.match_id] = view
            return view
        return known

    async def _fetch(self, match_id: str) -> pb.MatchView:
        reply = await self.call("GetMatchView", g.GetMatchViewRequest(match_id=match_id))
        return self._view(reply.view)

    async def play(self, match_id: str) -> None:
        """Place when it is our turn, wait for the opponent otherwise, until the end."""
        view = self.views.get(match_id) or await self._fetch(match_id)
        while view.status != pb.MATCH_STATUS_FINISHED:
            if view.turn_seat == view.my_seat:
                view = await self.place(view)
                continue
            view = await self._next_view(view)
        await self._finished(view)

    async def _next_view(self, view: pb.MatchView) -> pb.MatchView:
        """A newer view of the match: pushed, or fetched when none came in time (the
        stream may be down, or a push lost with a gateway that died)."""
        deadline = time.monotonic() + (3.0 if self.stream_up else 0.5)
        while (left := deadline - time.monotonic()) > 0:
            newer = self.views.get(view.match_id)
            if newer is not None and newer.version > view.version:
                return newer
            await self.push.after(self.push.count, left)
        return await self._fetch(view.match_id)

    async def place(self, view: pb.MatchView) -> pb.MatchView:
        cards = [c.card.card_id for c in view.my_hand]
        cells = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
        request = g.PlaceCardRequest(
            request_id=uuid4().hex,
            match_id=view.match_id,
            card_id=self.rng.choice(cards),
            cell=self.rng.choice(cells),
            expected_version=view.version,
        )
        try:
            reply = await self.call("PlaceCard", request)
        except grpc.aio.AioRpcError as error:
            refused = (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED)
            if error.code() not in refused:
                raise
            return await self._fetch(view.match_id)  # a timer or a retry moved first
        self.run.acked(
            AckedPlacement(
                match_id=view.match_id,
                player_id=self.player_id,
                request_id=request.request_id,
                cell=request.cell,
                card_id=request.card_id,
                answered_at=time.time(),
                version=reply.view.version,
            )
        )
        return self._view(reply.view)

    async def _finished(self, view: pb.MatchView) -> None:
        if view.match_id in self.done:
            return
        self.done.add(view.match_id)
        self.matches += 1
        names = {p.seat: p.player_name for p in view.players}
        outcome = view.outcome
        winner = names.get(outcome.winner_seat) if outcome.HasField("winner_seat") else None
        self.run.finished(
            FinishedMatch(
                match_id=view.match_id,
                mode=pb.Mode.Name(view.mode).removeprefix("MODE_").lower(),
                players=tuple(p.player_name for p in view.players),
                winner=winner,
                reason=pb.FinishReason.Name(outcome.reason).removeprefix("FINISH_REASON_").lower(),
                finished_at=time.time(),
            )
        )
        self.views.pop(view.match_id, None)
        if view.mode == pb.MODE_RANKED and outcome.winner_seat == view.my_seat:
            await self.take_trade(view.match_id)

    # ------------------------------------------------------------------ trades

    async def take_trade(self, match_id: str) -> None:
        """The winner of a Ranked match takes the strongest of the loser's five."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and self.run.alive:
            seen = self.push.count
            trade = self.trade
            if trade is None or trade.match_id != match_id:
                trade = (await self.call("GetPendingTrade", g.GetPendingTradeRequest())).trade
            if trade.match_id == match_id:
                if trade.status == pb.TRADE_STATUS_AWAITING_CHOICE:
                    await self.choose(trade)
                return
            await self.push.after(seen, 1.0 if self.stream_up else 0.5)

    async def choose(self, trade: pb.Trade) -> None:
        best = max(trade.offered_copies, key=lambda c: strength(c.printed_sides), default=None)
        if best is None:
            return
        with contextlib.suppress(grpc.aio.AioRpcError):  # FAILED_PRECONDITION: chosen already
            await self.call(
                "ChooseTradeCard",
                g.ChooseTradeCardRequest(
                    request_id=uuid4().hex, trade_id=trade.trade_id, copy_id=best.copy_id
                ),
            )

    # ------------------------------------------------------------------ session

    async def _session(self) -> None:
        """Keep one session stream open; reopen it whenever it ends, errs or goes quiet."""
        backoff = 0.1
        while True:
            call = self.stub.OpenSession(
                g.OpenSessionRequest(client_version="bench-load/1"), metadata=self._metadata()
            )
            began = time.perf_counter()
            first = True
            try:
                while True:
                    push = await asyncio.wait_for(call.read(), 3 * self.heartbeat + 2)
                    if push is grpc.aio.EOF:
                        break
                    if first:
                        self._sample("OpenSession", "OK", began)
                        first, backoff, self.stream_up = False, 0.1, True
                    closed = self._on_push(push)
                    if closed is not None:
                        if closed in (
                            g.SESSION_CLOSE_REASON_TOKEN_EXPIRED,
                            g.SESSION_CLOSE_REASON_LOGGED_OUT,
                        ):
                            await self._log_in_again()
                        break
            except TimeoutError:
                self._sample("OpenSession", "SILENT", began)
            except grpc.aio.AioRpcError as error:
                self._sample("OpenSession", error.code().name, began)
                if error.code() == grpc.StatusCode.UNAUTHENTICATED:
                    with contextlib.suppress(Exception):
                        await self._log_in_again()
            except Exception as error:
                self._sample("OpenSession", type(error).__name__, began)
            finally:
                self.stream_up = False
                call.cancel()
            self.push.bump()  # waiters switch to polling
            await asyncio.sleep(backoff * (0.5 + self.rng.random()))
            backoff = min(2.0, backoff * 2)

    def _on_push(self, push: g.OpenSessionResponse) -> int | None:
        kind = push.WhichOneof("push")
        if kind == "session_opened":
            opened = push.session_opened
            self.heartbeat = max(0.5, opened.heartbeat_interval.ToTimedelta().total_seconds())
            if opened.HasField("active_match"):
                self._view(opened.active_match)
        elif kind == "match_view":
            self._view(push.match_view)
        elif kind == "queue_status":
            pushed = push.queue_status.ticket
            self.tickets[pushed.ticket_id] = pushed
        elif kind == "trade_prompt":
            self.trade = push.trade_prompt
        elif kind == "trade_result":
            self.trade = None
        elif kind == "session_closed":
            return int(push.session_closed.reason)
        self.push.bump()
        return None


def strength(sides: pb.Sides) -> int:
    return int(sides.top + sides.right + sides.bottom + sides.left)


def strongest_deck(copies: list[pb.OwnedCopy]) -> list[str] | None:
    """Five free copies of five different characters, at most one 5★ and at most two
    of 4★ or more (RULES.md section 2), strongest first; ``None`` if there are not."""
    chosen: list[str] = []
    characters: set[str] = set()
    five = high = 0
    for copy in sorted(copies, key=lambda c: -strength(c.printed_sides)):
        stars = copy.character.stars
        if copy.character.character_id in characters:
            continue
        if stars >= 5 and five >= 1:
            continue
        if stars >= 4 and high >= 2:
            continue
        chosen.append(copy.copy_id)
        characters.add(copy.character.character_id)
        five += stars >= 5
        high += stars >= 4
        if len(chosen) == 5:
            return chosen
    return None
