// The one DOM helper every screen draws with: an element with its attributes and
// children. Its own module so that the parts of the match screen (realm.ts, rounds.ts)
// draw without importing board.ts, which imports them.

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  node.append(...children);
  return node;
}
