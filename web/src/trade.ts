// The trade at a match's end (RULES.md 7 and 13): the winner of a Trade One match taps
// the one card they take; of a Difference match, taps d of the loser's cards and takes
// them at once, both seeing the 2 minutes left before the server picks at random; the
// loser is told who is choosing; both are told what moved (Direct and All move cards by
// themselves: only the result is shown).
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { api, authed, requestId } from "./api.js";
import { cardFace, el } from "./board.js";
import { actionButton as button } from "./controls.js";
import { state, type Page } from "./state.js";
import { TradeRole, TradeRule, TradeStatus, type Trade } from "./gen/triad/v1/common_pb.js";

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
    panel.append(el("p", {}, `${trade.winnerName} is choosing ${what} to take.`), clockLine(trade, "Or they are picked at random in"));
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
    const node = el("button", { class: `card theirs${picked ? " picked" : ""}`, "data-copy": copy.copyId }, cardFace(copy));
    node.addEventListener("click", () => {
      if (count === 1) return void choose([copy.copyId]);
      tapped.copies = picked ? tapped.copies.filter((c) => c !== copy.copyId) : [...tapped.copies, copy.copyId];
      page.render();
    });
    row.append(node);
  }
  panel.append(row);
  if (count > 1) {
    const take = el("button", { type: "button", name: "take" }, `Take these ${tapped.copies.length} of ${count}`);
    take.disabled = tapped.copies.length !== count;
    take.addEventListener("click", () => void choose(tapped.copies));
    panel.append(take);
  }
  return panel;
}

/** The choice's deadline counting down (main.ts ticks every ``data-deadline``). */
function clockLine(trade: Trade, words: string): HTMLElement | string {
  if (!trade.choiceDeadlineTime) return "";
  const deadline = String(timestampMs(trade.choiceDeadlineTime));
  return el("p", { class: "status", "data-testid": "trade-clock", "data-deadline": deadline }, words);
}

/** "Ann took Snibbet and Driftseed from Bea." (or the cards Direct moved). */
function resultLine(trade: Trade): string {
  const moved = trade.chosenCopyIds.length ? trade.chosenCopyIds : [trade.chosenCopyId].filter(Boolean);
  const names = moved.map((id) => trade.offeredCopies.find((c) => c.copyId === id)?.character?.name ?? "a card");
  const cards = names.length ? names.join(", ") : "nothing";
  const random = trade.autoPicked ? " (picked at random at the deadline)" : "";
  if (trade.tradeRule === TradeRule.DIRECT) return `Direct: the cards held on the board changed hands (${cards}).`;
  if (trade.tradeRule === TradeRule.ALL) return `${trade.winnerName} took ${trade.loserName}'s whole deck.`;
  return `${trade.winnerName} took ${cards} from ${trade.loserName}${random}.`;
}
