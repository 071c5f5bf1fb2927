// Where a Skirmish card aims (battle.ts's fields and battle_hand.ts's plan): the squares
// it may be tapped on, as the server's rule says (targets.py), and the target in words.
import type { BattleCard, BattleTeamView, BattleView } from "./gen/triad/v1/common_pb.js";

/** One action of the plan being set, as the screen keeps it before the commit. */
export interface PlannedAction {
  card: BattleCard;
  row?: number;
  col?: number;
}

export type Side = "mine" | "theirs";
export type Aim = "enemy-unit" | "enemy-row" | "enemy-col" | "ally" | "own-square" | "none";

export function aimOf(card: BattleCard): Aim {
  switch (card.range) {
    case "single":
    case "cross":
      return "enemy-unit";
    case "row":
      return "enemy-row";
    case "column":
      return "enemy-col";
    case "ally":
      return "ally";
    case "square":
      return "own-square";
    default:
      return "none";
  }
}

/** A card's range in BATTLE.md's words: a summon's "square" (the API's word) is "a
 * square of your field", where BATTLE.md 1 places a summoned unit. */
export function rangeWords(card: BattleCard): string {
  return card.range === "square" ? "a square of your field" : card.range;
}

export const key = (row: number, col: number): string => `${row},${col}`;

function occupied(team: BattleTeamView | undefined): Set<string> {
  const squares = new Set<string>();
  for (const unit of team?.units ?? []) if (unit.square) squares.add(key(unit.square.row, unit.square.col));
  return squares;
}

/** Whether a square may be tapped as the target of ``card`` (the server's rule, targets.py). */
export function legalTarget(view: BattleView, card: BattleCard, side: Side, row: number, col: number): boolean {
  const enemy = occupied(view.opponent);
  const own = occupied(view.you);
  switch (aimOf(card)) {
    case "enemy-unit": {
      if (side !== "theirs" || !enemy.has(key(row, col))) return false;
      const screened = col > 0 && (enemy.has(key(row, 0)) || (col > 1 && enemy.has(key(row, 1))));
      return !screened || card.range === "cross" || card.text.includes("ignores formation");
    }
    case "enemy-row":
      return side === "theirs" && [0, 1, 2].some((c) => enemy.has(key(row, c)));
    case "enemy-col":
      return side === "theirs" && [0, 1, 2].some((r) => enemy.has(key(r, col)));
    case "ally":
      return side === "mine" && own.has(key(row, col));
    case "own-square":
      return side === "mine";
    default:
      return false;
  }
}

/** Where a planned card aims, as it was tapped: the unit by its name ("their Pax
 * Ironleaf"), an enemy line, or a square of one's own field (a summon). */
export function targetWords(view: BattleView, action: PlannedAction): string {
  const { row, col } = action;
  const aim = aimOf(action.card);
  if (row !== undefined && col !== undefined) {
    const [whose, team] = aim === "enemy-unit" ? ["their", view.opponent] : ["your", view.you];
    const unit = team?.units.find((u) => u.square?.row === row && u.square?.col === col);
    if (unit && aim !== "own-square") return ` → ${whose} ${unit.name}`;
    return ` → square ${row} ${col}`;
  }
  if (row !== undefined) return ` → their row ${row}`;
  if (col !== undefined) return ` → their column ${col}`;
  return "";
}
