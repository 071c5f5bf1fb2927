// The browser client: log in, play practice and queued matches with a Random or a saved
// deck, draft (draft.ts), open boosters and build decks (cards.ts), buy and sell at the
// Auction House (auction.ts), host and join custom tables (tables.ts) and Skirmish
// battles (skirmish.ts), read the ladders (ladders.ts), see the session's pushes
// (session.ts), answer a challenge on any screen (challenges.ts), wait in a queue
// (queue.ts), and take the cards a trade rule gives the winner (trade.ts).
// Practice at a Realm table too (realmform.ts). One state object (state.ts), drawn again
// on every change.
import { api, authed, forgetTokens, heldTable, keepTokens, reason, requestId, signedIn } from "./api.js";
import { el, fitNames, matchScreen } from "./board.js";
import { closeSession, openSession } from "./session.js";
import { battlePanel, forgetBattle, lobbyChoice, openBattle, shownBattle, startBattle } from "./skirmish.js";
import { forgetTables, tablesPanel } from "./tables.js";
import { practiceRealmRow, practiceRules } from "./realmform.js";
import { challengeNotices, forgetChallenges } from "./challenges.js";
import { enqueue, keepQueueClock, queuePanel } from "./queue.js";
import { cards, cardsScreen, deckSelect, forgetCards, showCards } from "./cards.js";
import { auction, auctionScreen, forgetAuction, showAuction } from "./auction.js";
import { forgetLadders, ladders, laddersScreen, ratingLine, showLadders } from "./ladders.js";
import { draftScreen, endedDraft, forgetDraft, shownDraft } from "./draft.js";
import { directLine, tradePanel } from "./trade.js";
import { keepFocus, restoreFocus } from "./focus.js";
import { heldByPress } from "./press.js";
import { onceAtATime } from "./controls.js";
import { ended, forgetLog, note, putAwayMatch, state, tieToTrade } from "./state.js";
import {
  BattleBotLevel,
  BattleStatus,
  BotLevel,
  MatchStatus,
  Mode,
  TradeStatus,
  type MatchView,
} from "./gen/triad/v1/common_pb.js";

const page = { act, render, note, show, follow, followBattle, seatedAt };

const app = document.getElementById("app")!;
const pushLog = document.getElementById("push-log")!;

function render(): void {
  if (heldByPress(render)) return;
  const name = signedIn();
  let screen: HTMLElement;
  if (!name) screen = loginScreen();
  else if (state.view) screen = matchPanel(state.view);
  else if (shownDraft() || endedDraft()) screen = draftScreen((shownDraft() ?? endedDraft())!, page);
  else if (shownBattle()) screen = battlePanel(shownBattle()!, page);
  else if (cards.shown) screen = cardsScreen(page);
  else if (auction.shown) screen = auctionScreen(page);
  else if (ladders.shown) screen = laddersScreen(page);
  else screen = lobbyScreen(name);
  const parts: HTMLElement[] = [screen];
  // Above the screen: a pick pending after a reload is not left under the whole lobby.
  if (state.trade && name) parts.unshift(tradePanel(state.trade, page));
  const notices = name ? challengeNotices(page) : null;
  if (notices) parts.unshift(notices);
  if (state.notice && name) parts.unshift(el("p", { class: "notice", "data-testid": "notice", "aria-live": "polite" }, state.notice));
  if (state.error) parts.unshift(el("p", { class: "error", role: "alert" }, state.error));
  if (state.elsewhere && name) parts.unshift(elsewhereBanner());
  if (state.unreached && name && !state.elsewhere) parts.unshift(unreachedBanner());
  const focus = keepFocus(app);
  app.replaceChildren(...parts);
  restoreFocus(app, focus);
  fitNames(app);
  tickClocks(); // the time left shown at once, not half a second later
  keepQueueClock();
  pushLog.replaceChildren(...state.pushes.map((line) => el("li", {}, line)));
  // No "Session" heading over nothing (found from outside: on the login page).
  pushLog.parentElement?.toggleAttribute("hidden", !state.pushes.length);
}

/** Said while the session stream cannot reach the server (a reload while it restarts,
 * the network gone): found from outside, the page showed the lobby as if all were well,
 * a match in progress too. */
function unreachedBanner(): HTMLElement {
  return el(
    "p",
    { class: "error", role: "status", "data-testid": "unreached" },
    "The server is out of reach, so this page is not up to date: it reconnects by itself.",
  );
}

/** Said while another tab or device holds the session: this page is out of date. */
function elsewhereBanner(): HTMLElement {
  const here = el("button", { type: "button", name: "play-here" }, "Play here");
  here.addEventListener("click", () => {
    openSession(page);
    if (state.matchId) void act(() => follow(state.matchId));
    render();
  });
  return el(
    "p",
    { class: "error", role: "alert", "data-testid": "elsewhere" },
    "You opened the game in another tab or device, so this page stopped updating. ",
    here,
  );
}

