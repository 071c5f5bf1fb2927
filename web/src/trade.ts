// The trade at a match's end (RULES.md 7 and 13): the winner of a Trade One match taps
// the one card they take; of a Difference match, taps d of the loser's cards and takes
// them at once, both seeing the 2 minutes left before the server picks at random; the
// loser is told who is choosing; both are told what moved (Direct and All move cards by
// themselves: only the result is shown; the end of a Direct match says what the board
// moves, a draw's too, or that nothing does).
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { api, authed, requestId, signedIn } from "./api.js";
import { auction } from "./auction.js";
import { cardFace, el } from "./board.js";
import { actionButton as button } from "./controls.js";
import { state, type Page } from "./state.js";
import {
  MatchStatus,
  TradeRole,
  TradeRule,
  TradeStatus,
  type MatchView,
  type Trade,
} from "./gen/triad/v1/common_pb.js";

/** The copies tapped for a Difference choice, by trade. */
const tapped = { tradeId: "", copies: [] as string[] };

export function tradePanel(trade: Trade, page: Page): HTMLElement {
  const panel = el("section", { class: "trade", "data-testid": "trade" });
  if (trade.status !== TradeStatus.AWAITING_CHOICE) {
    panel.append(el("p", {}, resultLine(trade)));
    panel.append(button("OK", "trade-ok", page, async () => void (state.trade = null)));
    return panel;
  }
  const count = Math.max(1, trade.takeCount);
  if (trade.myRole !== TradeRole.CHOOSER) {
    const what = count === 1 ? "one of your cards" : `${count} of your cards`;
    const random = count === 1 ? "Or the server picks one at random in" : "Or the server picks them at random in";
    panel.append(el("p", {}, `${trade.winnerName} is choosing ${what} to take.`), clockLine(trade, random));
    // The cards at stake, as the terminal lists them (found from outside: the page
    // named only who was choosing).
    panel.append(stakes(trade));
    return panel;
  }
  if (tapped.tradeId !== trade.tradeId) Object.assign(tapped, { tradeId: trade.tradeId, copies: [] });
  const what = count === 1 ? "one" : String(count);
  panel.append(el("h2", {}, `You won: take ${what} of ${trade.loserName}'s cards`));
  panel.append(clockLine(trade, "Or the server picks at random in"));
  const choose = (copyIds: string[]) =>
    page.act(async () => {
      const reply = await authed(() =>
        api.chooseTradeCard({ requestId: requestId(), tradeId: trade.tradeId, copyIds }),
      );
      state.trade = reply.trade ?? null;
    });
  const row = el("div", { class: "hand" });
  for (const copy of trade.offeredCopies) {
    const picked = tapped.copies.includes(copy.copyId);
    // Each shown as a collection shows it, stars and holo too: what the choice weighs.
    const look = `card theirs${copy.holo ? " holo" : ""}${picked ? " picked" : ""}`;
    const stars = String(copy.character?.stars ?? 0);
    const node = el("button", { class: look, "data-copy": copy.copyId, "data-stars": stars }, cardFace(copy, undefined, false, true));
    node.addEventListener("click", () => {
      if (count === 1) return void choose([copy.copyId]);
      tapped.copies = picked ? tapped.copies.filter((c) => c !== copy.copyId) : [...tapped.copies, copy.copyId];
      page.render();
    });
    row.append(node);
  }
  panel.append(row);
  if (count > 1) {
    // What is left to do, in the button's words (found from outside: a third card tapped
    // read "Take these 3 of 2", disabled, and nothing said to put one back).
    const n = tapped.copies.length;
    const words =
      n < count ? `Pick ${count - n} more` : n > count ? `${n - count} too many: tap one to put it back` : `Take these ${count}`;
    const take = el("button", { type: "button", name: "take" }, words);
    take.disabled = n !== count;
    take.addEventListener("click", () => void choose(tapped.copies));
    panel.append(take);
  }
  return panel;
}

/** The loser's cards the winner chooses among, shown as their collection shows them. */
function stakes(trade: Trade): HTMLElement {
  const row = el("div", { class: "hand", "data-testid": "stakes" });
  for (const copy of trade.offeredCopies) {
    const look = `card mine${copy.holo ? " holo" : ""}`;
    const node = el("button", { class: look, "data-copy": copy.copyId }, cardFace(copy, undefined, false, true));
    node.disabled = true;
    row.append(node);
  }
  return row;
}

