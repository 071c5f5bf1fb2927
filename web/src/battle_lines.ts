// The lines of a Skirmish screen said in words besides the fields (battle.ts), the same
// facts as the terminal client's screen (client/battle_render.py): every unit's marks
// (a Burn with its turn ends left), the characters by SPD with how long a change holds,
// the summons reserved for a square, Sudden Death's Energy, and how the battle ended
// (for a decision, which of BATTLE.md 5's tie-breaks settled it). Each is read from the
// player's own view only: nothing hidden from them is in it.
import { BattleStatus, type BattleTeamView, type BattleUnit, type BattleView } from "./gen/triad/v1/common_pb.js";

/** Turns 8 to 10 are Sudden Death (BATTLE.md 3): each recovers 6 Energy, 2 more. */
export const SUDDEN_DEATH = 8;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Both teams, each with the word a unit of it is named with ("your Pax Ironleaf"). */
function sides(view: BattleView): [string, BattleTeamView | undefined][] {
  return [
    ["your", view.you],
    ["their", view.opponent],
  ];
}

/** A unit's shield, Cover and Burn in words ("burn 4 a turn, 2 turn ends left"); "" without. */
function statuses(unit: BattleUnit): string {
  const said: string[] = [];
  if (unit.shield) said.push(`shield ${unit.shield}`);
  if (unit.cover) said.push(`cover ${plural(unit.cover, "turn")}`);
  if (unit.burn) said.push(`burn ${unit.burn} a turn${unit.burnTurns ? `, ${plural(unit.burnTurns, "turn end")} left` : ""}`);
  return said.join(", ");
}

/** "Marks: your Pax Ironleaf shield 6, cover 2 turns; their Ember Vask burn 4 a turn,
 * 2 turn ends"; null when no unit on the fields has any. */
export function marksLine(view: BattleView): string | null {
  const parts = sides(view).flatMap(([whose, team]) =>
    (team?.units ?? []).filter((u) => u.square && statuses(u)).map((u) => `${whose} ${u.name} ${statuses(u)}`),
  );
  return parts.length ? `Marks: ${parts.join("; ")}` : null;
}

/** Every character on the fields by SPD, fastest first, with how many turns a changed
 * SPD holds (BATTLE.md 4.3 orders a group's actions by it): "SPD, fastest first: your
 * Lio Wisp 18 for 2 turns, their Sable Quill 16, ...". Null before turn 1 (the
 * opponent's formation is hidden) and once the battle is over (nothing resolves). */
export function spdLine(view: BattleView): string | null {
  if (view.status === BattleStatus.FORMATION || view.status === BattleStatus.FINISHED) return null;
  // Same SPD across the teams: the side that committed first acts first (BATTLE.md 4.3;
  // found from outside: yours were listed first while the CPU, committing at once, acted).
  const theirsFirst = Boolean(view.opponent?.committed) && !view.you?.committed;
  const standing = sides(view).flatMap(([whose, team], side) =>
    (team?.units ?? [])
      .filter((u) => !u.summon && u.square)
      .map((u) => ({
        spd: u.spd,
        later: (side === 1) !== theirsFirst,
        said: `${whose} ${u.name} ${u.spd}${u.spdTurns ? ` for ${plural(u.spdTurns, "turn")}` : ""}`,
      })),
  );
  if (!standing.length) return null;
  standing.sort((a, b) => b.spd - a.spd || Number(a.later) - Number(b.later)); // then as placed
  const tied = standing.some((a) => standing.some((b) => a.later !== b.later && a.spd === b.spd));
  return `SPD, fastest first: ${standing.map((s) => s.said).join(", ")}${tied ? tieNote(view) : ""}`;
}

/** What decides a tie in SPD across the teams: " (same SPD: theirs act first as they committed first)". */
function tieNote(view: BattleView): string {
  if (Boolean(view.you?.committed) !== Boolean(view.opponent?.committed)) {
    return view.you?.committed ? " (same SPD: yours act first as you committed first)" : " (same SPD: theirs act first as they committed first)";
  }
  return " (same SPD: whoever commits first acts first)";
}

