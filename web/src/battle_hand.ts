// The player's panel of a Skirmish screen (battle.ts): before turn 1 the formation and
// the hand drawn for turn 1 (shown to plan by, as the terminal shows it); each turn the
// hand, whose cards say why one cannot be played, and the plan being set, each card
// with when it acts (BATTLE.md 4.3: a character acts in the group of its first card set
// this turn, and its cards follow in the order set).
import { el } from "./dom.js";
import { aimOf, rangeWords, targetWords, type PlannedAction } from "./battle_aim.js";
import type { BattleActions, BattleDraft } from "./battle_draft.js";
import type { BattleCard, BattleView } from "./gen/triad/v1/common_pb.js";

/** When a group acts, in the player's words (BATTLE.md 1: swift "acts first", slow
 * "acts last"). */
export const WHEN: Record<string, string> = {
  swift: "acts first (swift)",
  normal: "acts in the middle (normal)",
  slow: "acts last (slow)",
};

const when = (group: string): string => WHEN[group] ?? `acts ${group}`;

/** What the star of a Special means (BATTLE.md 1: unlocked at a turn end, used once). */
const SPECIAL = "Special: unlocked in battle by its condition, used once";

/** Under the hand: the star, and which group a character acts in. */
const LEGEND =
  "★ Special: unlocked in battle, used once. A character acts in the group of its first card " +
  "set this turn (swift first, then normal, slow last); its other cards follow it in the order set.";

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A card's name (a Special's star explained), cost, who plays it and how, and what it does. */
function cardParts(card: BattleCard, names: Map<string, string>): HTMLElement[] {
  const star = card.special ? [" ", el("span", { class: "special", title: SPECIAL, "aria-label": SPECIAL }, "★")] : [];
  const name = el("span", {}, card.name, ...star);
  return [
    el("span", { class: "skill-head" }, name, el("b", {}, `${card.cost}E`)),
    el("span", { class: "skill-who" }, `${names.get(card.owner) ?? card.owner} · ${rangeWords(card)} · ${card.group}`),
    // Every card's CT, cooling or not (found from outside: seen only once the card cooled).
    el("span", { class: "skill-text" }, ...ctParts(card), card.text),
  ];
}

/** "CT 1 · " (a card's cooldown, BATTLE.md 1), "on CT 1 more turn · " while it cools. */
function ctParts(card: BattleCard): (string | HTMLElement)[] {
  if (card.cooling) return [el("b", { class: "cooling" }, `on CT ${plural(card.cooling, "more turn")}`), " · "];
  if (!card.ct) return [];
  const title = `Cooldown: once played, it rests ${plural(card.ct, "turn")}`;
  return [el("span", { class: "ct", title }, `CT ${card.ct}`), " · "];
}

const ownerNames = (view: BattleView): Map<string, string> => new Map((view.you?.units ?? []).map((u) => [u.ref, u.name]));

/** Why a card of the hand cannot be set now, in words; "" when it can (or is set). */
function whyNot(card: BattleCard, left: number, alive: Set<string>, names: Map<string, string>): string {
  if (!alive.has(card.owner)) return `${names.get(card.owner) ?? card.owner} is down`;
  if (card.cooling) return `on CT for ${plural(card.cooling, "more turn")}`;
  if (card.cost > left) return `needs ${card.cost} Energy, ${left} left`;
  return "";
}

/** Each action of the plan with when it acts: the character's first card sets its group
 * ("Tor Bastion acts first (swift)"), its later ones go with it ("a slow card: acts first
 * (swift), with Tor Bastion's first card"). */
export function planWhen(plan: PlannedAction[], names: Map<string, string>): string[] {
  const groups = new Map<string, string>();
  return plan.map(({ card }) => {
    const who = names.get(card.owner) ?? card.owner;
    const group = groups.get(card.owner);
    if (group === undefined) {
      groups.set(card.owner, card.group);
      return `${who} ${when(card.group)}`;
    }
    const own = card.group === group ? "" : `a ${card.group} card: `;
    return `${own}${when(group)}, with ${who}'s first card`;
  });
}

