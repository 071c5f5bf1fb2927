// The last turn's actions of a Skirmish battle in words (battle.ts's log list), as the
// terminal client says them (client/battle_render.py): units named as on the fields,
// cards by their names, effects in words, a Special unlocked shown going to the hand
// (the opponent's unnamed: the server leaves its card out, their hand is hidden).
import type { BattleEffect, BattleLogEntry, BattleView } from "./gen/triad/v1/common_pb.js";

/** The names of the cards seen in the player's hand (the log names cards by id). */
const cardNames = new Map<string, string>();

/** The names of the units seen on the fields, by uid ("1.thornling"): a summon defeated
 * leaves the view's units, and the turn's log still names it. */
const unitNames = new Map<string, string>();

export function learnCardNames(view: BattleView): void {
  for (const card of view.you?.hand ?? []) cardNames.set(card.id, card.name);
  for (const team of [view.you, view.opponent]) {
    for (const unit of team?.units ?? []) if (unit.name) unitNames.set(unit.uid, unit.name);
  }
}

/** A unit no longer on the fields, by its uid ("<seat>.<ref>"): yours or theirs, by the
 * name it was seen with, else its ref's words ("1.thornling": "their Thornling"). */
function goneUnit(uid: string, seat: number): string {
  const parts = /^(\d+)\.([\w.]+)$/.exec(uid);
  if (!parts) return uid;
  const words = parts[2].replace(/[._-]/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());
  return `${Number(parts[1]) === seat ? "your" : "their"} ${unitNames.get(uid) ?? words}`;
}

/** A card's name: as seen in the hand, else from its id ("oru.riptide": "Riptide"). */
export function cardName(id: string): string {
  const tail = (id.split(".").pop() ?? id).replace(/[_-]/g, " ");
  return cardNames.get(id) ?? tail.charAt(0).toUpperCase() + tail.slice(1);
}

/** An effect's change (BattleEffect.change) in words, as the terminal client says it. */
const CHANGES: Record<string, (unit: string, amount: number) => string> = {
  damage: (u, n) => `${u} takes ${n} damage`,
  absorbed: (u, n) => `${u}'s shield absorbs ${n}`,
  heal: (u, n) => `${u} heals ${n}`,
  shield: (u, n) => `${u} gains a ${n} shield`,
  burn: (u, n) => `${u} burns for ${n} a turn`,
  cover: (u) => `${u} takes the hits aimed at its allies`,
  spd: (u, n) => `${u} Spd ${n > 0 ? "+" : ""}${n}`,
  energy: (u, n) => `${u} gains ${n} Energy`,
  energy_steal: (u, n) => `${u} loses ${n} Energy`,
  summon: (u) => `${u} appears`,
  defeated: (u) => `${u} is defeated`,
};

function effectWords(effect: BattleEffect, unit: (uid: string) => string): string {
  const reserved = /^(\d+)\.([\w.]+)@(\d),(\d)$/.exec(effect.unit);
  if (effect.change === "reserved" && reserved) {
    return `a ${cardName(reserved[2])} is reserved for square ${reserved[3]} ${reserved[4]}`;
  }
  const said = CHANGES[effect.change];
  if (said) return said(unit(effect.unit), effect.amount);
  return `${unit(effect.unit)} ${effect.change}${effect.amount ? ` ${effect.amount}` : ""}`;
}

export function logEntry(view: BattleView, entry: BattleLogEntry): string {
  const names = new Map<string, string>([
    [`team ${view.seat}`, "your team"],
    [`team ${1 - view.seat}`, "their team"],
  ]);
  for (const team of [view.you, view.opponent]) {
    const whose = team === view.you ? "your" : "their";
    for (const unit of team?.units ?? []) names.set(unit.uid, `${whose} ${unit.name}`);
  }
  const unit = (uid: string) => names.get(uid) ?? goneUnit(uid, view.seat);
  const what = entry.card ? entry.cardName || cardName(entry.card) : entry.step;
  const effects = entry.effects.map((e) => effectWords(e, unit));
  const who = entry.actor ? unit(entry.actor) : entry.seat === view.seat ? "your team" : "their team";
  if (entry.step === "unlock") {
    // Unlocked at the turn end: gone to the hand, not played.
    return entry.seat === view.seat ? `${who}'s ${what} is now in your hand` : `${who}'s Special is now in their hand`;
  }
  const said = entry.fizzled ? `: ${entry.fizzled}` : ` → ${effects.join(", ") || "nothing"}`;
  return `${who} ${what}${said}${entry.note ? ` (${entry.note})` : ""}`;
}
