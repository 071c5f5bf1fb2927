"""What a player is told when the backend refuses an enum value, through the TLS gateway
and the services' own gRPC APIs, every service a process on real PostgreSQL and NATS
(issue 16, item 6): an enum value the contract does not define is INVALID_ARGUMENT in
every field of every request, public and internal, in one wording that names the field,
the value sent and the values to use; an unspecified one where a value is needed too.
"""

from __future__ import annotations

import re
from typing import Any
from uuid import uuid4

import grpc
import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from triad.v1 import collection_pb2, match_pb2, matchmaker_pb2, rating_pb2
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Stack
from tests.e2e.refusals.refusal_players import join

pytestmark = pytest.mark.integration


UNKNOWN = 99


GATEWAY = g.DESCRIPTOR.services_by_name["TriadGateway"]


INTERNAL = {
    "match": match_pb2.DESCRIPTOR.services_by_name["MatchService"],
    "matchmaker": matchmaker_pb2.DESCRIPTOR.services_by_name["MatchmakerService"],
    "collection": collection_pb2.DESCRIPTOR.services_by_name["CollectionService"],
    "rating": rating_pb2.DESCRIPTOR.services_by_name["RatingService"],
}


# ---- every enum field of every request, from the descriptors ------------------------


def enum_paths(
    message: Descriptor, prefix: str = "", seen: frozenset[str] = frozenset()
) -> list[str]:
    """The dotted path of every enum field a request can hold, at any depth."""
    found: list[str] = []
    for field in message.fields:
        if field.enum_type is not None:
            found.append(prefix + field.name)
        elif field.message_type is not None and field.message_type.full_name not in seen:
            if field.message_type.full_name.startswith("google.protobuf"):
                continue
            inner = seen | {message.full_name}
            found += enum_paths(field.message_type, f"{prefix}{field.name}.", inner)
    return found


def cases(services: dict[str, ServiceDescriptor]) -> list[Any]:
    return [
        pytest.param(name, method.name, path, id=f"{method.name}-{path}")
        for name, service in services.items()
        for method in service.methods
        for path in enum_paths(method.input_type)
    ]


def with_unknown(method_input: Descriptor, path: str) -> Message:
    """A request whose enum at ``path`` holds a value no enum of ours defines (in a
    repeated message or enum, as its only element); every other field is left as a
    well-formed request of the call would have it."""
    request = GetMessageClass(method_input)()
    if "request_id" in method_input.fields_by_name:
        request.request_id = uuid4().hex  # type: ignore[attr-defined]
    target: Any = request
    *parents, leaf = path.split(".")
    for name in parents:
        field: FieldDescriptor = target.DESCRIPTOR.fields_by_name[name]
        target = getattr(target, name).add() if field.is_repeated else getattr(target, name)
    if target.DESCRIPTOR.fields_by_name[leaf].is_repeated:
        getattr(target, leaf).append(UNKNOWN)
    else:
        setattr(target, leaf, UNKNOWN)
    return request


def refused_for_the_unknown_value(path: str, code: grpc.StatusCode, details: str) -> None:
    assert code == grpc.StatusCode.INVALID_ARGUMENT, (path, code, details)
    shown = re.sub(r"\[\d+\]", "", details.split(" ", maxsplit=1)[0])
    assert shown == path and f" {UNKNOWN} is not a known " in details, (path, details)
    assert "; use one of " in details, details


def test_every_public_and_internal_request_with_an_enum_is_covered() -> None:
    """The parametrisation below comes from the descriptors: a new enum field is tested
    without anyone listing it. The ones named in the issue are among them."""
    public = {(c.values[1], c.values[2]) for c in cases({"gateway": GATEWAY})}
    assert {("StartPractice", "bot_level"), ("Enqueue", "mode")} <= public
    assert ("ListTables", "filter.trade_rules") in public
    internal = {(c.values[1], c.values[2]) for c in cases(INTERNAL)}
    assert {("CreateMatch", "seats.deck.holo_side"), ("ReportPresence", "state")} <= internal


