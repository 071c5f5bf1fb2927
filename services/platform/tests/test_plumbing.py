"""The shared plumbing of every service's edge: request keys, request checks, and a
downstream failure turned back into a domain error. Pure: no server needed."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
import structlog
from triad.v1 import common_pb2 as pb

from services.platform.downstream import AS_REFUSAL, INTERNAL_DEADLINE, call, domain_error
from services.platform.edge import (
    MAX_ID,
    bind,
    check_operator,
    require,
    require_bound,
    require_enum,
)
from services.platform.endpoints import DEFAULT_PORTS, default_address
from services.platform.errors import (
    Conflict,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unauthenticated,
    Unavailable,
)
from services.platform.interceptors import STATUS_BY_ERROR
from services.platform.requests import Request, RequestReused, fingerprint, request_id


def rpc_error(code: grpc.StatusCode, details: str = "") -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details=details)


class Context:
    def __init__(self, *metadata: tuple[str, str]) -> None:
        self._metadata = metadata

    def invocation_metadata(self) -> Any:
        return self._metadata


# ---- request keys -------------------------------------------------------------------


def test_the_same_content_gives_the_same_fingerprint_and_other_content_another() -> None:
    assert fingerprint("a", 1) == fingerprint("a", 1)
    assert fingerprint("a", 1) != fingerprint("a", 2)
    assert Request.of("s", "r", "a", 1) == Request("s", "r", fingerprint("a", 1))


def test_a_request_id_reused_for_other_content_is_refused_naming_the_id() -> None:
    first = Request.of("place:m1", "r-1", "card", 4)
    first.check(Request.of("place:m1", "r-1", "card", 4).fingerprint)
    with pytest.raises(RequestReused, match="'r-1' was already used for a different request"):
        first.check(Request.of("place:m1", "r-1", "card", 5).fingerprint)
    assert issubclass(RequestReused, InvalidArgument)


def test_a_request_id_is_refused_as_missing_or_as_too_long_in_those_words() -> None:
    """Found from outside: a 65-character id through the gateway (at most 64) was told
    "request_id is required"."""
    assert request_id("r" * 64, 64) == "r" * 64
    with pytest.raises(InvalidArgument, match=r"^request_id is required: 1 to 64 characters$"):
        request_id("", 64)
    with pytest.raises(
        InvalidArgument, match=r"^request_id is too long: 65 characters, at most 64$"
    ):
        request_id("r" * 65, 64)


# ---- edge checks ---------------------------------------------------------------------


def test_require_refuses_a_missing_or_overlong_value_naming_the_field() -> None:
    assert require("m1", "match_id") == "m1"
    with pytest.raises(InvalidArgument, match=r"^match_id is required$"):
        require("", "match_id")
    with pytest.raises(InvalidArgument, match=f"match_id is longer than {MAX_ID} characters"):
        require("x" * (MAX_ID + 1), "match_id")
    with pytest.raises(InvalidArgument, match="is longer than 64"):
        require("x" * 65, "request_id", longest=64)


def test_bind_puts_the_ids_on_every_log_line_of_the_request() -> None:
    structlog.contextvars.clear_contextvars()
    bind(match_id="m1", player_id="p1")
    assert structlog.contextvars.get_contextvars() == {"match_id": "m1", "player_id": "p1"}
    structlog.contextvars.clear_contextvars()


def test_a_required_id_is_bound_under_its_field_and_a_missing_one_is_not() -> None:
    structlog.contextvars.clear_contextvars()
    assert require_bound("p1", "player_id") == "p1"
    assert structlog.contextvars.get_contextvars() == {"player_id": "p1"}
    structlog.contextvars.clear_contextvars()
    with pytest.raises(InvalidArgument, match=r"^player_id is required$"):
        require_bound("", "player_id")
    assert structlog.contextvars.get_contextvars() == {}


def test_require_enum_is_the_platform_one() -> None:
    with pytest.raises(InvalidArgument, match="mode is required"):
        require_enum(0, pb.Mode.DESCRIPTOR, "mode")


def test_only_the_operators_token_passes_the_operator_check() -> None:
    check_operator("s3cret", Context(("authorization", "Bearer s3cret")))
    for context in (Context(), Context(("authorization", "Bearer other")), Context(("x", "y"))):
        with pytest.raises(PermissionDenied, match="TRIAD_ADMIN_TOKEN"):
            check_operator("s3cret", context)
    with pytest.raises(PermissionDenied):  # no token configured: no operator calls at all
        check_operator(None, Context(("authorization", "Bearer ")))


# ---- downstream failures -------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        (grpc.StatusCode.INVALID_ARGUMENT, InvalidArgument),
        (grpc.StatusCode.NOT_FOUND, NotFound),
        (grpc.StatusCode.FAILED_PRECONDITION, FailedPrecondition),
        (grpc.StatusCode.ABORTED, Conflict),
        (grpc.StatusCode.PERMISSION_DENIED, PermissionDenied),
    ],
)
def test_a_refusal_downstream_comes_back_as_its_error_with_its_message(
    code: grpc.StatusCode, kind: type[Exception]
) -> None:
    error = domain_error("match", rpc_error(code, "not your turn"))
    assert type(error) is kind
    assert str(error) == "not your turn"


@pytest.mark.parametrize(
    "code",
    [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNAUTHENTICATED],
)
def test_anything_else_downstream_is_unavailable_naming_only_the_service(
    code: grpc.StatusCode,
) -> None:
    error = domain_error("collection", rpc_error(code, "secret internal detail"))
    assert type(error) is Unavailable
    assert str(error) == "the collection service is not available right now; retry"


def test_a_service_away_farther_down_is_named_as_the_one_between_said() -> None:
    """Found from outside: while the match service restarted, JoinTable said the
    matchmaker was not available (the matchmaker had said it of the match service)."""
    said = "the match service is not available right now; retry"
    error = domain_error("matchmaker", rpc_error(grpc.StatusCode.UNAVAILABLE, said))
    assert type(error) is Unavailable and str(error) == said
    other = domain_error("matchmaker", rpc_error(grpc.StatusCode.INTERNAL, said))
    assert str(other) == "the matchmaker service is not available right now; retry"


def test_a_bug_downstream_keeps_its_reference_across_every_hop() -> None:
    """A bug of the match service (its interceptor's INTERNAL "internal error; reference
    R") reaches the player with R, through the matchmaker and the gateway: the operator
    finds the traceback under R in the match service's logs. Anything else INTERNAL says
    is not passed on."""
    told = "internal error; reference 0123456789abcdef"
    first = domain_error("match", rpc_error(grpc.StatusCode.INTERNAL, told))
    assert type(first) is Unavailable
    assert str(first) == "the match service failed (reference 0123456789abcdef); retry"
    second = domain_error("matchmaker", rpc_error(grpc.StatusCode.UNAVAILABLE, str(first)))
    assert str(second) == str(first)
    other = domain_error("match", rpc_error(grpc.StatusCode.INTERNAL, told + " and more"))
    assert str(other) == "the match service is not available right now; retry"


def test_a_caller_may_read_refusals_its_own_way() -> None:
    refused = domain_error(
        "match", rpc_error(grpc.StatusCode.ALREADY_EXISTS, "x"), kinds=AS_REFUSAL
    )
    assert type(refused) is FailedPrecondition

    class Retry(Exception):
        pass

    other = domain_error(
        "match",
        rpc_error(grpc.StatusCode.DEADLINE_EXCEEDED, "slow"),
        otherwise=lambda service, e: Retry(f"{service}: {e.code().name}"),
    )
    assert isinstance(other, Retry) and str(other) == "match: DEADLINE_EXCEEDED"


async def test_call_passes_the_answer_through_and_raises_the_domain_error() -> None:
    async def answer() -> str:
        return "view"

    async def refuse() -> str:
        raise rpc_error(grpc.StatusCode.NOT_FOUND, "no match m1")

    assert await call("match", answer()) == "view"
    with pytest.raises(NotFound, match="no match m1"):
        await call("match", refuse())
    assert INTERNAL_DEADLINE > 0


# ---- default ports -------------------------------------------------------------------


def test_every_process_has_its_own_default_ports() -> None:
    used = [p for ports in DEFAULT_PORTS.values() for p in (ports.grpc, ports.metrics)]
    assert len(used) == len(set(used))
    assert default_address("match") == f"127.0.0.1:{DEFAULT_PORTS['match'].grpc}"


def test_every_refusal_an_interceptor_sends_comes_back_as_the_error_it_was_made_from() -> None:
    for kind, code in STATUS_BY_ERROR.items():
        back = domain_error("match", rpc_error(code, "why"))
        if kind in (Unauthenticated, Unavailable):
            assert type(back) is Unavailable and "why" not in str(back)
        else:
            assert type(back) is kind and str(back) == "why"
