// The host form's Realm Triad choice (RULES.md 17): a Realm table and the modules it
// picks besides Same, Plus and Combo, sent as Rules.family REALM with Rules.realm (as
// the terminal client's `host --realm`). A Realm table plays house hands or saved decks,
// never Random ones: at 3×3 the host brings the lobby's saved deck when one is chosen,
// and deals house hands otherwise (tables.ts).
import { checkbox } from "./controls.js";
import { el } from "./dom.js";
import { RulesFamily } from "./gen/triad/v1/common_pb.js";
import { MODULES, type ModuleName } from "./realm.js";
import type { Page } from "./state.js";

/** The host's Realm choice, kept across redraws. */
export const realmChoice = {
  on: false,
  modules: { typeAdvantage: false, alignmentClash: false, lair: false, resistance: false, cursed: false } as Record<
    ModuleName,
    boolean
  >,
};

/** "Realm Triad", and once ticked a box for each module. */
export function realmRow(page: Page): HTMLElement {
  const realm = checkbox("realm", realmChoice.on, (on) => {
    realmChoice.on = on;
    page.render(); // the modules are a Realm table's choice only
  });
  const row = el("div", { class: "row rules-choice realm-choice", "data-testid": "realm-choice" });
  row.append(el("label", {}, realm, " Realm Triad"));
  if (!realmChoice.on) return row;
  for (const [name, label] of MODULES) {
    const box = checkbox(`realm-${name}`, realmChoice.modules[name], (on) => void (realmChoice.modules[name] = on));
    row.append(el("label", {}, box, ` ${label}`));
  }
  return row;
}

/** The Rules fields of the choice: the Realm family and its modules, or nothing. */
export function realmRules() {
  return realmChoice.on ? { family: RulesFamily.REALM, realm: { ...realmChoice.modules } } : {};
}
