// Scenarios of web/e2e/play.mjs about how things end and what the page says meanwhile,
// run by tests/e2e/test_browser_endings.py against a backend with short clocks (a draft
// forfeits after 10 s idle, a turn lasts 3 s). play.mjs lends its players; each scenario
// returns what it saw, printed by play.mjs as one JSON line.
//
//   idleDraft: two players are paired for a Draft; Ann opens boosters, Bea does nothing:
//             Bea's page shows the inactivity clock besides the pick clock, and once
//             she forfeits both pages say who forfeited instead of dropping to the lobby;
//   missedTwice: a practice match whose player misses two turns in a row: the result
//             says so, and the banner about the first miss goes with the match;
//   forfeitedAtOnce: Ann challenges Bea and forfeits before a card is down (5 to 5);
//   tradeBlocked: the same at a Difference table: Ann, refused a practice match while
//             Bea picks her card, is no longer told so once the card has moved;
//   draftPractice: queued alone for a Draft with "random deck", the player practises
//             while she waits;
//   tokenExpired: a player idles in the lobby while her access token expires (3 s, in
//             tests/e2e/test_browser_tokens.py): what her push log and page say;
//   refreshRace: her token expires while the page is busy: the session's refresh is held
//             on its way while she opens her cards (two calls more meet the expiry); then
//             a refresh fails on the way (aborted): what she is told, and how many
//             refreshes were sent (tests/e2e/test_browser_tokens.py);
//   directTie: at a Closed Direct table, the two play a line without a capture (found
//             from both hands as the pages show them): a 5-5 draw, and what Direct moved
//             (tests/e2e/test_browser_outside.py: with 60 s turns, none is missed);
//   oneTie:   the same at a Trade One table: what the result says of the trade.
//   directPlayed: at a Closed Direct table, each plays the first card of the hand on the
//             first empty cell to the end: what each page says moved, each way.

