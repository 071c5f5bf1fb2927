// People at phones, played by headless Chromium (Debian's, never a downloaded one).
// tests/e2e/test_browser.py runs it against a running backend and checks what it
// prints (one JSON line) and the screenshot.
//
//   practice: register, start a practice match, play it to the end by clicking a card
//             and a cell each turn, and read the final screen;
//   ranked:   two players register, queue for Ranked, are paired, play each other by
//             clicking, the winner takes one of the loser's cards (Trade One), and
//             both find their new ratings on the Ranked ladder;
//   (web/e2e/lobby.mjs)
//   tables:   one player hosts a 4×4 table (house hands), the other looks for tables,
//             finds it and joins; both play it out by clicking; then a 3×3 table is
//             hosted, seen by the other, closed, and not listed any more;
//   challenges: one player challenges the other by name, who accepts (the challenger
//             then forfeits); a second challenge is declined; then one hosts a public
//             table and the other finds it with Find Game;
//   cards:    a new player opens a booster (coins spent, the new cards shown and added
//             to the collection), is refused a deck of four in the server's words, saves
//             one of five, and plays a practice match holding those five cards;
//   auction:  one player lists a card, the other buys it (the seller's listing turns
//             sold by push, the buyer's collection holds the copy); a second listing
//             is withdrawn;
//   market:   a seller's listings made by the test through the API; the player filters
//             them by element "none", stars, a highest price (a negative one refused)
//             typed while queue pushes arrive, holo and character, reads on with More
//             to the last page, and buys one (tests/e2e/test_browser_auction.py);
//   difference: a Closed table with Trade Difference, hosted and joined; the winner
//             taps d of the loser's cards and takes them at once;
//   draft:    two players queue for Draft, open their three boosters, pick five cards
//             each, and play the match the draft starts with exactly those cards;
//   (web/e2e/desk.mjs)
//   desk:     at a 1280x800 window: no trade offered for a 4×4 table, Find Game refused
//             in the page's words, a name typed while queue pushes arrive, a practice
//             card placed by keyboard, and the whole match in the window;
//   lateReply: the joiner's join reply held until she has picked a card on her turn:
//             the reply's follow keeps the card picked (tests/e2e/test_browser_notices.py);
//   (web/e2e/realm.mjs)
//   realm:    one player hosts a 4×4 Realm table with every module and Realm Sudden
//             Death, the other joins it from the list; both play it out by clicking,
//             the first to move declaring Lair; the Realm state is read as drawn
//             (hexes and Rot on the board, spent Lair and Resistance, the pile, the last
//             move's comparisons);
//   sudden:   an All Open Sudden Death table without Same, Plus or Combo: the two play
//             a line that ties round 1 (searched from the hands the pages show), both
//             see round 2 with round 1's score, then one forfeits;
//   (web/e2e/realm_view.mjs, tests/e2e/test_browser_realm.py: Realm cards as drawn, a
//             Realm practice, comparisons' modifiers and the hex and Rot marks)
//   (web/e2e/notices.mjs)
//   away:     two players challenge a third on her cards screen; she accepts one there,
//             sees the other while seated (its Accept refused), and accepts it after;
//   clock:    queued alone, the waiting time counts on between pushes, and its clock
//             stops when the queue is off the screen;
//   unreached: a move made while the server is out of reach (refused, a proxy's 503,
//             offline) is told in words (tests/e2e/test_browser_away.py);
//   elsewhere: a player logs in on a second page: the first says it stopped updating,
//             and catches up when she plays there again (tests/e2e/test_browser_away.py);
//   missed:   a player's page closes mid-match and she stays away past the grace; on
//             logging in again she is shown the match's end and told in words
//             (tests/e2e/test_browser_away.py);
//   (web/e2e/battles.mjs)
//   battle:   a Skirmish practice against the CPU: a formation tapped square by square,
//             then each turn up to three cards (with their targets) and the commit,
//             a reload on the way, to the end; then a second one given up
//             (tests/e2e/test_browser_battle.py).
//   challenged: two players challenge a third to a Skirmish battle; she declines one,
//             accepts the other after a reload and plays turn 1; requeued: a reload
//             while queued shows the queue at once; ended: a host on a forfeited
//             match's end screen is shown the battle her challenge starts
//             (tests/e2e/test_browser_battles.py).
//   (web/e2e/battle_lines.mjs: what a battle screen says besides its fields)
//   marked:   a practice battle with a team chosen through the API until a Burn, a SPD
//             change and a summon reserved are shown (tests/e2e/test_browser_battle.py);
//   decided:  a challenge both sides pass to the end of turn 10: Sudden Death and the
//             decision in words (tests/e2e/test_browser_battles.py).
//   (web/e2e/battle_review.mjs, tests/e2e/test_browser_battle_review.py: planned,
//             deskGiveUp: what an outside review of the Skirmish screens found)
//   (web/e2e/endings.mjs, tests/e2e/test_browser_endings.py: how things end, short clocks)
//   (web/e2e/fit.mjs, tests/e2e/test_browser_fit.py: the match in a 1280x720 window)
//   (web/e2e/outside.mjs, review.mjs, tests/e2e/test_browser_outside.py: found from outside)
//
//   TRIAD_WEB_URL=https://127.0.0.1:8443 TRIAD_SCENARIO=practice \
//   TRIAD_SCREENSHOT=/tmp/final.png node e2e/play.mjs
import { chromium } from "playwright-core";
import { lobbyScenarios } from "./lobby.mjs";
import { realmScenarios } from "./realm.mjs";
import { realmViewScenarios } from "./realm_view.mjs";
import { deskScenarios } from "./desk.mjs";
import { noticeScenarios } from "./notices.mjs";
import { battleScenarios } from "./battles.mjs";
import { battleLineScenarios } from "./battle_lines.mjs";
import { battleReviewScenarios } from "./battle_review.mjs";
import { endingScenarios } from "./endings.mjs";
import { fitScenarios } from "./fit.mjs";
import { outsideScenarios } from "./outside.mjs";
import { reviewScenarios } from "./review.mjs";

