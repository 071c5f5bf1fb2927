"""One simulated player of the load generator: a real gRPC client over TLS through the
gateway, behaving as a resilient game client would.

It registers, builds and validates a deck, keeps its session stream open, queues in
the modes it is told (or meets another player at a custom table with a trade rule:
bench/load_tables.py), plays each match to the end with legal moves chosen from its
own view (at a custom table it sometimes forfeits instead), takes the Trade One card
when it wins Ranked (the d cards of a Difference it wins, or it leaves them to the
server's deadline), and starts again. Playing a match and taking a trade are
bench/load_matches.py's; queues, decks and the round are here.

Resilience is the point (the chaos test runs this same code while services die): the
calls and the session stream are kept up as bench/load_connection.py says, and

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
from uuid import uuid4

import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

from bench.load_battles import BATTLE, active_battle, play_battle
from bench.load_connection import CHANNEL_OPTIONS
from bench.load_decks import strongest_deck
from bench.load_matches import MatchPlayer
from bench.load_records import (
    AckedPlacement,
    FinishedMatch,
    Role,
    Sample,
    Shared,
    Stopped,
)
from bench.load_tables import MEET_PATIENCE, TABLES, close, guest, host

__all__ = [
    "MIX_NAMES",
    "MODES",
    "AckedPlacement",
    "FinishedMatch",
    "Sample",
    "Shared",
    "SimClient",
    "Stopped",
]

MODES: Mapping[str, pb.Mode.ValueType] = {
    "ranked": pb.MODE_RANKED,
    "unranked": pb.MODE_UNRANKED,
    "roulette": pb.MODE_ROULETTE,
    "practice": pb.MODE_PRACTICE,
}
MIX_NAMES = (*MODES, *TABLES, BATTLE)
"""What ``--mix`` weighs: the queues, custom tables by trade rule, and Skirmish battles."""
QUEUE_PATIENCE = 30.0
"""Seconds a client waits in a queue before it gives up the ticket and chooses again."""


class SimClient(MatchPlayer):
    """A player who plays: registers, keeps a deck, queues, plays, trades, again."""

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
        super().__init__(index, gateway, root_cert, run, rng, rpc_timeout, prefix)
        self.modes = list(mix)
        self.weights = [mix[m] for m in self.modes]
        self.deck_id = ""
        self.ready = asyncio.Event()
        """Set once the player is registered, logged in and has its session stream."""
        self.failures: Counter[str] = Counter()
        """Rounds that ended in an error the client could only resync from."""

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
        if status.hosted_table.table_id:
            await close(self, status.hosted_table.table_id)
            return True  # the guest may have joined meanwhile: look again
        # a trade still being opened: look again, the winner will have a choice to make
        opening = not trade.trade_id and any(
            o.kind == pb.OBLIGATION_KIND_PENDING_TRADE for o in status.obligations
        )
        if BATTLE in self.modes:
            with contextlib.suppress(Stopped, grpc.aio.AioRpcError):
                if await active_battle(self):
                    return True
        return bool(status.active_match_id or choosing or opening)

    async def round(self) -> None:
        """One step from the server's state: play, trade, wait, or start a match."""
        if BATTLE in self.modes and (battle_id := await active_battle(self)):
            await play_battle(self, battle_id)
            return
        status = (await self.call("GetPlayerStatus", g.GetPlayerStatusRequest())).status
        if status.active_match_id:
            await self.play(status.active_match_id)
            return
        trade = status.pending_trade
        if trade.trade_id:
            awaiting = trade.my_role == pb.TRADE_ROLE_CHOOSER and trade.status == (
                pb.TRADE_STATUS_AWAITING_CHOICE
            )
            if not (awaiting and await self.choose(trade)):
                await self.push.after(self.push.count, 0.5)  # their choice, or the deadline
            return
        if any(o.kind == pb.OBLIGATION_KIND_PENDING_TRADE for o in status.obligations):
            await self.push.after(self.push.count, 0.5)  # the trade is being opened
            return
        if status.ticket.status == pb.TICKET_STATUS_QUEUED:
            await self.wait_for_match(status.ticket)
            return
        if status.hosted_table.table_id:  # left open by a round that failed
            await close(self, status.hosted_table.table_id)
            return
        if not self.run.playing:
            raise Stopped
        mode = self.rng.choices(self.modes, self.weights)[0]
        if mode == BATTLE:
            await play_battle(self)
            return
        await self.start_match(mode)

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
        if mode in TABLES:
            meeting = await self.run.meet(mode, self.name, MEET_PATIENCE)
            if meeting is not None and meeting.role is Role.HOST:
                await host(self, meeting.partner, TABLES[mode])
            elif meeting is not None:
                await guest(self, meeting.partner)
            return
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
