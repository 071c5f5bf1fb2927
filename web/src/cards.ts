// The player's cards: the balance, boosters opened (their new cards shown), the owned
// copies, and decks built from them (five copies picked, named, saved; the server says
// which rule a refused deck breaks). A saved deck can then be played in practice and in
// the queue (the lobby's deck choice). main.ts shows this screen instead of the lobby.
import { api, authed, requestId } from "./api.js";
import { cardFace, el } from "./board.js";
import { actionButton as button, screenFrame, select } from "./controls.js";
import { fairness, fairnessPanel, readCommitment } from "./fairness.js";
import type { Page } from "./state.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Balance, Deck, DeckChoiceSchema, OwnedCopy } from "./gen/triad/v1/common_pb.js";

/** A deck holds 5 cards (3×3 board), 8 (4×4) or 13 (5×5): RULES.md 11. */
const DECK_SIZES = [5, 8, 13];
const MOST = 13;

export const cards = {
  shown: false,
  balance: null as Balance | null,
  copies: [] as OwnedCopy[],
  opened: [] as OwnedCopy[],
  picked: [] as string[],
  /** What holds each locked copy, in words ("on sale", "in a match", "in a trade"). */
  held: new Map<string, string>(),
  deckName: "",
  decks: [] as Deck[],
  /** The lobby's deck for practice and the queue: a saved deck's id, or "" for Random. */
  deckId: "",
};

/** The lobby's deck choice as the API takes it. */
export function deckChoice(): MessageInitShape<typeof DeckChoiceSchema> {
  return cards.deckId
    ? { choice: { case: "deckId", value: cards.deckId } }
    : { choice: { case: "random", value: {} } };
}

/** The session's ``balance`` push. */
export function balancePush(balance: Balance): void {
  cards.balance = balance;
}

/** The saved decks, read again (the lobby offers them). */
export async function loadDecks(): Promise<void> {
  const reply = await authed(() => api.listDecks({ pageSize: 50 }));
  cards.decks = reply.decks;
  if (!cards.decks.some((d) => d.deckId === cards.deckId)) cards.deckId = "";
}

export async function showCards(): Promise<void> {
  const [balance, collection] = await Promise.all([
    authed(() => api.getBalance({})),
    authed(() => api.listCollection({ pageSize: 200 })),
    loadDecks(),
    readCommitment(),
  ]);
  cards.balance = balance.balance ?? null;
  cards.copies = collection.entries.flatMap((e) => (e.copy ? [e.copy] : []));
  cards.held = new Map(
    collection.entries.flatMap((e) => (e.copy && e.lock?.holder ? [[e.copy.copyId, heldWords(e.lock.holder.holder.case)]] : [])),
  );
  // A copy picked for a deck and gone since (taken in a trade) is picked no more.
  cards.picked = cards.picked.filter((id) => cards.copies.some((copy) => copy.copyId === id));
  cards.shown = true;
}

/** Logged out: nothing kept. */
export function forgetCards(): void {
  Object.assign(cards, { shown: false, balance: null, copies: [], opened: [], picked: [], held: new Map(), decks: [], deckId: "" });
}

/** A select of the saved decks (and Random) for the lobby. */
export function deckSelect(): HTMLSelectElement {
  const options: [string, string][] = [["", "random deck"], ...cards.decks.map((d): [string, string] => [d.deckId, d.name])];
  return select("deck", options, cards.deckId, (v) => void (cards.deckId = v));
}

export function cardsScreen(page: Page): HTMLElement {
  const coins = cards.balance ? `${cards.balance.coins} coins` : "";
  const screen = screenFrame(
    "cards",
    "Your cards",
    el("span", { "data-testid": "balance" }, coins),
    button(fairness.price ? `Open a booster (${fairness.price} coins)` : "Open a booster", "booster", page, openBooster),
    button("Back to the lobby", "lobby", page, async () => void (cards.shown = false)),
  );
  if (cards.opened.length) {
    screen.append(el("h2", {}, "New cards"), row(cards.opened, "opened"));
  }
  screen.append(el("h2", {}, `Collection (${cards.copies.length})`));
  const collection = el("div", { class: "hand collection", "data-testid": "collection" });
  for (const copy of cards.copies) collection.append(pickable(copy, page));
  screen.append(collection);
  screen.append(deckForm(page), deckList(page), fairnessPanel(page));
  return screen;
}

