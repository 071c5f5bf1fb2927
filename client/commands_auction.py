"""The Auction House (RULES.md 15) as subcommands of ``triad-client``: ``auction``
(browse, with filters and an order), ``auction mine``, ``auction list COPY PRICE
[--hours H]`` (on sale for up to 48 hours), ``auction cancel LISTING``, ``auction buy
LISTING``. Each prints a rich table or line for a person, or the gateway's answer as
JSON with ``--json``. Copy and listing ids may be given as the first characters the
tables show."""

from __future__ import annotations

import argparse
import math
import shlex
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta
from fractions import Fraction
from typing import Any

from rich.console import Console
from rich.table import Table
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.arguments import within
from client.commands_cards import ELEMENTS, element_values, resolve_copies
from client.connection import Caller, CommandError, State, as_json, pages
from client.copies import copy_row

STATUS_NAMES = {
    pb.LISTING_STATUS_OPEN: "open",
    pb.LISTING_STATUS_SOLD: "sold",
    pb.LISTING_STATUS_CANCELLED: "cancelled",
    pb.LISTING_STATUS_EXPIRED: "expired",
}
ORDERS = {"newest": pb.AUCTION_ORDER_NEWEST, "cheapest": pb.AUCTION_ORDER_CHEAPEST}
MAX_PRICE = 1_000_000
LONGEST_HOURS = 48
HOURS_SENT = 1_000_000
"""Past this many hours ``--hours`` is refused before any call (a timedelta overflows)."""
PAGE_SIZE = 20


def listings_table(title: str, listings: list[pb.Listing]) -> Table:
    """The listings in 80 columns: the listing id (what buy and cancel take), the card
    (copies.copy_row without the copy id and the Realm words: `copy` shows them), the
    price and the state (an open one: until when)."""
    table = Table(title=title, title_justify="left")
    for heading in ("listing", "name", "stars", "element", "sides", "price", "status"):
        wraps = heading in ("name", "status")
        table.add_column(heading, no_wrap=not wraps, min_width=10 if wraps else None)
    for x in listings:
        expires = x.expire_time.ToDatetime().strftime("%Y-%m-%d %H:%M UTC")
        status = STATUS_NAMES.get(x.status, "?")
        _, name, stars, element, sides, _ = copy_row(x.copy)
        table.add_row(
            x.listing_id[:8],
            name,
            stars,
            element,
            sides,
            f"{x.price:,}",
            f"until {expires}" if x.status == pb.LISTING_STATUS_OPEN else status,
        )
    return table


def auction_filter(args: argparse.Namespace) -> pb.AuctionFilter:
    if args.min_price < 0 or args.max_price < 0:
        raise CommandError("--min-price and --max-price are 0 (no bound) or more")
    if max(args.min_price, args.max_price) > MAX_PRICE:  # past int64 it cannot be sent
        raise CommandError(f"no listing costs more than {MAX_PRICE:,} coins: bound prices by it")
    holo = {None: pb.HOLO_FILTER_UNSPECIFIED, True: pb.HOLO_FILTER_HOLO}
    return pb.AuctionFilter(
        character_id=args.character,
        stars=args.stars or [],
        elements=element_values(args.element),
        holo=holo.get(args.holo, pb.HOLO_FILTER_PLAIN),
        min_price=args.min_price,
        max_price=args.max_price,
    )


def price_of(text: str) -> int:
    """A price as typed (digits, commas or underscores allowed), checked before any call."""
    cleaned = text.replace(",", "").replace("_", "")
    if not cleaned.isdigit() or not 1 <= int(cleaned) <= MAX_PRICE:
        raise CommandError(f"a price is a whole number of coins, 1 to {MAX_PRICE:,}: not {text!r}")
    return int(cleaned)


def hours_of(text: str) -> float:
    """``--hours`` as a number the request can carry; the server judges the range (a
    minute to 48 hours) and says so (found from outside: ``nan`` and ``inf`` ended the
    client in a traceback). A fraction reads as the help writes it: ``1/60``, a minute
    (found from outside: the help and the refusal said '1/60', which was refused)."""
    try:
        hours = float(Fraction(text.strip()))
    except (ValueError, ZeroDivisionError):
        hours = math.nan
    if not abs(hours) <= HOURS_SENT:  # NaN fails every comparison
        raise argparse.ArgumentTypeError(
            f"a listing lasts from 1/60 (a minute) to {LONGEST_HOURS} hours, not {text!r}"
        )
    return hours


