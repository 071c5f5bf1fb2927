// Custom tables (RULES.md 11 and 14): host one with a board and rules of one's own (a
// Realm table too, realmform.ts; or challenge one player by name, to a match or to a
// Skirmish battle), look at the open tables and join one, Find Game (the
// oldest open table with the rules chosen that the lobby's deck fits). The match starts as the guest joins;
// the guest follows it from the answer, the host from the session's pushes (its table
// started, then the match found). Drawn inside the lobby by main.ts; a challenge to the
// player is answered wherever they are (challenges.ts).
import { ConnectError } from "@connectrpc/connect";
import { api, authed, requestId } from "./api.js";
import { boardWords, el, rulesLine } from "./board.js";
import { TableStatus, TradeRule, Visibility, type Table } from "./gen/triad/v1/common_pb.js";
import { cards, deckChoice } from "./cards.js";
import { actionButton as button, checkbox, select } from "./controls.js";
import { REALM_BOARDS, realmChoice, realmRow, realmRules } from "./realmform.js";
import { ended, state, type Page } from "./state.js";

/** What main.ts lends besides the page: follow a match (or a battle) once it starts. */
export interface TablesPage extends Page {
  follow(matchId: string): Promise<void>;
  followBattle(battleId: string): Promise<void>;
}

/** The host's choices, kept across redraws; the table hosted; the last list read. */
export const tables = {
  size: 3,
  blocked: 0,
  visibility: Visibility.THREE_OPEN,
  /** The trade rule (RULES.md 13): any but None needs Closed with Same, Plus and Combo. */
  trade: TradeRule.NONE,
  /** A 4×4 or 5×5 table deals house hands (RULES.md 11), unless the host unticks them:
   * then each player brings a saved deck of 8 or 13, or Random, and the table may trade. */
  houseHands: true,
  rules: { same: true, plus: true, combo: true, elemental: false, sameWall: false, suddenDeath: false },
  challenged: "",
  hosted: null as Table | null,
  open: null as Table[] | null,
};

type RuleName = keyof typeof tables.rules;
const RULE_LABELS: [RuleName, string][] = [
  ["same", "Same"],
  ["plus", "Plus"],
  ["combo", "Combo"],
  ["elemental", "Elemental"],
  ["sameWall", "Same Wall"],
  ["suddenDeath", "Sudden Death"],
];
/** The rules a Realm table never plays (RULES.md 17: its modules instead). */
const NOT_REALM: RuleName[] = ["elemental", "sameWall"];

/** The ends of tables told already ("table id, status"). */
const toldEnds = new Set<string>();

/** The session's ``table`` push (and the status at its opening): the host's table. */
export function tablePush(table: Table | undefined, page: Page): void {
  if (!table) return;
  if (table.status === TableStatus.OPEN) {
    tables.hosted = table;
    return;
  }
  if (tables.hosted?.tableId === table.tableId) tables.hosted = null;
  ended(table.tableId); // a refusal because of the table goes with it
  // Told once: Close's reply and the session's push both bring the closed table (found
  // from outside: "your table closed" twice in the same second).
  const end = `${table.tableId} ${table.status}`;
  if (toldEnds.has(end)) return;
  toldEnds.add(end);
  if (table.status === TableStatus.DECLINED && table.challengedPlayerName) {
    // Who said no, in the push log and above the lobby (until the next action).
    const words = `${table.challengedPlayerName} declined your challenge`;
    page.note(words);
    Object.assign(state, { notice: `${words}.`, noticeAbout: "" });
    return;
  }
  page.note(`your table ${TableStatus[table.status].toLowerCase()}`);
  if (table.status !== TableStatus.EXPIRED) return;
  // Gone unseen otherwise: said above the lobby.
  const words = table.challengedPlayerName
    ? `Your challenge to ${table.challengedPlayerName} expired unanswered.`
    : "Your table expired: nobody joined it in time.";
  Object.assign(state, { notice: words, noticeAbout: "" });
}

/** Logged out: nothing hosted or listed. */
export function forgetTables(): void {
  tables.hosted = null;
  tables.open = null;
}