/** The last refusal or notice leaves the screen as the next action starts, not when it
 * ends: it stayed up while the next call ran and read as that call's answer. Hidden, not
 * removed, so that nothing under the pointer moves (the page is drawn at the end). */
function forgetSaid(): void {
  Object.assign(state, { error: "", errorAbout: "", notice: "", noticeAbout: "" });
  const said = app.querySelectorAll<HTMLElement>(":scope > p.error[role=alert]:not([data-testid]), :scope > p.notice");
  for (const old of said) old.style.visibility = "hidden";
}

async function act(action: () => Promise<void>): Promise<void> {
  forgetSaid();
  try {
    await action();
  } catch (error) {
    state.error = reason(error);
    // Refused for the table the player hosts: the refusal goes with the table.
    state.errorAbout = heldTable(error);
    tieToTrade();
  }
  render();
}

// ------------------------------------------------------------------ screens

/** The name typed on the login screen, kept when a refusal draws the screen again. */
let typedName = "";

function loginScreen(): HTMLElement {
  const name = el("input", { name: "name", autocomplete: "username", required: "", value: typedName });
  name.addEventListener("input", () => (typedName = name.value));
  const password = el("input", {
    name: "password",
    type: "password",
    autocomplete: "current-password",
    required: "",
    minlength: "10",
  });
  const enter = (register: boolean) =>
    act(async () => {
      const playerName = name.value.trim();
      const request = { requestId: requestId(), playerName, password: password.value };
      const reply = register ? await api.register(request) : await api.login(request);
      keepTokens(reply.player?.playerName ?? playerName, reply.tokens);
      openSession(page);
    });
  const form = el(
    "form",
    { class: "login" },
    el("h1", {}, "Gacha TriadAlpha"),
    el("label", {}, "Name ", name),
    el("label", {}, "Password ", password),
    el("button", { type: "submit", name: "login" }, "Log in"),
    el("button", { type: "button", name: "register" }, "Register"),
  );
  // A try the browser stops (a password too short) is a new try too: the last refusal
  // goes (found from outside: "wrong password" stayed beside the browser's own words).
  form.addEventListener("invalid", forgetSaid, true);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void enter(false);
  });
  form.querySelector("[name=register]")!.addEventListener("click", () => {
    if (form.reportValidity()) void enter(true);
  });
  return form;
}

function lobbyScreen(name: string): HTMLElement {
  const level = choice("level", ["NOVICE", "EASY", "NORMAL", "HARD"], BotLevel, state.level, (v) => {
    state.level = v;
  });
  // BATTLE is Skirmish's queue (BATTLE.md 6): paired, the battle shows by its push.
  const mode = choice("mode", ["UNRANKED", "RANKED", "DRAFT", "ROULETTE", "BATTLE"], Mode, state.mode, (v) => {
    state.mode = v;
  });
  const practice = button("Practice against a bot", "practice", () => startPractice(state.level));
  const queue = button("Find an opponent", "queue", () => enqueue(state.mode));
  const logout = button("Log out", "logout", () => logOut());
  const battleLevel = choice("battle-level", ["RANDOM", "GREEDY", "SEARCH"], BattleBotLevel, lobbyChoice.level, (v) => {
    lobbyChoice.level = v;
  });
  const battle = button("Skirmish against the CPU", "battle", () => startBattle(lobbyChoice.level));
  const parts: HTMLElement[] = [
    el("h1", {}, `Hello, ${name}`),
    el("div", { class: "row" }, el("label", {}, "Deck ", deckSelect()), button("Cards and decks", "cards", showCards), button("Auction House", "auction", showAuction), button("Ladders", "ladders", showLadders)),
    el("div", { class: "row" }, practice, level),
    practiceRealmRow(page),
    el("div", { class: "row" }, queue, mode),
    el("div", { class: "row" }, battle, battleLevel),
  ];
  if (state.queue && state.ticketId) parts.push(queuePanel(state.queue, page));
  parts.push(tablesPanel(page));
  parts.push(el("div", { class: "row" }, logout));
  return el("section", { class: "lobby", "data-testid": "lobby" }, ...parts);
}

/** The words of an enum value the select shows otherwise than its name in lower case. */
const LABELS: Record<string, string> = { BATTLE: "skirmish battle" };

/** A select of some of an enum's values, showing ``current``, telling ``change``. */
function choice<E extends number>(
  name: string,
  keys: readonly string[],
  values: Record<string, string | number>,
  current: E,
  change: (value: E) => void,
): HTMLSelectElement {
  const select = el("select", { name });
  for (const key of keys) {
    const option = el("option", { value: String(values[key]) }, LABELS[key] ?? key.toLowerCase());
    option.selected = values[key] === current;
    select.append(option);
  }
  select.addEventListener("change", () => change(Number(select.value) as E));
  return select;
}

