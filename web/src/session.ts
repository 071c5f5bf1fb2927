// The session stream: opened on logging in (or on a reload while signed in) and kept
// open, reopened after a pause that grows to 8 s, or after the tokens are refreshed;
// each push changes the page's state (state.ts) and is noted in the push log.
import { ConnectError, Code } from "@connectrpc/connect";
import { api, refreshTokens, signedIn, unreached } from "./api.js";
import { battlePush, resumeBattle } from "./skirmish.js";
import { tablePush } from "./tables.js";
import { challengePush, forgetChallenges } from "./challenges.js";
import { queuedTicket } from "./queue.js";
import { balancePush, cards, loadDecks, showCards } from "./cards.js";
import { auction, listingPush } from "./auction.js";
import { ratingPush } from "./ladders.js";
import { draftRating, openDraft, showDraft } from "./draft.js";
import { ended, note, state, tieToTrade, type Page } from "./state.js";
import { MatchStatus, TicketStatus, type MatchView } from "./gen/triad/v1/common_pb.js";
import { SessionCloseReason, type OpenSessionResponse } from "./gen/triad/v1/gateway_pb.js";

/** What main.ts lends beside the page: show a match's view, follow a match found. */
export interface SessionPage extends Page {
  show(view: MatchView): void;
  follow(matchId: string): Promise<void>;
}

let session: AbortController | null = null;

/** Logging out: the stream is closed for good. */
export function closeSession(): void {
  session?.abort();
  session = null;
}

