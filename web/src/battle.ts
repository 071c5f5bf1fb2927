// Skirmish (BATTLE.md) in the browser: both 3x3 fields facing each other (yours with its
// front column, column 0, on the right; the opponent's with its front on the left), HP,
// Energy and statuses, your hand, the plan being set, the last turn's actions and the
// end. Before turn 1 you tap three squares of your field (one per character, in the
// team's order); each turn you tap cards, and for a card that aims, a legal square of
// the field it aims at, then commit the plan (an empty plan passes); each change to the
// plan is set on the server as you go (SetPlan), so it acts at the 60 s deadline if you
// do not commit. Give up stands beside the title, within reach however long the log.
// Pure DOM; the calls go through ``BattleActions`` (main.ts). The hand, the plan and the
// formation's panel are battle_hand.ts's; where a card aims, battle_aim.ts's.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { el } from "./dom.js";
import { aimOf, key, legalTarget, targetWords, type PlannedAction, type Side } from "./battle_aim.js";
import type { BattleActions, BattleDraft } from "./battle_draft.js";
import { formationPanel, handPanel } from "./battle_hand.js";
import { cardName, learnCardNames, logEntry } from "./battle_log.js";
import { battleResult, marksLine, reservedLine, spdLine, suddenDeathLine } from "./battle_lines.js";
export type { PlannedAction } from "./battle_aim.js";
import {
  BattleStatus,
  type BattleCard,
  type BattleTeamView,
  type BattleUnit,
  type BattleView,
} from "./gen/triad/v1/common_pb.js";

/** The plan committed, each card with where it aims as it was tapped ("Spark → their
 * Kira Volt"), as the terminal's screen says it (BATTLE.md 6: a player sees their own
 * plan); a card no longer in the hand by its name alone. */
function committedWords(view: BattleView): string[] {
  const hand = new Map((view.you?.hand ?? []).map((card) => [card.id, card]));
  return view.plan.map((action) => {
    const card = hand.get(action.card);
    if (!card) return cardName(action.card);
    return `${card.name}${targetWords(view, { card, row: action.target?.row, col: action.target?.col })}`;
  });
}

/** A summon has no SPD: it acts every turn after the characters, in placement order,
 * whatever its action's group (BATTLE.md 4.4). Its square says so where a character's
 * says its SPD; the server's 0 read "spd 0". The SPD line leaves summons out, as the
 * terminal's screen does. */
const SUMMON_ACTS = "summon · acts after characters";

function unitCell(unit: BattleUnit): HTMLElement[] {
  const marks: string[] = [unit.summon ? SUMMON_ACTS : `spd ${unit.spd}`];
  if (unit.shield) marks.push(`shield ${unit.shield}`);
  if (unit.cover) marks.push(`cover ${unit.cover}`);
  if (unit.burn) marks.push(`burn ${unit.burn}`);
  const percent = unit.maxHp ? Math.round((100 * unit.hp) / unit.maxHp) : 0;
  const bar = el("meter", { class: "hp-bar", min: "0", max: String(unit.maxHp), value: String(unit.hp) });
  bar.title = `${percent}%`;
  return [
    el("span", { class: "unit-name" }, unit.name),
    el("span", { class: "hp" }, `${unit.hp}/${unit.maxHp}`),
    bar,
    el("span", { class: "marks" }, marks.join(" · ")),
  ];
}

