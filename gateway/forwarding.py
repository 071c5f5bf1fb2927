"""What every part of the gateway's servicer that forwards shares: the internal stubs, the
checks a public request gets before it leaves, and the caller as the services know them.

The internal services trust whatever player id they are sent, so the gateway never passes
one from a request: every forwarded call names the token's player (``caller()``).
"""

from __future__ import annotations

from typing import TypeVar

from google.protobuf.message import Message
from triad.v1 import (
    battle_pb2_grpc,
    collection_pb2_grpc,
    match_pb2_grpc,
    matchmaker_pb2_grpc,
    rating_pb2_grpc,
)
from triad.v1 import common_pb2 as pb
from triad.v1 import match_pb2 as m

from gateway.auth import caller
from services.platform.downstream import INTERNAL_DEADLINE, call
from services.platform.errors import Unavailable
from services.platform.requests import request_id as checked_request_id

MAX_REQUEST_ID = 64
MAX_PAGE_SIZE = 200
"""The public contract caps every page at 200, whatever an internal service allows."""

S = TypeVar("S")
M = TypeVar("M", bound=Message)


def request_id(value: str) -> str:
    """The public idempotency key, 1..64 characters (the services accept longer ones)."""
    return checked_request_id(value, MAX_REQUEST_ID)


def page_size(value: int) -> int:
    """Capped at the public maximum; a negative size is left for the service to refuse
    with its own message."""
    return min(value, MAX_PAGE_SIZE)


def present(holder: Message, field: str, value: M) -> M | None:
    """``value`` if ``field`` is set on ``holder``, else None. Passing an unset submessage
    to a constructor would mark it present, and the services read presence (a deck given
    or not, custom settings given or not)."""
    return value if holder.HasField(field) else None


def me() -> pb.PlayerRef:
    """The token's player as the services take it: id and display name."""
    claims = caller()
    return pb.PlayerRef(player_id=claims.player_id, player_name=claims.name)


def configured(stub: S | None, what: str) -> S:
    if stub is None:
        raise Unavailable(f"the {what} service is not configured here")
    return stub


class Downstreams:
    """The internal services; a None stub is a service this gateway does not reach, whose
    RPCs answer UNAVAILABLE (a client may retry against another deployment)."""

    _match: match_pb2_grpc.MatchServiceAsyncStub
    _collection: collection_pb2_grpc.CollectionServiceAsyncStub | None
    _rating: rating_pb2_grpc.RatingServiceAsyncStub | None
    _matchmaker: matchmaker_pb2_grpc.MatchmakerServiceAsyncStub | None
    _battle: battle_pb2_grpc.BattleServiceAsyncStub | None

    def _collection_stub(self) -> collection_pb2_grpc.CollectionServiceAsyncStub:
        return configured(self._collection, "collection")

    def _rating_stub(self) -> rating_pb2_grpc.RatingServiceAsyncStub:
        return configured(self._rating, "rating")

    def _battle_stub(self) -> battle_pb2_grpc.BattleServiceAsyncStub:
        return configured(self._battle, "battle")

    def _matchmaker_stub(self) -> matchmaker_pb2_grpc.MatchmakerServiceAsyncStub:
        return configured(self._matchmaker, "matchmaker")

    async def _active_match_id(self, player_id: str) -> str | None:
        reply = await call(
            "match",
            self._match.GetActiveMatch(
                m.MatchServiceGetActiveMatchRequest(player_id=player_id), timeout=INTERNAL_DEADLINE
            ),
        )
        return reply.active_match.match_id if reply.HasField("active_match") else None

    async def _view(self, match_id: str, player_id: str) -> pb.MatchView:
        reply = await call(
            "match",
            self._match.GetView(
                m.MatchServiceGetViewRequest(match_id=match_id, player_id=player_id),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return reply.view
