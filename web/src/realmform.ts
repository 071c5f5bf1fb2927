// The Realm Triad choices of the lobby (RULES.md 17): the host form's (a Realm table and
// the modules it picks besides Same, Plus and Combo, sent as Rules.family REALM with
// Rules.realm, as the terminal client's `host --realm`) and the practice's (a practice
// against a bot at a 3×3 Realm table, StartPractice with Custom rules). A Realm table
// plays house hands or saved decks, never Random ones: the lobby's saved deck when one is
// chosen, house hands otherwise (tables.ts; RULES.md 11).
import { checkbox } from "./controls.js";
import { el } from "./dom.js";
import { Mode, RulesFamily, TradeRule, Visibility } from "./gen/triad/v1/common_pb.js";
import { cards, deckChoice } from "./cards.js";
import { MODULES, type ModuleName } from "./realm.js";
import type { Page } from "./state.js";

/** A Realm choice: on or off, and the modules ticked; kept across redraws. */
interface RealmChoice {
  on: boolean;
  modules: Record<ModuleName, boolean>;
}

const noModules = (): Record<ModuleName, boolean> => ({
  typeAdvantage: false,
  alignmentClash: false,
  lair: false,
  resistance: false,
  cursed: false,
});

/** The host's Realm choice. */
export const realmChoice: RealmChoice = { on: false, modules: noModules() };
/** The practice's: found from outside, practice against a bot was Unranked only, where
 * the API takes a Realm practice (a Custom one). */
export const practiceRealm: RealmChoice = { on: false, modules: noModules() };

/** Why a 5×5 board and Realm Triad are not offered together (RULES.md 17). */
export const REALM_BOARDS = "Realm tables play on 3×3 or the 4×4 Great Cloth";

/** The host form's "Realm Triad", and once ticked a box for each module; not offered
 * (``allowed`` false) on a board a Realm table never plays. */
export function realmRow(page: Page, allowed = true): HTMLElement {
  return choiceRow(realmChoice, "realm", page, allowed);
}

/** The practice's "Realm Triad" (boxes named practice-realm, practice-realm-lair...). */
export function practiceRealmRow(page: Page): HTMLElement {
  return choiceRow(practiceRealm, "practice-realm", page);
}

function choiceRow(choice: RealmChoice, name: string, page: Page, allowed = true): HTMLElement {
  const realm = checkbox(name, choice.on, (on) => {
    choice.on = on;
    page.render(); // the modules are a Realm table's choice only
  });
  if (!allowed) Object.assign(realm, { disabled: true, title: REALM_BOARDS });
  const row = el("div", { class: "row rules-choice realm-choice", "data-testid": `${name}-choice` });
  row.append(el("label", {}, realm, " Realm Triad"));
  if (!choice.on) return row;
  for (const [module, label] of MODULES) {
    const box = checkbox(`${name}-${module}`, choice.modules[module], (on) => void (choice.modules[module] = on));
    row.append(el("label", {}, box, ` ${label}`));
  }
  return row;
}

/** The Rules fields of the host's choice: the Realm family and its modules, or nothing. */
export function realmRules() {
  return realmChoice.on ? { family: RulesFamily.REALM, realm: { ...realmChoice.modules } } : {};
}

/** What a practice plays: Unranked's rules with the lobby's deck; or, Realm ticked, a
 * 3×3 Realm table's with Unranked's visibility, Same, Plus and Combo and the modules
 * ticked, never trading, with the lobby's saved deck or else house hands (the server
 * refuses a Random deck there). */
export function practiceRules() {
  if (!practiceRealm.on) return { originMode: Mode.UNRANKED, deck: deckChoice() };
  const house = !cards.deckId;
  return {
    originMode: Mode.CUSTOM,
    deck: house ? undefined : deckChoice(),
    customSettings: {
      rules: {
        visibility: Visibility.THREE_OPEN,
        same: true,
        plus: true,
        combo: true,
        tradeRule: TradeRule.NONE,
        houseHands: house,
        board: { rows: 3, columns: 3 },
        family: RulesFamily.REALM,
        realm: { ...practiceRealm.modules },
      },
    },
  };
}
