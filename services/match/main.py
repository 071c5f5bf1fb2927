"""``triad-match``: the composition root of the match service. Wiring only."""

from __future__ import annotations

from random import SystemRandom

import structlog
from prometheus_client import REGISTRY

from services.match import handlers, handlers_timers, metrics, schema
from services.match.bots import BotPool
from services.match.config import MatchSettings
from services.match.handlers import Context
from services.match.presenter import SeatViews
from services.match.schema import SCHEMA_MIGRATIONS
from services.match.server import SERVICE_NAME, MatchServicer, register
from services.match.store import NOTIFY_CHANNEL, MatchStore
from services.platform.background import DueSoon, publish_log, utc_now
from services.platform.database import create_pool
from services.platform.grpcserver import Lifecycle
from services.platform.migrations import migrate
from services.platform.service import Background, open_notifier, open_pushes, run_service, serve

log = structlog.get_logger()


async def run(settings: MatchSettings) -> None:
    async with Lifecycle() as life:
        pool = await life.enter(
            create_pool(settings.database_url, max_size=settings.database_pool_size)
        )
        await migrate(pool, settings.schema, SCHEMA_MIGRATIONS)
        store = MatchStore(pool, settings.schema, linger=settings.commit_linger_seconds)
        bot_pool = await life.enter(BotPool(settings.bot_workers, settings.bot_seconds))
        pushes = await open_pushes(life, settings, "match")
        views = SeatViews(pushes, utc_now)
        due = DueSoon()
        ctx = Context(
            store=store,
            clock=utc_now,
            rng=SystemRandom(),
            turn_seconds=settings.turn_seconds,
            disconnect_seconds=settings.disconnect_seconds,
            late_seconds=settings.timer_late_seconds,
            bot_pool=bot_pool,
            announce=views.announce,
            due=due,
        )
        notifier = await open_notifier(life, settings.database_url, NOTIFY_CHANNEL)
        work = Background.of(life)
        work.prune(pool, settings, schema.transient(settings.schema))

        async def count_active() -> bool:
            metrics.ACTIVE_MATCHES.set(await store.count_active())
            return False

        async def announce_in_progress() -> None:
            try:
                await handlers.announce_in_progress(ctx, work.stop)
            except Exception as error:  # the next change of each match pushes it anyway
                log.warning("announcing the matches in progress failed", error=repr(error))

        # One timer loop per bot worker plus one: a loop waits while its bot thinks (up
        # to the bot's budget), and the others keep firing turns and disconnects
        # meanwhile. SKIP LOCKED hands each loop a different match.
        work.every(
            settings.timer_poll_seconds,
            lambda: handlers_timers.fire_due_timer(ctx),
            copies=settings.bot_workers + 1,
            # Idle, a loop sleeps until the earliest timer (at most the poll interval),
            # woken when a command here sets one due sooner.
            next_due=store.next_due,
            due=due,
        )
        work.every(5.0, count_active)
        # Players whose push was lost (a crash between a commit and its publication,
        # NATS away) get the current view of their match once NATS is there again.
        pushes.when_connected(announce_in_progress)
        work.start(
            notifier.keep_alive(work.stop),
            publish_log(settings.shared, pool, settings.schema, "match", REGISTRY, work.stop),
        )
        servicer = MatchServicer(ctx, notifier, settings.admin_token, views)
        await serve(life, settings, REGISTRY, lambda s: register(s, servicer), [SERVICE_NAME])


def main() -> int:
    return run_service("match", MatchSettings.from_env, run)


if __name__ == "__main__":
    raise SystemExit(main())