/** The scenarios, on ``kit``: player(), queuedPair() and the screenshot path. */
export function endingScenarios(kit) {
  const { player, queuedPair, screenshot } = kit;
  const directTie = () => tie("trade direct");
  const oneTie = () => tie("trade one");
  return { idleDraft, missedTwice, forfeitedAtOnce, tradeBlocked, draftPractice, tokenExpired, refreshRace, directTie, oneTie, directPlayed };

  async function directPlayed() {
    const { ann, bea, first } = await closedTable("trade direct");
    const players = [ann, bea];
    for (let turn = 0; turn < 9; turn++) {
      const page = turn % 2 === 0 ? first : first === ann ? bea : ann;
      const card = await page.locator(".hand.mine .card:not(:disabled)").first().getAttribute("data-card");
      await page.click(`.hand.mine [data-card="${card}"]:not(:disabled)`);
      await page.click(".cell.empty:not(:disabled)");
      await page.waitForFunction((id) => !document.querySelector(`.hand.mine [data-card="${id}"]`), card);
    }
    const seen = [];
    for (const page of players) {
      await page.waitForSelector("[data-testid=result]");
      await page.waitForSelector("[data-testid=trade]", { timeout: 10_000 }).catch(() => null);
      const trade = await page.locator("[data-testid=trade]").allTextContents();
      seen.push({ name: page.playerName, trade });
    }
    await ann.screenshot({ path: screenshot, fullPage: true });
    return { seen };
  }

  /** Ann hosts a Closed table with ``trade`` and Bea accepts: both seated, and the
   * one to move first. */
  async function closedTable(trade) {
    const ann = await player();
    const bea = await player();
    await ann.selectOption("select[name=visibility]", { label: "closed" });
    await ann.selectOption("select[name=trade]", { label: trade });
    await seated(ann, bea);
    const first = await Promise.race(
      [ann, bea].map((page) => page.waitForSelector(".hand.mine .card:not(:disabled)").then(() => page)),
    );
    return { ann, bea, first };
  }

  async function tie(trade) {
    const { ann, bea, first } = await closedTable(trade);
    const players = [ann, bea];
    const second = first === ann ? bea : ann;
    const line = quietLine([await handOf(first), await handOf(second)]);
    if (!line) throw new Error("no line of moves without a capture for these hands");
    for (const [turn, [cardId, cell]] of line.entries()) {
      const page = turn % 2 === 0 ? first : second;
      await page.click(`.hand.mine [data-card="${cardId}"]:not(:disabled)`);
      await page.click(`.cell[data-cell="${cell}"]`);
      await page.waitForFunction((id) => !document.querySelector(`.hand.mine [data-card="${id}"]`), cardId);
    }
    const seen = [];
    for (const page of players) {
      const result = (await page.textContent("[data-testid=result]"))?.trim() ?? "";
      await page.waitForTimeout(1_000); // a trade's push, if one comes
      const direct = await page.locator("[data-testid=direct], [data-testid=trade]").allTextContents();
      seen.push({ result, direct });
    }
    await ann.screenshot({ path: screenshot, fullPage: true });
    return { seen };
  }

  async function tokenExpired() {
    const page = await player();
    const opened = () => page.locator("[data-testid=pushes] li", { hasText: "session opened" }).count();
    await page.waitForFunction(
      () => [...document.querySelectorAll("[data-testid=pushes] li")].filter((li) => /session opened/.test(li.textContent)).length >= 3,
      undefined,
      { timeout: 30_000 },
    );
    const pushes = await page.locator("[data-testid=pushes] li").allTextContents();
    const errors = await page.locator(".error[role=alert]").allTextContents();
    await page.screenshot({ path: screenshot, fullPage: true });
    return { pushes, errors, opened: await opened() };
  }

  async function refreshRace() {
    const page = await player();
    const sent = [];
    let mode = "hold";
    const opened = () => page.locator("[data-testid=pushes] li", { hasText: "session opened" }).count();
    let openedAtRetry = null; // sessions opened when the refresh after the aborted one left
    await page.route("**/triad.v1.TriadGateway/RefreshToken", async (route) => {
      if (mode === "pass" && sent.at(-1) === "abort") openedAtRetry = await opened();
      sent.push(mode);
      if (mode === "hold") {
        mode = "pass";
        // The session's refresh is on its way: the cards screen's calls meet the expiry.
        await page.click("button[name=cards]");
        await page.waitForTimeout(1_500);
      } else if (mode === "abort") {
        mode = "pass";
        return route.abort("connectionreset");
      }
      return route.continue();
    });
    await page.waitForSelector("[data-testid=balance]", { timeout: 30_000 });
    // A moment for a second refresh, should the screen's calls send one; not a whole
    // second: tokens last 3 s here, and the next expiry's own refresh would be counted.
    await page.waitForTimeout(300);
    const busy = { sent: sent.length, errors: await page.locator(".error[role=alert]").allTextContents() };
    mode = "abort";
    // The next expiry: its refresh aborted, then tried again; the session opens anew after
    // the retry (a session the busy phase's refresh reopened late does not count).
    const retried = async () => openedAtRetry !== null && (await opened()) > openedAtRetry;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !(await retried())) {
      await page.waitForTimeout(250);
    }
    await page.screenshot({ path: screenshot, fullPage: true });
    return {
      busy,
      sent,
      reopened: await retried(),
      errors: await page.locator(".error[role=alert]").allTextContents(),
      loginForm: await page.locator("input[name=password]").count(),
    };
  }

  async function draftPractice() {
    const page = await player();
    await page.selectOption("select[name=mode]", { label: "draft" });
    await page.click("button[name=queue]");
    await page.click("[data-testid=queue] button[name=switch]");
    await page.waitForSelector("[data-testid=board], .error[role=alert]");
    const refusal = await page.locator(".error[role=alert]").allTextContents();
    const hand = await page.locator(".hand.mine .card").count();
    await page.screenshot({ path: screenshot, fullPage: true });
    return { refusal, hand };
  }

  /** Ann challenges Bea to a 3×3 table (the host form as set); both seated. */
  async function seated(ann, bea) {
    await ann.fill("input[name=challenged]", bea.playerName);
    await ann.click("button[name=host]");
    await bea.locator("[data-testid=challenge] button[name=accept]").click();
    await Promise.all([ann, bea].map((page) => page.waitForSelector("[data-testid=match][data-status=playing]")));
  }

  async function missedTwice() {
    const page = await player();
    await page.click("button[name=practice]");
    await page.waitForSelector("[data-testid=notice]:has-text('missed your turn')", { timeout: 30_000 });
    const warned = (await page.textContent("[data-testid=notice]"))?.trim() ?? "";
    const result = (await page.textContent("[data-testid=result]", { timeout: 30_000 }))?.trim() ?? "";
    await page.waitForTimeout(500); // any late push drawn
    const noticeAfter = await page.locator("[data-testid=notice]").allTextContents();
    await page.screenshot({ path: screenshot, fullPage: true });
    return { warned, result, noticeAfter };
  }

  async function forfeitedAtOnce() {
    const ann = await player();
    const bea = await player();
    await seated(ann, bea);
    await ann.click("button[name=forfeit]");
    await ann.click("button[name=forfeit-confirm]");
    const results = [];
    for (const page of [ann, bea]) results.push((await page.textContent("[data-testid=result]"))?.trim() ?? "");
    await bea.screenshot({ path: screenshot, fullPage: true });
    return { names: [ann.playerName, bea.playerName], results };
  }

  async function idleDraft() {
    const [ann, bea] = await queuedPair("draft");
    await Promise.all([ann, bea].map((page) => page.waitForSelector("[data-testid=draft]")));
    await ann.locator("button[name=open-booster]:not(:disabled)").first().click();
    // Both clocks as Bea reads them (the seconds left each shows beside its line).
    const clocks = async () => {
      await bea.waitForTimeout(1_200); // a tick of the page's clock
      return bea.evaluate(() =>
        [...document.querySelectorAll("[data-testid=draft] [data-deadline]")].map((n) => ({
          text: n.textContent.trim(),
          left: n.dataset.left ?? "",
        })),
      );
    };
    const early = await clocks();
    await ann.waitForTimeout(3_000);
    await ann.locator("button[name=open-booster]:not(:disabled)").first().click(); // Ann stays active
    const ended = "[data-testid=draft-end]";
    await Promise.all([ann, bea].map((page) => page.waitForSelector(ended, { timeout: 30_000 })));
    // The rating change comes by push; the end screen says it once it has come.
    const rated = (page) =>
      page.waitForFunction(() => /rating/.test(document.querySelector("[data-testid=draft-end]")?.textContent ?? ""));
    await Promise.all([ann, bea].map(rated)).catch(() => {});
    const said = await Promise.all([ann, bea].map(async (page) => (await page.textContent(ended))?.trim() ?? ""));
    await bea.screenshot({ path: screenshot, fullPage: true });
    await bea.click("button[name=lobby]");
    const back = await bea.locator("[data-testid=lobby]").count();
    return { names: [ann.playerName, bea.playerName], early, said, back };
  }

  async function tradeBlocked() {
    const ann = await player();
    const bea = await player();
    await ann.selectOption("select[name=visibility]", { label: "closed" });
    await ann.selectOption("select[name=trade]", { label: "trade difference" });
    await seated(ann, bea);
    await ann.click("button[name=forfeit]");
    await ann.click("button[name=forfeit-confirm]");
    await bea.waitForSelector("[data-testid=trade] [data-copy]", { timeout: 30_000 });
    await ann.click("button[name=lobby]");
    await ann.click("button[name=practice]");
    const refused = (await ann.textContent(".error[role=alert]"))?.trim() ?? "";
    await bea.locator("[data-testid=trade] [data-copy]").first().click();
    await ann.waitForFunction(() => / took /.test(document.querySelector("[data-testid=trade]")?.textContent ?? ""));
    await ann.waitForTimeout(300);
    const after = await ann.locator(".error[role=alert]").allTextContents();
    await ann.screenshot({ path: screenshot, fullPage: true });
    return { refused, after };
  }
}

