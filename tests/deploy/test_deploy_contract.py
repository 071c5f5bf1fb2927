"""What the deployment expects of the code (deploy/k8s/README.md, "What the code has
to do for this deployment"): each test finds the piece of code the manifests rely on."""

from __future__ import annotations

from pathlib import Path

from tests.deploy.deploy_manifests import ROOT, config


def source(*tops: str) -> str:
    return "\n".join(
        path.read_text()
        for top in tops
        for path in sorted((ROOT / top).rglob("*.py"))
        if "tests" not in path.relative_to(ROOT).parts
    )


def test_streams_get_the_replicas_the_overlay_asks_for() -> None:
    assert config("prod")["TRIAD_NATS_STREAM_REPLICAS"] == "3"
    assert "NATS_STREAM_REPLICAS" in source("services/platform")


def test_servers_close_connections_so_clients_find_new_pods() -> None:
    assert (
        "grpc.max_connection_age_ms" in (ROOT / Path("services/platform/grpcserver.py")).read_text()
    )


def test_internal_channels_balance_calls_over_every_pod() -> None:
    assert "round_robin" in source("services", "gateway")