/** One team's field: a 3x3 grid of buttons, front column towards the other field. */
function field(view: BattleView, side: Side, draft: BattleDraft, on: BattleActions): HTMLElement {
  const team = side === "mine" ? view.you : view.opponent;
  const units = new Map<string, BattleUnit>();
  for (const unit of team?.units ?? []) if (unit.square) units.set(key(unit.square.row, unit.square.col), unit);
  const forming = view.status === BattleStatus.FORMATION && side === "mine" && !view.you?.committed;
  const characters = (view.you?.units ?? []).filter((u) => !u.summon);
  const grid = el("div", { class: `field ${side}`, "data-testid": `field-${side}` });
  const columns = side === "mine" ? [2, 1, 0] : [0, 1, 2];
  for (const row of [0, 1, 2]) {
    for (const col of columns) {
      const node = el("button", { type: "button", class: "square", "data-row": String(row), "data-col": String(col) });
      const placed = draft.formation.findIndex((s) => s.row === row && s.col === col);
      const unit = units.get(key(row, col));
      if (forming && draft.formation.length > 0) {
        // The formation being set replaces the default one on the player's own field.
        if (placed >= 0) {
          node.classList.add("unit", "placed");
          node.append(el("span", { class: "unit-name" }, characters[placed]?.name ?? "?"));
        }
      } else if (unit) {
        node.classList.add("unit");
        if (unit.summon) node.classList.add("summon");
        if (unit.hp === 0) node.classList.add("down");
        node.append(...unitCell(unit));
      }
      let enabled = false;
      if (forming) {
        enabled = placed < 0 && draft.formation.length < 3;
        node.addEventListener("click", () => {
          draft.formation.push({ row, col });
          on.redraw();
        });
      } else if (draft.aiming) {
        const card = draft.aiming;
        enabled = legalTarget(view, card, side, row, col);
        node.addEventListener("click", () => {
          const aim = aimOf(card);
          const action: PlannedAction = { card };
          if (aim !== "enemy-col") action.row = row;
          if (aim !== "enemy-row") action.col = col;
          draft.plan.push(action);
          draft.aiming = null;
          on.setPlan(draft.plan);
          on.redraw();
        });
      }
      node.disabled = !enabled;
      if (enabled) node.classList.add("target");
      grid.append(node);
    }
  }
  return grid;
}

function teamLine(label: string, team: BattleTeamView | undefined, hidden: boolean): HTMLElement {
  const words = [`${label} ${team?.name || "?"}`, `Energy ${team?.energy ?? 0}`, `hand ${team?.handSize ?? 0}`];
  if (team?.cpu && team.name !== "CPU") words.push("played by the CPU");
  if (team?.committed && hidden) words.push("ready");
  // Down: 0 HP, off the field (before turn 1 the opponent's units have no square: hidden).
  const down = (team?.units ?? []).filter((u) => !u.summon && !u.square && !u.hp).map((u) => u.name);
  if (down.length) words.push(`down: ${down.join(", ")}`);
  return el("p", { class: "team-line" }, words.join(" · "));
}

/** Said to a player whose seat the CPU took over: they lost, and may watch (BATTLE.md 5). */
const AWAY = "You were away too long: the CPU plays for you, and this battle is lost. You may watch it to the end.";

/** Give up (asked twice), or End the battle against a seat whose player left; none
 * for a player whose seat the CPU took (BATTLE.md 5: they may watch, not give up). */
function quitControls(view: BattleView, draft: BattleDraft, on: BattleActions, left: boolean): HTMLElement | null {
  if (view.you?.cpu) return null;
  if (left) {
    // Giving up against a seat taken over ends the battle as its player's loss (they left).
    const end = el("button", { type: "button", name: "end-battle" }, "End the battle: you win");
    end.addEventListener("click", () => on.giveUp());
    return end;
  }
  if (draft.giveUpAsked) {
    const yes = el("button", { type: "button", name: "give-up-confirm" }, "Yes, give up the battle");
    yes.addEventListener("click", () => on.giveUp());
    const no = el("button", { type: "button", name: "give-up-cancel" }, "Keep fighting");
    no.addEventListener("click", () => {
      draft.giveUpAsked = false;
      on.redraw();
    });
    return el("div", { class: "row" }, yes, no);
  }
  const ask = el("button", { type: "button", name: "give-up" }, "Give up");
  ask.addEventListener("click", () => {
    draft.giveUpAsked = true;
    on.redraw();
  });
  return ask;
}

