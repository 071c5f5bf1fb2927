// Controls the lobby's panels share: a button that runs an action through the page (its
// refusal shown, the page drawn again) and a select of labelled values.
import { el } from "./board.js";
import type { Page } from "./skirmish.js";

export function actionButton(
  label: string,
  name: string,
  page: Page,
  action: () => Promise<void>,
): HTMLButtonElement {
  const node = el("button", { type: "button", name }, label);
  node.addEventListener("click", () => void page.act(action));
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
