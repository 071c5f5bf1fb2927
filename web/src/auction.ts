// The Auction House (RULES.md 15): the cards on sale, newest or cheapest first, bought
// at their price; one's own free copies put up for sale at a fixed price; one's listings, open
// ones withdrawn. The session's ``listing`` push says when one of them sold or expired.
// main.ts shows this screen instead of the lobby.
import { api, authed, requestId } from "./api.js";
import { cardFace, el } from "./board.js";
import { actionButton as button, screenFrame, select } from "./controls.js";
import type { Page } from "./state.js";
import { AuctionOrder, ListingStatus, type Listing, type OwnedCopy } from "./gen/triad/v1/common_pb.js";

export const auction = {
  shown: false,
  /** The player's own id (the session's first push): their listings are not for them to buy. */
  me: "",
  order: AuctionOrder.NEWEST,
  market: [] as Listing[],
  mine: [] as Listing[],
  free: [] as OwnedCopy[],
  sell: "",
  price: "",
};

/** The session's ``listing`` push: a listing of the player's sold or expired. */
export function listingPush(listing: Listing, page: Page): void {
  const name = listing.copy?.character?.name ?? "a card";
  page.note(`listing ${ListingStatus[listing.status].toLowerCase()}: ${name} for ${listing.price} coins`);
  auction.mine = auction.mine.map((l) => (l.listingId === listing.listingId ? listing : l));
}

export async function showAuction(): Promise<void> {
  await reload();
  auction.shown = true;
}

export function forgetAuction(): void {
  Object.assign(auction, { shown: false, me: "", order: AuctionOrder.NEWEST, market: [], mine: [], free: [], sell: "", price: "" });
}

async function reload(): Promise<void> {
  const [market, mine, collection] = await Promise.all([
    authed(() => api.listAuction({ order: auction.order, pageSize: 50 })),
    authed(() => api.listMyListings({ pageSize: 50 })),
    authed(() => api.listCollection({ pageSize: 200 })),
  ]);
  auction.market = market.listings;
  auction.mine = mine.listings;
  auction.free = collection.entries.flatMap((e) => (e.copy && !e.lock ? [e.copy] : []));
  if (!auction.free.some((c) => c.copyId === auction.sell)) auction.sell = auction.free[0]?.copyId ?? "";
}

export function auctionScreen(page: Page): HTMLElement {
  const order = select(
    "order",
    [
      [String(AuctionOrder.NEWEST), "newest first"],
      [String(AuctionOrder.CHEAPEST), "cheapest first"],
    ],
    String(auction.order),
    (v) => {
      auction.order = Number(v) as AuctionOrder;
      void page.act(reload);
    },
  );
  const screen = screenFrame(
    "auction",
    "Auction House",
    order,
    button("Look again", "reload", page, reload),
    button("Back to the lobby", "lobby", page, async () => void (auction.shown = false)),
  );
  screen.append(
    el("h2", {}, "On sale"),
    marketList(page),
    el("h2", {}, "Sell a card"),
    sellForm(page),
    el("h2", {}, "Your listings"),
    myList(page),
  );
  return screen;
}

function listingCard(listing: Listing): HTMLElement {
  const character = listing.copy?.character;
  return el(
    "div",
    {
      class: `card${listing.copy?.holo ? " holo" : ""}`,
      "data-copy": listing.copy?.copyId ?? "",
      title: `${character?.name ?? "?"} ${"★".repeat(character?.stars ?? 0)}`,
    },
    cardFace(listing.copy),
  );
}

function marketList(page: Page): HTMLElement {
  const list = el("ul", { class: "listings", "data-testid": "market" });
  for (const listing of auction.market) {
    const item = el("li", { "data-listing": listing.listingId }, listingCard(listing), ` ${listing.price} coins `);
    if (listing.sellerPlayerId === auction.me) item.append("(yours)");
    else
      item.append(
        button("Buy", "buy", page, async () => {
          await authed(() => api.buyListing({ requestId: requestId(), listingId: listing.listingId }));
          page.note(`bought ${listing.copy?.character?.name ?? "a card"} for ${listing.price} coins`);
          await reload();
        }),
      );
    list.append(item);
  }
  if (!auction.market.length) list.append(el("li", {}, "Nothing on sale."));
  return list;
}

function sellForm(page: Page): HTMLElement {
  const copies = auction.free.map((c): [string, string] => [
    c.copyId,
    `${c.character?.name ?? "?"} ${"★".repeat(c.character?.stars ?? 0)}${c.holo ? " holo" : ""}`,
  ]);
  const price = el("input", { name: "price", type: "number", min: "1", max: "1000000", placeholder: "coins" });
  price.value = auction.price;
  price.addEventListener("input", () => void (auction.price = price.value));
  return el(
    "div",
    { class: "row" },
    select("sell", copies, auction.sell, (v) => void (auction.sell = v)),
    price,
    button("List for sale", "list", page, async () => {
      await authed(() =>
        api.createListing({ requestId: requestId(), copyId: auction.sell, price: BigInt(Number(auction.price) || 0) }),
      );
      auction.price = "";
      await reload();
    }),
  );
}

function myList(page: Page): HTMLElement {
  const list = el("ul", { class: "listings", "data-testid": "mine" });
  for (const listing of auction.mine) {
    const status = ListingStatus[listing.status].toLowerCase();
    const item = el(
      "li",
      { "data-listing": listing.listingId, "data-status": status },
      listingCard(listing),
      ` ${listing.price} coins, ${status} `,
    );
    if (listing.status === ListingStatus.OPEN)
      item.append(
        button("Withdraw", "cancel-listing", page, async () => {
          await authed(() => api.cancelListing({ requestId: requestId(), listingId: listing.listingId }));
          await reload();
        }),
      );
    list.append(item);
  }
  return list;
}
