"""Every service that tells players something exports what it published, on the /metrics
its pod's PodMonitor scrapes (the Event pipeline dashboard's push panels).

Found by an operator review: the counter lived in prometheus_client's default registry,
while the matchmaker and the rating service serve a registry of their own, so queue
statuses, tables, challenges and rating changes never showed on the dashboards.
"""

from __future__ import annotations

import asyncio
import re
import time
import urllib.request
from typing import Any

import pytest
from triad.v1 import common_pb2 as pb

from devtools.stack import Stack
from tests.e2e.end_to_end import enqueue, register

pytestmark = pytest.mark.integration

PUSHING = ("gateway", "match", "matchmaker", "collection", "rating", "battle")
"""The processes that publish player updates (``services.platform.pushes.Pushes``)."""


def scrape(backend: Stack, service: str) -> str:
    address = backend.backend.metrics_address(service)
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=5) as reply:
        text: str = reply.read().decode()
    return text


def test_every_service_that_pushes_exports_the_push_counter(backend: Stack) -> None:
    missing = [
        service
        for service in PUSHING
        if "# TYPE triad_player_pushes_total counter" not in scrape(backend, service)
    ]
    assert not missing, f"triad_player_pushes_total not on the /metrics of {missing}"


async def test_the_matchmakers_queue_statuses_are_counted_where_it_is_scraped(
    backend: Stack, api: Any
) -> None:
    await enqueue(api, await register(api), pb.MODE_RANKED)
    sample = re.compile(
        r'^triad_player_pushes_total\{field="queue_status",outcome="sent"\} [1-9]', re.MULTILINE
    )
    deadline = time.monotonic() + 15
    while not sample.search(scrape(backend, "matchmaker")):
        assert time.monotonic() < deadline, "no queue_status push counted by the matchmaker"
        await asyncio.sleep(0.2)
