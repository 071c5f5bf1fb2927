"""What the NATS connection logs: a connection lost is a warning (it reconnects by
itself), a connection the service closes on purpose is not."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from services.platform import bus

pytestmark = pytest.mark.integration


async def test_closing_the_connection_on_purpose_warns_of_nothing(nats_url: str) -> None:
    """Found from outside: every service logged "nats.disconnected" at warning level as
    it stopped gracefully, at each rollout: noise an on-call operator learns to ignore."""
    client = await bus.connect(nats_url, name="closing")
    with capture_logs() as logs:
        await client.close()
    said = [(entry["event"], entry["log_level"]) for entry in logs]
    assert ("nats.disconnected", "info") in said, said
    assert not [entry for entry in logs if entry["log_level"] == "warning"], logs
