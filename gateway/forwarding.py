"""What every part of the gateway's servicer that forwards shares: the internal stubs, the
checks a public request gets before it leaves, and the caller as the services know them.

The internal services trust whatever player id they are sent, so the gateway never passes
one from a request: every forwarded call names the token's player (``caller()``).

Most public RPCs are their internal one under another name, field for field. Those go
through ``forward``, which builds the internal request from the public one by field
name (the caller and the checked request id put in), makes the call with its deadline
and error mapping, and copies the reply into the public response by field name. A
mixin declares each of them as one line of its table (``forwarded``)::

    GetCopy = forwarded(WHAT, "GetCopy", g.GetCopyResponse)

An RPC that does more (reads a view after the call, fills a name in) is a method that
uses ``ask`` for the call and ``answer`` for the response, or spells the call out.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from triad.v1 import (
    battle_pb2,
    battle_pb2_grpc,
    collection_pb2,
    collection_pb2_grpc,
    match_pb2_grpc,
    matchmaker_pb2,
    matchmaker_pb2_grpc,
    rating_pb2,
    rating_pb2_grpc,
)
from triad.v1 import common_pb2 as pb
from triad.v1 import match_pb2 as m

from gateway.auth import caller
from services.platform.downstream import INTERNAL_DEADLINE, call
from services.platform.errors import Unavailable
from services.platform.interceptors import carried
from services.platform.requests import request_id as checked_request_id

MAX_REQUEST_ID = 64
MAX_PAGE_SIZE = 200
"""The public contract caps every page at 200, whatever an internal service allows."""

S = TypeVar("S")
M = TypeVar("M", bound=Message)
Q = TypeVar("Q", bound=Message)
R = TypeVar("R", bound=Message)
P = TypeVar("P", bound=Message)

INTERNAL_SERVICES = {
    "match": m.DESCRIPTOR.services_by_name["MatchService"],
    "collection": collection_pb2.DESCRIPTOR.services_by_name["CollectionService"],
    "rating": rating_pb2.DESCRIPTOR.services_by_name["RatingService"],
    "matchmaker": matchmaker_pb2.DESCRIPTOR.services_by_name["MatchmakerService"],
    "battle": battle_pb2.DESCRIPTOR.services_by_name["BattleService"],
}
"""The internal services by the name their forwarding mixin gives them (its ``WHAT``)."""

CALLER_FIELDS = frozenset({"player_id", "player"})
"""Internal request fields that always name the token's player, never the request."""


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


def internal_request(kind: type[Q], public: Message, /, **given: Any) -> Q:
    """``kind`` built from the public ``public`` by field name: ``player_id`` and
    ``player`` are the caller (whatever the request says), ``request_id`` the checked
    public key, ``page_size`` capped at the public maximum; a field set in neither
    ``given`` nor ``public`` stays unset, and a field ``public`` leaves unset (a deck
    not given, a oneof not chosen) stays unset too: the services read presence.
    ``given`` names what the public request does not carry."""
    if CALLER_FIELDS & given.keys():
        raise TypeError("the player is always the caller; it cannot be given")
    fields: dict[str, Any] = {}
    known = public.DESCRIPTOR.fields_by_name
    for field in kind.DESCRIPTOR.fields:
        name = field.name
        if name == "player_id":
            fields[name] = caller().player_id
        elif name == "player":
            fields[name] = me()
        elif name in given:
            fields[name] = given.pop(name)
        elif name not in known:
            continue
        elif name == "request_id":
            fields[name] = request_id(getattr(public, name))
        elif name == "page_size":
            fields[name] = page_size(getattr(public, name))
        elif not field.has_presence or public.HasField(name):  # a message, optional, oneof
            fields[name] = getattr(public, name)
    if given:
        raise TypeError(f"{kind.__name__} has no field {', '.join(sorted(given))}")
    return kind(**fields)


