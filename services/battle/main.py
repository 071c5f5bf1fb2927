"""``triad-battle-service``: the composition root of the battle service. Wiring only."""

from __future__ import annotations

from datetime import timedelta
from random import SystemRandom

import structlog
from prometheus_client import REGISTRY

from services.battle import handlers, handlers_timers, schema
from services.battle.config import BattleSettings
from services.battle.domain import Timing
from services.battle.handlers import Context
from services.battle.metrics import BattleMetrics
from services.battle.presenter import SeatViews
from services.battle.rules import load_rosters
from services.battle.schema import SCHEMA_MIGRATIONS
from services.battle.server import SERVICE_NAME, BattleServicer, register
from services.battle.store import PostgresBattles
from services.platform.background import DueSoon, publish_log, utc_now
from services.platform.database import create_pool
from services.platform.grpcserver import Lifecycle
from services.platform.migrations import migrate
from services.platform.service import Background, open_pushes, run_service, serve

log = structlog.get_logger()

RELAY_LINGER = 0.01


async def run(settings: BattleSettings) -> None:
    rosters = load_rosters()
    log.info(
        "battle.content_loaded",
        current=rosters.current.version,
        versions=sorted(rosters.by_version),
    )
    async with Lifecycle() as life:
        pool = await life.enter(
            create_pool(settings.database_url, max_size=settings.database_pool_size)
        )
        await migrate(pool, settings.schema, SCHEMA_MIGRATIONS)
        store = PostgresBattles(pool, settings.schema, linger=settings.commit_linger_seconds)
        pushes = await open_pushes(life, settings, "battle")
        views = SeatViews(pushes, rosters, utc_now)
        metrics = BattleMetrics.register(REGISTRY)
        due = DueSoon()
        ctx = Context(
            store=store,
            rosters=rosters,
            clock=utc_now,
            rng=SystemRandom(),
            timing=Timing(
                timedelta(seconds=settings.formation_seconds),
                timedelta(seconds=settings.selection_seconds),
            ),
            disconnect=timedelta(seconds=settings.disconnect_seconds),
            takeover_level=settings.takeover_level,
            announce=views.announce,
            observe=metrics.observe,
            wake=due.due_at,
        )
        work = Background.of(life)
        work.prune(pool, settings, schema.transient(settings.schema))

        async def count_active() -> bool:
            metrics.active.set(len(await store.in_progress()))
            return False

        async def announce_in_progress() -> None:
            # Players whose push was lost (a crash between a commit and its publication,
            # NATS away) get the current view of their battle once NATS is there.
            try:
                await handlers.announce_in_progress(ctx, work.stop)
            except Exception as error:  # the next change of each battle pushes it anyway
                log.warning("announcing the battles in progress failed", error=repr(error))

        work.every(
            settings.timer_poll_seconds,
            lambda: handlers_timers.fire_due_timer(ctx),
            next_due=store.next_due,
            due=due,
        )
        work.every(5.0, count_active)
        pushes.when_connected(announce_in_progress)
        work.start(
            # The relay lingers 10 ms after a notice so that group commits landing
            # together are published in one batch.
            publish_log(
                settings.shared, pool, settings.schema, "battle", REGISTRY, work.stop, RELAY_LINGER
            )
        )
        servicer = BattleServicer(ctx, views, settings.admin_token)
        await serve(life, settings, REGISTRY, lambda s: register(s, servicer), [SERVICE_NAME])


def main() -> int:
    return run_service("battle", BattleSettings.from_env, run)


if __name__ == "__main__":
    raise SystemExit(main())
