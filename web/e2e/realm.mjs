// The Realm Triad and Sudden Death scenarios of web/e2e/play.mjs (its header says what
// each plays). play.mjs lends its players and helpers; each scenario returns what it
// saw, printed by play.mjs as one JSON line.

import { handOf } from "./endings.mjs";

/** The scenarios, on ``kit``: player(), playTurn(), hostAndJoin(), finalScreen() and the
 * screenshot path. */
export function realmScenarios(kit) {
  const { player, playTurn, hostAndJoin, finalScreen, screenshot } = kit;
  return { realm, sudden, realmSmall };

  /** Ann, with no saved deck, hosts a 3×3 Realm table: it deals house hands (RULES.md 11,
   * 17); Bea joins it from the list and both are dealt five cards; Ann forfeits. */
  async function realmSmall() {
    const ann = await player();
    const bea = await player();
    await ann.check("input[name=realm]");
    await ann.check("input[name=realm-lair]"); // a module whose state the board shows
    const { hosted, listed } = await hostAndJoin(ann, bea);
    const players = [ann, bea];
    await Promise.all(players.map((page) => page.waitForSelector("[data-testid=realm]")));
    const hands = await Promise.all(players.map((page) => page.locator(".hand.mine .card").count()));
    const cells = await ann.locator("[data-testid=board] .cell").count();
    const rules = (await ann.textContent(".rules")) ?? "";
    await ann.screenshot({ path: screenshot, fullPage: true });
    await ann.click("button[name=forfeit]");
    await ann.click("button[name=forfeit-confirm]");
    await ann.waitForSelector("[data-testid=result]");
    return { hosted, listed, hands, cells, rules };
  }

  /** Ann hosts a 4×4 Realm table with every module and Realm Sudden Death; Bea joins it
   * from the list; both play it out, the first to move declaring Lair. */
  async function realm() {
    const ann = await player();
    const bea = await player();
    await ann.selectOption("select[name=board]", "4");
    await ann.check("input[name=suddenDeath]");
    await ann.check("input[name=realm]");
    const modules = ["typeAdvantage", "alignmentClash", "lair", "resistance", "cursed"];
    for (const name of modules) await ann.check(`input[name=realm-${name}]`);
    const { hosted, listed } = await hostAndJoin(ann, bea);
    const players = [ann, bea];
    await Promise.all(players.map((page) => page.waitForSelector("[data-testid=realm]")));
    const start = await Promise.all(players.map(realmSeen));
    const tags = await ann.locator(".hand.mine .realm-tag").allTextContents();
    const rules = (await ann.textContent(".rules")) ?? "";
    await ann.screenshot({ path: screenshot.replace(/\.png$/, "-start.png"), fullPage: true });

    // Both play out the match; the first to move declares Lair with their first card.
    const seen = { lines: new Set(), hexes: 0, spentHexes: 0, rot: 0 };
    const moves = [0, 0];
    const offers = [[], []]; // on each turn of each player: was Lair offered?
    let lair = null;
    const deadline = Date.now() + 150_000;
    while (Date.now() < deadline) {
      const over = await Promise.all(players.map((p) => p.locator("[data-testid=result]").count()));
      if (over.every((n) => n > 0)) break;
      let played = false;
      for (const [i, page] of players.entries()) {
        if ((await page.locator(".hand.mine .card:not(:disabled)").count()) === 0) continue;
        offers[i].push(await page.locator("input[name=lair]").count());
        if (!lair) {
          lair = { by: i };
          await page.check("input[name=lair]");
        }
        await playTurn(page);
        moves[i] += 1;
        played = true;
        if (moves[0] + moves[1] === 1) {
          // The Lair just declared, as each side sees it (the other once pushed).
          const told = () =>
            [...document.querySelectorAll("[data-testid=realm] li")].some(
              (n) => n.textContent.startsWith("Lair spent:") && !n.textContent.endsWith("nobody"),
            );
          await Promise.all(players.map((p) => p.waitForFunction(told)));
          lair.after = await Promise.all(players.map(realmSeen));
        }
        for (const other of players) {
          const now = await realmSeen(other);
          now.lines.forEach((line) => seen.lines.add(line));
          seen.hexes = Math.max(seen.hexes, now.hexes);
          seen.spentHexes = Math.max(seen.spentHexes, now.spentHexes);
          seen.rot = Math.max(seen.rot, now.rot);
        }
      }
      if (!played) await ann.waitForTimeout(100);
    }
    const finals = [await finalScreen(ann), await finalScreen(bea)];
    const end = await Promise.all(players.map(realmSeen));
    await ann.screenshot({ path: screenshot, fullPage: true });
    return {
      players: finals,
      hosted,
      listed,
      rules,
      tags,
      start,
      lair,
      end,
      moves,
      offers,
      seen: { ...seen, lines: [...seen.lines] },
    };
  }

  /** What one page shows of the Realm state: the panel's lines, the board's hexes (spent
   * ones too) and Rot marks, the lines of the hands' cards. */
  async function realmSeen(page) {
    return page.evaluate(() => ({
      lines: [...document.querySelectorAll("[data-testid=realm] li")].map((n) => n.textContent),
      hexes: document.querySelectorAll("[data-testid=board] .hex").length,
      spentHexes: document.querySelectorAll("[data-testid=board] .hex.spent").length,
      rot: document.querySelectorAll("[data-testid=board] .rot").length,
      hexNames: [...document.querySelectorAll("[data-testid=board] .hex")].map((n) => n.textContent),
    }));
  }

  /** An All Open Sudden Death table without Same, Plus or Combo, hosted by Ann and joined
   * by Bea; they play a line of moves that ties round 1 5-5 (found here by search from
   * both hands as the pages show them), see round 2 start, and Ann forfeits it. */
  async function sudden() {
    const ann = await player();
    const bea = await player();
    await ann.selectOption("select[name=visibility]", { label: "all open" });
    for (const rule of ["same", "plus", "combo"]) await ann.uncheck(`input[name=${rule}]`);
    await ann.check("input[name=suddenDeath]");
    await ann.click("button[name=host]");
    const hosted = (await ann.textContent("[data-testid=hosted]")) ?? "";
    await bea.click("button[name=tables]");
    const row = bea.locator(`[data-testid=open-tables] li:has-text("${ann.playerName}")`);
    await row.locator("button[name=join]").click();
    const players = [ann, bea];
    await Promise.all(players.map((page) => page.waitForSelector("[data-testid=rounds]")));
    const first = await Promise.race(
      players.map((page) => page.waitForSelector(".hand.mine .card:not(:disabled)").then(() => page)),
    );
    const second = first === ann ? bea : ann;
    const roundOne = await Promise.all(players.map(roundsSeen));
    const hands = [await handOf(first), await handOf(second)];
    const line = tiedLine(hands);
    if (!line) throw new Error(`no line of moves ties these hands: ${JSON.stringify(hands)}`);
    for (const [turn, [cardId, cell]] of line.entries()) {
      const page = turn % 2 === 0 ? first : second;
      await page.waitForSelector(`.hand.mine [data-card="${cardId}"]:not(:disabled)`, { timeout: 30_000 });
      await page.click(`.hand.mine [data-card="${cardId}"]`);
      await page.click(`.cell[data-cell="${cell}"]`);
      await page.waitForFunction(
        (id) =>
          document.querySelector("[data-testid=rounds]")?.getAttribute("data-round") !== "1" ||
          !document.querySelector(`.hand.mine [data-card="${id}"]`),
        cardId,
      );
    }
    await Promise.all(players.map((page) => page.waitForSelector("[data-testid=rounds][data-round='2']")));
    const roundTwo = await Promise.all(players.map(roundsSeen));
    // Round 1's final board, opened under the rounds: full, the filling move marked.
    // At a 1280x720 desk it opens beside the board, which keeps its size (found from
    // outside: opened above it, a 5x5 board was left 150 px wide).
    const phone = ann.viewportSize();
    await ann.setViewportSize({ width: 1280, height: 720 });
    const box = (selector) => ann.evaluate((s) => document.querySelector(s)?.getBoundingClientRect().toJSON(), selector);
    const closedBoard = await box("[data-testid=board]");
    await ann.click("[data-testid=final-boards] summary");
    await ann.waitForSelector("[data-testid=final-board] .cell.last"); // drawn once opened
    const desk = { closed: closedBoard, open: await box("[data-testid=board]"), final: await box("[data-testid=final-board]") };
    await ann.setViewportSize(phone);
    const finalBoard = await ann.evaluate(() => ({
      cells: document.querySelectorAll("[data-testid=final-board] .cell.mine, [data-testid=final-board] .cell.theirs").length,
      last: [...document.querySelectorAll("[data-testid=final-board] .cell.last")].map((n) => Number(n.dataset.cell)),
      board: document.querySelectorAll("[data-testid=board] .cell.mine, [data-testid=board] .cell.theirs").length,
    }));
    await ann.screenshot({ path: screenshot, fullPage: true });
    await ann.click("button[name=forfeit]");
    await ann.click("button[name=forfeit-confirm]");
    const results = [];
    for (const page of players) {
      results.push((await page.textContent("[data-testid=result]", { timeout: 30_000 }))?.trim() ?? "");
    }
    const ended = await Promise.all(players.map(roundsSeen));
    return {
      names: [ann.playerName, bea.playerName],
      firstIsAnn: first === ann,
      hosted,
      line,
      roundOne,
      roundTwo,
      finalBoard,
      desk,
      ended,
      results,
    };
  }

  async function roundsSeen(page) {
    return page.evaluate(() => ({
      round: document.querySelector("[data-testid=round]")?.textContent ?? "",
      earlier: [...document.querySelectorAll("[data-testid=earlier-rounds] li")].map((n) => n.textContent),
      placed: document.querySelectorAll("[data-testid=board] .cell.mine, [data-testid=board] .cell.theirs").length,
      hand: document.querySelectorAll(".hand.mine .card").length,
    }));
  }
}