export function tablesPanel(page: TablesPage): HTMLElement {
  const panel = el("section", { class: "tables", "data-testid": "tables" }, el("h2", {}, "Tables"));
  panel.append(tables.hosted ? hostedPanel(tables.hosted, page) : hostForm(page));
  panel.append(openList(page));
  return panel;
}

function hostedPanel(table: Table, page: TablesPage): HTMLElement {
  const waiting = table.challengedPlayerName
    ? `Your challenge to ${table.challengedPlayerName}: ${tableLine(table)}. Waiting for them.${expiry(table)}`
    : `Your table: ${tableLine(table)}. Waiting for a guest.${expiry(table)}`;
  return el(
    "div",
    { class: "hosted", "data-testid": "hosted" },
    el("p", {}, waiting),
    button("Close the table", "close-table", page, async () => {
      const reply = await authed(() => api.closeTable({ requestId: requestId(), tableId: table.tableId }));
      tablePush(reply.table, page);
    }),
  );
}

function hostForm(page: TablesPage): HTMLElement {
  const size = select("board", [["3", "3×3"], ["4", "4×4"], ["5", "5×5"]], String(tables.size), (v) => {
    tables.size = Number(v);
    page.render(); // the blocked cells are a 5×5 choice only
  });
  // A Realm table plays on 3×3 or 4×4 (RULES.md 17): 5×5 is not offered with Realm
  // ticked, nor Realm on 5×5 (realmRow; found from outside: refused at Open, and the
  // refusal stayed after the form was changed to what the server takes).
  const five = size.querySelector<HTMLOptionElement>('option[value="5"]');
  if (five && realmChoice.on) Object.assign(five, { disabled: true, title: REALM_BOARDS });
  const visibility = select(
    "visibility",
    [
      [String(Visibility.ALL_OPEN), "all open"],
      [String(Visibility.THREE_OPEN), "three open"],
      [String(Visibility.CLOSED), "closed"],
    ],
    String(tables.visibility),
    (v) => void (tables.visibility = Number(v) as Visibility),
  );
  const trade = select(
    "trade",
    [
      [String(TradeRule.NONE), "no trade"],
      [String(TradeRule.ONE), "trade one"],
      [String(TradeRule.DIRECT), "trade direct"],
      [String(TradeRule.DIFFERENCE), "trade difference"],
      [String(TradeRule.ALL), "trade all"],
    ],
    String(tables.trade),
    (v) => void (tables.trade = Number(v) as TradeRule),
  );
  // House hands belong to nobody, so they never trade (RULES.md 13), nor does a Realm
  // table (RULES.md 17): the choice is not offered rather than refused at Open.
  trade.disabled = dealsHouseHands() || realmChoice.on;
  if (trade.disabled) {
    trade.value = String(TradeRule.NONE);
    trade.title = realmChoice.on ? "Realm tables never trade" : "house hands never trade";
  }
  const row = el("div", { class: "row" }, size, visibility, trade);
  if (tables.size === 5) {
    const counts = [0, 1, 2, 3, 4, 5].map((n): [string, string] => [String(n), `${n} blocked`]);
    row.append(select("blocked", counts, String(tables.blocked), (v) => void (tables.blocked = Number(v))));
  }
  if (tables.size > 3) {
    const house = checkbox("house-hands", tables.houseHands, (on) => {
      tables.houseHands = on;
      page.render(); // the trade rule is offered only to players' own decks
    });
    row.append(el("label", { class: "rules-choice" }, house, " house hands"));
  }
  const checks = el("div", { class: "row rules-choice" });
  for (const [name, label] of RULE_LABELS) {
    const box = checkbox(name, tables.rules[name], (on) => void (tables.rules[name] = on));
    // Realm modules take the place of Elemental and Same Wall (RULES.md 17).
    if (realmChoice.on && NOT_REALM.includes(name)) Object.assign(box, { disabled: true, checked: false, title: "not a Realm rule" });
    checks.append(el("label", {}, box, ` ${label}`));
  }
  const challenged = el("input", { name: "challenged", placeholder: "anyone, or a name" });
  challenged.value = tables.challenged;
  challenged.addEventListener("input", () => void (tables.challenged = challenged.value));
  return el(
    "div",
    { class: "host" },
    row,
    checks,
    realmRow(page, tables.size !== 5),
    el("label", { class: "row" }, "Open to ", challenged),
    el("div", { class: "row" }, ...hostButtons(page)),
  );
}

