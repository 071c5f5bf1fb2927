"""Reading the backend's event pipeline and tables for the chaos checks: where each
service keeps its data (``layout_of``) and ``Pipeline``, which waits for the pipeline to
catch up or drain and then runs the invariants (tests/chaos/invariants.py and the
modules it names)."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

import asyncpg
import nats

from bench.load_run import LoadRun
from devtools.backend import Backend
from services.platform.bus import EventStream
from services.platform.settings import Settings
from tests.chaos import auction, drained
from tests.chaos import invariants as inv
from tests.chaos.battles import battles_consistent
from tests.chaos.copies import copies_conserved
from tests.chaos.settlement import matches_settled


def layout_of(backend: Backend) -> inv.Layout:
    schemas = {
        name: backend.schema(name) for name in ("match", "matchmaker", "collection", "battle")
    }
    rating = backend.schema("rating")
    env = {**backend.env("rating"), **backend.env("matchmaker")}
    return inv.Layout(
        stream=EventStream.of(Settings.from_env(env)).name,  # the backend's namespace's
        battle=schemas["battle"],
        match=schemas["match"],
        matchmaker=schemas["matchmaker"],
        collection=schemas["collection"],
        rating=rating,
        relays=dict(schemas),
        consumers={
            f"collection-{schemas['collection']}-match-finished": (
                schemas["collection"],
                "triad.v1.MatchFinished",
            ),
            env.get("TRIAD_RATING_CONSUMER", "rating"): (rating, "triad.v1.MatchFinished"),
            f"{env.get('TRIAD_RATING_CONSUMER', 'rating')}-drafts": (
                rating,
                "triad.v1.DraftForfeited",
            ),
            env.get("TRIAD_MATCHMAKER_CONSUMER", "matchmaker-draft-completed"): (
                schemas["matchmaker"],
                "triad.v1.DraftCompleted",
            ),
        },
    )


class Pipeline:
    """Reads the event pipeline's state; reconnects whenever a server went away."""

    def __init__(self, database_url: str, nats_url: str, layout: inv.Layout) -> None:
        self.database_url = database_url
        self.nats_url = nats_url
        self.layout = layout

    async def caught_up_with(self, moment: datetime, limit: float = 90.0) -> float | None:
        """Seconds from ``moment`` until every event logged before it is published and
        carries every consumer's processed mark, and no durable consumer has messages
        waiting; None if that did not happen within ``limit``."""
        while (datetime.now(UTC) - moment).total_seconds() < limit:
            try:
                if await self._caught_up(moment):
                    return (datetime.now(UTC) - moment).total_seconds()
            except Exception:  # a server is away (the next fault): look again
                pass
            await asyncio.sleep(0.25)
        return None

    async def _caught_up(self, moment: datetime) -> bool:
        conn = await asyncpg.connect(self.database_url, timeout=5)
        try:
            if any((await drained.relay_backlog(conn, self.layout, moment)).values()):
                return False
            if any((await drained.unmarked(conn, self.layout, moment)).values()):
                return False
        finally:
            await conn.close()
        client = await nats.connect(self.nats_url, connect_timeout=2, max_reconnect_attempts=0)
        try:
            state = await drained.jetstream_state(client.jetstream(), self.layout)
        finally:
            await client.close()
        return all(c["pending"] == 0 for c in state["consumers"].values())

    async def wait_drained(self, limit: float) -> dict[str, int]:
        """Poll until nothing is stuck (or ``limit`` passes); the last counts."""
        deadline = time.monotonic() + limit
        while True:
            conn = await asyncpg.connect(self.database_url)
            try:
                counts = await drained.stuck(conn, self.layout)
            finally:
                await conn.close()
            if not any(counts.values()) or time.monotonic() > deadline:
                return counts
            await asyncio.sleep(1.0)

    async def checks(self, load: LoadRun, stuck: dict[str, int]) -> dict[str, inv.Check]:
        conn = await asyncpg.connect(self.database_url)
        client = await nats.connect(self.nats_url)
        try:
            log = await inv.MatchLog.read(conn, self.layout.match)
            caught = await drained.caught_up(conn, client.jetstream(), self.layout)
            return {
                "placements": inv.placements_logged(log, load.acknowledged),
                "results": inv.results_agree(log, load.finished),
                "settled": await matches_settled(conn, self.layout, log),
                "copies": await copies_conserved(conn, self.layout.collection),
                "coins": await auction.coins_conserved(conn, self.layout.collection),
                "auction": await auction.auction_consistent(conn, self.layout.collection),
                "stuck": drained.nobody_stuck(stuck),
                "battles": await battles_consistent(conn, self.layout.battle, load.plans),
                "caught_up": caught,
            }
        finally:
            await client.close()
            await conn.close()