def next_page(args: argparse.Namespace, token: str) -> str:
    """The browse that goes on from this one: its filters, order and page size with the
    token (found from outside: the page alone was refused for another order, and showed
    unfiltered listings for the same)."""
    words = ["triad-client", "auction", "browse"]
    if args.order != "newest":
        words += ["--order", args.order]
    if args.character:
        words += ["--character", args.character]
    for stars in args.stars or []:
        words += ["--stars", str(stars)]
    for element in args.element or []:
        words += ["--element", element]
    if args.holo is not None:
        words.append("--holo" if args.holo else "--no-holo")
    if args.min_price:
        words += ["--min-price", str(args.min_price)]
    if args.max_price:
        words += ["--max-price", str(args.max_price)]
    if args.limit != PAGE_SIZE:
        words += ["--limit", str(args.limit)]
    return shlex.join([*words, "--page", token])


async def browse(client: Caller, args: argparse.Namespace) -> Any:
    return await client.call(
        client.stub.ListAuction,
        g.ListAuctionRequest(
            filter=auction_filter(args),
            order=ORDERS[args.order],
            page_size=args.limit,
            page_token=args.page,
        ),
    )


async def mine(client: Caller) -> list[pb.Listing]:
    """Every listing of the player's, newest first: all pages (found from outside: past
    the first 200, ``auction mine`` and a cancel by the start of an id missed the rest)."""
    listed = await pages(
        lambda token: client.call(
            client.stub.ListMyListings, g.ListMyListingsRequest(page_size=200, page_token=token)
        )
    )
    return [x for page in listed for x in page.listings]


async def on_sale(client: Caller) -> list[pb.Listing]:
    """Every open listing, newest first: all pages (found from outside: a buy looked
    among the newest 200 only, so past them a listing a cheapest or filtered browse
    showed could not be bought by the start of its id)."""
    listed = await pages(
        lambda token: client.call(
            client.stub.ListAuction, g.ListAuctionRequest(page_size=200, page_token=token)
        )
    )
    return [x for page in listed for x in page.listings]


async def kept(
    client: Caller, args: argparse.Namespace, given: str, resolve: Callable[[], Awaitable[str]]
) -> str:
    """The id ``given`` (or its start) names: with ``--request-id``, kept in the state
    file before the call, so that a retry names it again once it is gone from the lists
    the start of an id is looked for in (found from outside: a retry of `auction buy 9a0b
    --request-id R` whose first try bought the listing said "'9a0b' names none of the
    open listings", exit 2, instead of answering the purchase; `auction list` of a copy
    sold since, "names none of your copies")."""
    state = getattr(client, "state", None)
    if not (args.request_id and isinstance(state, State)):
        return await resolve()
    known = state.recall(args.request_id)
    if known and known.startswith(given):
        return known
    found = await resolve()
    state.remember(args.request_id, found)
    return found


async def one_copy(client: Caller, given: str) -> str:
    (copy_id,) = await resolve_copies(client, [given])
    return copy_id


async def resolve_listing(client: Caller, given: str, *, own: bool) -> str:
    """A listing id as typed: whole, or the first characters of one of the player's
    listings (``own``) or of any open one."""
    ids = [x.listing_id for x in await (mine(client) if own else on_sale(client))]
    if given in ids or len(given) >= 32:
        return given
    matching = [i for i in ids if i.startswith(given)]
    if not matching:  # not "give the whole id": the start given names nothing
        where = "your listings" if own else "the open listings"
        lister = "triad-client auction mine" if own else "triad-client auction"
        raise CommandError(f"{given!r} names none of {where}: {lister} lists them")
    if len(matching) > 1:
        raise CommandError(f"{given!r} names {len(matching)} listings: give more of the id")
    return matching[0]


