"""The idle-session benchmark's players and their session streams (bench/idle.py).

Players are provisioned, not signed up: Register hashes the password with scrypt
(about 50 ms of CPU each here, on purpose) and has the collection service grant a
starter collection (about 15 ms of its CPU each, and as much again for its relay
afterwards), so 5,000 sign-ups would take minutes of this 2-core machine before anything
is measured. Each player's account is written as Register writes it (the gateway's own
store code; one scrypt hash shared by all) and gets an access token signed with the
backend's token secret, as Login issues it. The starter collection is granted only when
asked for (``starters``): an idle session reads the player's status once, when it opens,
and a player without a collection is shown without one; what it costs while idle does
not depend on what the collection holds.

The streams are held by this one process over a few TLS channels (each its own
connection), many streams per channel: the file descriptors are per connection, not
per stream, on both sides.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import uuid4

import asyncpg
import grpc
from triad.v1 import collection_pb2 as c
from triad.v1 import collection_pb2_grpc, gateway_pb2_grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.backend import Backend
from gateway.accounts import TokenSigner, hash_password
from gateway.store import Account, GatewayStore

PASSWORD = "idle-bench-password"
TOKEN_MINUTES = 120
"""Tokens outlive any run: an expiring token closes its session (and the gateway is
given the same lifetime, ``TRIAD_ACCESS_TOKEN_MINUTES``)."""
STREAMS_PER_CHANNEL = 500
GRANTS_AT_ONCE = 16
OPENS_AT_ONCE = 64
OPEN_TIMEOUT = 60.0


@dataclass(frozen=True, slots=True)
class IdlePlayer:
    player_id: str
    name: str
    metadata: tuple[tuple[str, str], ...]


async def provision(backend: Backend, count: int, starters: bool = False) -> list[IdlePlayer]:
    """``count`` players with accounts and access tokens (and starter collections)."""
    if count <= 0:
        return []
    tag = uuid4().hex[:8]
    now = datetime.now(UTC)
    hashed = await asyncio.to_thread(hash_password, PASSWORD)
    accounts = [Account(str(uuid4()), f"i{tag}{i:05d}", hashed, now) for i in range(count)]
    pool = await asyncpg.create_pool(backend.config.database_url, min_size=1, max_size=1)
    try:
        store = GatewayStore(pool, backend.schema("gateway"))
        async with pool.acquire() as conn, conn.transaction():
            for account in accounts:
                await store.create_account(conn, account)
    finally:
        await pool.close()
    if starters:
        await _grant_starters(backend, accounts)
    signer = TokenSigner(backend.config.token_secret.encode(), timedelta(minutes=TOKEN_MINUTES))
    players = []
    for account in accounts:
        token = signer.issue(account.player_id, account.name, now).token
        players.append(
            IdlePlayer(account.player_id, account.name, (("authorization", f"Bearer {token}"),))
        )
    return players


async def _grant_starters(backend: Backend, accounts: Sequence[Account]) -> None:
    """Each account's starter collection, asked of the collection service as Register does."""
    async with grpc.aio.insecure_channel(backend.address("collection")) as channel:
        stub = collection_pb2_grpc.CollectionServiceStub(channel)
        gate = asyncio.Semaphore(GRANTS_AT_ONCE)

        async def grant(account: Account) -> None:
            async with gate:
                await stub.GrantStarterCollection(
                    c.CollectionServiceGrantStarterCollectionRequest(
                        request_id=uuid4().hex,
                        player=pb.PlayerRef(player_id=account.player_id, player_name=account.name),
                    ),
                    timeout=60,
                )

        await asyncio.gather(*(grant(a) for a in accounts))


def raise_open_files() -> tuple[int, int]:
    """The soft limit of open files raised to the hard one (the services started from
    here inherit it); the limits as they are then."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


class SessionPool:
    """Session streams held open and read (their pushes counted, then dropped)."""

    def __init__(self, address: str, root_cert: bytes) -> None:
        self._address = address
        self._credentials = grpc.ssl_channel_credentials(root_certificates=root_cert)
        self._channels: list[grpc.aio.Channel] = []
        self._tasks: list[asyncio.Task[None]] = []
        self.open = 0
        """Streams whose first push arrived and that have not ended."""
        self.pushes: Counter[str] = Counter()
        self.ended: Counter[str] = Counter()
        """Why streams ended: a status code, or the session_closed reason."""

    def __len__(self) -> int:
        """Streams started so far (open, or ended since)."""
        return len(self._tasks)

    def _stub(self, index: int) -> Any:
        """The stub of stream ``index``'s channel (typed loosely: the stubs type the sync API)."""
        while len(self._channels) <= index // STREAMS_PER_CHANNEL:
            self._channels.append(
                grpc.aio.secure_channel(
                    self._address,
                    self._credentials,
                    # A connection of its own: channels alike would share one otherwise.
                    options=(("grpc.use_local_subchannel_pool", 1),),
                )
            )
        return gateway_pb2_grpc.TriadGatewayStub(self._channels[index // STREAMS_PER_CHANNEL])

    async def add(self, players: Sequence[IdlePlayer]) -> int:
        """Open a session for each player, ``OPENS_AT_ONCE`` at a time, each waited for
        until its first push (or ``OPEN_TIMEOUT``); the streams open afterwards."""
        gate = asyncio.Semaphore(OPENS_AT_ONCE)

        async def start(player: IdlePlayer) -> None:
            async with gate:
                opened = asyncio.Event()
                stub = self._stub(len(self._tasks))
                task = asyncio.create_task(self._hold(stub, player, opened))
                self._tasks.append(task)
                waiting = asyncio.create_task(opened.wait())
                await asyncio.wait(
                    {waiting, task}, timeout=OPEN_TIMEOUT, return_when="FIRST_COMPLETED"
                )
                waiting.cancel()

        await asyncio.gather(*(start(p) for p in players))
        return self.open

    async def _hold(self, stub: Any, player: IdlePlayer, opened: asyncio.Event) -> None:
        try:
            async for push in stub.OpenSession(
                g.OpenSessionRequest(client_version="bench-idle/1"), metadata=player.metadata
            ):
                kind = push.WhichOneof("push") or "none"
                self.pushes[kind] += 1
                if not opened.is_set():
                    opened.set()
                    self.open += 1
                if kind == "session_closed":
                    self.ended[g.SessionCloseReason.Name(push.session_closed.reason)] += 1
                    break
            else:
                self.ended["stream ended"] += 1
        except grpc.aio.AioRpcError as error:
            self.ended[error.code().name] += 1
        finally:
            if opened.is_set():
                self.open -= 1

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for channel in self._channels:
            with contextlib.suppress(Exception):
                await channel.close()
        self._tasks, self._channels = [], []