/** Open a table with the form's choices, or a Skirmish battle table. */
function hostButtons(page: TablesPage): HTMLElement[] {
  return [
    button("Open a table", "host", page, async () => {
      const chosen = settings();
      const reply = await authed(() =>
        api.createTable({
          requestId: requestId(),
          settings: chosen,
          // A table without Random decks or house hands plays the lobby's saved deck.
          deck: chosen.randomDeck || chosen.rules.houseHands ? undefined : deckChoice(),
          challengedPlayerName: tables.challenged.trim(),
        }),
      );
      tables.hosted = reply.table ?? null;
    }),
    // Skirmish (BATTLE.md 6, custom battles in the lobby): a battle table only the player
    // named under Open to may join (the terminal's ``battle --challenge NAME``), or anyone
    // when no one is named (``battle --host``); no rules or deck. The battle shows once
    // someone joins (the session's battle push).
    button("Open a Skirmish battle", "host-battle", page, async () => {
      const name = tables.challenged.trim();
      const reply = await authed(() =>
        api.createTable({ requestId: requestId(), settings: { battle: true }, challengedPlayerName: name }),
      );
      tables.hosted = reply.table ?? null;
    }),
  ];
}

/** A 3×3 table brings the lobby's saved deck when one is chosen (RULES.md 11: "each
 * player brings a saved deck of that size or Random"), and plays Random decks
 * otherwise; a larger one deals house hands by default, so a new player needs no
 * collection of eight or thirteen different characters, and brings decks like a 3×3 one
 * when they are unticked. A Realm table, which plays no Random decks (RULES.md 17), deals
 * house hands when no saved deck is chosen. */
function settings() {
  const size = tables.size;
  const house = dealsHouseHands();
  return {
    rules: {
      visibility: tables.visibility,
      ...chosenRules(),
      tradeRule: tradeRule(),
      houseHands: house,
      board: { rows: size, columns: size, blockedCount: size === 5 ? tables.blocked : 0 },
      ...realmRules(),
    },
    randomDeck: !house && !realmChoice.on && !cards.deckId,
  };
}

/** The trade rule chosen: none for house hands and Realm tables, which never trade. */
function tradeRule(): TradeRule {
  return dealsHouseHands() || realmChoice.on ? TradeRule.NONE : tables.trade;
}

/** A 4×4 or 5×5 table with house hands ticked, or a Realm table without a saved deck. */
function dealsHouseHands(): boolean {
  return (tables.size > 3 && tables.houseHands) || (realmChoice.on && !cards.deckId);
}

/** The rules ticked, less those a Realm table does not play. */
function chosenRules(): Record<RuleName, boolean> {
  if (!realmChoice.on) return tables.rules;
  return { ...tables.rules, ...Object.fromEntries(NOT_REALM.map((name) => [name, false])) };
}

/** The host form's choices as Find Game's filter: the same board, visibility, rules
 * (Sudden Death among them) and trade rule. */
function wanted() {
  const { same, plus, combo, elemental, sameWall, suddenDeath } = chosenRules();
  return {
    visibilities: [tables.visibility],
    same,
    plus,
    combo,
    elemental,
    sameWall,
    suddenDeath,
    boardSizes: [tables.size],
    tradeRules: [tradeRule()],
    realm: realmChoice.on,
    // the modules ticked, exactly (found from outside: a table with others was joined)
    realmModules: realmChoice.on ? { ...realmChoice.modules } : undefined,
  };
}

/** Random and house-hand tables take no deck from the guest, nor a battle table (its
 * players bring characters); others the lobby's. */
export function guestDeck(table: Table) {
  const dealt = table.settings?.randomDeck || table.settings?.rules?.houseHands;
  return dealt || table.settings?.battle ? undefined : deckChoice();
}

/** The open tables, Triad then battle tables (ListTables gives those only when asked:
 * ``filter.battles``), less the one this player hosts. */
