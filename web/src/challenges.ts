// Challenges to the player (RULES.md 14): told at once by the session's ``challenge``
// push, and shown, with when it expires unanswered, Accept and Decline, above whatever
// screen the player is on (the lobby, their cards, the Auction House, the ladders, a
// match). Seated at a match, a draft's picks or a Skirmish battle, the challenge stays in
// view and may be declined, but Accept is refused in the page's words until that is
// over. A challenge to a Skirmish battle (a battle table, BATTLE.md 6) says so, and
// Accept joins it with no deck and shows the battle. The session's opening pushes every
// open challenge again, Triad and battle alike, so the page forgets those it held then.
// main.ts draws it.
import { api, authed, requestId } from "./api.js";
import { el } from "./dom.js";
import { actionButton as button } from "./controls.js";
import { expiry, guestDeck, tableLine, type TablesPage } from "./tables.js";
import { TableStatus, type Table } from "./gen/triad/v1/common_pb.js";
import type { Page } from "./state.js";

/** What main.ts lends besides the page: what the player is seated at ("a match", "a
 * draft", ...), or "" when free to accept; show a battle once joined. */
export interface ChallengesPage extends TablesPage {
  seatedAt(): string;
  followBattle(battleId: string): Promise<void>;
}

/** Open challenges addressed to this player, by table id. */
const open = new Map<string, Table>();

/** The session's ``challenge`` push: a challenge to this player, open or ended. */
export function challengePush(table: Table, page: Page): void {
  if (table.status !== TableStatus.OPEN) {
    // One that ends unanswered is said so in the log (one accepted here is the match).
    const ending = { [TableStatus.EXPIRED]: "expired", [TableStatus.CLOSED]: "withdrawn" }[table.status as number];
    if (open.has(table.tableId) && ending) page.note(`challenge from ${table.hostName} ${ending}`);
    open.delete(table.tableId);
    return;
  }
  if (!open.has(table.tableId)) page.note(`challenge from ${table.hostName}`);
  open.set(table.tableId, table);
}

/** Logged out, or the session opened again (its pushes follow): none kept. */
export function forgetChallenges(): void {
  open.clear();
}

/** The open challenges, one notice each; null when there are none. */
export function challengeNotices(page: ChallengesPage): HTMLElement | null {
  if (open.size === 0) return null;
  const notices = [...open.values()].map((table) => notice(table, page));
  return el("section", { class: "notices", "data-testid": "notices", "aria-live": "polite" }, ...notices);
}

function notice(table: Table, page: ChallengesPage): HTMLElement {
  const battle = table.settings?.battle ?? false;
  const said = battle
    ? `${table.hostName} challenges you to a Skirmish battle.${expiry(table)}`
    : `${table.hostName} challenges you: ${tableLine(table)}.${expiry(table)}`;
  return el(
    "div",
    { class: "challenge", "data-testid": "challenge", "data-table": table.tableId, "data-kind": battle ? "battle" : "triad" },
    el("p", {}, said),
    button("Accept", "accept", page, async () => {
      const seated = page.seatedAt();
      if (seated) throw new Error(`You are playing ${seated}: accept this challenge once it is over.`);
      // A battle brings characters, not a deck (the table's match id is the battle's).
      const reply = await authed(() =>
        api.joinTable({ requestId: requestId(), tableId: table.tableId, deck: guestDeck(table) }),
      );
      open.delete(table.tableId);
      await (battle ? page.followBattle(reply.matchId) : page.follow(reply.matchId));
    }),
    button("Decline", "decline", page, async () => {
      await authed(() => api.declineChallenge({ requestId: requestId(), tableId: table.tableId }));
      open.delete(table.tableId);
    }),
  );
}
