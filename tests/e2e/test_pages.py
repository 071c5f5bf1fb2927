"""The public list RPCs page as their contract says, through the TLS gateway on real
PostgreSQL and NATS: a forged page token is refused INVALID_ARGUMENT naming the
page_token, never answered INTERNAL (which the gateway passes on as UNAVAILABLE, "retry",
for a request that can never succeed)."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Stack, stack
from tests.e2e.races.race_players import code_of
from tests.e2e.sessions import join

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def backend(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    with stack(shared_database_url, nats_url, tmp_path_factory.mktemp("pages")) as running:
        yield running


@pytest.fixture
async def api(backend: Stack) -> AsyncIterator[Any]:
    async with backend.channel() as channel:
        yield backend.api(channel)


LADDER = pb.LadderKey(ladder=pb.LADDER_RANKED)
LISTS: dict[str, Callable[[str], Message]] = {
    "ListCatalog": lambda t: g.ListCatalogRequest(page_token=t),
    "ListCollection": lambda t: g.ListCollectionRequest(page_token=t),
    "ListDecks": lambda t: g.ListDecksRequest(page_token=t),
    "ListBoosterDraws": lambda t: g.ListBoosterDrawsRequest(page_token=t),
    "ListServerSeeds": lambda t: g.ListServerSeedsRequest(page_token=t),
    "ListMyListings": lambda t: g.ListMyListingsRequest(page_token=t),
    "ListRatingHistory": lambda t: g.ListRatingHistoryRequest(ladder=LADDER, page_token=t),
}
FORGED = [
    "not-a-token",
    "-1",
    "²",  # a digit to str.isdigit, not to int()
]


@pytest.mark.parametrize("rpc", sorted(LISTS))
async def test_a_forged_page_token_is_invalid_argument_on_every_list(api: Any, rpc: str) -> None:
    me = await join(api)
    wrong = []
    for token in FORGED:
        code, details = await code_of(me.call(rpc, LISTS[rpc](token)))
        # OK: a token that happens to be well formed for this list
        if code != grpc.StatusCode.OK and (
            code != grpc.StatusCode.INVALID_ARGUMENT or "page_token" not in details
        ):
            wrong.append((token, code.name, details))
    assert not wrong, wrong


def b64(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode()


CURSORS: dict[str, tuple[Callable[[str], Message], list[str]]] = {
    "ListAuction": (
        lambda t: g.ListAuctionRequest(page_token=t, order=pb.AUCTION_ORDER_CHEAPEST),
        [
            b64('[1e999, "2024-01-01T00:00:00+00:00", "x"]'),  # a price of infinity
            b64('[1, "2024-01-01T00:00:00+00:00", "a\\u0000b"]'),  # NUL: PostgreSQL fails
        ],
    ),
    "ListTables": (
        lambda t: g.ListTablesRequest(page_token=t),
        [b64("2024-01-01T00:00:00+00:00|a\x00b"), b64("2024-01-01T00:00:00|a")],
    ),
}


@pytest.mark.parametrize("rpc", sorted(CURSORS))
async def test_a_forged_keyset_cursor_is_invalid_argument(api: Any, rpc: str) -> None:
    me = await join(api)
    request, forged = CURSORS[rpc]
    for token in forged:
        code, details = await code_of(me.call(rpc, request(token)))
        assert (code, "page_token" in str(details)) == (grpc.StatusCode.INVALID_ARGUMENT, True), (
            token,
            details,
        )
