"""``triad-client auction`` without a server: its arguments as typed become the
requests the gateway is sent (filters, order, prices refused before any call), and a
listing as a person reads it. The commands against the whole backend:
tests/e2e/test_auction.py."""

from __future__ import annotations

import io
import shlex
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.commands_auction import (
    auction,
    auction_filter,
    listings_table,
    mine,
    price_of,
    resolve_listing,
)
from client.connection import CommandError, State
from client.main import parser


def parsed(*argv: str) -> object:
    return parser().parse_args(["auction", *argv])


def test_browse_filters_and_order_become_the_request() -> None:
    args = parsed(
        "browse", "--stars", "3", "--stars", "4", "--element", "fire", "--holo",
        "--min-price", "10", "--max-price", "500", "--order", "cheapest",
    )  # fmt: skip
    wanted = auction_filter(args)  # type: ignore[arg-type]
    assert list(wanted.stars) == [3, 4]
    assert list(wanted.elements) == [pb.ELEMENT_FIRE] and wanted.holo == pb.HOLO_FILTER_HOLO
    unmarked = auction_filter(parsed("--element", "none", "--element", "ice"))  # type: ignore[arg-type]
    assert list(unmarked.elements) == [pb.ELEMENT_UNSPECIFIED, pb.ELEMENT_ICE]
    assert (wanted.min_price, wanted.max_price) == (10, 500)
    assert args.order == "cheapest"  # type: ignore[attr-defined]
    plain = auction_filter(parsed("--no-holo"))  # type: ignore[arg-type]
    assert plain.holo == pb.HOLO_FILTER_PLAIN
    assert auction_filter(parsed()).holo == pb.HOLO_FILTER_UNSPECIFIED  # type: ignore[arg-type]
    with pytest.raises(CommandError, match="0 \\(no bound\\) or more"):
        auction_filter(parsed("--min-price", "-1"))  # type: ignore[arg-type]


def test_a_price_is_checked_before_any_call() -> None:
    assert price_of("1,000,000") == 1_000_000 and price_of("250") == 250
    for bad in ("0", "1000001", "-3", "12.5", "lots"):
        with pytest.raises(CommandError, match="1 to 1,000,000"):
            price_of(bad)
    args = parsed("list", "abcd1234", "120", "--request-id", "r1")
    assert (args.copy, args.price, args.request_id) == ("abcd1234", "120", "r1")  # type: ignore[attr-defined]
    assert parsed("buy", "ffee").listing == "ffee"  # type: ignore[attr-defined]


def test_hours_and_price_bounds_no_request_can_carry_are_refused_in_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Found from outside: ``--hours nan`` (or ``inf``) and ``--max-price`` past int64
    ended the client in a traceback. The range itself stays the server's to judge."""
    for bad in ("nan", "inf", "-inf", "1e30", "soon", "1/0"):
        with pytest.raises(SystemExit):
            parsed("list", "abcd1234", "120", f"--hours={bad}")
        assert "a listing lasts from 1/60 (a minute) to 48 hours" in capsys.readouterr().err
    for asked in ("6", "49", "0.5"):
        assert parsed("list", "abcd1234", "120", "--hours", asked).hours == float(asked)  # type: ignore[attr-defined]
    # Found from outside: the help says 'a minute (1/60)', and '1/60' was refused.
    assert parsed("list", "abcd1234", "120", "--hours", "1/60").hours == 1 / 60  # type: ignore[attr-defined]
    with pytest.raises(CommandError, match="no listing costs more than 1,000,000 coins"):
        auction_filter(parsed("--max-price", "99999999999999999999"))  # type: ignore[arg-type]


def test_a_listing_shows_its_card_price_and_state() -> None:
    listing = pb.Listing(
        listing_id="0123456789abcdef",
        copy=pb.OwnedCopy(
            copy_id="c0ffee0011", holo=True, character=pb.Character(name="Geezard", stars=1)
        ),
        price=1250,
        status=pb.LISTING_STATUS_SOLD,
    )
    out = io.StringIO()
    Console(width=100, file=out, color_system=None).print(listings_table("AH", [listing]))
    text = out.getvalue()
    assert "01234567" in text and "Geezard (holo)" in text
    assert "1,250" in text and "sold" in text