function matchPanel(view: MatchView): HTMLElement {
  const screen = matchScreen(view, state.selected, {
    pickCard: (cardId) => {
      state.selected = state.selected === cardId ? null : cardId;
      render();
    },
    place: (cell) => place(view, cell),
    lair: (on) => void (state.lair = on),
  }, state.lair);
  const finished = view.status === MatchStatus.FINISHED;
  screen.append(
    directLine(view) ?? "",
    ratingLine(view) ?? "",
    finished
      ? button("Back to the lobby", "lobby", async () => {
          state.view = null;
          state.matchId = "";
        })
      : state.forfeitAsked
        ? el(
            "div",
            { class: "row" },
            button("Yes, forfeit the match", "forfeit-confirm", async () => {
              state.forfeitAsked = false;
              const reply = await authed(() => api.forfeit({ requestId: requestId(), matchId: view.matchId }));
              if (reply.view) show(reply.view);
            }),
            button("Keep playing", "forfeit-cancel", async () => void (state.forfeitAsked = false)),
          )
        : button("Forfeit", "forfeit", async () => void (state.forfeitAsked = true)),
  );
  return screen;
}

function button(label: string, name: string, action: () => Promise<unknown>): HTMLButtonElement {
  return onceAtATime(label, name, act, async () => void (await action()));
}

// ------------------------------------------------------------------ actions

async function startPractice(level: BotLevel): Promise<void> {
  const reply = await authed(() =>
    api.startPractice({ requestId: requestId(), botLevel: level, ...practiceRules() }),
  );
  await follow(reply.matchId);
}

/** What the player is seated at, in words, while it lasts: a challenge waits until then. */
function seatedAt(): string {
  if (state.view?.status === MatchStatus.IN_PROGRESS) return "a match";
  if (shownDraft()) return "a draft";
  const battle = shownBattle();
  if (battle && battle.status !== BattleStatus.FINISHED) return "a Skirmish battle";
  return "";
}

/** The match the player is now in: shown, and the lobby's other screens closed (after
 * the match, Back to the lobby leads there, wherever the match was found or accepted). */
async function follow(matchId: string): Promise<void> {
  cards.shown = auction.shown = ladders.shown = false;
  // The last trade's line, told and not dismissed, is not carried over a new board
  // (whether the match came by a push or by the reply that started it).
  if (state.trade && state.trade.status !== TradeStatus.AWAITING_CHOICE) state.trade = null;
  // Followed twice (the push that it was found and the reply that started it, in
  // either order): the card picked in between stays picked (found by CI, the second
  // follow dropped it and her cell clicks did nothing).
  if (state.matchId !== matchId) Object.assign(state, { selected: null, lair: false });
  state.matchId = matchId;
  if (state.ticketId) state.endedTickets.add(state.ticketId); // paired, or switched to practice
  state.ticketId = "";
  state.queue = null;
  const reply = await authed(() => api.getMatchView({ matchId }));
  if (reply.view) show(reply.view);
}

/** The battle the player joined (a battle challenge accepted): shown, the lobby's other
 * screens closed and a finished match put away, as for a match followed. */
async function followBattle(battleId: string): Promise<void> {
  cards.shown = auction.shown = ladders.shown = false;
  putAwayMatch();
  await openBattle(battleId);
}

async function place(view: MatchView, cell: number): Promise<void> {
  const cardId = state.selected;
  if (!cardId) return;
  await act(async () => {
    const reply = await authed(() =>
      api.placeCard({
        requestId: requestId(),
        matchId: view.matchId,
        cardId,
        cell,
        expectedVersion: view.version,
        lair: state.lair,
        sessionId: state.sessionId,
      }),
    );
    state.selected = null;
    state.lair = false;
    if (reply.view) show(reply.view);
  });
}

/** A newer view of the followed match (views only grow in version). */
function show(view: MatchView): void {
  if (!state.matchId && view.status === MatchStatus.IN_PROGRESS) state.matchId = view.matchId;
  if (view.matchId !== state.matchId) return;
  if (state.view && state.view.matchId === view.matchId && state.view.version >= view.version) return;
  state.view = view;
  if (view.status === MatchStatus.FINISHED) ended(view.matchId); // "miss the next one too..."
}

async function logOut(): Promise<void> {
  closeSession();
  try {
    await api.logout({ requestId: requestId() });
  } finally {
    forgetTokens();
    forgetBattle();
    forgetTables();
    forgetChallenges();
    forgetCards();
    forgetAuction();
    forgetLadders();
    forgetDraft();
    Object.assign(state, { view: null, matchId: "", queue: null, ticketId: "", trade: null });
    // What this player's session told, off a page the next person may use.
    forgetLog();
    Object.assign(state, { notice: "", elsewhere: false });
  }
}

// A countdown for each clock on the page (a turn, a draft's two, a trade's choice), from
// the deadline its view carries: on every tick, and as the page is drawn (render()).
function tickClocks(): void {
  for (const status of document.querySelectorAll<HTMLElement>("[data-deadline]")) {
    const left = Math.max(0, Math.round((Number(status.dataset.deadline) - Date.now()) / 1000));
    status.dataset.left = `${left} s`;
  }
}
setInterval(tickClocks, 500);
addEventListener("resize", () => fitNames(app));

if (signedIn()) openSession(page);
render();
