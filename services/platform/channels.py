"""Channels from one service to another.

Behind a Kubernetes Service one long-lived HTTP/2 connection would pin every call to
one pod. Internal addresses are therefore ``dns:///<headless service>:<port>`` names
that resolve to every ready pod, and channels balance calls over all of them
(``round_robin``); servers end connections after a maximum age so that clients
re-resolve and find new pods.

Every call waits for a connection within its deadline (``waitForReady``, which every
internal call has: ``downstream.INTERNAL_DEADLINE`` or the matchmaker's shorter call
timeout). A channel whose service has just come back may still be waiting out its
reconnect backoff; without waiting, the first calls in that window were refused "not
available right now" although the service was serving. While a service is away, its
callers learn so when their deadline passes instead of at once; the matchmaker's
deadline is shorter than the gateway's, so a player still reads which service is away.
"""

from __future__ import annotations

import json

import grpc

SERVICE_CONFIG = json.dumps({"methodConfig": [{"name": [{}], "waitForReady": True}]})
"""Every method of every internal service waits for a connection (gRPC service config)."""

CHANNEL_OPTIONS: tuple[tuple[str, int | str], ...] = (
    ("grpc.lb_policy_name", "round_robin"),
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    # After a service restarts, its callers reconnect within a second: gRPC's default
    # backoff grows to 120 s, so a service away for a minute (a deploy, a node lost) was
    # refused by its callers ("not available right now") for up to half a minute more.
    ("grpc.initial_reconnect_backoff_ms", 250),
    ("grpc.max_reconnect_backoff_ms", 1_000),
    ("grpc.service_config", SERVICE_CONFIG),
)


def internal_channel(address: str) -> grpc.aio.Channel:
    """An insecure channel inside the cluster's network (policies allow only real
    call paths); calls are spread over every address the name resolves to."""
    return grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)
