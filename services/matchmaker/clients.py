"""gRPC adapters of the matchmaker's ports: the match, collection and rating services.

Every call has a deadline. A refusal comes back as the platform's domain error with
the other service's message (it names the rule); anything else (UNAVAILABLE, a
deadline, an internal fault) as ``Unavailable``, which the matchmaker retries.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

import grpc
from triad.v1 import collection_pb2 as col
from triad.v1 import collection_pb2_grpc, match_pb2_grpc, rating_pb2_grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import match_pb2 as m
from triad.v1 import rating_pb2 as rat

from services.matchmaker import mapping
from services.matchmaker.domain import Card, DeckChoice, Seat
from services.matchmaker.ports import MatchSpec, Unavailable
from services.platform.errors import FailedPrecondition, NotFound

T = TypeVar("T")
REFUSALS = frozenset(
    {
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.PERMISSION_DENIED,
    }
)


async def _call(call: Awaitable[T]) -> T:
    try:
        return await call
    except grpc.aio.AioRpcError as error:
        code, details = error.code(), error.details() or ""
        if code == grpc.StatusCode.NOT_FOUND:
            raise NotFound(details) from None
        if code in REFUSALS:
            raise FailedPrecondition(details) from None
        raise Unavailable(f"{code.name}: {details}") from None


class GrpcMatches:
    def __init__(self, channel: grpc.aio.Channel, timeout: float) -> None:
        self._stub: Any = match_pb2_grpc.MatchServiceStub(channel)
        self._timeout = timeout

    async def active_match(self, player_id: str) -> str | None:
        request = m.MatchServiceGetActiveMatchRequest(player_id=player_id)
        reply = await _call(self._stub.GetActiveMatch(request, timeout=self._timeout))
        return str(reply.active_match.match_id) if reply.HasField("active_match") else None

    async def create(self, spec: MatchSpec) -> None:
        seats = [
            m.SeatSetup(
                player=mapping.seat_player(Seat(s.player_id, s.name, bot_level=s.bot_level), index),
                deck=[mapping.card(c) for c in s.cards],
            )
            for index, s in enumerate(spec.seats)
        ]
        request = m.MatchServiceCreateMatchRequest(
            request_id=spec.request_id,
            match_id=spec.match_id,
            mode=mapping.MODES[spec.mode],
            origin_mode=mapping.MODES[spec.origin_mode]
            if spec.origin_mode
            else pb.MODE_UNSPECIFIED,
            rules=mapping.rules(spec.rules),
            ladder=mapping.ladder_key(spec.ladder),
            seats=seats,
            origin_id=spec.origin_id,
        )
        await _call(self._stub.CreateMatch(request, timeout=self._timeout))


class GrpcCollection:
    """Decks, obligations, bot decks and drafts: all the collection service's."""

    def __init__(self, channel: grpc.aio.Channel, timeout: float) -> None:
        self._stub: Any = collection_pb2_grpc.CollectionServiceStub(channel)
        self._timeout = timeout

    async def resolve(
        self, player_id: str, choice: DeckChoice, purpose_id: str, lock: bool
    ) -> tuple[Card, ...]:
        request = col.CollectionServiceResolveDeckForMatchRequest(
            request_id=f"resolve:{purpose_id}:{player_id}",
            player_id=player_id,
            deck=mapping.deck_choice(choice),
            purpose_id=purpose_id,
            lock_for=pb.LockHolder(match_id=purpose_id) if lock else None,
        )
        reply = await _call(self._stub.ResolveDeckForMatch(request, timeout=self._timeout))
        return tuple(mapping.card_back(c) for c in reply.cards)

    async def check(self, player_id: str, choice: DeckChoice) -> None:
        request = col.CollectionServiceValidateDeckRequest(player_id=player_id)
        if choice.random:
            request.random.SetInParent()
        else:
            request.deck_id = choice.deck_id
        reply = await _call(self._stub.ValidateDeck(request, timeout=self._timeout))
        if not reply.valid:
            broken = "; ".join(v.message for v in reply.violations) or "it breaks a deck rule"
            raise FailedPrecondition(f"your deck cannot be played now: {broken}")

    async def release(self, match_id: str) -> None:
        request = col.CollectionServiceReleaseCopiesRequest(
            request_id=f"release:{match_id}", holder=pb.LockHolder(match_id=match_id)
        )
        await _call(self._stub.ReleaseCopies(request, timeout=self._timeout))

    async def blocking(self, player_id: str, current_match_id: str = "") -> str | None:
        request = col.CollectionServiceHasPendingObligationsRequest(
            player_id=player_id, current_match_id=current_match_id
        )
        reply = await _call(self._stub.HasPendingObligations(request, timeout=self._timeout))
        if not reply.blocked:
            return None
        return "; ".join(o.message for o in reply.obligations) or "an obligation is pending"

    async def draw(self, request_id: str) -> tuple[Card, ...]:
        request = col.CollectionServiceDrawBotDeckRequest(request_id=request_id, hand_size=5)
        reply = await _call(self._stub.DrawBotDeck(request, timeout=self._timeout))
        return tuple(mapping.card_back(c) for c in reply.cards)

    async def create(
        self, draft_id: str, pairing_id: str, ladder: str, players: Sequence[tuple[str, str]]
    ) -> None:
        request = col.CollectionServiceCreateDraftRequest(
            request_id=f"draft:{draft_id}",
            draft_id=draft_id,
            pairing_id=pairing_id,
            ladder=mapping.ladder_key(ladder),
            participants=[pb.PlayerRef(player_id=p, player_name=n) for p, n in players],
        )
        await _call(self._stub.CreateDraft(request, timeout=self._timeout))


class GrpcRatings:
    def __init__(self, channel: grpc.aio.Channel, timeout: float) -> None:
        self._stub: Any = rating_pb2_grpc.RatingServiceStub(channel)
        self._timeout = timeout

    async def ratings(self, ladder: str, player_ids: Sequence[str]) -> dict[str, int]:
        request = rat.RatingServiceBatchGetRatingsRequest(
            ladder=mapping.ladder_key(ladder), player_ids=list(player_ids)
        )
        reply = await _call(self._stub.BatchGetRatings(request, timeout=self._timeout))
        return {r.player_id: r.rating for r in reply.ratings}