def test_an_open_listing_reads_in_80_columns_each_value_under_its_heading() -> None:
    """The row of an open listing on an 80-column terminal: nothing squeezed to '…',
    each value under its heading (copies.copy_row gained a Realm cell the listing
    table had no heading for)."""
    listing = pb.Listing(
        listing_id="80ec549d-0000",
        copy=pb.OwnedCopy(
            copy_id="9bc412e3-0000",
            character=pb.Character(
                name="Saltmarsh Witch",
                stars=2,
                element=pb.ELEMENT_WATER,
                creature_type=pb.CREATURE_TYPE_FIEND,
                alignment=pb.Alignment(law=pb.ALIGNMENT_LAW_LAWFUL, moral=pb.ALIGNMENT_MORAL_EVIL),
            ),
            printed_sides=pb.Sides(top=4, right=2, bottom=7, left=5),
        ),
        price=250,
        status=pb.LISTING_STATUS_OPEN,
    )
    listing.expire_time.FromSeconds(1_796_300_000)
    out = io.StringIO()
    Console(width=80, file=out, color_system=None).print(listings_table("AH", [listing]))
    text = out.getvalue()
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines) and "…" not in text, text
    assert "Saltmarsh" in text and "water" in text and "2026-12-03" in text, text
    heading = next(line for line in lines if "price" in line)
    row = next(line for line in lines if "250" in line)
    assert heading.index("price") <= row.index("250") < heading.index("status"), text
    assert heading.index("sides") <= row.index("T4 R2 B7 L5") < heading.index("price"), text


class MyListings:
    """ListMyListings over 450 listings, 200 a page as the gateway caps it."""

    def __init__(self) -> None:
        self.listed = [pb.Listing(listing_id=f"{n:04d}" + "0" * 32) for n in range(450)]

    async def ListMyListings(self, request: g.ListMyListingsRequest) -> g.ListMyListingsResponse:
        start = int(request.page_token or 0)
        end = start + request.page_size
        more = str(end) if end < len(self.listed) else ""
        return g.ListMyListingsResponse(listings=self.listed[start:end], next_page_token=more)


class Seller:
    stub = MyListings()

    async def call(self, method: Any, request: Any) -> Any:
        return await method(request)


class Paged:
    """A gateway whose every browse has a next page: the requests it was sent."""

    def __init__(self) -> None:
        self.sent: list[g.ListAuctionRequest] = []
        self.stub = self

    async def ListAuction(self, request: g.ListAuctionRequest) -> g.ListAuctionResponse:
        self.sent.append(request)
        return g.ListAuctionResponse(next_page_token="Wy" + "x" * 130 + "=")

    async def call(self, method: Any, request: Any) -> Any:
        return await method(request)


async def test_a_seller_sees_and_names_every_listing_past_the_first_page() -> None:
    """Found from outside: ``auction mine`` showed the first 200 listings and said nothing
    of the rest, and a cancel by the start of an older id found nothing."""
    seller = Seller()
    assert [x.listing_id for x in await mine(seller)] == [x.listing_id for x in seller.stub.listed]
    assert await resolve_listing(seller, "0449", own=True) == "0449" + "0" * 32


class OpenListings:
    """ListAuction over 450 open listings, 200 a page as the gateway caps it."""

    def __init__(self) -> None:
        self.listed = [pb.Listing(listing_id=f"{n:04d}" + "f" * 32) for n in range(450)]

    async def ListAuction(self, request: g.ListAuctionRequest) -> g.ListAuctionResponse:
        start = int(request.page_token or 0)
        end = start + request.page_size
        more = str(end) if end < len(self.listed) else ""
        return g.ListAuctionResponse(listings=self.listed[start:end], next_page_token=more)


class Buyer:
    stub = OpenListings()

    async def call(self, method: Any, request: Any) -> Any:
        return await method(request)


async def test_a_buyer_names_any_open_listing_past_the_first_page() -> None:
    """Found from outside: `auction buy 0449` looked for the start among the newest 200
    open listings only, so on a market of more, a listing the cheapest or a filtered
    browse showed (its id cut to 8 characters) could not be bought by that id: 'names
    none of the open listings'."""
    buyer = Buyer()
    assert await resolve_listing(buyer, "0449", own=False) == "0449" + "f" * 32
    assert await resolve_listing(buyer, "0000", own=False) == "0000" + "f" * 32
    with pytest.raises(CommandError, match="'04' names 50 listings: give more of the id"):
        await resolve_listing(buyer, "04", own=False)


