"""One request id follows a player's call through every service it reaches, so that an
operator joins the log lines of one call by it (deploy/k8s/README.md, 'Logs').

Found from outside: the gateway logged a Register under one id and the collection the
starter grant it caused under another; each service made an id of its own.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from uuid import uuid4

import pytest
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD
from devtools.stack import Stack
from tests.e2e.sessions import easy_practice

pytestmark = pytest.mark.integration


async def lines_of(backend: Stack, service: str, request_id: str) -> list[dict[str, Any]]:
    """The log lines ``service`` wrote under ``request_id`` (waiting a little: a line may
    still be on its way to the file)."""
    found: list[dict[str, Any]] = []
    for _ in range(50):
        text = backend.backend.log(service).read_text()
        found = [
            line
            for line in map(json.loads, filter(None, text.splitlines()))
            if line.get("request_id") == request_id
        ]
        if found:
            break
        await asyncio.sleep(0.1)
    return found


async def test_a_registration_and_its_starter_grant_are_logged_under_one_id(
    api: Any, backend: Stack
) -> None:
    traced = f"trace-{uuid4().hex}"
    await api.Register(
        g.RegisterRequest(
            request_id=uuid4().hex, player_name=f"n{uuid4().hex[:12]}", password=PASSWORD
        ),
        metadata=(("x-request-id", traced),),
    )
    granted = await lines_of(backend, "collection", traced)
    assert [line["event"] for line in granted] == ["starter granted"], granted
    assert granted[0]["rpc"].endswith("/GrantStarterCollection")


async def test_a_practice_start_is_logged_under_its_id_by_the_match_it_made(
    api: Any, backend: Stack
) -> None:
    """Two hops: the gateway calls the matchmaker, which calls the match service."""
    joined = await api.Register(
        g.RegisterRequest(
            request_id=uuid4().hex, player_name=f"n{uuid4().hex[:12]}", password=PASSWORD
        )
    )
    traced = f"trace-{uuid4().hex}"
    meta = (
        ("authorization", f"Bearer {joined.tokens.access_token}"),
        ("x-request-id", traced),
    )
    await api.StartPractice(
        easy_practice(),
        metadata=meta,
        timeout=20,
    )
    created = await lines_of(backend, "match", traced)
    assert "match created" in [line["event"] for line in created], created
