// Realm tables on the match screen (RULES.md 17), as the terminal client shows them
// (client/realm.py): a card's creature type, alignment and Legendary mark in the hands
// and on the board (board.ts cardFace), the modules and Realm Sudden Death in the rules
// line (board.ts rulesLine), each board card's hex (struck through once spent) and
// pending Rot, the Lair choice with a placement, and under the board the seats' spent
// Lair and Resistance, the draw pile's size (Realm Sudden Death) and the last move's
// comparisons (with the modifiers that made each value) and saved captures. The lobby's
// Realm choices (host, practice) are realmform.ts.
import { checkbox } from "./controls.js";
import { el } from "./dom.js";
import {
  AlignmentLaw,
  AlignmentMoral,
  CreatureType,
  Hex,
  Protection,
  RealmModifierKind,
  RulesFamily,
  type Character,
  type MatchView,
  type RealmComparison,
  type RealmModifier,
  type RealmSeatState,
  type Rules,
} from "./gen/triad/v1/common_pb.js";

export type ModuleName = "typeAdvantage" | "alignmentClash" | "lair" | "resistance" | "cursed";

/** The RealmModules fields, as a player reads them. */
export const MODULES: [ModuleName, string][] = [
  ["typeAdvantage", "Type Advantage"],
  ["alignmentClash", "Alignment Clash"],
  ["lair", "Lair"],
  ["resistance", "Resistance"],
  ["cursed", "Cursed"],
];

export function isRealm(rules: Rules | undefined): boolean {
  return rules?.family === RulesFamily.REALM;
}

/** "Realm" and the modules on, for the rules line; nothing at a standard table. */
export function moduleWords(rules: Rules | undefined): string[] {
  if (!rules || !isRealm(rules)) return [];
  return ["Realm", ...MODULES.filter(([field]) => rules.realm?.[field]).map(([, label]) => label)];
}

const lower = (name: string | undefined): string => (name ?? "").toLowerCase();

/** A character's Realm attributes, short ("Dra CE ★") and in full ("dragon, chaotic
 * evil, legendary"); empty when the server sent none. */
export function realmTag(character: Character | undefined): { short: string; full: string } {
  if (!character?.creatureType) return { short: "", full: "" };
  const kind = lower(CreatureType[character.creatureType]);
  const law = lower(AlignmentLaw[character.alignment?.law ?? 0]);
  const moral = lower(AlignmentMoral[character.alignment?.moral ?? 0]);
  const short = `${kind.slice(0, 3).replace(/^./, (c) => c.toUpperCase())} ${(law[0] + moral[0]).toUpperCase()}`;
  return {
    short: character.legendary ? `${short} ★` : short,
    full: [kind, `${law} ${moral}`, ...(character.legendary ? ["legendary"] : [])].join(", "),
  };
}

/** A board card's pending Rot and hex, on a line of their own over the card (found
 * from outside: in the cell's top corners "silence" covered a 4×4 cell's top value). */
export function cellMarks(view: MatchView, index: number): HTMLElement[] {
  const cell = view.realm?.cells[index];
  if (!cell || (!cell.hex && !cell.pendingRot)) return [];
  const marks: HTMLElement[] = [];
  if (cell.pendingRot) marks.push(el("span", { class: "rot" }, `rot −${cell.pendingRot}`));
  if (cell.hex) {
    const spent = cell.hexSpent ? " spent" : "";
    marks.push(el("span", { class: `hex${spent}`, title: `hex${spent}` }, lower(Hex[cell.hex])));
  }
  return [el("div", { class: "realm-marks" }, ...marks)];
}

/** A Realm modifier in a word (RULES.md 17, "Modifiers"), as the terminal says it
 * (client/realm.py MODIFIER_WORDS). */
const MODIFIER_WORDS: Partial<Record<RealmModifierKind, string>> = {
  [RealmModifierKind.TYPE_ADVANTAGE]: "Type",
  [RealmModifierKind.GUARD]: "Guard",
  [RealmModifierKind.LAIR]: "Lair",
  [RealmModifierKind.EMBER]: "Ember",
  [RealmModifierKind.ROT]: "Rot",
  [RealmModifierKind.BIND]: "Bind",
  [RealmModifierKind.ALIGNMENT_CLASH]: "Clash",
};

/** One side of a comparison from its printed value: "10 +1 Lair +1 Clash", "5 −5 Bind". */
function sideSaid(value: number, modifiers: RealmModifier[]): string {
  const printed = value - modifiers.reduce((sum, m) => sum + m.amount, 0);
  const said = modifiers.map((m) => `${m.amount < 0 ? "−" : "+"}${Math.abs(m.amount)} ${MODIFIER_WORDS[m.kind] ?? "?"}`);
  return [String(printed), ...said].join(" ");
}

/** "12 v 8 (10 +1 Lair +1 Clash v 8)": the values compared and, when a modifier made
 * them, each side from its printed value; the values alone without modifiers (or from a
 * match stored before they were recorded). */
export function comparisonWords(c: RealmComparison): string {
  const said = `${c.attack} v ${c.defence}`;
  if (!c.attackModifiers.length && !c.defenceModifiers.length) return said;
  return `${said} (${sideSaid(c.attack, c.attackModifiers)} v ${sideSaid(c.defence, c.defenceModifiers)})`;
}

