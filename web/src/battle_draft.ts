/** What the battle screen keeps between redraws (the player's formation, plan and aim)
 * and what it may do: apart from the screen, so that its panels (battle_hand.ts) and the
 * screen (battle.ts) both read them without importing each other. */

import type { BattleCard } from "./gen/triad/v1/common_pb.js";
import type { PlannedAction } from "./battle_aim.js";

/** What the screen keeps between redraws for the battle shown. */
export interface BattleDraft {
  formation: { row: number; col: number }[];
  plan: PlannedAction[];
  /** A card picked that still needs its target. */
  aiming: BattleCard | null;
  giveUpAsked: boolean;
}

export function freshDraft(): BattleDraft {
  return { formation: [], plan: [], aiming: null, giveUpAsked: false };
}

export interface BattleActions {
  /** Redraw after a change to the draft. */
  redraw(): void;
  setFormation(squares: { row: number; col: number }[]): void;
  /** The plan changed: set it (not committed), so it acts at the deadline. */
  setPlan(plan: PlannedAction[]): void;
  commit(plan: PlannedAction[]): void;
  giveUp(): void;
  leave(): void;
}
