"""Methods of the player API the operators close for a while, without stopping the
service behind them: ``TRIAD_GATEWAY_CLOSED_METHODS=BuyListing,CreateListing`` (names
of ``TriadGateway``'s RPCs) answers those calls FAILED_PRECONDITION, saying they are
closed, on the gRPC and web ports alike; every other call goes on as before. An
incident's runbook uses it (deploy/k8s/README.md, TriadAuctionConservationBroken: stop
the Auction House's sales while a copy may be sold twice). Read once at start, as every
setting: ``kubectl set env`` rolls the gateways.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import grpc
from triad.v1 import gateway_pb2

from services.platform.errors import FailedPrecondition
from services.platform.settings import SettingsError

if TYPE_CHECKING:
    from services.platform.interceptors import Handler, HandlerWrapper

SETTING = "TRIAD_GATEWAY_CLOSED_METHODS"

_SERVICE = gateway_pb2.DESCRIPTOR.services_by_name["TriadGateway"]
METHODS = frozenset(method.name for method in _SERVICE.methods)
"""What may be closed: the public API's method names (``BuyListing``)."""


def closed_methods(value: str | None) -> frozenset[str]:
    """The comma-separated names of ``value``, each a method of the public API."""
    names = frozenset(name.strip() for name in (value or "").split(",") if name.strip())
    unknown = sorted(names - METHODS)
    if unknown:
        raise SettingsError(
            f"{SETTING} names no method of TriadGateway: {', '.join(unknown)} "
            "(give RPC names such as BuyListing,CreateListing)"
        )
    return names


def closed(names: frozenset[str]) -> HandlerWrapper:
    """The wrapper (``build_server(wrappers=...)``) that answers each method of
    ``names`` with its refusal, before authentication or any other work."""

    def wrap(method: str, registered: Handler) -> Handler:
        service, _, name = method.lstrip("/").rpartition("/")
        if service != _SERVICE.full_name or name not in names:
            return registered
        refusal = f"{name} is closed for now by the operators; try again later"
        handler: Any = registered  # the stubs type handlers for the sync API
        serialize = {
            "request_deserializer": handler.request_deserializer,
            "response_serializer": handler.response_serializer,
        }
        if handler.unary_unary is not None:

            async def unary(request: Any, context: Any) -> Any:
                raise FailedPrecondition(refusal)

            return grpc.unary_unary_rpc_method_handler(unary, **serialize)
        if handler.unary_stream is not None:

            async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
                raise FailedPrecondition(refusal)
                yield  # an async generator, as the handler it stands for

            return grpc.unary_stream_rpc_method_handler(stream, **serialize)
        return registered

    return wrap
