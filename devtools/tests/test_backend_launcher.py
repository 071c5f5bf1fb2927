"""The backend launcher (devtools/backend.py) that make run, the load generator
and the chaos test share: every service a process, killed and restarted like a crash,
and nothing left running after stop."""

from __future__ import annotations

import os
import time
from pathlib import Path
from uuid import uuid4

import grpc
import pytest
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

from devtools.backend import Backend, BackendConfig
from devtools.players import PASSWORD, bearer
from devtools.topology import NAMES

pytestmark = pytest.mark.integration


def test_services_start_die_come_back_and_leave_nothing_behind(
    shared_database_url: str, nats_url: str, tmp_path: Path
) -> None:
    backend = Backend(BackendConfig(shared_database_url, nats_url, tmp_path))
    with backend:
        pids = {name: backend.pid(name) for name in NAMES}
        assert all(pids.values())
        credentials = grpc.ssl_channel_credentials(root_certificates=backend.root_cert)
        with grpc.secure_channel(backend.gateway, credentials) as channel:
            stub = gateway_pb2_grpc.TriadGatewayStub(channel)
            me = stub.Register(
                g.RegisterRequest(
                    request_id=uuid4().hex, player_name=f"l{uuid4().hex[:12]}", password=PASSWORD
                ),
                timeout=10,
            )
            catalog = catalog_size(stub, me.tokens)
            assert catalog > 0

            backend.kill("collection")
            assert backend.exited() == {"collection": -9}
            assert not alive(pids["collection"] or 0)
            backend.restart("collection")
            assert backend.exited() == {}
            assert backend.pid("collection") not in (None, pids["collection"])
            assert catalog_size(stub, me.tokens) == catalog

        group = [p for p in processes() if pgid(p) in pids.values()]
    assert not [pid for pid in group if alive(pid)]
    assert all(backend.pid(name) is None for name in NAMES)
    for name in NAMES:
        assert backend.log(name).read_bytes(), name
    assert backend.schema("match").startswith("match_")


def catalog_size(stub: gateway_pb2_grpc.TriadGatewayStub, tokens: g.AuthTokens) -> int:
    deadline = time.monotonic() + 30
    while True:  # the gateway reconnects to a restarted service with a backoff
        try:
            reply = stub.ListCatalog(
                g.ListCatalogRequest(page_size=5), metadata=bearer(tokens), timeout=10
            )
            return int(reply.total_size)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:  # a zombie is dead, only not yet reaped
            return stat.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None


def processes() -> list[int]:
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]
