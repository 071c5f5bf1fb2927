// The Auction House (RULES.md 15): the cards on sale, newest or cheapest first, filtered by
// character, stars, element, holo and a highest price, a page at a time (More appends the
// next), bought at their price; one's own free copies put up for sale at a fixed price;
// one's listings, open ones withdrawn. The session's ``listing`` push says when one of
// them sold or expired. main.ts shows this screen instead of the lobby.
import { api, authed, requestId } from "./api.js";
import { Code, ConnectError } from "@connectrpc/connect";
import { cardFace, el } from "./board.js";
import { cards } from "./cards.js";
import { allPages } from "./fairness.js";
import { actionButton as button, captioned, screenFrame, select } from "./controls.js";
import type { Page } from "./state.js";
import {
  AuctionOrder,
  Element,
  HoloFilter,
  ListingStatus,
  type Character,
  type Listing,
  type OwnedCopy,
} from "./gen/triad/v1/common_pb.js";

/** Listings a page (ListAuction's own default). */
const PAGE = 50;
/** The highest price of a listing (RULES.md 15). */
const MAX_PRICE = 1_000_000;

/** The filters chosen, as the selects hold them: "" is any; the element "0" is none. */
function noFilter() {
  return { character: "", stars: "", element: "", holo: String(HoloFilter.UNSPECIFIED), maxPrice: "" };
}

function fresh() {
  return {
    shown: false,
    /** The player's own id (the session's first push): their listings are not for them to buy. */
    me: "",
    order: AuctionOrder.NEWEST,
    filter: noFilter(),
    /** The highest price as typed, applied (to filter.maxPrice) on Enter or on leaving the box. */
    typedMax: "",
    market: [] as Listing[],
    /** The token of the market's next page; "" on the last. */
    next: "",
    /** A browse for new filters is under way: the market shown is the old filters'. */
    busy: false,
    /** The last browse was refused (its refusal is on the page): no listing shown. */
    refused: false,
    mine: [] as Listing[],
    free: [] as OwnedCopy[],
    sell: "",
    price: "",
    /** How many hours a listing stays on sale (RULES.md 15: up to 48). */
    hours: "48",
    /** The listing whose Buy was pressed, waiting for its "Yes, buy": coins are spent
     * only on the second press (found in review: one stray click bought a card). */
    buying: "",
  };
}

export const auction = fresh();

/** The catalog's characters by name, for the character filter (read once). */
let catalog: Character[] = [];
/** Browses asked for: an answer to an older one (the filters changed since) is dropped. */
let asked = 0;

/** The session's ``listing`` push: a listing of the player's sold or expired. */
export function listingPush(listing: Listing, page: Page): void {
  const name = listing.copy?.character?.name ?? "a card";
  page.note(`listing ${ListingStatus[listing.status].toLowerCase()}: ${name} for ${coinWords(listing.price)}`);
  auction.mine = auction.mine.map((l) => (l.listingId === listing.listingId ? listing : l));
  // No longer on sale: off the market list too (found in review: the seller read "sold"
  // under Your listings and the same card "(yours)" under On sale).
  auction.market = auction.market.filter((l) => l.listingId !== listing.listingId);
}

export async function showAuction(): Promise<void> {
  await Promise.all([reload(), readCatalog()]);
  auction.shown = true;
}

export function forgetAuction(): void {
  Object.assign(auction, fresh());
}

async function readCatalog(): Promise<void> {
  if (catalog.length) return;
  const found = await allPages((pageToken) =>
    authed(() => api.listCatalog({ pageSize: 200, pageToken })).then((r) => ({ items: r.characters, next: r.nextPageToken })),
  );
  catalog = found.sort((a, b) => a.name.localeCompare(b.name));
}

/** The market's first page, and the player's listings and free copies. */
async function reload(): Promise<void> {
  await Promise.all([firstPage(), readMine()]);
}

async function readMine(): Promise<void> {
  const [mine, collection, balance] = await Promise.all([
    authed(() => api.listMyListings({ pageSize: 50 })),
    authed(() => api.listCollection({ pageSize: 200 })),
    authed(() => api.getBalance({})),
  ]);
  auction.mine = mine.listings;
  cards.balance = balance.balance ?? null; // (kept up to date by the balance push)
  auction.free = collection.entries.flatMap((e) => (e.copy && !e.lock ? [e.copy] : []));
  if (!auction.free.some((c) => c.copyId === auction.sell)) auction.sell = auction.free[0]?.copyId ?? "";
}

/** A price as typed, in whole coins; none (0) when it is no number. A negative one is
 * refused here, in words (the server's name its fields: "min_price and max_price..."). */
function coins(text: string): bigint {
  const n = Math.trunc(Number(text));
  if (n < 0) throw new Error("The highest price is a whole number of coins, 1 or more (leave it empty for any).");
  // No listing costs more than MAX_PRICE: a bound above it (1e21) is the same filter, and
  // past int64 it could not even be sent (found from outside: a raw encoder error).
  return Number.isFinite(n) ? BigInt(Math.min(n, MAX_PRICE)) : 0n;
}