const url = process.env.TRIAD_WEB_URL ?? "https://127.0.0.1:8443";
const scenario = process.env.TRIAD_SCENARIO ?? "practice";
const screenshot = process.env.TRIAD_SCREENSHOT ?? "final.png";
const executablePath = process.env.TRIAD_CHROMIUM ?? "/usr/bin/chromium";
/** What the test made for the scenario (TRIAD_PARAMS, JSON), if anything. */
const params = JSON.parse(process.env.TRIAD_PARAMS ?? "{}");
const PHONE = { width: 390, height: 844 };
const failures = [];

const browser = await chromium.launch({
  executablePath,
  headless: true,
  // As root (CI) Chromium refuses its sandbox; the page is our own.
  args: ["--no-sandbox"],
});
const pages = [];
try {
  const lobby = lobbyScenarios({ player, queuedPair, playOut, hostAndJoin, finalScreen, screenshot, params });
  const realm = realmScenarios({ player, playTurn, hostAndJoin, finalScreen, screenshot });
  const realmView = realmViewScenarios({ player, playTurn, hostAndJoin, screenshot });
  const desk = deskScenarios({ player, screenshot });
  const notices = noticeScenarios({ player, returning, screenshot });
  const battles = battleScenarios({ player, screenshot });
  const battleLines = battleLineScenarios({ player, screenshot });
  const battleReview = battleReviewScenarios({ player, screenshot });
  const endings = endingScenarios({ player, queuedPair, screenshot });
  const fit = fitScenarios({ player, returning, screenshot, params });
  const outside = outsideScenarios({ player, queuedPair, playOut, screenshot });
  const review = reviewScenarios({ player, returning, screenshot });
  const scenarios = { practice, ranked, switched, ...lobby, ...realm, ...realmView, ...desk, ...notices, ...battles, ...battleLines, ...battleReview, ...endings, ...fit, ...outside, ...review };
  const played = await scenarios[scenario]();
  console.log(JSON.stringify({ ...played, viewport: PHONE, failures }));
} catch (error) {
  // What the players saw when it went wrong, for the test's failure message.
  for (const page of pages) {
    const seen = await page.locator("body").innerText().catch(() => "");
    console.error(`--- ${page.playerName} saw:\n${seen}`);
  }
  if (pages[0]) await pages[0].screenshot({ path: screenshot, fullPage: true }).catch(() => {});
  console.error(error.message);
  process.exitCode = 1;
} finally {
  await browser.close();
}

/** The host's form as set, hosted; the guest finds the table in the list and joins it.
 * Returns the host's line of the table and the guest's. */
async function hostAndJoin(host, guest) {
  await host.click("button[name=host]");
  const hosted = (await host.textContent("[data-testid=hosted]")) ?? "";
  await guest.click("button[name=tables]");
  const row = guest.locator(`[data-testid=open-tables] li:has-text("${host.playerName}")`);
  const listed = (await row.textContent()) ?? "";
  await row.locator("button[name=join]").click();
  return { hosted, listed };
}

