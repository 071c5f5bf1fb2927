// Drawing a match: the board as a CSS grid of square cells, the hands as rows of cards,
// the scores and whose turn it is; a Sudden Death match's round (rounds.ts) and a Realm
// table's state (realm.ts). Pure DOM, no framework; nothing here calls the API.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  CaptureCause,
  Element,
  FinishReason,
  MatchStatus,
  Mode,
  Seat,
  Side,
  Visibility,
  TradeRule,
  type BoardCell,
  type Card,
  type MatchView,
  type Placement,
  type Rules,
  type Sides,
} from "./gen/triad/v1/common_pb.js";
import { el } from "./dom.js";
import { cellMarks, isRealm, lairChoice, moduleWords, realmPanel, realmTag, suddenDeathEnding } from "./realm.js";
import { finalBoards, roundsPanel } from "./rounds.js";

export { el };

/** A card in a hand or on the board, or a copy of a collection (a trade's offer). */
type CardLike = Pick<Card, "character" | "printedSides"> & { holoSide?: Side };

const side = (n: number): string => (n >= 10 ? "A" : String(n));

/** A card face: its four sides around its name (and element, when it has one); at a
 * Realm table (``realm``) its creature type, alignment and Legendary mark on a line of
 * their own under it, and no element (RULES.md 17: a Realm table never plays Elemental;
 * found from outside, "holy" and "wind" read as if they mattered there); with ``stars``
 * its star rank (what a deck's rules count: drafts, collections). Its full name is its
 * title, for the names cut short. */
export function cardFace(card: CardLike | undefined, sides?: Sides, realm = false, stars = false): HTMLElement {
  const shown = sides ?? card?.printedSides ?? card?.character?.sides;
  const character = card?.character;
  const element = character && character.element && !realm ? Element[character.element].toLowerCase() : "";
  const tag = realm ? realmTag(character) : null;
  return el(
    "div",
    { class: tag?.short ? "face realm" : "face", title: tag?.full || character?.name || "" },
    el("span", { class: `top${boosted(card, Side.TOP)}` }, side(shown?.top ?? 0)),
    el("span", { class: `left${boosted(card, Side.LEFT)}` }, side(shown?.left ?? 0)),
    el("span", { class: "name" }, character?.name ?? "?"),
    el("span", { class: `right${boosted(card, Side.RIGHT)}` }, side(shown?.right ?? 0)),
    el("span", { class: `bottom${boosted(card, Side.BOTTOM)}` }, side(shown?.bottom ?? 0)),
    element ? el("span", { class: "element" }, element) : "",
    tag?.short ? el("span", { class: "realm-tag" }, tag.short) : "",
    stars && character?.stars ? el("span", { class: "stars" }, `${character.stars}★`) : "",
  );
}

/** Smaller steps of a name's type (em of the face's), tried in turn while it overflows. */
const NAME_SIZES = ["0.5em", "0.42em", "0.36em"];
/** The same for a Realm card's tag ("Pla CG ★"), never below about 9 px on a phone. */
const TAG_SIZES = ["0.72em"];

/** Each card name under ``root`` shown whole in the room its face's values leave it:
 * found from outside, a long name on a small card ("Aldebrand the Unsleeping" on a 5×5
 * board's marked cell, or in the opponent's one-row hand at a desk) wrapped over more
 * lines than there was room for and ran over the values above and below it. A name is
 * held to its grid area (style.css) and drawn a step smaller while it overflows it; a
 * Realm card's tag likewise (TAG_SIZES). Each step reads the layout once for every name,
 * after the page is drawn or resized. */
export function fitNames(root: ParentNode): void {
  let over = [...root.querySelectorAll<HTMLElement>(".face .name")];
  for (const name of over) {
    name.style.fontSize = "";
    name.classList.remove("squeezed");
  }
  for (const size of NAME_SIZES) {
    over = over.filter(overflows);
    for (const name of over) name.style.fontSize = size;
  }
  // Still too wide at the smallest type: its words may break anywhere, not be cut.
  for (const name of over.filter(overflows)) name.classList.add("squeezed");
  // A Realm tag's line a step smaller when it is wider than its card (a narrow one),
  // then cut with an ellipsis: the face's title says it in full.
  let tags = [...root.querySelectorAll<HTMLElement>(".face .realm-tag")];
  for (const tag of tags) tag.style.fontSize = "";
  for (const size of TAG_SIZES) {
    tags = tags.filter(overflows);
    for (const tag of tags) tag.style.fontSize = size;
  }
}

/** A name taller than its area, or with a word wider than it (found from outside: words
 * broke mid-word, "Blightbloo/m Dryad", where a smaller type kept them whole). */
