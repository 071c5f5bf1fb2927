// The queues (RULES.md 6): a ticket taken from the lobby, and the panel that shows it
// waiting, with how long, how many wait, leaving and practising meanwhile. The server
// pushes the ticket's status only when something in it changes (the rating window, the
// queue's length), so the time waited counts on by itself each second in between, on
// a clock that runs while the panel is on the page and only then. A session opening
// with the player queued (a reload, a reconnection) shows the panel at once, from the
// ticket its status names. Drawn in the lobby by main.ts, which asks keepQueueClock()
// after every drawing.
import { create } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { api, authed, requestId } from "./api.js";
import { el } from "./dom.js";
import { actionButton as button } from "./controls.js";
import { deckChoice } from "./cards.js";
import { note, state } from "./state.js";
import { BotLevel, Mode, QueueStatusSchema, type QueueStatus, type Ticket } from "./gen/triad/v1/common_pb.js";
import type { TablesPage } from "./tables.js";

/** The ticket's enqueue time on this browser's clock: when the status shown came, less
 * the wait the server counted (the two clocks may disagree; a wait does not). */
const clock = { status: null as QueueStatus | null, since: 0, timer: 0 };

/** The queues that take no deck (the matchmaker's DECKLESS). */
const DECKLESS: readonly Mode[] = [Mode.DRAFT, Mode.BATTLE];

/** A queue's mode in words: Skirmish's Battle queue by its game's name. */
function modeWords(mode: Mode): string {
  return mode === Mode.BATTLE ? "skirmish battle" : Mode[mode].toLowerCase();
}

export async function enqueue(mode: Mode): Promise<void> {
  const reply = await authed(() =>
    // A draft's deck is drafted and a Skirmish team is dealt: those queues take none.
    api.enqueue({ requestId: requestId(), mode, deck: DECKLESS.includes(mode) ? undefined : deckChoice() }),
  );
  state.ticketId = reply.ticket?.ticketId ?? "";
  state.queue = reply.status ?? null;
  note(`queued for ${modeWords(mode)}`);
}

/** The session opened with ``ticket`` queued (the status at its opening, as
 * GetPlayerStatus tells it): shown at once, waiting since it was enqueued. How many
 * wait comes with the queue's next push; a status shown already for it is kept. */
export function queuedTicket(ticket: Ticket): void {
  if (state.endedTickets.has(ticket.ticketId) || state.queue?.ticket?.ticketId === ticket.ticketId) return;
  const since = ticket.enqueueTime ? timestampMs(ticket.enqueueTime) : Date.now();
  const waited = BigInt(Math.max(0, Math.floor((Date.now() - since) / 1000)));
  state.ticketId = ticket.ticketId;
  // The lobby's mode is the ticket's (found in review: after a reload while queued for
  // Ranked, the mode beside "Find an opponent" read "unranked").
  if (ticket.mode) state.mode = ticket.mode;
  // Practice is open to every queued ticket but a Skirmish one, which has no practice
  // match to switch to (the matchmaker's practice_available).
  const practiceAvailable = ticket.mode !== Mode.BATTLE;
  state.queue = create(QueueStatusSchema, { ticket, waitDuration: { seconds: waited }, practiceAvailable });
}

export function queuePanel(queue: QueueStatus, page: TablesPage): HTMLElement {
  if (clock.status !== queue) {
    clock.status = queue;
    clock.since = Date.now() - 1000 * Number(queue.waitDuration?.seconds ?? 0n);
  }
  const waited = el("span", { "data-testid": "waited" }, waitedWords());
  const cancel = button("Leave the queue", "cancel", page, async () => {
    await authed(() => api.cancelTicket({ requestId: requestId(), ticketId: state.ticketId }));
    state.endedTickets.add(state.ticketId);
    state.ticketId = "";
    state.queue = null;
  });
  const mode = modeWords(queue.ticket?.mode ?? Mode.UNSPECIFIED);
  const panel = el(
    "div",
    { class: "queue", "data-testid": "queue" },
    // A status made from the ticket alone (queuedTicket) does not know how many wait.
    el("p", {}, `In the ${mode} queue for `, waited, queue.queueLength ? `: ${queue.queueLength} waiting` : ""),
    cancel,
  );
  if (queue.practiceAvailable) {
    // Gives up the ticket and starts a practice match at once (or changes nothing).
    panel.append(
      button("Practice while you wait", "switch", page, async () => {
        // A Draft ticket has no deck of its own: the lobby's choice (Random, or a saved
        // deck) plays, as the terminal client sends; other tickets play their own.
        const deck = queue.ticket?.mode === Mode.DRAFT ? deckChoice() : undefined;
        const reply = await authed(() =>
          api.switchToPractice({ requestId: requestId(), ticketId: state.ticketId, botLevel: BotLevel.NOVICE, deck }),
        );
        note("left the queue for a practice match");
        await page.follow(reply.matchId);
      }),
    );
  }
  return panel;
}

/** After each drawing: the clock runs while a queue panel is on the page, else stops. */
export function keepQueueClock(): void {
  const shown = waitedNode() !== null;
  if (shown && !clock.timer) clock.timer = window.setInterval(tick, 1000);
  if (!shown && clock.timer) {
    window.clearInterval(clock.timer);
    clock.timer = 0;
  }
}

function tick(): void {
  const node = waitedNode();
  if (node) node.textContent = waitedWords();
}

function waitedNode(): HTMLElement | null {
  return document.querySelector<HTMLElement>("[data-testid=queue] [data-testid=waited]");
}

function waitedWords(): string {
  return `${Math.max(0, Math.floor((Date.now() - clock.since) / 1000))} s`;
}
