"""Channels from one service to another.

Behind a Kubernetes Service one long-lived HTTP/2 connection would pin every call to
one pod. Internal addresses are therefore ``dns:///<headless service>:<port>`` names
that resolve to every ready pod, and channels balance calls over all of them
(``round_robin``); servers end connections after a maximum age so that clients
re-resolve and find new pods.
"""

from __future__ import annotations

import grpc

CHANNEL_OPTIONS: tuple[tuple[str, int | str], ...] = (
    ("grpc.lb_policy_name", "round_robin"),
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    # After a service restarts, its callers reconnect within two seconds: gRPC's default
    # backoff grows to 120 s, so a service away for a minute (a deploy, a node lost) was
    # refused by its callers ("not available right now") for up to half a minute more.
    ("grpc.initial_reconnect_backoff_ms", 250),
    ("grpc.max_reconnect_backoff_ms", 2_000),
)


def internal_channel(address: str) -> grpc.aio.Channel:
    """An insecure channel inside the cluster's network (policies allow only real
    call paths); calls are spread over every address the name resolves to."""
    return grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)