function overflows(name: HTMLElement): boolean {
  return name.scrollHeight > name.clientHeight + 1 || name.scrollWidth > name.clientWidth + 1;
}

/** " holo-side" on the side of a holo copy that carries its +1 (found from outside: a
 * holo copy said which it was nowhere), else "". */
function boosted(card: CardLike | undefined, which: Side): string {
  return card?.holoSide === which ? " holo-side" : "";
}

/** "three open · Same · Plus · Combo": a match's or a table's rules in words. */
export function rulesLine(rules: Rules | undefined): string {
  if (!rules) return "";
  const words = [Visibility[rules.visibility]?.replace("_", " ").toLowerCase() ?? ""];
  if (rules.same) words.push("Same");
  if (rules.plus) words.push("Plus");
  if (rules.combo) words.push("Combo");
  if (rules.sameWall) words.push("Same Wall");
  if (rules.elemental) words.push("Elemental");
  // A Realm table's Sudden Death is its own (RULES.md 17), named as the terminal names it.
  if (rules.suddenDeath && !isRealm(rules)) words.push("Sudden Death");
  words.push(...moduleWords(rules));
  if (rules.suddenDeath && isRealm(rules)) words.push("Realm Sudden Death");
  // The terminal client's words: "No trade", else the rule (NONE is 1, not unset).
  if (rules.tradeRule === TradeRule.NONE) words.push("No trade");
  else if (rules.tradeRule) words.push(`Trade ${TradeRule[rules.tradeRule].toLowerCase()}`);
  return words.filter(Boolean).join(" · ");
}

/** "5×5", "2 blocked": a board other than the standard 3×3, in words. */
export function boardWords(rules: Rules | undefined): string[] {
  const board = rules?.board;
  const rows = board?.rows || 3;
  const words = rows === 3 ? [] : [`${rows}×${board?.columns || rows}`];
  if (board?.blockedCount) words.push(`${board.blockedCount} blocked`);
  return words;
}

/** "4×4 · three open · Same · Plus · Combo · No trade · house hands": all a match's
 * rules, as the lobby lists its table. */
export function matchRulesLine(rules: Rules | undefined): string {
  return [...boardWords(rules), rulesLine(rules), rules?.houseHands ? "house hands" : ""].filter(Boolean).join(" · ");
}

/** "Ranked, rated", "Practice, Ranked rules": the mode first on the rules line, as the
 * terminal's (found from outside: a practice switched to from the Ranked queue looked
 * like the Ranked match itself). */
function modeWords(view: MatchView): string {
  const name = (mode: Mode) => (mode ? `${Mode[mode][0]}${Mode[mode].slice(1).toLowerCase()}` : "");
  let words = name(view.mode);
  if (view.mode === Mode.PRACTICE && view.originMode) words += `, ${name(view.originMode)} rules`;
  if (view.ladder?.ladder) words += ", rated";
  return words;
}

/** Why the match ended, in the terminal client's words: "the board is full", "Bea
 * forfeited", "you missed two turns in a row", "Bea stayed disconnected past the grace
 * period" (client/rules_text.py). */
function endReason(view: MatchView): string {
  const outcome = view.outcome;
  const seat = outcome?.forfeitingSeat;
  const who = seat === view.mySeat ? "you" : (view.players.find((p) => p.seat === seat)?.playerName ?? "your opponent");
  switch (outcome?.reason) {
    case FinishReason.BOARD_FULL:
      return `the board is full${suddenDeathEnding(view)}`;
    case FinishReason.FORFEIT:
      return `${who} forfeited`;
    case FinishReason.TURN_TIMEOUT:
      return `${who} missed two turns in a row`;
    case FinishReason.DISCONNECT:
      // No forfeiting seat: both players were away past the grace (the match abandoned).
      if (!seat) return "both players stayed disconnected past the grace period";
      return `${who} stayed disconnected past the grace period`;
    default:
      return "the match ended";
  }
}

/** "You won 6 to 4: the board is full" (or lost, or a draw); a match ended by a
 * forfeit says the result and why first, the score it stood at after ("You won: Bea
 * forfeited (it stood at 5 to 5)"), so that a win at 5 to 5 does not read as a sum. */
export function resultLine(view: MatchView): string {
  const outcome = view.outcome;
  const scores = outcome?.finalScores;
  const mine = view.mySeat === Seat.A ? scores?.seatA : scores?.seatB;
  const theirs = view.mySeat === Seat.A ? scores?.seatB : scores?.seatA;
  let verdict = "Draw";
  if (outcome?.result.case === "winnerSeat") {
    verdict = outcome.result.value === view.mySeat ? "You won" : "You lost";
  }
  const score = `${mine ?? 0} to ${theirs ?? 0}`;
  if (outcome?.reason === FinishReason.BOARD_FULL || !outcome?.reason) return `${verdict} ${score}: ${endReason(view)}${drawTrades(view)}`;
  return `${verdict}: ${endReason(view)} (it stood at ${score})`;
}