async function openTables(): Promise<Table[]> {
  const [triad, battles] = await Promise.all([
    authed(() => api.listTables({})),
    authed(() => api.listTables({ filter: { battles: true } })),
  ]);
  return [...triad.tables, ...battles.tables].filter((t) => t.tableId !== tables.hosted?.tableId);
}

function openList(page: TablesPage): HTMLElement {
  const list = el("ul", { class: "open-tables", "data-testid": "open-tables" });
  for (const table of tables.open ?? []) {
    list.append(
      el(
        "li",
        { "data-table": table.tableId },
        `${table.hostName}: ${tableLine(table)}.${expiry(table)} `,
        button("Join", "join", page, async () => {
          const reply = await authed(() =>
            api.joinTable({ requestId: requestId(), tableId: table.tableId, deck: guestDeck(table) }),
          ).catch((error: unknown) => {
            // Closed, taken or expired since the list was read: it leaves the list
            // with the refusal that says so (found from outside: it stayed, Join and all).
            if (String(error).includes("not open any more")) {
              tables.open = (tables.open ?? []).filter((t) => t.tableId !== table.tableId);
            }
            throw error;
          });
          tables.open = null;
          // A battle table's match id is the battle's.
          await (table.settings?.battle ? page.followBattle(reply.matchId) : page.follow(reply.matchId));
        }),
      ),
    );
  }
  const look = button("Look for tables", "tables", page, async () => {
    tables.open = await openTables();
  });
  // The list filtered by the rules chosen above (RULES.md 6: "filterable by rule"; found
  // from outside: the list ignored the form, only Find Game read it).
  const like = button("Tables like this", "tables-like", page, async () => {
    const reply = await authed(() => api.listTables({ filter: wanted() }));
    tables.open = reply.tables.filter((t) => t.tableId !== tables.hosted?.tableId);
  });
  // Find Game: the oldest open public table with the rules chosen above, joined with
  // the lobby's deck (a saved one, or Random): a table of players' decks fits too.
  const find = button("Find a game like this", "find", page, async () => {
    const reply = await authed(() =>
      api.findGame({ requestId: requestId(), filter: wanted(), deck: deckChoice() }),
    ).catch(inButtons);
    tables.open = null;
    await page.follow(reply.matchId);
  });
  const parts: HTMLElement[] = [el("div", { class: "row" }, look, like, find)];
  if (tables.open !== null && tables.open.length === 0) parts.push(el("p", {}, "No open table."));
  return el("div", { class: "open" }, ...parts, list);
}

/** A refusal of Find Game in the page's words: the server names its API calls
 * ("open one yourself with CreateTable"), the page has buttons. */
function inButtons(error: unknown): never {
  const failure = ConnectError.from(error);
  const said = failure.rawMessage
    .replace("with CreateTable, or try Find Game again soon", "with Open a table, or try again soon")
    .replace("with JoinTable", "with Accept");
  throw new ConnectError(said, failure.code);
}

/** When an open table or challenge lapses if nobody joins (its ``expire_time``, RULES.md
 * 14), on the player's own clock as the page says its other times, the date too where it
 * is not today (the terminal says a challenge's: client/expiry.py): " It expires at
 * 4:58:30 PM."; "" if the server sent none. Its host is told it as the challenged is,
 * and the tables looked for say theirs. */
export function expiry(table: Table): string {
  if (!table.expireTime) return "";
  const at = new Date(Number(table.expireTime.seconds) * 1000);
  const today = at.toDateString() === new Date().toDateString();
  return ` It expires at ${today ? at.toLocaleTimeString() : at.toLocaleString()}.`;
}

/** "4×4 · three open · Same · Plus · Combo" (the board first when it is not 3×3). */
export function tableLine(table: Table): string {
  if (table.settings?.battle) return "a Skirmish battle"; // no board, rules or decks
  const rules = table.settings?.rules;
  const words = [...boardWords(rules), rulesLine(rules)];
  if (table.settings?.randomDeck) words.push("Random decks");
  if (rules?.houseHands) words.push("house hands");
  return words.filter(Boolean).join(" · ");
}