async def auction(client: Caller, args: argparse.Namespace, console: Console) -> int:
    command = args.auction_command or "browse"
    request_id = getattr(args, "request_id", None) or uuid.uuid4().hex
    reply: Any
    if command == "browse":
        reply = await browse(client, args)
        if args.json:
            print(as_json(reply))
            return 0
        if reply.listings:
            table = listings_table(f"Auction House ({args.order} first)", list(reply.listings))
            console.print(table)
        elif auction_filter(args) == pb.AuctionFilter():
            console.print("Nothing on sale.")
        else:
            console.print("Nothing on sale fits those filters.")
        if reply.next_page_token:  # one line: the token is copied whole
            console.print(f"More: {next_page(args, reply.next_page_token)}", soft_wrap=True)
        return 0
    if command == "mine":
        listings = await mine(client)
        if args.json:
            print(as_json(g.ListMyListingsResponse(listings=listings)))
        elif listings:
            console.print(listings_table("Your listings", listings))
        else:
            console.print("You have no listings: triad-client auction list COPY PRICE sells one.")
        return 0
    if command == "list":
        price = price_of(args.price)
        if args.hours is not None and not 1 / 60 <= args.hours <= 48:  # in hours, as typed
            raise CommandError(f"--hours is 1/60 (a minute) to 48: not {args.hours:g}")
        copy_id = await kept(client, args, args.copy, lambda: one_copy(client, args.copy))
        request = g.CreateListingRequest(request_id=request_id, copy_id=copy_id, price=price)
        if args.hours is not None:
            request.duration.FromTimedelta(timedelta(hours=args.hours))
        reply = await client.call(client.stub.CreateListing, request)
        text = f"Listed for {price:,} coins (a sale pays you {price - reply.listing.fee:,})."
    elif command == "cancel":
        listing_id = await resolve_listing(client, args.listing, own=True)
        reply = await client.call(
            client.stub.CancelListing,
            g.CancelListingRequest(request_id=request_id, listing_id=listing_id),
        )
        text = "Cancelled: the copy is yours to use again."
    else:
        listing_id = await kept(
            client, args, args.listing, lambda: resolve_listing(client, args.listing, own=False)
        )
        reply = await client.call(
            client.stub.BuyListing,
            g.BuyListingRequest(request_id=request_id, listing_id=listing_id),
        )
        text = f"Bought for {reply.listing.price:,} coins; {reply.balance.coins:,} left."
    if args.json:
        print(as_json(reply))
    else:
        console.print(listings_table("Auction House", [reply.listing]))
        console.print(text)
    return 0


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    house = sub.add_parser(
        "auction", parents=[common], help="browse, list, cancel and buy on the Auction House"
    )
    house_sub = house.add_subparsers(dest="auction_command")
    look = house_sub.add_parser("browse", parents=[common], help="open listings (the default)")
    for cmd, unset in ((house, False), (look, True)):
        # browse's own defaults would overwrite what was typed before it (`auction
        # --stars 4 browse` listed every star rank): it sets only what it is given
        def default(value: Any, unset: bool = unset) -> Any:
            return argparse.SUPPRESS if unset else value

        cmd.add_argument("--character", default=default(""), help="a character id (see catalog)")
        cmd.add_argument(
            "--stars",
            type=within(1, 5),
            action="append",
            default=default(None),
            help="1..5; repeatable",
        )
        cmd.add_argument(
            "--element",
            choices=[*sorted(ELEMENTS), "none"],
            action="append",
            default=default(None),
            help="repeatable",
        )
        cmd.add_argument("--holo", action=argparse.BooleanOptionalAction, default=default(None))
        cmd.add_argument("--min-price", type=int, default=default(0))
        cmd.add_argument("--max-price", type=int, default=default(0))
        cmd.add_argument("--order", choices=sorted(ORDERS), default=default("newest"))
        cmd.add_argument(
            "--limit",
            type=within(1, 200),
            default=default(PAGE_SIZE),
            help="listings per page (max 200)",
        )
        cmd.add_argument("--page", default=default(""), help="the page token a browse printed")
    house_sub.add_parser("mine", parents=[common], help="your listings, open and closed")
    sell = house_sub.add_parser("list", parents=[common], help="list a copy for a price")
    sell.add_argument("copy", help="copy id (or its first characters)")
    sell.add_argument(
        "price", help="coins, 1..1,000,000; a sale pays you 95%% of it (the fee is rounded down)"
    )
    sell.add_argument(
        "--hours",
        type=hours_of,
        help="how long it stays on sale: a minute (1/60) to 48 hours; 48 when not given",
    )
    sell.add_argument("--request-id", help="retry without listing twice")
    for name, text in (("cancel", "withdraw your listing"), ("buy", "buy a listing")):
        cmd = house_sub.add_parser(name, parents=[common], help=text)
        cmd.add_argument("listing", help="listing id (or its first characters)")
        cmd.add_argument("--request-id", help="retry without doing it twice")