async def test_the_next_page_command_keeps_the_filters_order_and_size_on_one_line() -> None:
    """Found from outside: 'More: triad-client auction browse --page T' dropped the
    browse's filters and order: the cheapest order's next page was refused, a filtered
    one went on unfiltered; and the token was broken over two lines at 80 columns."""
    gateway, out = Paged(), io.StringIO()
    typed = ["--order", "cheapest", "--stars", "1", "--element", "none", "--no-holo"]
    typed += ["--max-price", "300", "--limit", "2"]
    await auction(gateway, parsed(*typed), Console(width=80, file=out, color_system=None))  # type: ignore[arg-type]
    (hint,) = [line for line in out.getvalue().splitlines() if line.startswith("More: ")]
    assert hint.endswith("--page Wy" + "x" * 130 + "="), out.getvalue()
    more = shlex.split(hint.removeprefix("More: "))
    assert more[:3] == ["triad-client", "auction", "browse"], hint
    await auction(gateway, parsed(*more[2:]), Console(file=io.StringIO()))  # type: ignore[arg-type]
    first, second = gateway.sent
    assert second.page_token == "Wy" + "x" * 130 + "=" and not first.page_token
    second.page_token = ""
    assert second == first


def test_options_typed_before_browse_are_kept() -> None:
    """`auction --stars 4 browse` listed every star rank: browse's defaults overwrote
    them."""
    args = parsed("--stars", "4", "--order", "cheapest", "browse", "--limit", "5")
    assert list(auction_filter(args).stars) == [4]  # type: ignore[arg-type]
    assert (args.order, args.limit) == ("cheapest", 5)  # type: ignore[attr-defined]


class Listed:
    """A gateway with two open listings, both the player's, and no other call."""

    def __init__(self) -> None:
        self.stub = self
        self.sent: list[Any] = []
        self.listings = [pb.Listing(listing_id=i) for i in ("f500cd39-aa", "f5aa0000-bb")]

    async def ListMyListings(self, request: Any) -> g.ListMyListingsResponse:
        return g.ListMyListingsResponse(listings=self.listings)

    async def ListAuction(self, request: Any) -> g.ListAuctionResponse:
        return g.ListAuctionResponse(listings=self.listings)

    async def call(self, method: Any, request: Any) -> Any:
        self.sent.append(request)
        return await method(request)


async def test_a_listing_or_a_duration_that_cannot_be_right_is_said_in_the_words_typed() -> None:
    """Found from outside: `auction cancel f500` of a listing not one's own, and `buy
    zzzz`, said 'names no single listing ...: give the whole id' (the whole id named
    nothing either); `auction list COPY 10 --hours 49` was refused by the server 'not
    176400 seconds'."""
    gateway, console = Listed(), Console(file=io.StringIO())
    with pytest.raises(
        CommandError,
        match="'zzzz' names none of the open listings: triad-client auction lists them",
    ):
        await auction(gateway, parsed("buy", "zzzz"), console)  # type: ignore[arg-type]
    with pytest.raises(
        CommandError, match="'0000' names none of your listings: triad-client auction mine"
    ):
        await auction(gateway, parsed("cancel", "0000"), console)  # type: ignore[arg-type]
    with pytest.raises(CommandError, match="'f5' names 2 listings: give more of the id"):
        await auction(gateway, parsed("cancel", "f5"), console)  # type: ignore[arg-type]
    for hours in ("49", "0.001"):
        with pytest.raises(
            CommandError, match=f"--hours is 1/60 \\(a minute\\) to 48: not {hours}"
        ):
            await auction(gateway, parsed("list", "c0ffee", "10", "--hours", hours), console)  # type: ignore[arg-type]


