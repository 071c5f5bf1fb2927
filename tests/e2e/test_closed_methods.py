"""An operator closes methods of the player API for a while
(``TRIAD_GATEWAY_CLOSED_METHODS``), as the TriadAuctionConservationBroken runbook does
with the Auction House's sales: those calls are refused saying so, nothing changes, and
every other call goes on. Every service a process on real PostgreSQL and NATS."""

from __future__ import annotations

from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides
from tests.e2e.sessions import join

pytestmark = pytest.mark.integration


STACK_OVERRIDES: Overrides = {
    "gateway": {"TRIAD_GATEWAY_CLOSED_METHODS": "BuyListing, CreateListing"}
}


async def test_closed_methods_are_refused_saying_so_and_the_rest_goes_on(api: Any) -> None:
    seller, buyer = await join(api), await join(api)
    copies = await seller.call("ListCollection", g.ListCollectionRequest(page_size=5))
    copy_id = copies.entries[0].copy.copy_id
    balance = (await buyer.call("GetBalance", g.GetBalanceRequest())).balance.coins
    for name, request in (
        ("CreateListing", g.CreateListingRequest(request_id=uuid4().hex, copy_id=copy_id, price=5)),
        ("BuyListing", g.BuyListingRequest(request_id=uuid4().hex, listing_id=str(uuid4()))),
    ):
        caller = seller if name == "CreateListing" else buyer
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await caller.call(name, request)
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert refused.value.details() == (
            f"{name} is closed for now by the operators; try again later"
        )
    assert not (await seller.call("ListMyListings", g.ListMyListingsRequest())).listings
    assert (await buyer.call("GetBalance", g.GetBalanceRequest())).balance.coins == balance
    # Open ones answer as ever: browsing the Auction House, the collection.
    await buyer.call("ListAuction", g.ListAuctionRequest())
    entry = (await seller.call("GetCopy", g.GetCopyRequest(copy_id=copy_id))).entry
    assert entry.copy.copy_id == copy_id and not entry.HasField("lock")
