"""A failed call as one line for a person: what the gateway said, then what to do,
without saying the same thing twice."""

from __future__ import annotations

import grpc

from client.connection import describe


def failed(code: grpc.StatusCode, details: str) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details=details)


def test_a_revoked_token_says_log_in_again_once_with_the_command() -> None:
    line = describe(
        failed(grpc.StatusCode.UNAUTHENTICATED, "the access token was revoked: log in again")
    )
    assert line == (
        "unauthenticated: the access token was revoked: log in again (triad-client login NAME)"
    )
    line = describe(failed(grpc.StatusCode.UNAUTHENTICATED, "no access token"))
    assert line == "unauthenticated: no access token (log in again: triad-client login NAME)"
