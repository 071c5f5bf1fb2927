"""Recording stand-ins of the internal services for the forwarding tests
(test_forwarding_*.py, test_forward_fields.py), the caller they run as, and the choices
they send.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

import pytest
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from triad.v1 import battle_pb2, collection_pb2, match_pb2, matchmaker_pb2, rating_pb2
from triad.v1 import common_pb2 as pb

from gateway.accounts import Claims
from gateway.auth import _CALLER
from gateway.server import GatewayServicer

ME = Claims("player-me", "Me", "jti", datetime.now(UTC), datetime.now(UTC))


@dataclass
class Call:
    service: str
    method: str
    request: Any
    timeout: float | None
    metadata: Any = ()


@dataclass
class Backend:
    """Stand-ins for the four internal services, recording every call."""

    calls: list[Call] = field(default_factory=list)
    answers: dict[str, Message | Exception] = field(default_factory=dict)

    def stub(self, service: ServiceDescriptor) -> Any:
        backend = self

        class Stub:
            def __getattr__(self, name: str) -> Any:
                output = GetMessageClass(service.methods_by_name[name].output_type)

                async def invoke(
                    request: Message, timeout: float | None = None, metadata: Any = ()
                ) -> Message:
                    backend.calls.append(Call(service.name, name, request, timeout, metadata))
                    answer = backend.answers.get(name)
                    if isinstance(answer, Exception):
                        raise answer
                    return answer if answer is not None else output()

                return invoke

        return Stub()

    def servicer(self, *, configured: bool = True) -> GatewayServicer:
        def service(module: Any, name: str) -> Any:
            return self.stub(module.DESCRIPTOR.services_by_name[name]) if configured else None

        none = cast(Any, None)  # accounts, tokens and sessions are not used here
        return GatewayServicer(
            none,
            none,
            none,
            self.stub(match_pb2.DESCRIPTOR.services_by_name["MatchService"]),
            matchmaker=service(matchmaker_pb2, "MatchmakerService"),
            collection=service(collection_pb2, "CollectionService"),
            rating=service(rating_pb2, "RatingService"),
            battle=service(battle_pb2, "BattleService"),
        )


@pytest.fixture(autouse=True)
def caller() -> None:
    _CALLER.set(ME)


DECK = pb.DeckChoice(deck_id="deck-1")


RULES = pb.TableSettings(rules=pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN, same=True))
