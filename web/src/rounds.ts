// Sudden Death rounds on the match screen (RULES.md 12): which round is being played,
// "Round 2 of at most 5", and how each earlier round ended ("Round 1: 5–5, you placed
// first"), from the view's round number and earlier rounds. A Realm table's Sudden Death
// plays no rounds (its draw pile is in realm.ts's panel).
import { el } from "./dom.js";
import { Seat, type MatchView, type RoundResult } from "./gen/triad/v1/common_pb.js";
import { isRealm } from "./realm.js";

/** Sudden Death plays at most five rounds (RULES.md 12, Decision). */
export const MAX_ROUNDS = 5;

/** "Round 2 of at most 5"; empty when the match plays no rounds. */
export function roundLine(view: MatchView): string {
  const number = view.roundNumber || 1; // 0 from a server before rounds means 1
  if ((!view.rules?.suddenDeath || isRealm(view.rules)) && number === 1) return "";
  return `Round ${number} of at most ${MAX_ROUNDS}`;
}

/** "Round 1: 5–5, you placed first" (the viewer's score first). */
export function earlierRoundLine(view: MatchView, round: RoundResult): string {
  const a = round.scores?.seatA ?? 0;
  const b = round.scores?.seatB ?? 0;
  const [mine, theirs] = view.mySeat === Seat.B ? [b, a] : [a, b];
  const first = round.firstSeat === view.mySeat ? "you" : "they";
  return `Round ${round.roundNumber}: ${mine}–${theirs}, ${first} placed first`;
}

/** The round over the board with the earlier rounds under it; null without rounds.
 * Their final boards are ``finalBoards``, in the board's box. */
export function roundsPanel(view: MatchView): HTMLElement | null {
  const line = roundLine(view);
  if (!line) return null;
  const earlier = view.earlierRounds.map((r) => el("li", { "data-round": String(r.roundNumber) }, earlierRoundLine(view, r)));
  return el(
    "div",
    { class: "rounds", "data-testid": "rounds", "data-round": String(view.roundNumber || 1) },
    el("strong", { "data-testid": "round" }, line),
    ...(earlier.length ? [el("ol", { class: "earlier-rounds", "data-testid": "earlier-rounds" }, ...earlier)] : []),
  );
}

/** The matches whose final boards the player opened: kept open across redraws. */
const opened = new Set<string>();

/** Each earlier round's final board with the move that filled it (RULES.md 12: views
 * show each round's final board), drawn once opened (``drawBoard``: board.ts's grid,
 * read-only): closed, it takes one line of the screen, and none of its cells stands
 * among the match board's. In the board's box: at a desk it opens beside the board, in
 * the room the square board leaves (style.css; found from outside: opened over it, it
 * left a 5x5 board 150 px, its values on top of each other); "" without earlier rounds. */
export function finalBoards(view: MatchView, drawBoard: (round: RoundResult) => HTMLElement): HTMLElement | "" {
  if (!roundLine(view) || !view.earlierRounds.length) return "";
  const count = view.earlierRounds.length;
  const summary = count > 1 ? `The ${count} earlier rounds' final boards` : "Round 1's final board";
  const shown = el("details", { class: "final-boards", "data-testid": "final-boards" }, el("summary", {}, summary));
  const fill = () => {
    if (shown.querySelector(".board")) return;
    for (const round of view.earlierRounds) {
      // Which round each board is, where there are several (the list above says one).
      if (count > 1) shown.append(el("p", {}, earlierRoundLine(view, round)));
      shown.append(drawBoard(round));
    }
  };
  shown.addEventListener("toggle", () => {
    if (shown.open) {
      opened.add(view.matchId);
      fill();
    } else opened.delete(view.matchId);
  });
  if (opened.has(view.matchId)) {
    shown.open = true;
    fill();
  }
  return shown;
}
