"""What the cross-service tests share to act as players through the gateway: the token
secret the test gateways sign with, the password every test player registers with, the
bearer metadata, a session stream collected into a list, and an expected refusal."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from triad.v1 import gateway_pb2 as g

SECRET = "test-secret-" + "x" * 40
PASSWORD = "correct horse battery"


def bearer(tokens: g.AuthTokens) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {tokens.access_token}"),)


async def expect(code: grpc.StatusCode, pending: Any, words: str = "") -> str:
    """Await ``pending``, which must be refused with ``code`` and details holding ``words``
    and nothing of our internals (no traceback, no SQL)."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await pending
    assert caught.value.code() == code, caught.value.details()
    details = caught.value.details() or ""
    assert words in details
    assert "Traceback" not in details and "SELECT" not in details
    return details


async def collect(api: Any, tokens: g.AuthTokens, into: list[g.OpenSessionResponse]) -> None:
    """Append every push of the player's session stream to ``into`` until it closes."""
    async for push in api.OpenSession(g.OpenSessionRequest(), metadata=bearer(tokens)):
        into.append(push)
        if push.HasField("session_closed"):
            return