export function handPanel(view: BattleView, draft: BattleDraft, on: BattleActions): HTMLElement {
  const spent = draft.plan.reduce((sum, action) => sum + action.card.cost, 0);
  const left = (view.you?.energy ?? 0) - spent;
  const alive = new Set((view.you?.units ?? []).filter((u) => u.square && !u.summon).map((u) => u.ref));
  const names = ownerNames(view);
  const hand = el("div", { class: "battle-hand", "data-testid": "battle-hand" });
  for (const card of view.you?.hand ?? []) {
    const set = draft.plan.some((a) => a.card.id === card.id);
    const why = set ? "" : whyNot(card, left, alive, names);
    const usable = !set && !why && !draft.aiming;
    const node = el("button", { type: "button", class: "skill", "data-card": card.id, "data-range": card.range }, ...cardParts(card, names));
    if (why) {
      node.title = `Cannot be played: ${why}`;
      node.append(el("span", { class: "skill-why" }, why));
    }
    if (set) node.classList.add("set");
    if (draft.aiming?.id === card.id) node.classList.add("selected");
    node.disabled = !usable;
    node.addEventListener("click", () => {
      if (aimOf(card) === "none") {
        draft.plan.push({ card });
        on.setPlan(draft.plan);
      } else draft.aiming = card;
      on.redraw();
    });
    hand.append(node);
  }
  const plan = el("ol", { class: "plan", "data-testid": "plan" });
  const said = planWhen(draft.plan, names);
  draft.plan.forEach((action, index) => {
    const drop = el("button", { type: "button", class: "drop", "aria-label": "remove" }, "×");
    drop.addEventListener("click", () => {
      draft.plan.splice(index, 1);
      on.setPlan(draft.plan);
      on.redraw();
    });
    const acts = el("span", { class: "plan-when" }, `· ${said[index]}`);
    plan.append(el("li", {}, `${action.card.name} (${action.card.cost}E)${targetWords(view, action)} `, acts, " ", drop));
  });
  const commit = el("button", { type: "button", name: "commit" }, draft.plan.length ? "Commit the plan" : "Pass the turn");
  commit.disabled = draft.aiming !== null;
  commit.addEventListener("click", () => on.commit(draft.plan));
  const buttons = el("div", { class: "row" }, commit);
  if (draft.aiming) {
    const cancel = el("button", { type: "button", name: "cancel-aim" }, "Cancel");
    cancel.addEventListener("click", () => {
      draft.aiming = null;
      on.redraw();
    });
    buttons.append(cancel);
  }
  // Commit (or Cancel an aim) beside the prompt, over the hand: within reach however
  // long the plan (found from outside: under a plan of three, at a 1280x720 desk, it
  // stood below the window's bottom).
  return el(
    "div",
    { class: "battle-plan" },
    el(
      "div",
      { class: "plan-head" },
      el("p", { class: "status", "data-testid": "battle-prompt" }, draft.aiming ? `${draft.aiming.name}: tap its target` : `Your plan: ${left} Energy left`),
      buttons,
    ),
    hand,
    el("p", { class: "battle-legend", "data-testid": "battle-legend" }, LEGEND),
    plan,
  );
}

/** Before turn 1: three squares tapped (or none: the front column), then the hand drawn
 * for turn 1, to plan the formation by (not playable yet). */
export function formationPanel(view: BattleView, draft: BattleDraft, on: BattleActions): HTMLElement {
  const characters = (view.you?.units ?? []).filter((u) => !u.summon);
  const next = characters[draft.formation.length];
  const set = el("button", { type: "button", name: "formation" }, draft.formation.length ? "Set the formation" : "Keep the front column");
  set.disabled = draft.formation.length > 0 && draft.formation.length < 3;
  // None tapped: the default formation, the front column (BATTLE.md 2).
  const front = [0, 1, 2].map((row) => ({ row, col: 0 }));
  set.addEventListener("click", () => on.setFormation(draft.formation.length ? draft.formation : front));
  const clear = el("button", { type: "button", name: "clear-formation" }, "Start again");
  clear.addEventListener("click", () => {
    draft.formation = [];
    on.redraw();
  });
  const prompt = next
    ? `Tap a square of your field for ${next.name}`
    : "Your formation is tapped: press Set the formation before the clock runs out, or the front column is played";
  const parts: HTMLElement[] = [el("p", { class: "status", "data-testid": "battle-prompt" }, prompt), el("div", { class: "row" }, set, clear)];
  const cards = view.you?.hand ?? [];
  if (cards.length) {
    const names = ownerNames(view);
    const hand = el("div", { class: "battle-hand", "data-testid": "battle-hand" });
    for (const card of cards) hand.append(el("div", { class: "skill", "data-card": card.id, "data-range": card.range }, ...cardParts(card, names)));
    parts.push(el("p", { class: "team-line" }, "Your hand for turn 1 (played from turn 1):"), hand, el("p", { class: "battle-legend", "data-testid": "battle-legend" }, LEGEND));
  }
  return el("div", { class: "battle-plan" }, ...parts);
}
