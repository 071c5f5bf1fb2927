"""``triad-gateway``: the composition root of the public gateway. Wiring only."""

from __future__ import annotations

import asyncio
import ssl
import uuid
from collections.abc import Callable
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import TypeVar

import grpc
import structlog
from prometheus_client import REGISTRY
from triad.v1 import (
    battle_pb2_grpc,
    collection_pb2_grpc,
    gateway_pb2,
    gateway_pb2_grpc,
    match_pb2_grpc,
    matchmaker_pb2_grpc,
    rating_pb2_grpc,
)

from gateway import schema
from gateway.accounts import TokenSigner
from gateway.auth import Authenticator, authenticated
from gateway.closed import closed
from gateway.config import GatewaySettings
from gateway.limits import OpenCallLimits, RateLimiter
from gateway.pushes import PushHub
from gateway.revocations import revocation_subject
from gateway.schema import SCHEMA_MIGRATIONS
from gateway.server import GatewayServicer
from gateway.store import GatewayStore
from gateway.web import WebServer
from services.platform.channels import internal_channel
from services.platform.database import create_pool
from services.platform.grpcserver import GrpcServer, Lifecycle
from services.platform.migrations import migrate
from services.platform.pushes import player_prefix
from services.platform.service import Background, run_service, serve

log = structlog.get_logger(__name__)

S = TypeVar("S")

SWEEP_LIMITS_SECONDS = 60.0
"""How often the refilled buckets of the open calls' limits are deleted."""
SERVICE_NAME = gateway_pb2.DESCRIPTOR.services_by_name["TriadGateway"].full_name


async def run(settings: GatewaySettings) -> None:
    async with Lifecycle() as life:
        pool = await life.enter(
            create_pool(settings.database_url, max_size=settings.database_pool_size)
        )
        await migrate(pool, settings.schema, SCHEMA_MIGRATIONS)
        store = GatewayStore(pool, settings.schema, gateway_id=uuid.uuid4().hex)
        signer = TokenSigner(
            settings.token_secret,
            timedelta(minutes=settings.access_minutes),
            accepted=settings.token_secret_accepted,
        )
        # Counted by every replica together (found in review: each replica's own).
        limits = OpenCallLimits.shared(pool, settings.schema, settings.open_calls)
        work = Background.of(life)
        work.every(SWEEP_LIMITS_SECONDS, limits.sweep)
        work.prune(pool, settings, schema.transient(settings.schema))
        auth = Authenticator(
            signer,
            store,
            RateLimiter(settings.rate_per_second, settings.rate_burst),
            limits=limits,
            revocation_subject=revocation_subject(settings.shared.namespace),
        )
        match_channel = await life.enter(internal_channel(settings.match_addr))

        async def optional(address: str | None, stub: Callable[[grpc.aio.Channel], S]) -> S | None:
            """An optional service's stub: a channel only when configured; without one
            its RPCs answer UNAVAILABLE ("not configured here")."""
            if not address:
                return None
            return stub(await life.enter(internal_channel(address)))

        matchmaker = await optional(
            settings.matchmaker_addr, matchmaker_pb2_grpc.MatchmakerServiceStub
        )
        collection = await optional(
            settings.collection_addr, collection_pb2_grpc.CollectionServiceStub
        )
        rating = await optional(settings.rating_addr, rating_pb2_grpc.RatingServiceStub)
        battle = await optional(settings.battle_addr, battle_pb2_grpc.BattleServiceStub)
        # The sessions' pushes; without NATS a session shows what it reads at its opening.
        hub = PushHub(None, player_prefix(settings.shared))
        if settings.nats_url is not None:
            # In the background: the gateway serves while NATS is away.
            connecting = asyncio.ensure_future(
                hub.connect(settings.shared.nats_servers, "triad-gateway-pushes")
            )

            # Logouts pushed between the replicas; until connected, revocations are
            # read again every 2 s.
            feeding = asyncio.ensure_future(
                auth.feed.connect(settings.shared.nats_servers, "triad-gateway-revocations")
            )

            async def close_hub() -> None:
                for task in (connecting, feeding):
                    task.cancel()
                await asyncio.gather(connecting, feeding, return_exceptions=True)
                await hub.close()
                await auth.feed.close()

            life.push_async_callback(close_hub)
        servicer = GatewayServicer(
            store,
            signer,
            auth,
            match_pb2_grpc.MatchServiceStub(match_channel),
            matchmaker=matchmaker,
            collection=collection,
            rating=rating,
            battle=battle,
            hub=hub,
            heartbeat_seconds=settings.heartbeat_seconds,
            queue_away_seconds=settings.queue_away_seconds,
        )
        # Last, after the server drained: the away reports still held back are sent when
        # due (at most REOPEN_SECONDS: its players reopen on another gateway meanwhile).
        life.push_async_callback(servicer.departures.finish)
        life.push_async_callback(servicer.away.drop)
        # Says this gateway lives; reports away the players of gateways that died.
        dead_after = timedelta(seconds=settings.dead_seconds)
        Background.of(life).every(settings.sweep_seconds, partial(servicer.sweep, dead_after))
        credentials = None
        if settings.tls_cert and settings.tls_key:
            credentials = grpc.ssl_server_credentials(
                [(Path(settings.tls_key).read_bytes(), Path(settings.tls_cert).read_bytes())]
            )

        async def serve_web(server: GrpcServer) -> None:
            """gRPC-Web on the same handlers (and TLS certificate), when configured."""
            if settings.web_port is None:
                return
            root = Path(settings.web_root) if settings.web_root else None
            web = WebServer(server.handlers, static_root=root, origins=settings.web_origins)
            context = None
            if settings.tls_cert and settings.tls_key:
                context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
                context.load_cert_chain(settings.tls_cert, settings.tls_key)
            bound = await web.start(settings.host, settings.web_port, context)
            life.push_async_callback(web.stop)
            log.info("serving web", port=bound, tls=context is not None, root=str(root))

        async def serve_also(server: GrpcServer) -> None:
            async def sessions_end() -> None:
                hub.shut_down()

            # At stop, before the server drains: every session here ends, told why.
            life.push_async_callback(sessions_end)
            await serve_web(server)
            if settings.health_port is not None:
                probes = await server.serve_health(settings.host, settings.health_port)
                life.push_async_callback(lambda: probes.stop(None))
                log.info("serving health for probes", port=settings.health_port, tls=False)

        await serve(
            life,
            settings,
            REGISTRY,
            lambda s: gateway_pb2_grpc.add_TriadGatewayServicer_to_server(servicer, s),
            [SERVICE_NAME],
            credentials=credentials,
            wrappers=[closed(settings.closed_methods), authenticated(auth)],
            also=serve_also,
        )


def main() -> int:
    return run_service("gateway", GatewaySettings.from_env, run)


if __name__ == "__main__":
    raise SystemExit(main())