/** A line of [card id, cell] from the empty 3×3 board to a full one scored 5-5, the
 * first hand's player placing first; basic captures only (no Same, Plus, Combo or
 * Elemental). Depth first, as tests/e2e/test_sudden_death.py's tied_line does. */
export function tiedLine(hands) {
  const board = Array(9).fill(null); // {owner, card}
  const left = hands.map((hand) => hand.map(() => true));
  const neighbours = (cell) => {
    const row = Math.floor(cell / 3);
    const col = cell % 3;
    const out = [];
    if (row > 0) out.push([cell - 3, "top", "bottom"]);
    if (col < 2) out.push([cell + 1, "right", "left"]);
    if (row < 2) out.push([cell + 3, "bottom", "top"]);
    if (col > 0) out.push([cell - 1, "left", "right"]);
    return out;
  };
  let budget = 2_000_000;
  const search = (turn) => {
    if (--budget < 0) return null;
    if (turn === 9) {
      const owned = [0, 1].map((p) => board.filter((c) => c.owner === p).length + left[p].filter(Boolean).length);
      return owned[0] === owned[1] ? [] : null;
    }
    const me = turn % 2;
    for (const [i, card] of hands[me].entries()) {
      if (!left[me][i]) continue;
      for (let cell = 0; cell < 9; cell++) {
        if (board[cell]) continue;
        const flipped = [];
        for (const [other, mine, theirs] of neighbours(cell)) {
          const there = board[other];
          if (there && there.owner !== me && card[mine] > there.card[theirs]) flipped.push(other);
        }
        board[cell] = { owner: me, card };
        left[me][i] = false;
        for (const other of flipped) board[other].owner = me;
        const rest = search(turn + 1);
        for (const other of flipped) board[other].owner = 1 - me;
        left[me][i] = true;
        board[cell] = null;
        if (rest) return [[card.id, cell], ...rest];
      }
    }
    return null;
  };
  return search(0);
}