/** The whole battle screen for ``view``. */
export function battleScreen(view: BattleView, draft: BattleDraft, on: BattleActions): HTMLElement {
  learnCardNames(view);
  const finished = view.status === BattleStatus.FINISHED;
  const forming = view.status === BattleStatus.FORMATION;
  const deadline = view.deadline && !finished ? timestampDate(view.deadline) : null;
  const phase = finished ? "finished" : forming ? "formation" : "selection"; // the terminal's words
  const title = el(
    "p",
    { class: "status", "data-testid": "battle-status", ...(deadline ? { "data-deadline": String(deadline.getTime()) } : {}) },
    `Skirmish · turn ${view.turn}/10 · ${phase}`,
  );
  const sudden = suddenDeathLine(view);
  // BATTLE.md 5: a seat the CPU took over has lost (its player stayed away) while the
  // battle plays on: the one still here is told it is won, and may end it at once.
  const left = Boolean(!finished && !view.you?.cpu && view.opponent?.cpu && view.opponent.name !== "CPU");
  // Give up beside the title (found from outside: under the last turn's log it went
  // below the fold of an 800 px window as the log grew).
  const quit = finished ? null : quitControls(view, draft, on, left);
  const parts: HTMLElement[] = [
    el("div", { class: "battle-head" }, title, ...(quit ? [quit] : [])),
    ...(sudden ? [el("p", { class: "team-line", "data-testid": "battle-sudden-death" }, sudden)] : []),
    teamLine("Opponent", view.opponent, true),
    el(
      "div",
      { class: "fields" },
      el("span", { class: "field-label" }, "Your field, front →"),
      el("span", { class: "field-label" }, `← front, ${view.opponent?.name || "opponent"}`),
      field(view, "mine", draft, on),
      field(view, "theirs", draft, on),
    ),
    teamLine("You", view.you, false),
  ];
  // The fields' facts in words, as the terminal's screen says them (battle_lines.ts).
  const lines: [string, string | null][] = [
    ["battle-marks", marksLine(view)],
    ["battle-spd", spdLine(view)],
    ["battle-reserved", reservedLine(view)],
  ];
  for (const [testid, said] of lines) if (said) parts.push(el("p", { class: "team-line", "data-testid": testid }, said));
  if (left) {
    const said = `${view.opponent?.name} left: the CPU plays on for them, and the battle is yours whatever happens.`;
    parts.push(el("p", { class: "status", "data-testid": "battle-left" }, said));
  }
  // BATTLE.md 5: away, the CPU takes the seat at a time (found from outside: not told).
  const away = !finished && view.opponent?.takeoverTime ? timestampDate(view.opponent.takeoverTime) : null;
  if (away) {
    const said = `${view.opponent?.name} is away: the CPU takes their seat at ${away.toLocaleTimeString()} unless they come back`;
    parts.push(el("p", { class: "status away", "data-testid": "battle-away", "data-deadline": String(away.getTime()) }, said));
  }
  if (finished) {
    parts.push(el("p", { class: "status result", "data-testid": "battle-result" }, battleResult(view)));
  } else if (view.you?.committed || view.you?.cpu) {
    const waiting = forming ? "Formation set: waiting for the opponent" : "Plan committed: waiting for the opponent";
    parts.push(el("p", { class: "status", "data-testid": "battle-prompt" }, view.you?.cpu ? AWAY : waiting));
    if (view.plan.length) parts.push(el("p", { class: "team-line" }, `Your plan: ${committedWords(view).join(", ")}`));
  } else {
    parts.push(forming ? formationPanel(view, draft, on) : handPanel(view, draft, on));
  }
  // The last turn shown whole, in a turn as at the end (found from outside: on a phone its
  // last lines were under a scroll box's fold, with no sign that it scrolled).
  const log = el("ol", { class: "battle-log", "data-testid": "battle-log" }, ...view.log.map((e) => el("li", {}, logEntry(view, e))));
  if (view.log.length) parts.push(el("h2", {}, finished ? "The last turn" : `Turn ${Math.max(1, view.turn - 1)}`), log);
  if (finished) {
    const back = el("button", { type: "button", name: "battle-lobby" }, "Back to the lobby");
    back.addEventListener("click", () => on.leave());
    parts.push(back);
  }
  return el("section", { class: "battle", "data-testid": "battle", "data-status": phase }, ...parts);
}