async function practice() {
  const page = await player();
  await page.click("button[name=practice]");
  await page.waitForSelector("[data-testid=board]");
  let moves = 0;
  let resumed = 0;
  let told = "";
  for (let turn = 0; turn < 40; turn++) {
    // Either my turn (a hand card can be clicked) or the end.
    const next = await Promise.race([
      page.waitForSelector("[data-testid=result]", { timeout: 60_000 }).then(() => "end"),
      page.waitForSelector(".hand.mine .card:not(:disabled)", { timeout: 60_000 }).then(() => "turn"),
    ]);
    if (next === "end") break;
    await playTurn(page);
    moves += 1;
    if (moves === 2) {
      // A reload mid-match: the tokens are kept for the tab, and the session's first
      // push brings the match back as it stands.
      const before = await page.locator(".cell.mine, .cell.theirs").count();
      await page.reload();
      await page.waitForSelector("[data-testid=board]");
      await page.waitForFunction(
        (n) => document.querySelectorAll(".cell.mine, .cell.theirs").length >= n,
        before,
      );
      resumed = await page.locator(".cell.mine, .cell.theirs").count();
      told = (await page.locator("[data-testid=notice]").textContent()) ?? "";
    }
  }
  const final = await finalScreen(page);
  await page.screenshot({ path: screenshot, fullPage: true });
  return { ...final, moves, resumed, told };
}

async function ranked() {
  const [ann, bea] = await queuedPair("ranked");
  await Promise.all([ann, bea].map((page) => page.waitForSelector("[data-testid=board]")));
  const moves = await playOut([ann, bea]);
  const finals = [await finalScreen(ann), await finalScreen(bea)];
  const winner = finals[0].result.startsWith("You won") ? ann : finals[1].result.startsWith("You won") ? bea : null;
  let trade = [];
  if (winner) {
    // The winner is offered the loser's five cards and takes one.
    await winner.waitForSelector("[data-testid=trade] [data-copy]");
    const offered = await winner.locator("[data-testid=trade] [data-copy]").count();
    const taken = (await winner.locator("[data-testid=trade] [data-copy] .name").first().textContent()) ?? "";
    const loser = winner === ann ? bea : ann;
    // What the loser reads while the winner chooses.
    const waiting = (await loser.locator("[data-testid=trade]", { hasText: "is choosing" }).textContent()) ?? "";
    const stakes = await loser.locator("[data-testid=stakes] [data-copy]").count(); // the cards at stake
    await winner.locator("[data-testid=trade] [data-copy]").first().click();
    const done = (page) => page.waitForFunction(
      () => / took /.test(document.querySelector("[data-testid=trade]")?.textContent ?? ""),
      undefined,
      { timeout: 30_000 },
    );
    await Promise.all([done(winner), done(loser)]);
    const said = await Promise.all([winner, loser].map((p) => p.textContent("[data-testid=trade]")));
    const pushes = await Promise.all(
      [winner, loser].map((p) => p.locator("[data-testid=pushes] li").allTextContents()),
    );
    trade = { offered, taken, waiting, stakes, winner: said[0], loser: said[1], pushes };
  }
  await (winner ?? ann).screenshot({ path: screenshot, fullPage: true });
  // Each is told their rating change, then finds both players on the Ranked ladder.
  const ladders = [];
  for (const page of [ann, bea]) {
    await page.waitForFunction(
      () => [...document.querySelectorAll("[data-testid=pushes] li")].some((li) => /ranked rating/.test(li.textContent)),
      undefined,
      { timeout: 30_000 },
    );
    const change = (await page.locator("[data-testid=pushes] li", { hasText: "ranked rating" }).first().textContent()) ?? "";
    await page.click("button[name=lobby]");
    await page.click("button[name=ladders]");
    const mine = (await page.textContent("[data-testid=my-rank]")) ?? "";
    const table = (await page.textContent("[data-testid=ladder]")) ?? "";
    ladders.push({ change, mine, table });
  }
  return { players: finals, moves, trade, ladders };
}

