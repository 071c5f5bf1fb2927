"""The gateway's own metrics (every RPC's are the platform's, ``RpcMetrics``)."""

from __future__ import annotations

from prometheus_client import Gauge

SESSIONS = Gauge("triad_gateway_sessions", "Session streams (OpenSession) open now.")