/** At a table trading One, Difference or All, a draw trades nothing (RULES.md 7, 13), as
 * the terminal says ("Trade One: a draw trades nothing"); found from outside, the page said
 * nothing of the trade. Direct trades on a draw too: its panel tells what moved. */
function drawTrades(view: MatchView): string {
  const rule = view.rules?.tradeRule ?? TradeRule.UNSPECIFIED;
  const trading = [TradeRule.ONE, TradeRule.DIFFERENCE, TradeRule.ALL].includes(rule);
  if (view.outcome?.result.case !== "draw" || !trading) return "";
  return `. Trade ${TradeRule[rule].toLowerCase()}: a draw trades nothing`;
}

const CAUSES: Record<number, string> = {
  [CaptureCause.SAME]: "same",
  [CaptureCause.PLUS]: "plus",
  [CaptureCause.COMBO]: "combo",
  [CaptureCause.BASIC]: "taken", // by a higher side: the terminal's TAKEN (found from outside: "basic", a word of the code)
};

/** What a cell's element mark does to the card on it (RULES.md 4): +1 on every side when
 * the elements match, -1 otherwise (another element or none), as client/rules_text.py. */
function elementBonus(card: Card | undefined, mark: Element): number {
  return card?.character?.element === mark ? 1 : -1;
}

/** A marked cell's element under its card, and what it does to the card's sides ("fire
 * +1"): its own line, so that neither covers the card's own element. */
function markLine(mark: string, bonus: number): HTMLElement {
  const said = bonus > 0 ? "+1" : bonus < 0 ? "-1" : "";
  const title = bonus ? `${mark} cell: ${said} on every side of this card` : `${mark} cell`;
  return el(
    "span",
    { class: "cell-mark", title },
    mark,
    said ? el("span", { class: `bonus ${bonus > 0 ? "up" : "down"}` }, ` ${said}`) : "",
  );
}

/** A board's cells as a grid, ``last`` (the placement that made it) marked with its
 * captures by cause: the match's own board, whose empty cells ``place`` when
 * ``canPlace``; or, with no ``place``, an earlier Sudden Death round's final board,
 * read-only (rounds.ts). */
export function boardGrid(
  view: MatchView,
  cells: BoardCell[],
  last: Placement | undefined,
  place?: (cell: number) => void,
  canPlace = false,
): HTMLElement {
  const columns = view.rules?.board?.columns || 3;
  const captured = new Map<number, string>();
  for (const capture of last?.captures ?? []) {
    captured.set(capture.cell, CAUSES[capture.cause] ?? "");
  }
  // A class, not a style attribute: the page's Content-Security-Policy allows no inline style.
  const testid = place ? "board" : "final-board";
  const board = el("div", { class: `board columns-${columns}`, "data-testid": testid });
  for (const cell of cells) {
    const node = el("button", { class: "cell", "data-cell": String(cell.index) });
    const mark = cell.mark ? Element[cell.mark].toLowerCase() : "";
    if (mark) node.dataset.mark = mark;
    if (cell.content.case === "blocked") {
      node.classList.add("blocked");
      node.disabled = true;
    } else if (cell.content.case === "card") {
      const placed = cell.content.value;
      node.classList.add(placed.ownerSeat === view.mySeat ? "mine" : "theirs");
      // A Realm card keeps its type, alignment and Legendary mark on the board: they
      // decide Type Advantage, Alignment Clash and Resistance there (found from outside:
      // only the hex stayed once the card was placed).
      node.append(...cellMarks(view, cell.index), cardFace(placed.card, placed.adjustedSides, isRealm(view.rules)));
      if (mark) node.append(markLine(mark, elementBonus(placed.card, cell.mark)));
      const cause = captured.get(cell.index);
      if (cause) node.append(el("span", { class: `cause ${cause}` }, cause));
      if (last?.cell === cell.index) node.classList.add("last");
      node.disabled = true;
    } else {
      if (mark) node.append(markLine(mark, 0));
      node.classList.add("empty");
      node.disabled = !canPlace;
      if (place) node.addEventListener("click", () => place(cell.index));
    }
    board.append(node);
  }
  return board;
}

export interface MatchHandlers {
  pickCard(cardId: string): void;
  place(cell: number): void;
  /** Declare Lair with the next placement, or not (Realm tables with Lair). */
  lair(on: boolean): void;
}

/** The whole match screen for ``view``; ``selected`` is the hand card picked to place,
 * ``lair`` whether it is to be placed declaring Lair. */