async function switched() {
  // A wrong log-in is refused in the gateway's words; then, queued for Unranked alone,
  // the player leaves the queue for a practice match, and forfeits it (asked twice).
  const refused = await browser.newContext({ ignoreHTTPSErrors: true, viewport: PHONE });
  const first = await refused.newPage();
  await first.goto(url);
  const nobody = `nobody${Date.now()}`;
  await first.fill("input[name=name]", nobody);
  await first.fill("input[name=password]", "not the password");
  await first.click("button[name=login]");
  const refusal = (await first.textContent(".error[role=alert]"))?.trim() ?? "";
  const kept = (await first.inputValue("input[name=name]")) === nobody; // to correct, not retype
  // Then a password too short for Register: the browser says so, and the refusal goes.
  await first.fill("input[name=password]", "a");
  await first.click("button[name=register]");
  const refusalLeft = await first.locator(".error[role=alert]").isVisible();
  await refused.close();
  const page = await player();
  await page.selectOption("select[name=mode]", { label: "unranked" });
  await page.click("button[name=queue]");
  const queued = (await page.textContent("[data-testid=queue]")) ?? "";
  await page.click("[data-testid=queue] button[name=switch]");
  await page.waitForSelector("[data-testid=board]");
  await page.click("button[name=forfeit]");
  await page.click("button[name=forfeit-confirm]");
  const result = (await page.textContent("[data-testid=result]"))?.trim() ?? "";
  await page.click("button[name=lobby]");
  await page.waitForSelector("[data-testid=lobby]");
  const lobby = (await page.textContent("[data-testid=lobby]")) ?? "";
  const pushes = await page.locator("[data-testid=pushes] li").allTextContents();
  await page.screenshot({ path: screenshot, fullPage: true });
  await page.click("button[name=logout]");
  await page.waitForSelector("form.login");
  const afterLogout = (await page.locator(".error[role=alert]").count()) === 0 ? "" : await page.textContent(".error");
  await page.reload(); // the log is kept for the tab, but not past a logout
  await page.waitForSelector("form.login");
  const logAfterLogout = await page.locator("[data-testid=pushes] li").count();
  return { name: page.playerName, refusal, refusalLeft, kept, queued, result, lobby, pushes, afterLogout, logAfterLogout };
}

/** A new player on a phone-sized page of their own: registered, in the lobby. */
/** A new player on a phone-sized page (``options``: the browser context's, a timezone). */
async function player({ name, ...options } = {}) {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: PHONE, ...options });
  const page = await context.newPage();
  page.playerName = name ?? `web${Math.random().toString(16).slice(2, 10)}`;
  page.on("pageerror", (error) => failures.push(`${page.playerName}: ${error.message}`));
  page.setDefaultTimeout(20_000);
  pages.push(page);
  await page.goto(url);
  await page.fill("input[name=name]", page.playerName);
  await page.fill("input[name=password]", "correct horse battery");
  await page.click("button[name=register]");
  await page.waitForSelector("[data-testid=lobby]");
  await page.waitForSelector("[data-testid=pushes] li");
  return page;
}

/** A player registered earlier, logging in again on a new phone-sized page. */
async function returning(name) {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: PHONE });
  const page = await context.newPage();
  page.playerName = name;
  page.on("pageerror", (error) => failures.push(`${name}: ${error.message}`));
  page.setDefaultTimeout(20_000);
  pages.push(page);
  await page.goto(url);
  await page.fill("input[name=name]", name);
  await page.fill("input[name=password]", "correct horse battery");
  await page.click("button[name=login]");
  return page;
}

/** Two new players, each queued for ``mode`` (as the lobby's select says it). */
async function queuedPair(mode) {
  const pair = [await player(), await player()];
  for (const page of pair) {
    await page.selectOption("select[name=mode]", { label: mode });
    await page.click("button[name=queue]");
  }
  return pair;
}

/** Two players of one match take their turns by clicking until both see its end; the
 * placements each made. */
async function playOut(players) {
  const deadline = Date.now() + 120_000;
  const moves = players.map(() => 0);
  while (Date.now() < deadline) {
    const over = await Promise.all(players.map((p) => p.locator("[data-testid=result]").count()));
    if (over.every((n) => n > 0)) break;
    let played = false;
    for (const [i, page] of players.entries()) {
      if ((await page.locator(".hand.mine .card:not(:disabled)").count()) > 0) {
        await playTurn(page);
        moves[i] += 1;
        played = true;
      }
    }
    if (!played) await players[0].waitForTimeout(100);
  }
  return moves;
}

/** My turn: a card of my hand, then the first empty cell; until the hand shows it gone. */
async function playTurn(page) {
  const inHand = await page.locator(".hand.mine .card").count();
  await page.locator(".hand.mine .card:not(:disabled)").first().click();
  await page.locator(".cell.empty:not(:disabled)").first().click();
  await page.waitForFunction(
    (left) => document.querySelectorAll(".hand.mine .card").length < left,
    inHand,
  );
}

/** The final screen: its result line, the board as drawn, and the session's pushes. */
async function finalScreen(page) {
  const result = (await page.textContent("[data-testid=result]", { timeout: 60_000 }))?.trim() ?? "";
  // Measured in one step in the page: a push may draw the screen again at any moment.
  const { board, cells, placed } = await page.evaluate(() => {
    const node = document.querySelector("[data-testid=board]");
    const box = node.getBoundingClientRect();
    return {
      board: { x: box.x, y: box.y, width: box.width, height: box.height },
      cells: node.querySelectorAll(".cell").length,
      placed: node.querySelectorAll(".cell.mine, .cell.theirs").length,
    };
  });
  const pushes = await page.locator("[data-testid=pushes] li").allTextContents();
  return { name: page.playerName, result, board, cells, placed, pushes };
}