class Market:
    """One open listing; the first BuyListing sells it but its answer is lost (the
    client's deadline), as a gateway answers a retry with the same request id."""

    def __init__(self, state: State) -> None:
        self.stub, self.state = self, state
        self.listing = pb.Listing(listing_id="9a0b1c2d" + "e" * 28, price=100)
        self.bought: list[g.BuyListingRequest] = []

    async def ListAuction(self, request: g.ListAuctionRequest) -> g.ListAuctionResponse:
        return g.ListAuctionResponse(listings=[] if self.bought else [self.listing])

    async def BuyListing(self, request: g.BuyListingRequest) -> g.BuyListingResponse:
        self.bought.append(request)
        if len(self.bought) == 1:
            raise TimeoutError("the answer was lost")
        self.listing.status = pb.LISTING_STATUS_SOLD
        return g.BuyListingResponse(listing=self.listing, balance=pb.Balance(coins=200))

    async def call(self, method: Any, request: Any) -> Any:
        return await method(request)


async def test_a_buy_retried_with_its_request_id_answers_the_purchase(tmp_path: Path) -> None:
    """Found from outside: README's `auction buy 9a0b --request-id R`, run again after
    the first try bought the listing (its answer lost), said "'9a0b' names none of the
    open listings" (exit 2): the listing was no longer on sale to be found by the start
    of its id, and the retry never reached the gateway to answer the purchase."""
    state = State(tmp_path / "state.json", "default")
    state.save(g.Player(player_id="p", player_name="ann"), g.AuthTokens(access_token="a"))
    market, out = Market(state), io.StringIO()
    typed = parsed("buy", "9a0b", "--request-id", "R1")
    with pytest.raises(TimeoutError):
        await auction(market, typed, Console(file=out))  # type: ignore[arg-type]
    retried = Market(State(tmp_path / "state.json", "default"))  # the next command
    retried.bought = market.bought
    await auction(retried, typed, Console(file=out, width=100))  # type: ignore[arg-type]
    first, second = market.bought
    assert first == second == g.BuyListingRequest(request_id="R1", listing_id="9a0b1c2d" + "e" * 28)
    assert "Bought for 100 coins; 200 left." in out.getvalue()
    with pytest.raises(CommandError, match="'9a0b' names none of the open listings"):
        await auction(retried, parsed("buy", "9a0b"), Console(file=out))  # type: ignore[arg-type]


class Sold:
    """The seller's one copy; the first CreateListing lists it and loses its answer, and
    a buyer takes it before the retry (the gateway answers the retry with the listing)."""

    def __init__(self, state: State) -> None:
        self.stub, self.state = self, state
        self.copy = pb.OwnedCopy(copy_id="c0ffee00" + "1" * 28)
        self.listed: list[g.CreateListingRequest] = []

    async def ListCollection(self, request: g.ListCollectionRequest) -> Any:
        entries = [] if self.listed else [pb.CollectionEntry(copy=self.copy)]
        return g.ListCollectionResponse(entries=entries)

    async def CreateListing(self, request: g.CreateListingRequest) -> Any:
        self.listed.append(request)
        if len(self.listed) == 1:
            raise TimeoutError("the answer was lost")
        sold = pb.Listing(listing_id="l1", copy=self.copy, price=250, fee=12)
        sold.status = pb.LISTING_STATUS_SOLD
        return g.CreateListingResponse(listing=sold)

    async def call(self, method: Any, request: Any) -> Any:
        return await method(request)


async def test_a_listing_retried_with_its_request_id_after_the_sale_answers_it(
    tmp_path: Path,
) -> None:
    """`auction list c0ff 250 --request-id R` run again once the copy sold (the first
    try's answer lost) said "'c0ff' names none of your copies"."""
    path = tmp_path / "state.json"
    State(path, "default").save(g.Player(player_id="p", player_name="ann"), g.AuthTokens())
    seller, out = Sold(State(path, "default")), io.StringIO()
    typed = parsed("list", "c0ff", "250", "--request-id", "R2")
    with pytest.raises(TimeoutError):
        await auction(seller, typed, Console(file=out))  # type: ignore[arg-type]
    seller.state = State(path, "default")
    await auction(seller, typed, Console(file=out, width=100))  # type: ignore[arg-type]
    first, second = seller.listed
    assert first == second and second.copy_id == "c0ffee00" + "1" * 28
    assert "sold" in out.getvalue()
