// The ladders (RULES.md 10): the top of the Ranked or the Draft ladder with ranks, and
// the player's own place; each rating change the session pushes is noted with its
// delta. main.ts shows this screen instead of the lobby.
import { api, authed } from "./api.js";
import { el } from "./board.js";
import { actionButton as button, screenFrame, select } from "./controls.js";
import type { Page } from "./state.js";
import { Ladder, MatchStatus, type LeaderboardEntry, type MatchView, type RatingChange } from "./gen/triad/v1/common_pb.js";

const TOP = 20;

export const ladders = {
  shown: false,
  ladder: Ladder.RANKED,
  entries: [] as LeaderboardEntry[],
  mine: null as LeaderboardEntry | null,
  players: 0,
};

/** Whether the ladder is being read, and whether a rating push came meanwhile (the
 * reply may then be older than the rating). */
const reading = { now: false, again: false };

export async function showLadders(): Promise<void> {
  reading.now = true;
  let reply;
  try {
    do {
      reading.again = false;
      reply = await authed(() => api.getLeaderboard({ ladder: { ladder: ladders.ladder }, topN: TOP }));
    } while (reading.again);
  } finally {
    reading.now = false;
  }
  ladders.entries = reply.entries;
  ladders.mine = reply.myEntry ?? null;
  ladders.players = reply.rankedPlayerCount;
  ladders.shown = true;
}

export function forgetLadders(): void {
  Object.assign(ladders, { shown: false, entries: [], mine: null, players: 0 });
}

/** Each rated match's change, as pushed (the last 20): said under the match's end. */
const rated = new Map<string, RatingChange>();

/** "Ranked rating +20: 1500 → 1520". */
function ratingWords(change: RatingChange): string {
  const ladder = Ladder[change.ladder?.ladder ?? Ladder.UNSPECIFIED].toLowerCase();
  const sign = change.delta >= 0 ? "+" : "";
  return `${ladder[0].toUpperCase()}${ladder.slice(1)} rating ${sign}${change.delta}: ${change.ratingBefore} → ${change.ratingAfter}`;
}

/** Under a finished rated match, its rating change once pushed (found from outside: it
 * was only in the session's list, the end screen said nothing of the ladder). */
export function ratingLine(view: MatchView): HTMLElement | null {
  const change = view.status === MatchStatus.FINISHED ? rated.get(view.matchId) : undefined;
  return change ? el("p", { class: "rating-change", "data-testid": "rating-change" }, ratingWords(change)) : null;
}

/** The session's ``rating_change`` push, in words; the ladder on screen, if it is the
 * one that changed, read again (the rating of a match just ended often lands after the
 * player has opened the ladders to see it). */
export function ratingPush(change: RatingChange, page: Page): void {
  const changed = change.ladder?.ladder ?? Ladder.UNSPECIFIED;
  page.note(ratingWords(change).toLowerCase());
  if (change.matchId) {
    rated.set(change.matchId, change);
    if (rated.size > 20) rated.delete(rated.keys().next().value ?? "");
  }
  if (changed !== ladders.ladder) return;
  if (reading.now) reading.again = true;
  else if (ladders.shown) void page.act(showLadders);
}

export function laddersScreen(page: Page): HTMLElement {
  const which = select(
    "ladder",
    [
      [String(Ladder.RANKED), "ranked"],
      [String(Ladder.DRAFT), "draft"],
    ],
    String(ladders.ladder),
    (v) => {
      ladders.ladder = Number(v) as Ladder;
      void page.act(showLadders);
    },
  );
  const table = el("table", { class: "ladder", "data-testid": "ladder" });
  table.append(el("tr", {}, ...["#", "player", "rating", "games"].map((h) => el("th", {}, h))));
  for (const entry of ladders.entries) {
    table.append(
      el(
        "tr",
        {},
        el("td", {}, String(entry.rank)),
        el("td", {}, entry.playerName),
        el("td", {}, `${entry.rating}${entry.provisional ? "?" : ""}`),
        el("td", {}, String(entry.games)),
      ),
    );
  }
  const mine = ladders.mine;
  const me =
    mine && mine.rank > 0
      ? `You: #${mine.rank} of ${ladders.players}, ${mine.rating}${mine.provisional ? " (provisional)" : ""} after ${mine.games} game${mine.games === 1 ? "" : "s"}.`
      : `You have no rated game on this ladder yet (${ladders.players} players have).`;
  const screen = screenFrame(
    "ladders",
    "Ladders",
    which,
    button("Back to the lobby", "lobby", page, async () => void (ladders.shown = false)),
  );
  screen.append(el("p", { "data-testid": "my-rank" }, me), table);
  // The mark explained where it is used (RULES.md 10: K = 40 for the first 20 games).
  if (ladders.entries.some((entry) => entry.provisional)) {
    screen.append(el("p", { class: "key", "data-testid": "ladder-key" }, "? provisional: fewer than 20 rated games on this ladder"));
  }
  return screen;
}