function browse(pageToken: string) {
  const f = auction.filter;
  const filter = {
    characterId: f.character,
    stars: f.stars ? [Number(f.stars)] : [],
    elements: f.element ? [Number(f.element) as Element] : [],
    holo: Number(f.holo) as HoloFilter,
    maxPrice: coins(f.maxPrice),
  };
  return authed(() => api.listAuction({ filter, order: auction.order, pageSize: PAGE, pageToken }));
}

/** The market from its first page, as the filters and the order now say. A refused browse
 * (a negative price) shows no listings: those shown would not be the filter's. */
async function firstPage(): Promise<void> {
  const ask = ++asked;
  try {
    const reply = await browse("");
    if (ask !== asked) return;
    Object.assign(auction, { market: reply.listings, next: reply.nextPageToken, refused: false });
  } catch (error) {
    if (ask !== asked) return; // refused filters changed since: not this page's to show
    Object.assign(auction, { market: [], next: "", refused: true });
    throw error;
  } finally {
    if (ask === asked) auction.busy = false;
  }
}

/** The filters or the order changed: the market shown busy at once, then from its first page. */
function refilter(page: Page): void {
  auction.busy = true;
  page.render();
  void page.act(firstPage);
}

/** The market's next page, after those shown (a listing already shown is not twice). */
async function morePage(): Promise<void> {
  const ask = asked;
  const reply = await browse(auction.next);
  if (ask !== asked) return;
  const shown = new Set(auction.market.map((l) => l.listingId));
  auction.market = [...auction.market, ...reply.listings.filter((l) => !shown.has(l.listingId))];
  auction.next = reply.nextPageToken;
}

export function auctionScreen(page: Page): HTMLElement {
  const screen = screenFrame(
    "auction",
    "Auction House",
    // What the player can spend (found from outside: shown only on the cards screen).
    el("span", { "data-testid": "balance" }, cards.balance ? `${cards.balance.coins} coins` : ""),
    button("Look again", "reload", page, reload),
    button("Back to the lobby", "lobby", page, async () => void (auction.shown = false)),
  );
  screen.append(el("h2", {}, "On sale"), filterRow(page), marketList(page));
  if (auction.next) screen.append(el("div", { class: "row" }, button("More", "more", page, morePage)));
  screen.append(el("h2", {}, "Sell a card"), sellForm(page), el("h2", {}, "Your listings"), myList(page));
  return screen;
}

/** The order and the filters; a change shows the market again from its first page. */
function filterRow(page: Page): HTMLElement {
  const f = auction.filter;
  const choose = (key: keyof typeof f, caption: string, options: [string, string][]) => {
    const change = (v: string) => {
      f[key] = v;
      refilter(page);
    };
    return captioned(caption, select(key, options, f[key], change));
  };
  const order = select(
    "order",
    [
      [String(AuctionOrder.NEWEST), "newest first"],
      [String(AuctionOrder.CHEAPEST), "cheapest first"],
    ],
    String(auction.order),
    (v) => {
      auction.order = Number(v) as AuctionOrder;
      refilter(page);
    },
  );
  const characters = catalog.map((c): [string, string] => [c.characterId, c.name]);
  const stars = [1, 2, 3, 4, 5].map((n): [string, string] => [`${n}`, `${n}★`]);
  const elements = Object.values(Element).filter((e): e is Element => typeof e === "number" && e !== 0);
  const max = el("input", { name: "max-price", type: "number", min: "1", max: "1000000", placeholder: "any" });
  max.value = auction.typedMax;
  max.addEventListener("input", () => void (auction.typedMax = max.value));
  const applyMax = () => {
    if (auction.typedMax === f.maxPrice || !max.isConnected) return;
    f.maxPrice = auction.typedMax;
    refilter(page);
  };
  max.addEventListener("keydown", (event) => event.key === "Enter" && applyMax());
  // Chromium blurs the box as a push draws the page again (the box taken away, still in the
  // page as it blurs): only a box still there after that was left by the player.
  max.addEventListener("blur", () => queueMicrotask(applyMax));
  return el(
    "div",
    { class: "filters", "data-testid": "filters" },
    captioned("Order", order),
    choose("character", "Character", [["", "any"], ...characters]),
    choose("stars", "Stars", [["", "any"], ...stars]),
    choose("element", "Element", [
      ["", "any"],
      [String(Element.UNSPECIFIED), "none"],
      ...elements.map((e): [string, string] => [String(e), Element[e].toLowerCase()]),
    ]),
    choose("holo", "Holo", [
      [String(HoloFilter.UNSPECIFIED), "holo or plain"],
      [String(HoloFilter.HOLO), "holo only"],
      [String(HoloFilter.PLAIN), "plain only"],
    ]),
    captioned("Highest price", max),
  );
}

