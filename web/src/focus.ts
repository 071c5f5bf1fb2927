// Every change draws the page again (main.ts), which would drop the keyboard focus and,
// in a text box, the caret: a push arriving while a player types a name took the focus
// and the next keystrokes with it, and a keyboard player started over from the top after
// every card picked. The focused control is found again in the new page by what names it
// (its name and data attributes, under the nearest named container) and focused.

/** The attributes that name a control or its container (never a changing one). */
const KEYS = [
  "name",
  "data-testid",
  "data-card",
  "data-cell",
  "data-copy",
  "data-row",
  "data-col",
  "data-slot",
  "data-listing",
  "data-deck",
  "data-table",
  "data-booster",
];

function part(node: Element): string {
  const keys = KEYS.filter((key) => node.hasAttribute(key));
  if (!keys.length) return "";
  return node.tagName.toLowerCase() + keys.map((key) => `[${key}="${CSS.escape(node.getAttribute(key)!)}"]`).join("");
}

export interface Focus {
  selector: string;
  start: number | null;
  end: number | null;
}

/** The focused control inside ``root``, or null (nothing, or nothing that names it). */
export function keepFocus(root: HTMLElement): Focus | null {
  const node = document.activeElement;
  if (!(node instanceof HTMLElement) || !root.contains(node) || node === root) return null;
  const self = part(node);
  if (!self) return null;
  let outer = node.parentElement;
  while (outer && outer !== root && !part(outer)) outer = outer.parentElement;
  const selector = outer && outer !== root ? `${part(outer)} ${self}` : self;
  const text = node instanceof HTMLInputElement && ["text", "search", "password", ""].includes(node.type);
  return {
    selector,
    start: text ? (node as HTMLInputElement).selectionStart : null,
    end: text ? (node as HTMLInputElement).selectionEnd : null,
  };
}

/** Focus the control ``kept`` named, as drawn again inside ``root`` (when it still can be). */
export function restoreFocus(root: HTMLElement, kept: Focus | null): void {
  if (!kept) return;
  const node = root.querySelector<HTMLElement>(kept.selector);
  if (!node || (node as HTMLButtonElement).disabled) return;
  node.focus({ preventScroll: true });
  if (node instanceof HTMLInputElement && kept.start !== null) node.setSelectionRange(kept.start, kept.end);
}
