// Controls the lobby's panels share: a screen's frame, a button that runs an action
// through the page (its refusal shown, the page drawn again), a select of labelled
// values, a checkbox and a control captioned above (a row of filters).
import { el } from "./dom.js";
import type { Page } from "./state.js";

/** A screen shown instead of the lobby: its title over a row of controls. */
export function screenFrame(name: string, title: string, ...controls: (Node | string)[]): HTMLElement {
  return el("section", { class: name, "data-testid": name }, el("h1", {}, title), el("div", { class: "row" }, ...controls));
}

export function actionButton(
  label: string,
  name: string,
  page: Page,
  action: () => Promise<void>,
): HTMLButtonElement {
  return onceAtATime(label, name, (run) => page.act(run), action);
}

/** The buttons whose action is under way (by name and label): drawn disabled until it
 * ends, so a double click buys one booster and opens one table, not two. */
const running = new Set<string>();
/** The button (by name and label) pressed last. */
let pressedLast = "";

/** A button running ``action`` through ``act`` (which draws the page after it), and
 * not again while it runs, whatever the redraws meanwhile. */
export function onceAtATime(
  label: string,
  name: string,
  act: (action: () => Promise<void>) => Promise<void>,
  action: () => Promise<void>,
): HTMLButtonElement {
  const key = `${name}\n${label}`;
  const node = el("button", { type: "button", name }, label);
  node.disabled = running.has(key);
  node.addEventListener("click", (event) => {
    // The second click of a double click on this same button is no new press: on a
    // busy machine it came after the first one's action had ended and the button was
    // enabled again, and bought a second booster (found by CI). The browser counts a
    // click as a double click's (detail 2) only within its double-click interval, so
    // no clock of ours is needed (one was, and under load the page's own redraw could
    // outlast it). Taps on two different buttons in quick succession (a phone counts
    // them as one double tap) each still act.
    const again = event.detail > 1 && pressedLast === key;
    if (running.has(key) || again) return;
    pressedLast = key;
    running.add(key);
    node.disabled = true;
    void act(async () => {
      try {
        await action();
      } finally {
        running.delete(key); // before act draws the page again
      }
    });
  });
  return node;
}

/** A select of ``[value, label]`` options showing ``current``, telling ``change``. */
export function select(
  name: string,
  options: [string, string][],
  current: string,
  change: (value: string) => void,
): HTMLSelectElement {
  const node = el("select", { name });
  for (const [value, label] of options) {
    const option = el("option", { value }, label);
    option.selected = value === current;
    node.append(option);
  }
  node.addEventListener("change", () => change(node.value));
  return node;
}

/** A checkbox named ``name`` showing ``checked``, telling ``change``. */
export function checkbox(name: string, checked: boolean, change: (on: boolean) => void): HTMLInputElement {
  const node = el("input", { type: "checkbox", name });
  node.checked = checked;
  node.addEventListener("change", () => change(node.checked));
  return node;
}

/** ``control`` with its ``caption`` above it (a ``.filters`` grid lines them up). */
export function captioned(caption: string, control: HTMLElement): HTMLLabelElement {
  return el("label", { class: "captioned" }, el("span", {}, caption), control);
}