/** The page's own hand: each card's id and printed sides (A is 10). */
export async function handOf(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll(".hand.mine .card")].map((node) => {
      const side = (name) => {
        const text = node.querySelector(`.face .${name}`)?.textContent ?? "0";
        return text === "A" ? 10 : Number(text);
      };
      return { id: node.dataset.card, top: side("top"), right: side("right"), bottom: side("bottom"), left: side("left") };
    }),
  );
}

/** A line of [card id, cell] filling the 3×3 board without a capture, the first hand's
 * player placing first: no placement beats an enemy side, matches two sides (Same) or
 * shares a sum with two neighbours (Plus). Depth first; null when there is none. */
function quietLine(hands) {
  const board = Array(9).fill(null); // {owner, card}
  const left = hands.map((hand) => hand.map(() => true));
  const facing = (cell) =>
    [
      [cell - 3, "top", "bottom", cell >= 3],
      [cell + 1, "right", "left", cell % 3 < 2],
      [cell + 3, "bottom", "top", cell < 6],
      [cell - 1, "left", "right", cell % 3 > 0],
    ].filter(([other, , , inside]) => inside && board[other]);
  const quiet = (me, card, cell) => {
    const pairs = facing(cell).map(([other, mine, theirs]) => [board[other], card[mine], board[other].card[theirs]]);
    if (pairs.some(([there, a, b]) => there.owner !== me && a > b)) return false;
    if (pairs.filter(([, a, b]) => a === b).length >= 2) return false;
    const sums = pairs.map(([, a, b]) => a + b);
    return new Set(sums).size === sums.length;
  };
  let budget = 2_000_000;
  const search = (turn) => {
    if (turn === 9) return [];
    if (--budget < 0) return null;
    const me = turn % 2;
    for (const [i, card] of hands[me].entries()) {
      if (!left[me][i]) continue;
      for (let cell = 0; cell < 9; cell++) {
        if (board[cell] || !quiet(me, card, cell)) continue;
        board[cell] = { owner: me, card };
        left[me][i] = false;
        const rest = search(turn + 1);
        left[me][i] = true;
        board[cell] = null;
        if (rest) return [[card.id, cell], ...rest];
      }
    }
    return null;
  };
  return search(0);
}