def answer(kind: type[P], reply: Message, /, *, optional: Collection[str] = (), **given: Any) -> P:
    """The public ``kind`` with every field ``reply`` has by the same name, and ``given``.
    A message field is set even when the reply leaves it unset, unless it is named in
    ``optional``: there its absence means something (no trade pending, no seed
    revealed) and passes on."""
    known = reply.DESCRIPTOR.fields_by_name
    fields = {
        name: getattr(reply, name)
        for name in kind.DESCRIPTOR.fields_by_name
        if name in known and name not in given and (name not in optional or reply.HasField(name))
    }
    return kind(**fields, **given)


async def internal(what: str, rpc: grpc.aio.UnaryUnaryMultiCallable[Q, R], request: Q) -> R:
    """``rpc`` of the ``what`` service called with the internal ``request``, within the
    internal deadline and the player's request id; its failure as ``call`` maps it."""
    return await call(what, rpc(request, timeout=INTERNAL_DEADLINE, metadata=carried()))


def internal_kind(what: str, rpc: str) -> type[Message]:
    """The request ``rpc`` of the ``what`` service takes, read from the service's
    descriptor: an ``rpc`` the service lacks fails here (when a mixin is defined)."""
    return GetMessageClass(INTERNAL_SERVICES[what].methods_by_name[rpc].input_type)


async def ask(
    what: str,
    rpc: grpc.aio.UnaryUnaryMultiCallable[Q, R],
    kind: type[Q],
    public: Message,
    /,
    **given: Any,
) -> R:
    """``rpc`` of the ``what`` service called with ``internal_request(kind, public,
    **given)``, within the internal deadline; its failure as ``call`` maps it."""
    return await internal(what, rpc, internal_request(kind, public, **given))


async def forward(
    what: str,
    rpc: grpc.aio.UnaryUnaryMultiCallable[Q, R],
    kind: type[Q],
    public: Message,
    response: type[P],
    /,
    *,
    optional: Collection[str] = (),
) -> P:
    """A public RPC that is ``rpc`` field for field: ``ask``, then ``answer``."""
    reply = await ask(what, rpc, kind, public)
    return answer(response, reply, optional=optional)


def forwarded(
    what: str, rpc: str, response: type[P], /, *, optional: Collection[str] = ()
) -> Callable[[Downstreams, Message, Any], Awaitable[P]]:
    """The public RPC that is ``rpc`` of the ``what`` service field for field, as a
    servicer method: ``forward`` with the request ``rpc`` takes (``internal_kind``) and
    the public ``response``."""
    kind = internal_kind(what, rpc)

    async def method(self: Downstreams, request: Message, context: Any) -> P:
        stub_rpc = getattr(self._stub(what), rpc)
        return await forward(what, stub_rpc, kind, request, response, optional=optional)

    return method


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

    def _stub(self, what: str) -> Any:
        """The stub of the ``what`` service (a mixin's ``WHAT``: the attribute
        ``_<what>``), if this gateway reaches it."""
        return configured(getattr(self, f"_{what}"), what)

    def _collection_stub(self) -> collection_pb2_grpc.CollectionServiceAsyncStub:
        return configured(self._collection, "collection")

    def _rating_stub(self) -> rating_pb2_grpc.RatingServiceAsyncStub:
        return configured(self._rating, "rating")

    def _battle_stub(self) -> battle_pb2_grpc.BattleServiceAsyncStub:
        return configured(self._battle, "battle")

    def _matchmaker_stub(self) -> matchmaker_pb2_grpc.MatchmakerServiceAsyncStub:
        return configured(self._matchmaker, "matchmaker")

    async def _active_match_id(self, player_id: str) -> str | None:
        reply = await internal(
            "match",
            self._match.GetActiveMatch,
            m.MatchServiceGetActiveMatchRequest(player_id=player_id),
        )
        return reply.active_match.match_id if reply.HasField("active_match") else None

    async def _battle_view_for(self, battle_id: str, player_id: str) -> pb.BattleView:
        reply = await internal(
            "battle",
            self._battle_stub().GetBattleView,
            battle_pb2.BattleServiceGetBattleViewRequest(battle_id=battle_id, player_id=player_id),
        )
        return reply.view

    async def _view(self, match_id: str, player_id: str) -> pb.MatchView:
        reply = await internal(
            "match",
            self._match.GetView,
            m.MatchServiceGetViewRequest(match_id=match_id, player_id=player_id),
        )
        return reply.view
