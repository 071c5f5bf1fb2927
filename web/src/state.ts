// What the page shows, kept across redraws: the match followed, the queue, the trade,
// the lobby's choices, the last error and the pushes noted. main.ts draws it; the
// session stream (session.ts) and the actions change it. And the Page every panel is
// lent by main.ts (to act, redraw and note), here where any module may name it.
import { BotLevel, Mode, TradeStatus, type MatchView, type QueueStatus, type Trade } from "./gen/triad/v1/common_pb.js";

/** What main.ts lends every panel: run an action (its refusal shown), redraw, note a push. */
export interface Page {
  act(action: () => Promise<void>): Promise<void>;
  render(): void;
  note(line: string): void;
}

export interface State {
  error: string;
  /** The last notice the session told in words (a missed turn, an opponent away, a
   * match that ended while away), shown until the next action. */
  notice: string;
  /** What the notice or the error is about, when it is about a state that ends (the
   * match of a missed turn, the trade that holds the player back): they go with it. */
  noticeAbout: string;
  errorAbout: string;
  /** The session was replaced by one opened elsewhere: this page no longer updates. */
  elsewhere: boolean;
  /** The session stream cannot reach the server: this page does not update until it does. */
  unreached: boolean;
  /** The session this page holds (SessionOpened): its PlaceCard is answered with the
   * view, which the session then does not push again. */
  sessionId: string;
  view: MatchView | null;
  matchId: string;
  selected: string | null;
  /** The card selected is to be placed declaring Lair (Realm tables, RULES.md 17). */
  lair: boolean;
  queue: QueueStatus | null;
  ticketId: string;
  /** Tickets this page saw end (switched, cancelled, paired): a queue push for one of
   * them that arrives late (a pairing round's, sent before the end) is not shown. */
  endedTickets: Set<string>;
  trade: Trade | null;
  pushes: string[];
  forfeitAsked: boolean;
  /** The lobby's choices, kept across the redraws that pushes cause. */
  mode: Mode;
  level: BotLevel;
}

/** The push log is kept for the tab as its tokens are (sessionStorage): found in review,
 * a reload emptied it, and with it what the player had just been told. */
const LOG_KEY = "triad.pushes";

function keptLog(): string[] {
  try {
    const kept: unknown = JSON.parse(sessionStorage.getItem(LOG_KEY) ?? "[]");
    return Array.isArray(kept) ? kept.filter((line) => typeof line === "string").slice(0, 12) : [];
  } catch {
    return [];
  }
}

export const state: State = {
  error: "",
  notice: "",
  noticeAbout: "",
  errorAbout: "",
  elsewhere: false,
  unreached: false,
  sessionId: "",
  view: null,
  matchId: "",
  selected: null,
  lair: false,
  queue: null,
  ticketId: "",
  endedTickets: new Set(),
  trade: null,
  pushes: keptLog(),
  forfeitAsked: false,
  mode: Mode.UNRANKED,
  level: BotLevel.NOVICE,
};

/** A line in the push log (the newest first, twelve kept). */
export function note(line: string): void {
  const time = new Date().toLocaleTimeString();
  state.pushes = [`${time} ${line}`, ...state.pushes].slice(0, 12);
  sessionStorage.setItem(LOG_KEY, JSON.stringify(state.pushes));
}

/** The push log off the page, at logout: the next person at this tab reads nothing of it. */
export function forgetLog(): void {
  state.pushes = [];
  sessionStorage.removeItem(LOG_KEY);
}

/** The match followed put away, no longer shown: a battle the player is now in takes
 * its place (a finished match's end screen gives way to it). */
export function putAwayMatch(): void {
  Object.assign(state, { view: null, matchId: "", selected: null, lair: false });
}

/** A refusal while a trade holds the player back ("cannot start another match yet:
 * the trade ...") goes with that trade, whichever came first: the refusal, or the push
 * of the loser's trade prompt (published apart from the winner's). */
export function tieToTrade(): void {
  const trade = state.trade;
  if (!trade || trade.status !== TradeStatus.AWAITING_CHOICE || state.errorAbout) return;
  if (/trade/i.test(state.error)) state.errorAbout = trade.tradeId;
}

/** ``id`` (a match, a trade) is over: a notice or an error about it goes. */
export function ended(id: string): void {
  if (!id) return;
  if (state.noticeAbout === id) Object.assign(state, { notice: "", noticeAbout: "" });
  if (state.errorAbout === id) Object.assign(state, { error: "", errorAbout: "" });
}
