"""A simulated player's connection to the gateway, as a resilient game client keeps it
(bench/load_client.py plays on top of it).

- UNAVAILABLE, DEADLINE_EXCEEDED and RESOURCE_EXHAUSTED are retried with the same
  request (so the same ``request_id``: the server answers a repeat with the first
  result, never acting twice), with a jittered exponential backoff; a token refused
  is replaced by logging in again, once;
- the session stream is reopened whenever it ends, errs or stays silent past three
  heartbeats; while it is down the client polls instead of waiting for pushes;
- what the pushes said is kept (the newest view of each match, each ticket, the
  trade prompt) and every push wakes whoever waits for one.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from dataclasses import dataclass, field
from typing import Any
from uuid import uuid4

import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from bench.load_records import Sample, Shared, Stopped

PASSWORD = "load-generator-password"

RETRY_CODES = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
)

CHANNEL_OPTIONS = (
    # A real client comes back soon after the gateway does, not after gRPC's
    # default backoff of up to two minutes.
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.min_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 2000),
)


@dataclass(slots=True)
class Pushes:
    """How many pushes came; waiting for the next one."""

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


class Connection:
    """One player's calls and session stream, and what the server pushed."""

    def __init__(
        self,
        index: int,
        gateway: str,
        root_cert: bytes,
        run: Shared,
        rng: random.Random,
        rpc_timeout: float,
        prefix: str,
    ) -> None:
        self.index = index
        self.gateway = gateway
        self.root_cert = root_cert
        self.run = run
        self.rng = rng
        self.rpc_timeout = rpc_timeout
        self.name = f"{prefix}{index:03d}"[:20]
        self.player_id = ""
        self.tokens: g.AuthTokens | None = None
        self.views: dict[str, pb.MatchView] = {}
        self.trade: pb.Trade | None = None
        self.tables: dict[str, pb.Table] = {}
        """Tables hosted and challenges received: the newest state pushed of each."""
        self.tickets: dict[str, pb.Ticket] = {}
        """The newest state of each ticket, from queue status pushes."""
        self.push = Pushes()
        self.stream_up = False
        self.heartbeat = 10.0
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

    # ------------------------------------------------------------------ views

    def _view(self, view: pb.MatchView) -> pb.MatchView:
        """Keep the newest view of each match; an older one is discarded."""
        if not view.match_id:
            return view
        known = self.views.get(view.match_id)
        if known is None or view.version > known.version:
            self.views[view.match_id] = view
            return view
        return known

    def _table(self, table: pb.Table) -> None:
        """Keep a table's newest state: once it left OPEN it never returns there."""
        known = self.tables.get(table.table_id)
        if known is None or known.status == pb.TABLE_STATUS_OPEN:
            self.tables[table.table_id] = table

    async def _fetch(self, match_id: str) -> pb.MatchView:
        reply = await self.call("GetMatchView", g.GetMatchViewRequest(match_id=match_id))
        return self._view(reply.view)

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
        elif kind in ("table", "challenge"):
            self._table(getattr(push, kind))
        elif kind == "session_closed":
            return int(push.session_closed.reason)
        self.push.bump()
        return None