export function openSession(page: SessionPage): void {
  session?.abort();
  state.elsewhere = false;
  const controller = new AbortController();
  session = controller;
  void (async () => {
    let pause = 500;
    while (!controller.signal.aborted && signedIn()) {
      try {
        for await (const push of api.openSession({}, { signal: controller.signal, timeoutMs: 0 })) {
          pause = 500;
          if (state.unreached) Object.assign(state, { unreached: false }); // drawn with the push
          if (!receive(push, page)) return;
          if (push.push.case !== "heartbeat") page.render();
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        const failure = ConnectError.from(error);
        // Said until the stream is open again: what the page shows may be out of date.
        if (unreached(error) && !state.unreached) {
          state.unreached = true;
          page.render();
        }
        // A refresh that failed on the way keeps the tokens: the loop tries again after
        // its pause. Only a refresh token the gateway refused ends the session here.
        if (failure.code === Code.Unauthenticated && !(await refreshTokens()) && !signedIn()) {
          state.error = "your login expired: log in again";
          page.render();
          return;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 8000);
    }
  })();
}

/** What a page that opens its session in a match in progress says (RULES.md 5). */
export const RESUMED = "You have an active battle: your match resumes.";

/** The notices of a match, a battle, that ended while no session of the player was open. */
const ENDED_AWAY = ["MATCH_ENDED_AWAY", "BATTLE_ENDED_AWAY"];

/** One push: the state changed and noted; false when the session is over for good. */
function receive(push: OpenSessionResponse, page: SessionPage): boolean {
  const message = push.push;
  switch (message.case) {
    case "sessionOpened": {
      const status = message.value.status;
      state.sessionId = message.value.sessionId;
      note("session opened");
      // The opening says what is current: a ticket or challenge that ended while the
      // session was away is shown no more (the open challenges follow as pushes).
      if (status?.ticket && status.ticket.status === TicketStatus.QUEUED) queuedTicket(status.ticket);
      else state.queue = null;
      forgetChallenges();
      if (status?.pendingTrade) state.trade = status.pendingTrade;
      tablePush(status?.hostedTable, page);
      auction.me = status?.player?.playerId ?? "";
      const missed = message.value.missedMatch;
      const active = message.value.activeMatch;
      // RULES.md 5: a player back in a match in progress is told so, in its words; a
      // session reopened on the match this page shows (a token refreshed) is no news.
      const resumed = active !== undefined && state.matchId !== active.matchId;
      if (active) page.show(active);
      else if (missed && !state.matchId) {
        // A match that ended while no session was open (lost by a disconnection, say):
        // its end screen, with the notice that follows.
        state.matchId = missed.matchId;
        page.show(missed);
      }
      // Likewise a battle that ended while no session was open (the CPU played the
      // player's side after they left): its end screen, unless a match takes the screen.
      const missedBattle = message.value.missedBattle;
      if (missedBattle && !state.matchId) battlePush(missedBattle, page);
      void page.act(resumeBattle);
      void page.act(loadDecks);
      // After the acts, which clear the last notice; it goes with the match.
      if (resumed) Object.assign(state, { notice: RESUMED, noticeAbout: active.matchId });
      const opened = message.value.draft;
      if (opened) void page.act(() => showDraft(opened, page));
      return true;
    }
    case "heartbeat":
      return true;
    case "queueStatus": {
      const ticket = message.value.ticket;
      if (!ticket || ticket.status !== TicketStatus.QUEUED || state.endedTickets.has(ticket.ticketId)) {
        // Ended, or a late push about a ticket that has: the queue panel goes.
        if (ticket) state.endedTickets.add(ticket.ticketId);
        if (!ticket || ticket.ticketId === state.ticketId) Object.assign(state, { queue: null, ticketId: "" });
        return true;
      }
      state.queue = message.value;
      state.ticketId = ticket.ticketId;
      note(`queue: ${message.value.queueLength} waiting, ${Number(message.value.waitDuration?.seconds ?? 0n)} s`);
      return true;
    }
    case "matchFound": {
      const found = message.value;
      note(`match found: against ${found.opponentName}${found.opponentIsBot ? " (bot)" : ""}`);
      if (found.target.case === "matchId") void page.act(() => page.follow(found.target.value as string));
      if (found.target.case === "draftId") void page.act(() => openDraft(found.target.value as string, page));
      return true;
    }
    case "matchView":
      page.show(message.value);
      return true;
    case "battle":
      battlePush(message.value, page);
      return true;
    case "table":
      tablePush(message.value, page);
      return true;
    case "challenge":
      challengePush(message.value, page);
      return true;
    case "draft": {
      const view = message.value;
      void page.act(() => showDraft(view, page));
      return true;
    }
    case "ratingChange":
      ratingPush(message.value, page);
      draftRating(message.value);
      return true;
    case "listing":
      listingPush(message.value, page);
      return true;
    case "balance":
      note(`balance: ${message.value.coins} coins`);
      balancePush(message.value);
      return true;
    case "tradePrompt":
      note(`trade prompt: ${message.value.winnerName} picks from ${message.value.loserName}`);
      state.trade = message.value;
      tieToTrade();
      return true;
    case "tradeResult":
      note("trade done");
      state.trade = message.value;
      ended(message.value.tradeId); // "cannot start another match yet: the trade..."
      // Cards changed hands: a cards screen open lists the collection as it now is.
      if (cards.shown) void page.act(showCards);
      return true;
    case "notice": {
      const told = message.value;
      const words = localTimes(told.message);
      note(words);
      state.notice = words;
      // A missed turn, an opponent away or back: about the match, gone when it ends. A
      // match or battle that ended while away is about its end, and stays.
      state.noticeAbout = ENDED_AWAY.includes(told.code) ? "" : told.subjectId;
      if (state.view?.matchId === told.subjectId && state.view.status === MatchStatus.FINISHED) ended(told.subjectId);
      return true;
    }
    case "sessionClosed": {
      const closed = message.value;
      // Reopened at once: after a refresh, or on another gateway (a rolling restart);
      // what the page handles itself is not the player's news.
      if (closed.reason === SessionCloseReason.TOKEN_EXPIRED) return true;
      if (closed.reason === SessionCloseReason.SERVER_SHUTDOWN) return true;
      note(`session closed: ${closed.message}`);
      // Opened in another tab or device: this page stops updating, and says so until
      // the player takes the game back here (main.ts draws it).
      if (closed.reason === SessionCloseReason.REPLACED) state.elsewhere = true;
      else state.error = closed.message;
      page.render();
      return false;
    }
    default: {
      // A push of a newer server this page does not know: noted by its name.
      const kind = (message as { case?: string }).case;
      if (kind) note(kind.replace(/[A-Z]/g, (c: string) => ` ${c.toLowerCase()}`));
      return true;
    }
  }
}

/** A notice's clock time in the player's own, as the page gives every other time: the
 * gateway says "back by 07:45:11 UTC" to every client, and under it the match said "back
 * by 8:45:11 AM" in Paris. A time more than 12 hours past is tomorrow's (near midnight). */
function localTimes(message: string): string {
  return message.replace(/\b(\d\d):(\d\d):(\d\d) UTC\b/g, (_, h: string, m: string, s: string) => {
    const now = new Date();
    const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), +h, +m, +s));
    if (at.getTime() < now.getTime() - 12 * 3600_000) at.setUTCDate(at.getUTCDate() + 1);
    return at.toLocaleTimeString();
  });
}