# ---- item 6: unknown enum values -----------------------------------------------------


@pytest.mark.parametrize(("service", "rpc", "path"), cases({"gateway": GATEWAY}))
async def test_every_public_rpc_refuses_an_unknown_enum_value_naming_the_field(
    api: Any, service: str, rpc: str, path: str
) -> None:
    player = await join(api)
    method = GATEWAY.methods_by_name[rpc]
    code, details = await player.refusal(rpc, with_unknown(method.input_type, path))
    refused_for_the_unknown_value(path, code, details)
    assert await player.active_match() == ""


@pytest.mark.parametrize(("service", "rpc", "path"), cases(INTERNAL))
async def test_every_internal_rpc_refuses_an_unknown_enum_value_naming_the_field(
    backend: Stack, service: str, rpc: str, path: str
) -> None:
    method = INTERNAL[service].methods_by_name[rpc]
    request = with_unknown(method.input_type, path)
    async with grpc.aio.insecure_channel(backend.backend.address(service)) as channel:
        call: Any = channel.unary_unary(
            f"/{INTERNAL[service].full_name}/{rpc}",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=GetMessageClass(method.output_type).FromString,
        )
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await call(request, timeout=10)
    refused_for_the_unknown_value(path, refused.value.code(), refused.value.details() or "")


async def test_a_practice_bot_level_must_be_a_known_level_and_starts_nothing(api: Any) -> None:
    player = await join(api)
    for level in (0, -1, 5, 99):
        code, details = await player.refusal(
            "StartPractice",
            g.StartPracticeRequest(
                request_id=uuid4().hex,
                origin_mode=pb.MODE_UNRANKED,
                bot_level=level,  # type: ignore[arg-type]
                deck=pb.DeckChoice(random=pb.RandomDeck()),
            ),
        )
        assert code == grpc.StatusCode.INVALID_ARGUMENT, (level, details)
        assert details.startswith("bot_level "), details
        assert details.endswith("use one of NOVICE, EASY, NORMAL, HARD"), details
        assert await player.active_match() == ""
    started = await player.call(
        "StartPractice",
        g.StartPracticeRequest(
            request_id=uuid4().hex,
            origin_mode=pb.MODE_UNRANKED,
            bot_level=pb.BOT_LEVEL_NOVICE,
            deck=pb.DeckChoice(random=pb.RandomDeck()),
        ),
    )
    bot = next(p for p in started.view.players if p.is_bot)
    assert bot.bot_level == pb.BOT_LEVEL_NOVICE


async def test_a_queue_mode_must_be_a_known_queue(api: Any) -> None:
    player = await join(api)
    random_deck = pb.DeckChoice(random=pb.RandomDeck())
    told = {}
    for mode in (999, 0, pb.MODE_CUSTOM):
        code, told[mode] = await player.refusal(
            "Enqueue",
            g.EnqueueRequest(request_id=uuid4().hex, mode=mode, deck=random_deck),  # type: ignore[arg-type]
        )
        assert code == grpc.StatusCode.INVALID_ARGUMENT, told[mode]
    # An unknown number is refused before the service looks at it: the mode names all.
    assert told[999] == (
        "mode 999 is not a known mode; use one of UNRANKED, RANKED, DRAFT, ROULETTE, CUSTOM, "
        "PRACTICE, BATTLE"
    )
    for mode in (0, pb.MODE_CUSTOM):
        assert told[mode].endswith("use one of UNRANKED, RANKED, DRAFT, ROULETTE, BATTLE"), told[
            mode
        ]
    assert told[0].startswith("mode is required;")
    assert told[pb.MODE_CUSTOM].startswith("mode CUSTOM cannot be used here;")
    status = await player.call("GetPlayerStatus", g.GetPlayerStatusRequest())
    assert not status.status.HasField("ticket")
    code, details = await player.refusal("GetRating", g.GetRatingRequest())
    assert (code, details) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "ladder is required; use one of RANKED, DRAFT",
    )