/** The choice's deadline counting down (main.ts ticks every ``data-deadline``). */
function clockLine(trade: Trade, words: string): HTMLElement | string {
  if (!trade.choiceDeadlineTime) return "";
  const deadline = String(timestampMs(trade.choiceDeadlineTime));
  return el("p", { class: "status", "data-testid": "trade-clock", "data-deadline": deadline }, words);
}

/** "You took Snibbet and Driftseed from Bea.", "Ann took Snibbet from you." (or the
 * cards Direct or All moved). */
function resultLine(trade: Trade): string {
  const me = signedIn();
  const winner = trade.winnerName === me ? "You" : trade.winnerName;
  const loser = trade.loserName === me ? "you" : trade.loserName;
  const moved = trade.chosenCopyIds.length ? trade.chosenCopyIds : [trade.chosenCopyId].filter(Boolean);
  const names = moved.map((id) => trade.offeredCopies.find((c) => c.copyId === id)?.character?.name ?? "a card");
  const cards = names.length ? names.join(", ") : "nothing";
  const random = trade.autoPicked ? " (picked at random at the deadline)" : "";
  if (trade.tradeRule === TradeRule.DIRECT) return directMoves(trade, moved) ?? `Direct: ${cards} changed hands.`;
  if (trade.tradeRule === TradeRule.ALL) {
    // The whole deck is what was offered: each card named (one may never have been shown).
    const deck = trade.offeredCopies.map((copy) => copy.character?.name ?? "a card");
    const whose = loser === "you" ? "your" : `${loser}'s`;
    return `${winner} took ${whose} whole deck${deck.length ? `: ${deck.join(", ")}` : ""}.`;
  }
  return `${winner} took ${cards} from ${loser}${random}.`;
}

/** Direct's moves each way, told by each copy's owner before the trade (offered_copies):
 * "Direct: you receive Snibbet; Bea receives Puddle Hopper, Fennimop." Found from
 * outside: after Sudden Death rounds the hands are mixed, and "the cards held on the
 * board changed hands (…)" told neither player which way each went. Null while the
 * session has not said who this player is. */
function directMoves(trade: Trade, moved: string[]): string | null {
  const me = auction.me;
  if (!me) return null;
  const them = (trade.myRole === TradeRole.CHOOSER ? trade.loserName : trade.winnerName) || "your opponent";
  const copies = moved.flatMap((id) => trade.offeredCopies.filter((c) => c.copyId === id));
  const named = (mine: boolean) =>
    copies.filter((c) => (c.ownerPlayerId === me) === mine).map((c) => c.character?.name ?? "a card");
  const [received, given] = [named(false), named(true)];
  if (!received.length && !given.length) return "Direct: no card changed hands.";
  return `Direct: you receive ${received.join(", ") || "nothing of theirs"}; ${them} receives ${given.join(", ") || "nothing of yours"}.`;
}

/** Under a finished Direct match (RULES.md 13: whatever the result, a draw too): each
 * player receives the opponent's cards they own on the board at the end, "Direct, a
 * draw too: you receive Ifrit; Bea receives nothing of yours.", or that nothing changes
 * hands. A card's placer is its owner before the match in a single round; after Sudden
 * Death rounds the hands were mixed, so the trade's own result says what moved. */
export function directLine(view: MatchView): HTMLElement | null {
  if (view.status !== MatchStatus.FINISHED || view.rules?.tradeRule !== TradeRule.DIRECT) return null;
  const draw = view.outcome?.result.case === "draw";
  const head = `Direct${draw ? ", a draw too" : ""}: `;
  const them = view.players.find((p) => p.seat !== view.mySeat)?.playerName ?? "your opponent";
  let words: string;
  if ((view.roundNumber || 1) > 1) {
    words = "each player receives the other's cards they own on the last round's board.";
  } else {
    const names = (taker: boolean) =>
      view.board.flatMap((cell) => {
        if (cell.content.case !== "card") return [];
        const placed = cell.content.value;
        const mine = placed.ownerSeat === view.mySeat;
        const fromMe = placed.placedBySeat === view.mySeat;
        return mine === taker && fromMe !== taker ? [placed.card?.character?.name ?? "a card"] : [];
      });
    const received = names(true);
    const given = names(false);
    words =
      received.length || given.length
        ? `you receive ${received.join(", ") || "nothing of theirs"}; ${them} receives ${given.join(", ") || "nothing of yours"}.`
        : "neither holds a card of the other's on the board, so nothing changes hands.";
  }
  return el("p", { class: "direct", "data-testid": "direct" }, head + words);
}
