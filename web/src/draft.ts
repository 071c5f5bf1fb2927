// Draft (RULES.md 8): after pairing in the Draft queue each player opens three
// temporary boosters and picks five of their fifteen cards, a legal deck, before the
// deadline (a pick that would leave none is refused, in the server's words); the match
// then starts and is followed like any other. The session pushes each new view of the
// draft. main.ts shows this screen instead of the lobby while a draft is picking, with
// both clocks (the picks' 3 minutes, and the 120 s without a card opened or picked that
// forfeit); a draft forfeited ends on a screen saying who forfeited and, once pushed,
// what it did to the player's Draft rating.
import { ConnectError } from "@connectrpc/connect";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { api, authed, requestId, signedIn } from "./api.js";
import { cardFace, el } from "./board.js";
import { actionButton as button } from "./controls.js";
import type { Page } from "./state.js";
import { DraftStatus, type DraftView, type RatingChange } from "./gen/triad/v1/common_pb.js";

/** What main.ts lends besides the page: follow the match the draft starts. */
export interface DraftPage extends Page {
  follow(matchId: string): Promise<void>;
}

export const draft = { view: null as DraftView | null, rating: null as RatingChange | null };

/** The draft shown while its picks are made (none once its match started or it ended). */
export function shownDraft(): DraftView | null {
  return draft.view && draft.view.status === DraftStatus.PICKING ? draft.view : null;
}

/** A draft forfeited, its end screen shown until the player goes back to the lobby. */
export function endedDraft(): DraftView | null {
  return draft.view && draft.view.status === DraftStatus.FORFEITED ? draft.view : null;
}

export function forgetDraft(): void {
  draft.view = null;
  draft.rating = null;
}

/** The session's ``rating_change`` of a draft forfeited before its match: kept for its
 * end screen. */
export function draftRating(change: RatingChange): void {
  if (change.draftId) draft.rating = change;
}

/** A newer view of a draft (a reply or a push): the match it started is followed. */
export async function showDraft(view: DraftView | undefined, page: DraftPage): Promise<void> {
  if (!view) return;
  const before = draft.view;
  if (before && before.draftId === view.draftId && before.version >= view.version) return;
  draft.view = view;
  if (view.status === DraftStatus.FORFEITED) {
    page.note(`draft forfeited by ${view.forfeitingPlayerNames.join(" and ")}`);
  } else if (view.matchId && before?.matchId !== view.matchId) {
    await page.follow(view.matchId);
  }
}

/** The session's ``match_found`` of a draft: its view read and shown. */
export async function openDraft(draftId: string, page: DraftPage): Promise<void> {
  const reply = await authed(() => api.getDraft({ draftId }));
  await showDraft(reply.draft, page);
}

/** What the pick clock does at its end: the rest of the player's picks, or once her
 * five are in, the opponent's (RULES.md 8). */
function clockWords(view: DraftView): string {
  if (view.pickedCardIds.length < view.picksRequired) return " The rest are picked for you in";
  return ` Waiting for ${view.opponentName}, whose picks are made for them in`;
}

export function draftScreen(view: DraftView, page: DraftPage): HTMLElement {
  const draftId = view.draftId;
  const call = (action: () => Promise<{ draft?: DraftView }>) => async () => {
    const reply = await authed(action);
    await showDraft(reply.draft, page);
  };
  if (view.status === DraftStatus.FORFEITED) return endScreen(view, page);
  const deadline = view.pickDeadlineTime ? Number(view.pickDeadlineTime.seconds) * 1000 : 0;
  // Unset once the player's five are picked: nothing left to do, no forfeit to fear.
  const idle = view.inactivityDeadlineTime ? timestampMs(view.inactivityDeadlineTime) : 0;
  const screen = el(
    "section",
    { class: "draft", "data-testid": "draft" },
    el("h1", {}, `Draft against ${view.opponentName}`),
    el(
      "p",
      { class: "status", "data-testid": "picks", ...(deadline ? { "data-deadline": String(deadline) } : {}) },
      `${view.pickedCardIds.length} of ${view.picksRequired} picked; ${view.opponentName} has ${view.opponentPickCount}.`,
      deadline ? clockWords(view) : "",
    ),
  );
  if (idle) {
    screen.append(
      el(
        "p",
        { class: "status idle", "data-testid": "idle", "data-deadline": String(idle) },
        "Open or pick a card, or you forfeit the draft in",
      ),
    );
  }
  for (const booster of view.boosters) {
    const index = booster.boosterIndex;
    const row = el("div", { class: "hand", "data-booster": String(index) });
    let hidden = false;
    for (const slot of booster.slots) {
      if (slot.card.case !== "revealed") {
        hidden = true;
        row.append(el("div", { class: "card hidden", "data-slot": String(slot.cardIndex) }));
        continue;
      }
      const card = slot.card.value;
      const character = card.character;
      const node = el(
        "button",
        {
          type: "button",
          name: "pick",
          class: `card${slot.picked ? " picked" : ""}`,
          "data-card": card.cardId,
          "data-character": character?.characterId ?? "",
          "data-stars": String(character?.stars ?? 0),
        },
        cardFace(card, undefined, false, true),
      );
      node.disabled = slot.picked || view.pickedCardIds.length >= view.picksRequired;
      // A refusal names the card by its id ("picking b-b0-4 would leave ..."): by its name here.
      const pick = () =>
        api.pickDraftCard({ requestId: requestId(), draftId, draftCardId: card.cardId }).catch((error: unknown) => {
          const failure = ConnectError.from(error);
          throw new ConnectError(failure.rawMessage.replaceAll(card.cardId, character?.name ?? "this card"), failure.code);
        });
      node.addEventListener("click", () => void page.act(call(pick)));
      row.append(node);
    }
    const open = button(`Open booster ${index + 1}`, "open-booster", page, call(() =>
      api.revealDraftCards({ requestId: requestId(), draftId, boosterIndex: index }),
    ));
    open.disabled = !hidden;
    screen.append(el("div", { class: "row" }, open), row);
  }
  return screen;
}

/** "Bea forfeited the draft: ...; Ann wins it." ("you win it" to Ann) and the rating. */
function endScreen(view: DraftView, page: DraftPage): HTMLElement {
  const who = view.forfeitingPlayerNames.join(" and ") || "a player";
  const winner = view.winnerPlayerName;
  const won = winner ? (winner === signedIn() ? "; you win it" : `; ${winner} wins it`) : "";
  const rating = draft.rating?.draftId === view.draftId ? draft.rating : null;
  const sign = rating && rating.delta >= 0 ? "+" : "";
  return el(
    "section",
    { class: "draft", "data-testid": "draft-end" },
    el("h1", {}, `Draft against ${view.opponentName}`),
    el("p", { class: "status result" }, `${who} forfeited the draft: no card opened or picked in time${won}.`),
    rating ? el("p", {}, `Your Draft rating: ${sign}${rating.delta} (${rating.ratingBefore} → ${rating.ratingAfter})`) : "",
    button("Back to the lobby", "lobby", page, async () => forgetDraft()),
  );
}