/** Some filter is set (then an empty market says none fits them). */
function filtering(): boolean {
  const none = noFilter();
  return (Object.keys(none) as (keyof typeof none)[]).some((key) => auction.filter[key] !== none[key]);
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
    cardFace(listing.copy, undefined, false, true),
  );
}

/** "1 coin", "7 coins". */
function coinWords(price: bigint | number): string {
  return String(price) === "1" ? "1 coin" : `${price} coins`;
}

/** The character's name (the card's face cuts a long one short) and the price. */
function listingWords(listing: Listing): HTMLElement {
  const name = listing.copy?.character?.name ?? "?";
  return el("span", { class: "words" }, el("span", { class: "name" }, name), ` ${coinWords(listing.price)} `);
}

/** A listing someone else bought first (or withdrawn, or run out) leaves the list, and
 * is said in words: found from outside, it stayed with its Buy button under "listing
 * 2ab5bf7b (Skyreef Manta (1f21f7ce)) is sold: it is no longer on sale". Any other
 * refusal (too few coins) is left as the server says it. */
function gone(listing: Listing, error: unknown): unknown {
  const failure = ConnectError.from(error);
  const closed = / is (sold|cancelled|expired)\b| expired at /.exec(failure.rawMessage);
  if (failure.code !== Code.FailedPrecondition || !closed) return error;
  auction.market = auction.market.filter((l) => l.listingId !== listing.listingId);
  const how = closed[1] === "sold" ? "someone bought it first" : closed[1] === "cancelled" ? "its seller withdrew it" : "its time ran out";
  const name = listing.copy?.character?.name ?? "That card";
  return new ConnectError(`${name} for ${coinWords(listing.price)} is no longer on sale: ${how}.`, failure.code);
}

function marketList(page: Page): HTMLElement {
  const list = el("ul", { class: "listings", "data-testid": "market", "aria-busy": String(auction.busy) });
  for (const listing of auction.market) {
    const item = el("li", { "data-listing": listing.listingId }, listingCard(listing), listingWords(listing));
    if (listing.sellerPlayerId === auction.me) item.append("(yours)");
    else if (auction.buying !== listing.listingId)
      item.append(button("Buy", "buy", page, async () => void (auction.buying = listing.listingId)));
    else
      item.append(
        button(`Yes, buy for ${coinWords(listing.price)}`, "buy-confirm", page, async () => {
          auction.buying = "";
          await authed(() => api.buyListing({ requestId: requestId(), listingId: listing.listingId })).catch((error) => {
            throw gone(listing, error);
          });
          page.note(`bought ${listing.copy?.character?.name ?? "a card"} for ${coinWords(listing.price)}`);
          // The pages read stay (a player who read on is not sent back to the first).
          auction.market = auction.market.filter((l) => l.listingId !== listing.listingId);
          await readMine();
        }),
        button("Keep looking", "buy-cancel", page, async () => void (auction.buying = "")),
      );
    list.append(item);
  }
  const none = filtering() ? "Nothing on sale fits those filters." : "Nothing on sale.";
  if (!auction.market.length && !auction.refused) list.append(el("li", {}, none));
  return list;
}

/** How long a listing may stay on sale, as the sell form offers it. */
const LISTING_HOURS: [string, string][] = [
  ["1", "for 1 hour"],
  ["12", "for 12 hours"],
  ["24", "for 24 hours"],
  ["48", "for 48 hours"],
];

/** When an open listing of the player's stops being on sale, in their local time. */
function until(listing: Listing): string {
  const seconds = Number(listing.expireTime?.seconds ?? 0n);
  const when = new Date(seconds * 1000);
  return `until ${when.toLocaleString([], { weekday: "short", hour: "2-digit", minute: "2-digit" })}`;
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
    select("hours", LISTING_HOURS, auction.hours, (v) => void (auction.hours = v)),
    button("List for sale", "list", page, async () => {
      // A price is whole coins: "12.5" is refused here in words, not by BigInt's error.
      const asked = Number(auction.price);
      if (!Number.isInteger(asked) || asked < 1 || asked > MAX_PRICE)
        throw new Error("A price is a whole number of coins, 1 to 1,000,000.");
      await authed(() =>
        api.createListing({
          requestId: requestId(),
          copyId: auction.sell,
          price: BigInt(asked),
          duration: { seconds: BigInt(Number(auction.hours) * 3600) },
        }),
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
    const open = listing.status === ListingStatus.OPEN;
    const item = el(
      "li",
      {
        "data-listing": listing.listingId,
        "data-status": status,
        "data-on-sale-seconds": String((listing.expireTime?.seconds ?? 0n) - (listing.createTime?.seconds ?? 0n)),
      },
      listingCard(listing),
      ` ${coinWords(listing.price)}, ${open ? until(listing) : status} `,
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
