"""The Auction House in a real browser (web/e2e/lobby.mjs's ``auction`` and ``market``).

``auction``: one player lists a card, the other buys it; a second listing is withdrawn,
a third shown as on sale in the seller's collection. ``market``: the browse: a
seller lists copies an operator granted through the API, with an element and without,
of different stars and prices, more than one page of them; the player filters by
element "none", by stars, by a highest price (typed while queue pushes draw the page
again; a negative one refused in words a person uses), by holo and by character, and
sees exactly the listings the brute force over every open listing says, in order; More
reads on to the last page; then one is bought. The whole backend runs as processes;
the helpers (and what is skipped where Chromium or npm are missing) are
tests/e2e/test_browser.py's.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Stack
from tests.e2e.sessions import join
from tests.e2e.test_browser import RESULTS, backend, play
from tests.e2e.test_pages import create, grant, holds, walk

__all__ = ["backend"]  # the module's fixture: the whole backend, the client built

PAGE = 50  # the listings a page of the browser's market
MAX_PRICE = 100
NONE = [pb.ELEMENT_UNSPECIFIED]


async def test_listings_are_filtered_paged_with_more_and_one_bought(
    api: Any, backend: Stack, tmp_path: Path
) -> None:
    seller = await join(api)
    catalog = (await seller.call("ListCatalog", g.ListCatalogRequest(page_size=200))).characters
    plain = [x for x in catalog if not x.element and x.stars == 1]
    # 56 copies of 1★ characters without an element, three of them above the highest
    # price; and some that another filter leaves out: 2★ without an element, 1★ with one.
    chosen = [plain[i % len(plain)] for i in range(56)]
    chosen += [x for x in catalog if not x.element and x.stars == 2][:3]
    chosen += [x for x in catalog if x.element and x.stars == 1][:3]
    copies = await grant(backend, seller, [x.character_id for x in chosen])
    for i, copy in enumerate(copies):
        await create(seller, copy.copy_id, 10 + i if i < 53 or i >= 56 else 500 + i)
    # What each filter should show, by brute force over every open listing (newest first).
    everything = await walk(seller, "ListAuction", g.ListAuctionRequest(page_size=200), "listings")

    def expected(**fields: Any) -> list[str]:
        f = pb.AuctionFilter(**fields)
        return [x.listing_id for x in everything if holds(f, x)]

    def first_page(seen: dict[str, Any], ids: list[str]) -> None:
        assert seen["ids"] == ids[:PAGE] and seen["more"] == (len(ids) > PAGE), (seen, ids)

    character = plain[0]
    params = {"stars": 1, "maxPrice": MAX_PRICE, "character": character.name}
    shot = tmp_path / "browser-market.png"
    played = play(backend, "market", shot, params)
    shutil.copyfile(shot.with_name("browser-market-desk.png"), RESULTS / "browser-market-desk.png")

    no_element = expected(elements=NONE)
    one_star = expected(elements=NONE, stars=[1])
    cheap = expected(elements=NONE, stars=[1], max_price=MAX_PRICE)
    assert len(no_element) > len(one_star) > len(cheap) > PAGE
    first_page(played["noElement"], no_element)
    first_page(played["stars"], one_star)
    # A negative price: refused in the page's words (found from outside: the API's
    # "min_price and max_price are 0 (no bound) or more"), and nothing shown for it.
    assert played["refusal"] == (
        "The highest price is a whole number of coins, 1 or more (leave it empty for any)."
    ), played["refusal"]
    assert played["negative"] == {"ids": [], "more": False}, played["negative"]
    # Past int64 (found from outside: the encoder's "invalid int64" shown): a highest
    # price of 1e21 bounds nothing, and a listing at that price is refused in words.
    assert played["unbounded"] == played["stars"], played["unbounded"]
    assert not any("int64" in said for said in played["unboundedSaid"]), played
    assert played["dearRefusal"] == "A price is a whole number of coins, 1 to 1,000,000.", played
    # Typed while a queue push drew the page again: every key, and the focus, kept.
    assert played["typed"] == str(MAX_PRICE) and played["typingFocus"] == "max-price", played
    first_page(played["cheap"], cheap)
    assert played["kept"] == ["0", "1", str(MAX_PRICE)], played["kept"]
    # More appended each next page until the last, where it is gone: every listing once.
    pages = played["pages"]
    assert [len(p["ids"]) for p in pages] == [PAGE, len(cheap)], pages
    assert pages[-1] == {"ids": cheap, "more": False}, (pages[-1], cheap)
    holo = expected(elements=NONE, stars=[1], max_price=MAX_PRICE, holo=pb.HOLO_FILTER_HOLO)
    assert played["holo"]["ids"] == holo and played["holo"]["holoCards"] == len(holo), played
    # Found from outside: a holo copy said nowhere which side its +1 is on. Each 1★ holo
    # card marks one side (none of its sides is 10), a plain card none.
    assert played["holo"]["holoSides"] == len(holo), played["holo"]
    assert played["holo"]["plainSides"] == 0, played["holo"]
    if not holo:
        assert "Nothing on sale fits those filters." in played["holo"]["empty"], played["holo"]
    mine = expected(
        elements=NONE, stars=[1], max_price=MAX_PRICE, character_id=character.character_id
    )
    assert played["character"] == {"ids": mine, "more": False}, (played["character"], mine)
    # The first of them bought: gone from the market, told, and sold to the seller.
    bought = played["bought"]
    assert bought == mine[0] and played["after"]["ids"] == mine[1:], played
    assert any("bought" in line and character.name in line for line in played["pushes"])
    sold = await seller.call("ListMyListings", g.ListMyListingsRequest(page_size=200))
    assert {x.listing_id: x.status for x in sold.listings}[bought] == pb.LISTING_STATUS_SOLD


def test_a_card_listed_at_the_auction_house_is_bought_and_another_withdrawn(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "auction", tmp_path / "browser-auction.png")
    # Found from outside: 12.5 showed BigInt's "cannot be converted to a BigInt".
    assert played["fractional"] == "A price is a whole number of coins, 1 to 1,000,000.", played
    assert "7 coins" in played["offered"], played["offered"]
    # The seller was told by push; the buyer saw the purchase and now owns the copy.
    assert any("listing sold" in line and "7 coins" in line for line in played["annPushes"])
    # Found in review: the seller's On sale list kept the card sold, "(yours)".
    assert played["stillOffered"] == 0, played
    assert any("bought" in line and "7 coins" in line for line in played["beaPushes"])
    assert played["bought"] == 1, played
    # The buyer's coins on the Auction House screen, before and after (7 coins).
    before, after = played["balance"]
    assert before > 0 and after == before - 7, played
    # Found in review: one stray click bought a card. Buy asks first; "Keep looking"
    # leaves the listing on sale and the coins as they were.
    assert played["kept"] == {"asked": "Yes, buy for 7 coins", "offered": 1, "read": before}, played
    assert played["withdrawn"]["listing"] != played["sold"]["listing"]
    # On sale for as long as the seller chose: 48 hours unless asked, 12 when asked.
    assert played["sold"]["onSaleSeconds"] == 48 * 3600, played["sold"]
    assert played["withdrawn"]["onSaleSeconds"] == 12 * 3600, played["withdrawn"]
    assert "until" in played["withdrawn"]["text"], played["withdrawn"]
    # Bought by a player who still saw it on sale: refused in words, and gone from the
    # list (found from outside: it stayed, with its Buy, under the listing's ids).
    late = played["late"]
    assert late["said"].endswith("for 9 coins is no longer on sale: its seller withdrew it."), late
    assert late["shown"] == 0, late
    assert played["wrapped"] == [], played  # found from outside: "Withdr/aw" on a phone
    # Found from outside: a listed copy looked like any other in the collection, and only
    # saving a deck with it said it was on sale. It is marked so, and cannot be picked.
    assert played["held"] == {"badge": "on sale", "disabled": True, "others": 1}, played
