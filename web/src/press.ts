// A press under way (a finger or a mouse button down, not yet up) holds the page's next
// drawing until it ends. The page is drawn anew on every push; drawn between the press's
// down and its up, the two land on different nodes and the browser sends no click at
// all: the tap is lost. Found by CI: a tap on a square of the battle's formation,
// lost to the push of the CPU's own formation. A press held longer than HOLD_MS (its
// end never seen) lets the drawing go.
const HOLD_MS = 5_000;

const press = { down: false, timer: 0, draw: null as (() => void) | null };

/** Whether ``draw`` waits for the press under way (it runs once the press ends). */
export function heldByPress(draw: () => void): boolean {
  if (!press.down) return false;
  press.draw = draw;
  return true;
}

function ended(): void {
  window.clearTimeout(press.timer);
  press.down = false;
  const draw = press.draw;
  press.draw = null;
  // After the click this press makes: it is dispatched in the same task as the up.
  if (draw) window.setTimeout(draw, 0);
}

document.addEventListener(
  "pointerdown",
  () => {
    press.down = true;
    window.clearTimeout(press.timer);
    press.timer = window.setTimeout(ended, HOLD_MS);
  },
  true,
);
for (const end of ["pointerup", "pointercancel"]) document.addEventListener(end, ended, true);