/** Declare Lair with the next placement: offered on the player's turn while their Lair
 * is unspent at a table with the module. */
export function lairChoice(view: MatchView, on: boolean, toggle: (on: boolean) => void): HTMLElement | null {
  const mine = view.realm?.seats.find((s) => s.seat === view.mySeat);
  if (!view.rules?.realm?.lair || !mine || mine.lairSpent) return null;
  const box = checkbox("lair", on, toggle);
  return el("label", { class: "lair-choice" }, box, " Lair with this card (+1 on every side, once a match)");
}

/** The Realm state in words, one line each part (what client/realm.py's line says). */
export function realmLines(view: MatchView): string[] {
  const realm = view.realm;
  const modules = view.rules?.realm;
  if (!realm) return [];
  const lines: string[] = [];
  const who = (seat: number) => (seat === view.mySeat ? "you" : "them");
  const powers: [string, boolean | undefined, (s: RealmSeatState) => boolean][] = [
    ["Lair", modules?.lair, (s) => s.lairSpent],
    ["Resistance", modules?.resistance, (s) => s.resistanceSpent],
  ];
  for (const [name, on, spent] of powers) {
    if (!on) continue;
    const used = realm.seats.filter(spent).map((s) => who(s.seat));
    lines.push(`${name} spent: ${used.join(", ") || "nobody"}`);
  }
  if (view.rules?.suddenDeath) lines.push(`Draw pile: ${realm.drawPileLeft} left`);
  lines.push(...suddenDeathLines(view));
  const last = realm.lastMove;
  if (last) {
    const parts = last.lair ? ["Lair"] : [];
    // By the cards' names: the browser's board shows no cell numbers (the terminal's does).
    for (const c of last.comparisons) {
      const beat = c.attack > c.defence ? "beat" : "did not beat";
      parts.push(`${cardOn(view, c.attackerCell)} ${beat} ${cardOn(view, c.defenderCell)}, ${comparisonWords(c)}`);
    }
    for (const s of last.saved) parts.push(`${cardOn(view, s.cell)} saved by ${lower(Protection[s.by])}`);
    if (parts.length) lines.push(`Last move: ${parts.join(" · ")}`);
  }
  return lines;
}

/** "; Sudden Death drew 2 cards from the pile" (and for a draw, that it drew them all:
 * RULES.md 17, the draw stands); for a draw after rounds of Sudden Death, that the last
 * tied too (RULES.md 12); "" otherwise. As the terminal says it (client/realm.py). */
export function suddenDeathEnding(view: MatchView): string {
  const drawn = view.realm?.replacements.length ?? 0;
  const rounds = view.earlierRounds.length;
  // RULES.md 12: the last round tied as well (found from outside: the draw's line did not
  // say why no round followed).
  if (view.outcome?.result.case === "draw" && rounds && !drawn) return `; round ${rounds + 1} tied too: the draw stands`;
  if (!drawn) return "";
  if (view.outcome?.result.case === "draw") return `; Sudden Death drew all ${drawn}: the draw stands`;
  return `; Sudden Death drew ${drawn} card${drawn > 1 ? "s" : ""} from the pile`;
}

/** Realm Sudden Death, once it has replaced cards (RULES.md 17): the move that tied the
 * full board, then each card that left and the pile's card put in its place. Found from
 * outside: only the last replacement's comparisons were told, not the tying move nor
 * which card left. */
function suddenDeathLines(view: MatchView): string[] {
  const realm = view.realm;
  const tying = realm?.tyingPlacement;
  if (!realm || !tying) return [];
  const name = (seat: number, you: string) =>
    seat === view.mySeat ? you : (view.players.find((p) => p.seat === seat)?.playerName ?? "your opponent");
  // Each card it took by name, as it was then: a cell Sudden Death emptied later held
  // the first card removed from it (found from outside: only a count was said).
  const then = (cell: number) =>
    realm.replacements.find((r) => r.cell === cell)?.removed?.character?.name ?? cardOn(view, cell);
  const took = tying.captures.length ? `, taking ${tying.captures.map((c) => then(c.cell)).join(", ")}` : "";
  const lines = [`${name(tying.seat, "You")} tied the full board with ${tying.card?.character?.name ?? "a card"}${took}: Realm Sudden Death`];
  for (const r of realm.replacements) {
    lines.push(`${r.removed?.character?.name ?? "A card"} left the board; ${r.drawn?.character?.name ?? "a card"} came from the pile for ${name(r.seat, "you")}`);
  }
  return lines;
}

/** The name of the card on ``cell`` ("cell N" if none is there any more). */
function cardOn(view: MatchView, cell: number): string {
  const content = view.board.find((c) => c.index === cell)?.content;
  return content?.case === "card" ? (content.value.card?.character?.name ?? `cell ${cell}`) : `cell ${cell}`;
}

/** The Realm state under the board; null at a standard table. */
export function realmPanel(view: MatchView): HTMLElement | null {
  if (!view.realm) return null;
  const lines = realmLines(view).map((line) => el("li", {}, line));
  return el("ul", { class: "realm", "data-testid": "realm" }, ...lines);
}
