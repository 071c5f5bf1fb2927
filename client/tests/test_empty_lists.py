"""Nothing to list is said in a sentence, not shown as a table's bare header:
``collection --holo`` without a holographic copy, ``auction`` with nothing on sale,
``auction mine`` without a listing."""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console
from triad.v1 import gateway_pb2 as g

from client.commands_auction import auction
from client.commands_cards import catalog, collection
from client.main import parser


class Empty:
    """A gateway with nothing to list (the catalog too: a search that finds nothing)."""

    stub: Any = argparse.Namespace(
        ListCollection=g.ListCollectionResponse,
        ListAuction=g.ListAuctionResponse,
        ListMyListings=g.ListMyListingsResponse,
        ListCatalog=g.ListCatalogResponse,
    )

    async def call(self, method: Any, request: Any) -> Any:
        return method()


async def said(command: Any, *argv: str) -> str:
    console = Console(width=80, record=True, force_terminal=False)
    assert await command(Empty(), parser().parse_args(list(argv)), console) == 0
    return console.export_text().strip()


async def test_no_holographic_copy_is_said_so() -> None:
    assert await said(collection, "collection", "--holo") == "No holographic copies."
    assert await said(collection, "collection", "--stars", "5") == "No copies fit those filters."
    assert await said(collection, "collection") == "No copies."


async def test_an_empty_auction_house_is_said_so() -> None:
    assert await said(auction, "auction") == "Nothing on sale."
    assert await said(auction, "auction", "browse") == "Nothing on sale."
    assert await said(auction, "auction", "--holo") == "Nothing on sale fits those filters."
    assert await said(auction, "auction", "mine") == (
        "You have no listings: triad-client auction list COPY PRICE sells one."
    )


async def test_a_catalog_search_that_finds_nothing_is_said_so() -> None:
    """Found from outside: `catalog --name zzzz` drew 'Catalog: 0 characters' over a
    table's bare header."""
    assert await said(catalog, "catalog", "--name", "zzzz") == (
        "No character fits those filters: triad-client catalog lists them all."
    )


async def test_one_copy_is_one_copy() -> None:
    """Found from outside: 'Your collection: 1 copies'."""

    class One(Empty):
        async def call(self, method: Any, request: Any) -> Any:
            if method is g.ListCollectionResponse:
                reply = g.ListCollectionResponse(total_size=1)
                reply.entries.add().copy.copy_id = "c1"
                return reply
            return method()

    console = Console(width=80, record=True, force_terminal=False)
    assert await collection(One(), parser().parse_args(["collection"]), console) == 0
    text = console.export_text()
    assert "Your collection: 1 copy" in text and "1 copies" not in text, text
    # A filtered list is not called the collection (found from outside: --locked's 8
    # copies read as the whole collection, of 10).
    console = Console(width=80, record=True, force_terminal=False)
    assert await collection(One(), parser().parse_args(["collection", "--locked"]), console) == 0
    text = console.export_text()
    assert "Your copies that fit the filters: 1 copy" in text, text
    assert "Your collection" not in text, text
