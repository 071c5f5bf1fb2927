"""The load generator's custom tables (bench/load_tables.py) against the whole backend,
every service a process, without faults: a short run of pairs of clients, one hosting
a Direct or Difference table as a challenge to the other, who joins; then the chaos
invariants on what they did (every settlement exactly as RULES.md 13 says, copies
conserved, nobody stuck, the pipeline caught up), with Auction House traders listing,
buying and cancelling beside them (coins = grants - spent - fees). ``make chaos`` runs
the same mix under faults for minutes.

NATS is the run's own (as in ``make chaos``): on a shared server the run's new durable
consumers would first read every event other runs ever published to the stream.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bench.load import LOAD_ENV, LoadConfig, LoadRun
from devtools.backend import Backend, BackendConfig
from devtools.embedded import NatsProcess
from tests.chaos.auction import AuctionTraffic
from tests.chaos.pipeline import Pipeline, layout_of

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        os.environ.get("TRIAD_CHAOS") == "1",
        reason="make chaos plays these tables under faults (test_chaos.py)",
    ),
]

SETTINGS = {
    **LOAD_ENV,
    "TRIAD_TRADE_CHOICE_SECONDS": "3",  # a Difference left alone completes within the run
    "TRIAD_RATE_PER_SECOND": "100",
    "TRIAD_RATE_BURST": "200",
}


async def test_pairs_of_clients_play_direct_and_difference_tables_settled_exactly(
    shared_database_url: str, tmp_path: Path
) -> None:
    natsd = NatsProcess(tmp_path / "jetstream", tmp_path / "nats")
    nats_url = natsd.start()
    config = BackendConfig(shared_database_url, nats_url, tmp_path, env=SETTINGS)
    with natsd_stopped(natsd), Backend(config) as backend:
        layout = layout_of(backend)
        load = LoadRun(
            LoadConfig(
                gateway=backend.gateway,
                root_cert=backend.root_cert,
                clients=6,
                seconds=25.0,
                mix={"direct": 1, "difference": 1},
                seed=19,
                drain_seconds=30.0,
            )
        )
        traffic = AuctionTraffic(backend.gateway, backend.root_cert, 20.0, traders=4)
        summary, auctions = await asyncio.gather(load.run(), traffic.run())
        pipeline = Pipeline(shared_database_url, nats_url, layout)
        checks = await pipeline.checks(load, await pipeline.wait_drained(30.0))

    for check in checks.values():
        assert check.ok, f"{check.name}: {check.problems}"
    assert set(summary.by_mode) <= {"direct", "difference"}, summary.by_mode
    assert summary.by_mode.get("direct", 0) > 0 and summary.by_mode.get("difference", 0) > 0
    settled = checks["settled"].counts
    assert settled["finished"] == settled["finished_custom"] == len(load.finished)
    assert settled["direct_transfers"] + settled["difference_transfers"] == settled["transfers"]
    assert settled["transfers"] == checks["copies"].counts["transfers"] > 0
    # the Difference winners chose in one call or left it to the server's deadline
    assert settled.get("difference_chosen", 0) + settled.get("difference_auto_picked", 0) > 0
    # the Auction House traders sold beside them: coins = grants - spent - fees
    assert checks["coins"].counts["sales"] == auctions["bought"] > 0, dict(auctions)


@contextmanager
def natsd_stopped(natsd: NatsProcess) -> Iterator[None]:
    try:
        yield
    finally:
        natsd.stop()
