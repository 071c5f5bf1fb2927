"""A match's events as the match service's log holds them, for the match-service
tests.
"""

from __future__ import annotations

from triad.v1 import events_pb2 as ev
from triad.v1 import match_pb2 as m
from triad.v1 import match_pb2_grpc

ADMIN = "test-operator-token"


async def events_of(
    stub: match_pb2_grpc.MatchServiceAsyncStub, match_id: str
) -> list[ev.EventEnvelope]:
    reply = await stub.GetMatchEvents(
        m.MatchServiceGetMatchEventsRequest(match_id=match_id),
        metadata=(("authorization", f"Bearer {ADMIN}"),),
    )
    return list(reply.events)