function row(copies: OwnedCopy[], testid: string): HTMLElement {
  return el("div", { class: "hand", "data-testid": testid }, ...copies.map((c) => copyCard(c, "div")));
}

function copyCard<K extends "div" | "button">(copy: OwnedCopy, tag: K): HTMLElementTagNameMap[K] {
  const character = copy.character;
  return el(
    tag,
    {
      class: `card${copy.holo ? " holo" : ""}`,
      "data-copy": copy.copyId,
      "data-character": character?.characterId ?? "",
      "data-stars": String(character?.stars ?? 0),
      title: `${character?.name ?? "?"} ${"★".repeat(character?.stars ?? 0)}`,
    },
    cardFace(copy, undefined, false, true),
  );
}

/** A lock's holder in the words of a copy's badge. */
function heldWords(holder: string | undefined): string {
  if (holder === "listingId") return "on sale";
  if (holder === "tradeId") return "in a trade";
  return "in a match";
}

function pickable(copy: OwnedCopy, page: Page): HTMLButtonElement {
  const node = copyCard(copy, "button");
  node.type = "button";
  // Locked (found from outside: a listed copy looked like any other, and only saving the
  // deck said it was on sale): marked, and not picked for a deck until it is free.
  const held = cards.held.get(copy.copyId);
  if (held) {
    node.classList.add("locked");
    node.disabled = true;
    node.title = `${node.title}: ${held}`;
    node.append(el("span", { class: "held", "data-testid": "held" }, held));
    return node;
  }
  const at = cards.picked.indexOf(copy.copyId);
  if (at >= 0) node.classList.add("picked");
  node.addEventListener("click", () => {
    if (at >= 0) cards.picked.splice(at, 1);
    else if (cards.picked.length < MOST) cards.picked.push(copy.copyId);
    page.render();
  });
  return node;
}

function deckForm(page: Page): HTMLElement {
  const name = el("input", { name: "deck-name", placeholder: "deck name", maxlength: "40" });
  name.value = cards.deckName;
  name.addEventListener("input", () => void (cards.deckName = name.value));
  return el(
    "div",
    { class: "row deck-form" },
    el("span", {}, `${cards.picked.length} picked (a deck holds ${DECK_SIZES.join(", ")})`),
    name,
    button("Save the deck", "save-deck", page, async () => {
      const reply = await authed(() =>
        api.saveDeck({ requestId: requestId(), name: cards.deckName.trim(), copyIds: cards.picked }),
      );
      page.note(`deck saved: ${reply.deck?.name ?? ""}`);
      cards.picked = [];
      cards.deckName = "";
      await loadDecks();
    }),
  );
}

function deckList(page: Page): HTMLElement {
  const list = el("ul", { class: "decks", "data-testid": "decks" });
  for (const deck of cards.decks) {
    const names = deck.copies.map((c) => c.character?.name ?? "?").join(", ");
    const item = el("li", { "data-deck": deck.deckId }, el("strong", {}, deck.name), ` ${names} `);
    for (const broken of deck.violations) item.append(el("p", { class: "error" }, broken.message));
    item.append(
      button("Delete", "delete-deck", page, async () => {
        await authed(() => api.deleteDeck({ requestId: requestId(), deckId: deck.deckId }));
        await loadDecks();
      }),
    );
    list.append(item);
  }
  return el("div", {}, el("h2", {}, "Decks"), list);
}

async function openBooster(): Promise<void> {
  const reply = await authed(() => api.openBooster({ requestId: requestId() }));
  // The new cards shown with the collection that holds them, not beside the one before
  // (a push drawing the page between the two calls showed both at once); shown even
  // if the collection cannot be read.
  try {
    const collection = await authed(() => api.listCollection({ pageSize: 200 }));
    cards.copies = collection.entries.flatMap((e) => (e.copy ? [e.copy] : []));
  } finally {
    cards.opened = reply.draw?.copies ?? [];
    if (reply.balance) cards.balance = reply.balance;
  }
  await readCommitment(); // the next booster's number
}
