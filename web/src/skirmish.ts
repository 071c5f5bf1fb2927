// Skirmish's part of the page: the battle shown and the plan being set, its calls to the
// gateway (start a practice battle against the CPU, resume one, show one joined at a
// battle table, formation, plan, give up) and the session's battle pushes. main.ts shows it instead of the lobby while a
// battle is shown; battle.ts draws the screen.
import { api, authed, requestId } from "./api.js";
import { battleScreen, type PlannedAction } from "./battle.js";
import { freshDraft } from "./battle_draft.js";
import { putAwayMatch, state, type Page } from "./state.js";
import { BattleBotLevel, BattleStatus, MatchStatus, type BattleView } from "./gen/triad/v1/common_pb.js";

const shown = { battle: null as BattleView | null, draft: freshDraft() };

/** The CPU's level chosen in the lobby, kept across redraws. */
export const lobbyChoice = { level: BattleBotLevel.GREEDY };

export function shownBattle(): BattleView | null {
  return shown.battle;
}

/** Back to the lobby (or logged out): nothing shown. */
export function forgetBattle(): void {
  shown.battle = null;
  shown.draft = freshDraft();
}

/** A newer view of the battle shown (or the first): a new phase or turn clears the plan,
 * or takes the plan set on the server (SetPlan) when there is one (after a reload). */
function show(view: BattleView): void {
  const before = shown.battle;
  if (before && before.battleId === view.battleId && before.version >= view.version) return;
  if (before && before.battleId !== view.battleId && before.status !== BattleStatus.FINISHED) return;
  const same = before?.battleId === view.battleId && before.turn === view.turn && before.status === view.status;
  if (!same) {
    shown.draft = freshDraft();
    shown.draft.plan = setPlanned(view);
  }
  shown.battle = view;
}

/** The view's plan set and not committed, as the screen keeps a plan. */
function setPlanned(view: BattleView): PlannedAction[] {
  const hand = new Map((view.you?.hand ?? []).map((card) => [card.id, card]));
  const plan: PlannedAction[] = [];
  for (const action of view.setActions) {
    const card = hand.get(action.card);
    if (card) plan.push({ card, row: action.target?.row, col: action.target?.col });
  }
  return plan;
}

/** Plans set one after another, so the server's last is the screen's last. */
let setting: Promise<void> = Promise.resolve();

export async function startBattle(level: BattleBotLevel): Promise<void> {
  const reply = await authed(() => api.startPracticeBattle({ requestId: requestId(), botLevel: level }));
  if (reply.view) show(reply.view);
}

/** A battle joined (a battle table, BATTLE.md 6): its id is the table's match id. */
export async function openBattle(battleId: string): Promise<void> {
  const reply = await authed(() => api.getBattleView({ battleId }));
  if (reply.view) show(reply.view);
}

/** The battle in progress (after a reload or a new session), if there is one. */
export async function resumeBattle(): Promise<void> {
  const active = await authed(() => api.getActiveBattle({}));
  if (!active.battleId) return;
  await openBattle(active.battleId);
}

/** The last battle push noted in the log. */
const lastNoted = { battleId: "", words: "" };

/** The session's ``battle`` push: noted when new, shown when it is the battle's newest.
 * A battle the player is seated in (their challenge accepted) takes the place of a
 * finished match still on the screen, as main.ts's followBattle does for one joined; a
 * match in progress keeps its place (no one plays both at once). */
export function battlePush(view: BattleView, page: Page): void {
  noteBattle(view, page);
  show(view);
  if (shown.battle === view && view.you && state.view?.status === MatchStatus.FINISHED) putAwayMatch();
}

/** The battle's turn and phase in the session's list, once each: each plan set or
 * readiness is a new version of the same turn, and the log read "turn 1, selection" two
 * or three times in the same second. */
function noteBattle(view: BattleView, page: Page): void {
  const before = shown.battle;
  const words = `battle: turn ${view.turn}, ${BattleStatus[view.status].toLowerCase()}`;
  if ((before?.battleId !== view.battleId || before.version < view.version) && (words !== lastNoted.words || view.battleId !== lastNoted.battleId)) {
    page.note(words);
    Object.assign(lastNoted, { battleId: view.battleId, words });
  }
}

export function battlePanel(view: BattleView, page: Page): HTMLElement {
  // A reply's view is the caller's only copy (no push follows it): noted as a push's
  // (found from outside: a battle ended by the player's commit was never said ended).
  const call = (action: () => Promise<{ view?: BattleView }>) =>
    void page.act(async () => {
      const reply = await authed(action);
      if (reply.view) {
        noteBattle(reply.view, page);
        show(reply.view);
      }
    });
  const battleId = view.battleId;
  return battleScreen(view, shown.draft, {
    redraw: page.render,
    setFormation: (squares) => call(() => api.setFormation({ requestId: requestId(), battleId, squares })),
    setPlan: (plan: PlannedAction[]) => {
      const actions = plan.map((a) => ({ character: a.card.owner, card: a.card.id, target: { row: a.row, col: a.col } }));
      setting = setting.then(() =>
        page.act(async () => {
          const reply = await authed(() => api.setPlan({ requestId: requestId(), battleId, turn: view.turn, actions }));
          if (reply.view) show(reply.view); // the same turn: the plan on the screen stays
        }),
      );
    },
    commit: (plan: PlannedAction[]) =>
      call(() =>
        api.commitPlan({
          requestId: requestId(),
          battleId,
          turn: view.turn,
          actions: plan.map((a) => ({ character: a.card.owner, card: a.card.id, target: { row: a.row, col: a.col } })),
        }),
      ),
    giveUp: () => call(() => api.giveUp({ requestId: requestId(), battleId })),
    leave: () => {
      forgetBattle();
      page.render();
    },
  });
}
