"""Metrics: isolated registries, the RPC metric names, and a /metrics endpoint on a free port."""

from __future__ import annotations

import urllib.error
import urllib.request

import grpc
import pytest
from prometheus_client import CollectorRegistry

from services.platform.metrics import (
    RPC_DURATION_BUCKETS,
    RPC_TOTAL,
    RpcMetrics,
    new_registry,
    start_metrics_server,
)


def scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        body: bytes = response.read()
    return body.decode()


def test_the_endpoint_serves_the_registry_on_the_port_it_picked() -> None:
    registry = new_registry()
    RpcMetrics.register(registry).observe("triad.v1.Match", "Place", grpc.StatusCode.OK, 0.002)
    server = start_metrics_server(registry, port=0, host="127.0.0.1")
    try:
        text = scrape(server.port)
    finally:
        server.close()

    assert server.port > 0
    assert 'triad_rpc_total{code="OK",method="Place",service="triad.v1.Match"} 1.0' in text
    assert 'triad_rpc_duration_seconds_bucket{code="OK",le="0.0025"' in text
    assert "process_cpu_seconds_total" in text
    with pytest.raises(urllib.error.URLError):
        scrape(server.port)


def test_registries_are_independent_so_each_test_or_process_starts_from_zero() -> None:
    first, second = CollectorRegistry(), CollectorRegistry()
    RpcMetrics.register(first).observe("s", "m", grpc.StatusCode.NOT_FOUND, 0.1)
    RpcMetrics.register(second)

    labels = {"service": "s", "method": "m", "code": "NOT_FOUND"}
    assert first.get_sample_value(RPC_TOTAL, labels) == 1
    assert second.get_sample_value(RPC_TOTAL, labels) is None


def test_buckets_span_half_a_millisecond_to_five_seconds() -> None:
    assert RPC_DURATION_BUCKETS[0] == 0.0005
    assert RPC_DURATION_BUCKETS[-1] == 5.0
    assert list(RPC_DURATION_BUCKETS) == sorted(set(RPC_DURATION_BUCKETS))


def test_every_observation_counts_under_its_own_labels() -> None:
    registry = CollectorRegistry()
    metrics = RpcMetrics.register(registry)
    for code in (grpc.StatusCode.OK, grpc.StatusCode.OK, grpc.StatusCode.ABORTED):
        metrics.observe("s", "m", code, 0.001)
    metrics.observe("s", "other", grpc.StatusCode.OK, 1.0)

    def total(method: str, code: str) -> float | None:
        labels = {"service": "s", "method": method, "code": code}
        return registry.get_sample_value(RPC_TOTAL, labels)

    assert (total("m", "OK"), total("m", "ABORTED"), total("other", "OK")) == (2, 1, 1)
    assert (
        registry.get_sample_value(
            "triad_rpc_duration_seconds_count", {"service": "s", "method": "m", "code": "OK"}
        )
        == 2
    )