export function matchScreen(
  view: MatchView,
  selected: string | null,
  on: MatchHandlers,
  lair = false,
): HTMLElement {
  const me = view.players.find((p) => p.seat === view.mySeat);
  const them = view.players.find((p) => p.seat !== view.mySeat);
  const finished = view.status === MatchStatus.FINISHED;
  const myTurn = !finished && view.turnSeat === view.mySeat;
  const realm = isRealm(view.rules);
  const board = boardGrid(view, view.board, view.lastPlacement, (cell) => on.place(cell), myTurn && !!selected);

  const hand = el("div", { class: "hand mine", "data-testid": "hand" });
  // Three Open: the player's cards the opponent sees (RULES.md 3) say so; All Open shows
  // them all, Closed none, so there the mark would tell nothing.
  const threeOpen = view.rules?.visibility === Visibility.THREE_OPEN;
  for (const own of view.myHand) {
    const id = own.card?.cardId ?? "";
    const face = cardFace(own.card, undefined, realm);
    if (threeOpen && own.revealedToOpponent) face.append(el("span", { class: "seen", title: "your opponent sees this card" }, "seen"));
    const node = el("button", { class: "card mine", "data-card": id }, face);
    if (id === selected) node.classList.add("selected");
    node.disabled = !myTurn;
    node.addEventListener("click", () => on.pickCard(id));
    hand.append(node);
  }
  const theirHand = el("div", { class: "hand theirs" });
  for (const slot of view.opponentHand) {
    theirHand.append(
      slot.slot.case === "revealed"
        ? el("div", { class: "card theirs" }, cardFace(slot.slot.value, undefined, realm))
        : el("div", { class: "card theirs hidden" }, el("div", { class: "face" }, "?")),
    );
  }

  let status: string;
  if (finished) status = resultLine(view);
  else if (myTurn) status = selected ? "Pick a cell" : "Your turn: pick a card";
  else status = `${them?.playerName ?? "The opponent"} is playing`;
  const deadline = view.turnDeadlineTime && !finished ? timestampDate(view.turnDeadlineTime) : null;
  // The opponent without a session (lost, or not opened since the match began) and when
  // they forfeit: the view says so from the start, where the OPPONENT_DISCONNECTED
  // notice needs them seen connected first (client/render.py away_words).
  const away = !finished && them && !them.isBot && !them.connected && them.disconnectForfeitTime;
  const awayLine = away
    ? el(
        "p",
        { class: "status away", "data-testid": "away", "data-deadline": String(timestampDate(away).getTime()) },
        `${them.playerName} is not connected: they forfeit unless back by ` +
          timestampDate(away).toLocaleTimeString(),
      )
    : "";
  // A turn of theirs the server played (RULES.md 5): told to the player it was played
  // against too, as the one who missed it is told by the session's notice.
  const missed =
    !finished && them?.missedTurnWarning
      ? el(
          "p",
          { class: "missed", "data-testid": "missed" },
          `${them.playerName} missed a turn, so a card was played for them; if they miss the next one too, they forfeit.`,
        )
      : "";

  return el(
    "section",
    { class: "match", "data-testid": "match", "data-status": finished ? "finished" : "playing" },
    el(
      "header",
      { class: "scores" },
      // Each name cut short where the line is narrow, never its score (found on a phone:
      // a 20-letter name wrapped, and both scores read as the opponent's).
      el("span", { class: "score mine" }, seatName(me?.playerName ?? "You"), " ", el("span", { class: "points" }, `${me?.score ?? 0}`)),
      el("span", { class: "score theirs" }, el("span", { class: "points" }, `${them?.score ?? 0}`), " ", seatName(them?.playerName ?? "")),
    ),
    el("p", { class: "rules", "data-testid": "match-rules" }, [modeWords(view), matchRulesLine(view.rules)].filter(Boolean).join(" · ")),
    roundsPanel(view) ?? "",
    theirHand,
    // The board's box: at a desk the space the rest of the screen leaves, which the
    // square board fills as far as it can (style.css).
    el(
      "div",
      { class: "board-area" },
      finalBoards(view, (round) => boardGrid(view, round.board, round.lastPlacement)),
      board,
    ),
    realmPanel(view) ?? "",
    el(
      "p",
      {
        class: finished ? "status result" : "status",
        "data-testid": finished ? "result" : "status",
        ...(deadline ? { "data-deadline": String(deadline.getTime()) } : {}),
      },
      status,
    ),
    awayLine,
    missed,
    (myTurn && lairChoice(view, lair, on.lair)) || "",
    hand,
  );
}

/** A player's name in the scores line: cut with an ellipsis when it does not fit, whole
 * on hover. */
function seatName(name: string): HTMLElement {
  return el("span", { class: "name", title: name }, name);
}
