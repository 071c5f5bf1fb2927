"""The collection service as a separate process, for the cross-service tests in tests/."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from uuid import uuid4

from devtools.processes import Service, free_port

ADMIN = "test-operator-token"


@contextmanager
def collection_service(
    database_url: str, nats_url: str | None, log: Path, **env: str
) -> Iterator[Service]:
    """Start ``triad-collection`` on a schema of its own; stop it (SIGTERM) afterwards."""
    port = free_port()
    schema = f"collection_{uuid4().hex[:12]}"
    service = Service(
        "services.collection.main",
        {
            "TRIAD_DATABASE_URL": database_url,
            "TRIAD_NATS_URL": nats_url or "",
            "TRIAD_COLLECTION_SCHEMA": schema,
            "TRIAD_COLLECTION_PORT": str(port),
            "TRIAD_COLLECTION_METRICS_PORT": "0",
            "TRIAD_ADMIN_TOKEN": ADMIN,
            "TRIAD_TIMER_POLL_SECONDS": "0.02",
            **env,
        },
        port,
        log,
    )
    service.start()
    service.env["schema"] = schema
    try:
        yield service
    finally:
        code = service.stop()
        assert code == 0, log.read_text()[-3000:]