/** The summons waiting for a square that was taken when they were summoned (BATTLE.md 2;
 * each appears at a turn start once its square is free): "Reserved: your Wraith for
 * square 1 0"; null when none waits. */
export function reservedLine(view: BattleView): string | null {
  const parts = sides(view).flatMap(([whose, team]) =>
    (team?.reservations ?? []).map((r) => `${whose} ${r.name} for square ${r.square?.row ?? "?"} ${r.square?.col ?? "?"}`),
  );
  return parts.length ? `Reserved: ${parts.join("; ")}` : null;
}

/** Said from turn 8 until the end: "Sudden Death: +2 Energy a turn (turns 8–10)". */
export function suddenDeathLine(view: BattleView): string | null {
  if (view.turn < SUDDEN_DEATH || view.status === BattleStatus.FINISHED) return null;
  return `Sudden Death: +2 Energy a turn (turns ${SUDDEN_DEATH}–10)`;
}

/** Characters of a team still on the field (summons do not count). */
const standingOf = (team: BattleView["you"]): number => (team?.units ?? []).filter((u) => !u.summon && u.square).length;

/** A wipeout, as each side reads it: whose characters are all down; both sides' when one
 * card felled both teams (BATTLE.md 5: the team that played it wins). Found from outside:
 * "every character of the loser is down" left the player to work out which side. */
export function wiped(view: BattleView, won: boolean): string {
  if (!standingOf(view.you) && !standingOf(view.opponent)) {
    return `both teams fell to one card, ${won ? "yours" : "theirs"}: the side that played it wins`;
  }
  return won ? "all their characters are down" : "all your characters are down";
}

/** Ends one player brought about, said to each side in its own words. */
const BY_WHOM: Record<string, [string, string]> = {
  give_up: ["You won (your opponent gave up).", "You gave up: you lost."],
  disconnect: [
    // The CPU played on for the one who left, to the end or until the other ended it.
    "You won (your opponent left; the CPU played for them).",
    "You lost (you left; the CPU played for you).",
  ],
};

/** Which of BATTLE.md 5's tie-breaks settled a decision, read from the final fields (the
 * player's first): more characters standing, else more HP left, else the side whose
 * action resolved last (also when Burn felled both teams at one turn end). */
export function decided(view: BattleView): string {
  const standing: number[] = [];
  const hp: number[] = [];
  for (const team of [view.you, view.opponent]) {
    const characters = (team?.units ?? []).filter((u) => !u.summon);
    standing.push(characters.filter((u) => u.square).length);
    hp.push(characters.reduce((sum, u) => sum + u.hp, 0));
  }
  if (standing[0] !== standing[1]) return `after turn 10: more characters standing, ${standing[0]} to ${standing[1]}`;
  if (hp[0] !== hp[1]) return `after turn 10: more HP left, ${hp[0]} to ${hp[1]}`;
  if (!standing[0]) return "both teams fell at once: the side whose action resolved last wins";
  return `after turn 10: level at ${standing[0]} characters and ${hp[0]} HP each, the side whose action resolved last wins`;
}

/** BattleOutcome.winnerSeat when both players left (BATTLE.md 5: each loses). */
const NO_WINNER = -1;

/** "You won (all their characters are down)." */
export function battleResult(view: BattleView): string {
  if (view.outcome?.winnerSeat === NO_WINNER) return "You lost: both players left, so nobody won.";
  const won = view.outcome?.winnerSeat === view.seat;
  const reason = view.outcome?.reason ?? "";
  if (BY_WHOM[reason]) return BY_WHOM[reason][won ? 0 : 1];
  const why = reason === "decision" ? decided(view) : reason === "wipeout" ? wiped(view, won) : reason;
  return `${won ? "You won" : "You lost"} (${why}).`;
}
