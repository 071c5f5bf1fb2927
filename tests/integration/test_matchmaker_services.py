"""The matchmaker with the real collection, rating and match services as processes, on
PostgreSQL and NATS: its gRPC adapters against the services they stand in for.

Ranked: both players' Random decks are drawn from their own copies and locked for the
match. Draft: the pairing starts a draft in the collection service; while it is open the
players cannot queue; when its pick deadline completes both decks, the DraftCompleted
event (over JetStream) makes the matchmaker create the Draft match with drafted cards.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar
from uuid import uuid4

import asyncpg
import grpc
import pytest
from triad.v1 import collection_pb2 as c
from triad.v1 import collection_pb2_grpc, match_pb2_grpc, matchmaker_pb2_grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import match_pb2 as m
from triad.v1 import matchmaker_pb2 as mm

from devtools.processes import Service, free_port

pytestmark = pytest.mark.integration
T = TypeVar("T")


def _service(module: str, prefix: str, env: dict[str, str], logs: Path) -> Service:
    port = free_port()
    env = {**env, f"TRIAD_{prefix}_PORT": str(port), f"TRIAD_{prefix}_METRICS_PORT": "0"}
    return Service(module, env, port, logs / f"{prefix.lower()}.log")


@pytest.fixture(scope="module")
def backend(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Service]]:
    logs = tmp_path_factory.mktemp("matchmaker-services")
    tag = uuid4().hex[:10]
    shared = {"TRIAD_DATABASE_URL": shared_database_url, "TRIAD_NATS_URL": nats_url}
    services = {
        "match": _service(
            "services.match.main", "MATCH", {**shared, "TRIAD_MATCH_SCHEMA": f"match_{tag}"}, logs
        ),
        "collection": _service(
            "services.collection.main",
            "COLLECTION",
            {
                **shared,
                "TRIAD_COLLECTION_SCHEMA": f"collection_{tag}",
                # No one picks: the pick deadline completes both decks, before anyone
                # could forfeit by inactivity.
                "TRIAD_DRAFT_PICK_SECONDS": "1.5",
                "TRIAD_DRAFT_INACTIVITY_SECONDS": "60",
                "TRIAD_TIMER_POLL_SECONDS": "0.02",
            },
            logs,
        ),
        "rating": _service(
            "services.rating.main",
            "RATING",
            {
                **shared,
                "TRIAD_RATING_SCHEMA": f"rating_{tag}",
                "TRIAD_RATING_CONSUMER": f"rating_{tag}",
            },
            logs,
        ),
    }
    started: list[Service] = []
    try:
        with ThreadPoolExecutor(len(services)) as pool:
            for service in [pool.submit(s.start) for s in services.values()]:
                started.append(service.result())
        matchmaker = _service(
            "services.matchmaker.main",
            "MATCHMAKER",
            {
                **shared,
                "TRIAD_MATCHMAKER_SCHEMA": f"mm_{tag}",
                "TRIAD_MATCHMAKER_CONSUMER": f"mm_{tag}",
                "TRIAD_MATCHMAKER_PAIR_INTERVAL_SECONDS": "0.05",
                "TRIAD_MATCH_ADDR": services["match"].address,
                "TRIAD_COLLECTION_ADDR": services["collection"].address,
                "TRIAD_RATING_ADDR": services["rating"].address,
            },
            logs,
        )
        started.append(matchmaker.start())
        yield {**services, "matchmaker": matchmaker}
    finally:
        with ThreadPoolExecutor(len(started) or 1) as pool:
            stopped = pool.map(Service.stop, started)
            codes = dict(zip([s.module for s in started], stopped, strict=True))
        assert set(codes.values()) <= {0}, codes


@pytest.fixture
async def stubs(backend: dict[str, Service]) -> AsyncIterator[dict[str, Any]]:
    channels = {name: grpc.aio.insecure_channel(s.address) for name, s in backend.items()}
    try:
        yield {
            "match": match_pb2_grpc.MatchServiceStub(channels["match"]),
            "collection": collection_pb2_grpc.CollectionServiceStub(channels["collection"]),
            "matchmaker": matchmaker_pb2_grpc.MatchmakerServiceStub(channels["matchmaker"]),
        }
    finally:
        for channel in channels.values():
            await channel.close()


async def until(probe: Callable[[], Awaitable[T | None]], seconds: float = 15) -> T:
    deadline = asyncio.get_running_loop().time() + seconds
    while asyncio.get_running_loop().time() < deadline:
        found = await probe()
        if found is not None:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError("timed out")


async def where_the_draft_stopped(backend: dict[str, Service], database_url: str) -> str:
    """Why no match came of the draft, for a failure's message: the collection's draft
    events and how far its relay published, and any transaction holding the cluster's
    xmin back (the relay publishes only below it)."""
    schema = backend["collection"].env["TRIAD_COLLECTION_SCHEMA"]
    conn = await asyncpg.connect(database_url)
    try:
        events = await conn.fetch(
            f"SELECT type, tx_id::text, seq, recorded_at FROM {schema}.events "
            "WHERE type LIKE '%Draft%' ORDER BY seq"
        )
        relays = await conn.fetch(f"SELECT name, tx_id::text, seq FROM {schema}.relay_checkpoints")
        xmin = await conn.fetchval("SELECT pg_snapshot_xmin(pg_current_snapshot())::text")
        holders = await conn.fetch(
            "SELECT pid, datname, application_name, backend_xid::text, "
            "now() - xact_start AS open_for, state, left(query, 200) AS query "
            "FROM pg_stat_activity WHERE backend_xid IS NOT NULL ORDER BY xact_start"
        )
    finally:
        await conn.close()
    lines = [
        "no match came of the draft within 45 s",
        f"draft events: {[tuple(r) for r in events]}",
        f"relay checkpoints: {[tuple(r) for r in relays]}; cluster xmin {xmin}",
        f"transactions holding an xid: {[dict(r) for r in holders]}",
    ]
    return "\n".join(lines)


async def newcomers(stubs: dict[str, Any], *names: str) -> list[pb.PlayerRef]:
    players = [pb.PlayerRef(player_id=f"{n}-{uuid4().hex[:8]}", player_name=n) for n in names]
    for player in players:
        await stubs["collection"].GrantStarterCollection(
            c.CollectionServiceGrantStarterCollectionRequest(
                request_id=f"start-{player.player_id}", player=player
            )
        )
    return players


async def enqueue(stubs: dict[str, Any], player: pb.PlayerRef, mode: int, **deck: Any) -> Any:
    return await stubs["matchmaker"].Enqueue(
        mm.MatchmakerServiceEnqueueRequest(
            request_id=f"q-{uuid4().hex[:8]}", player=player, mode=mode, **deck
        )
    )


async def paired(stubs: dict[str, Any], player: pb.PlayerRef) -> pb.Ticket:
    async def probe() -> pb.Ticket | None:
        reply = await stubs["matchmaker"].GetQueueStatus(
            mm.MatchmakerServiceGetQueueStatusRequest(player_id=player.player_id)
        )
        ticket = reply.status.ticket
        return ticket if ticket.status == pb.TICKET_STATUS_PAIRED else None

    return await until(probe)


async def test_ranked_draws_random_decks_from_owned_copies_and_locks_them(
    stubs: dict[str, Any],
) -> None:
    ann, bea = await newcomers(stubs, "ann", "bea")
    random = {"deck": pb.DeckChoice(random=pb.RandomDeck())}
    for player in (ann, bea):
        await enqueue(stubs, player, pb.MODE_RANKED, **random)
    ticket = await paired(stubs, ann)
    assert ticket.match_id == (await paired(stubs, bea)).match_id
    view = (
        await stubs["match"].GetView(
            m.MatchServiceGetViewRequest(match_id=ticket.match_id, player_id=ann.player_id)
        )
    ).view
    assert view.mode == pb.MODE_RANKED and view.ladder.ladder == pb.LADDER_RANKED
    entries = (
        await stubs["collection"].ListCopies(
            c.CollectionServiceListCopiesRequest(player_id=ann.player_id, page_size=100)
        )
    ).entries
    locks = {e.copy.copy_id: e.lock.holder.match_id for e in entries}
    hand = {card.card.card_id for card in view.my_hand}
    assert len(hand) == 5 and all(locks.get(i) == ticket.match_id for i in hand)


async def test_draft_pairs_into_a_draft_whose_completion_starts_the_match(
    stubs: dict[str, Any], backend: dict[str, Service], shared_database_url: str
) -> None:
    cid, dan = await newcomers(stubs, "cid", "dan")
    for player in (cid, dan):
        await enqueue(stubs, player, pb.MODE_DRAFT)
    ticket = await paired(stubs, cid)
    assert ticket.draft_id and not ticket.match_id
    draft = (
        await stubs["collection"].GetDraft(
            c.CollectionServiceGetDraftRequest(draft_id=ticket.draft_id, player_id=cid.player_id)
        )
    ).draft
    assert draft.draft_id == ticket.draft_id
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await enqueue(stubs, cid, pb.MODE_UNRANKED, deck=pb.DeckChoice(random=pb.RandomDeck()))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "draft" in (refused.value.details() or "")

    async def active() -> Any:
        reply = await stubs["match"].GetActiveMatch(
            m.MatchServiceGetActiveMatchRequest(player_id=cid.player_id)
        )
        return reply.active_match if reply.HasField("active_match") else None

    # Nobody picks: every pick runs to its 1.5 s deadline, then the completed draft
    # reaches the matchmaker over NATS and it starts the match. Several seconds alone,
    # more at the end of a whole suite (a CI run once took over 15).
    try:
        found = await until(active, seconds=45)
    except AssertionError:
        raise AssertionError(await where_the_draft_stopped(backend, shared_database_url)) from None
    view = (
        await stubs["match"].GetView(
            m.MatchServiceGetViewRequest(match_id=found.match_id, player_id=cid.player_id)
        )
    ).view
    assert view.mode == pb.MODE_DRAFT and view.ladder.ladder == pb.LADDER_DRAFT
    assert all(c.card.origin == pb.CARD_ORIGIN_DRAFTED for c in view.my_hand)
    assert sorted(p.player_name for p in view.players) == ["cid", "dan"]
