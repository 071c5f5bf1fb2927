"""``triad-match``: the composition root of the match service. Wiring only."""

from __future__ import annotations

import asyncio
import sys
from random import SystemRandom

import structlog
from prometheus_client import REGISTRY

from services.match import handlers, metrics
from services.match.bots import BotPool
from services.match.config import MatchSettings
from services.match.handlers import Context
from services.match.schema import MIGRATIONS
from services.match.server import SERVICE_NAME, MatchServicer, register
from services.match.store import NOTIFY_CHANNEL, MatchStore
from services.platform.background import every, publish_log, utc_now
from services.platform.database import create_pool
from services.platform.eventstore import MIGRATIONS as EVENT_MIGRATIONS
from services.platform.grpcserver import Lifecycle, ServerConfig, build_server
from services.platform.logging import configure_logging
from services.platform.metrics import RpcMetrics
from services.platform.migrations import migrate
from services.platform.notifier import Notifier
from services.platform.relay import MIGRATIONS as RELAY_MIGRATIONS
from services.platform.settings import SettingsError

log = structlog.get_logger()


async def run(settings: MatchSettings) -> None:
    async with Lifecycle() as life:
        pool = await life.enter(create_pool(settings.database_url))
        await migrate(pool, settings.schema, [*EVENT_MIGRATIONS, *RELAY_MIGRATIONS, *MIGRATIONS])
        store = MatchStore(pool, settings.schema, linger=settings.commit_linger_seconds)
        bot_pool = await life.enter(BotPool(settings.bot_workers, settings.bot_seconds))
        ctx = Context(
            store=store,
            clock=utc_now,
            rng=SystemRandom(),
            turn_seconds=settings.turn_seconds,
            disconnect_seconds=settings.disconnect_seconds,
            bot_pool=bot_pool,
        )
        notifier = Notifier(settings.database_url, NOTIFY_CHANNEL)
        await notifier.start()
        life.push_async_callback(notifier.close)

        stop = asyncio.Event()
        tasks: list[asyncio.Task[None]] = []

        async def stop_tasks() -> None:
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)

        life.push_async_callback(stop_tasks)

        async def count_active() -> bool:
            metrics.ACTIVE_MATCHES.set(await store.count_active())
            return False

        # One timer loop per bot worker plus one: a loop waits while its bot thinks (up
        # to the bot's budget), and the others keep firing turns and disconnects
        # meanwhile. SKIP LOCKED hands each loop a different match.
        tasks += [
            asyncio.create_task(
                every(stop, settings.timer_poll_seconds, lambda: handlers.fire_due_timer(ctx))
            )
            for _ in range(settings.bot_workers + 1)
        ]
        tasks += [
            asyncio.create_task(every(stop, 5.0, count_active)),
            asyncio.create_task(notifier.keep_alive(stop)),
            asyncio.create_task(publish_log(pool, settings.schema, "match", REGISTRY, stop)),
        ]
        life.start_metrics(REGISTRY, settings.metrics_port)
        servicer = MatchServicer(ctx, notifier, settings.admin_token)
        server = await life.start_server(
            build_server(
                ServerConfig(host=settings.host, port=settings.port),
                lambda grpc_server: register(grpc_server, servicer),
                [SERVICE_NAME],
                metrics=RpcMetrics.register(REGISTRY),
            )
        )
        await life.wait(server)


def main() -> int:
    configure_logging("match")
    try:
        settings = MatchSettings.from_env()
    except SettingsError as error:
        print(f"triad-match: {error}", file=sys.stderr)
        return 2
    asyncio.run(run(settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
