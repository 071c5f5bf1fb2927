"""The match service and the gateway as processes, and what players do through the
gateway, for the gateway tests (and test_late_nats.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import uuid4

from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.devcert import ensure_dev_certificate
from devtools.players import PASSWORD, SECRET
from devtools.processes import Service, free_port


def match_and_gateway(
    database_url: str, nats_url: str, directory: Path
) -> tuple[Service, Service, Path]:
    """The match service and the gateway as processes (not started), in schemas of
    their own, and the gateway's certificate."""
    schema = uuid4().hex[:10]
    match_port, gateway_port = free_port(), free_port()
    match = Service(
        "services.match.main",
        {
            "TRIAD_DATABASE_URL": database_url,
            "TRIAD_NATS_URL": nats_url,  # the views it pushes to the players' sessions
            "TRIAD_MATCH_SCHEMA": f"match_{schema}",
            "TRIAD_MATCH_PORT": str(match_port),
            "TRIAD_MATCH_METRICS_PORT": "0",
            "TRIAD_DISCONNECT_SECONDS": "1.5",
        },
        match_port,
        directory / "match.log",
    )
    cert, key = ensure_dev_certificate(directory / "tls")
    gateway = Service(
        "gateway.main",
        {
            "TRIAD_DATABASE_URL": database_url,
            "TRIAD_NATS_URL": nats_url,
            "TRIAD_GATEWAY_SCHEMA": f"gateway_{schema}",
            "TRIAD_GATEWAY_PORT": str(gateway_port),
            "TRIAD_GATEWAY_METRICS_PORT": "0",
            "TRIAD_TOKEN_SECRET": SECRET,
            "TRIAD_GATEWAY_TLS_CERT": str(cert),
            "TRIAD_GATEWAY_TLS_KEY": str(key),
            "TRIAD_MATCH_ADDR": f"127.0.0.1:{match_port}",
            "TRIAD_HEARTBEAT_SECONDS": "0.2",
            "TRIAD_RATE_PER_SECOND": "50",
            "TRIAD_RATE_BURST": "60",
            "TRIAD_REGISTRATIONS_PER_MINUTE": "100000",
            "TRIAD_REGISTRATION_BURST": "100000",
        },
        gateway_port,
        directory / "gateway.log",
        root_certificates=cert.read_bytes(),
    )
    return match, gateway, cert


async def register(api: Any, name: str | None = None) -> g.RegisterResponse:
    name = name or f"p{uuid4().hex[:10]}"
    reply: g.RegisterResponse = await api.Register(
        g.RegisterRequest(request_id=uuid4().hex, player_name=name, password=PASSWORD)
    )
    return reply


def last_view(pushes: list[g.OpenSessionResponse], match_id: str) -> pb.MatchView | None:
    views = [p.match_view for p in pushes if p.HasField("match_view")]
    views += [
        p.session_opened.active_match
        for p in pushes
        if p.HasField("session_opened") and p.session_opened.HasField("active_match")
    ]
    mine = [v for v in views if v.match_id == match_id]
    return max(mine, key=lambda v: v.version) if mine else None
