// A person at a phone, played by headless Chromium (Debian's, never a downloaded one):
// register, start a practice match, play it to the end by clicking a card and a cell
// each turn, and read the final screen. tests/e2e/test_browser.py runs it against a
// running backend and checks what it prints (one JSON line) and the screenshot.
//
//   TRIAD_WEB_URL=https://127.0.0.1:8443 TRIAD_SCREENSHOT=/tmp/final.png node e2e/play.mjs
import { chromium } from "playwright-core";

const url = process.env.TRIAD_WEB_URL ?? "https://127.0.0.1:8443";
const screenshot = process.env.TRIAD_SCREENSHOT ?? "final.png";
const executablePath = process.env.TRIAD_CHROMIUM ?? "/usr/bin/chromium";
const name = `web${Math.random().toString(16).slice(2, 10)}`;
const PHONE = { width: 390, height: 844 };

const browser = await chromium.launch({
  executablePath,
  headless: true,
  // As root (CI) Chromium refuses its sandbox; the page is our own.
  args: ["--no-sandbox"],
});
const failures = [];
let page;
try {
  // The development certificate is self-signed: the test trusts it as the client does.
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: PHONE });
  page = await context.newPage();
  page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));
  page.setDefaultTimeout(20_000);
  await page.goto(url);

  await page.fill("input[name=name]", name);
  await page.fill("input[name=password]", "correct horse battery");
  await page.click("button[name=register]");
  await page.waitForSelector("[data-testid=lobby]");
  await page.waitForSelector("[data-testid=pushes] li");

  await page.click("button[name=practice]");
  await page.waitForSelector("[data-testid=board]");

  let moves = 0;
  for (let turn = 0; turn < 40; turn++) {
    // Either my turn (a hand card can be clicked) or the end.
    const next = await Promise.race([
      page.waitForSelector("[data-testid=result]").then(() => "end"),
      page.waitForSelector(".hand.mine .card:not(:disabled)").then(() => "turn"),
    ]);
    if (next === "end") break;
    const inHand = await page.locator(".hand.mine .card").count();
    await page.locator(".hand.mine .card:not(:disabled)").first().click();
    await page.locator(".cell.empty:not(:disabled)").first().click();
    moves += 1;
    // The placed card leaves the hand: wait for the view that shows it.
    await page.waitForFunction(
      (left) => document.querySelectorAll(".hand.mine .card").length < left,
      inHand,
    );
  }
  const result = (await page.textContent("[data-testid=result]"))?.trim() ?? "";
  // Measured in one step in the page: a push may draw the screen again at any moment.
  const { board, cells } = await page.evaluate(() => {
    const node = document.querySelector("[data-testid=board]");
    const box = node.getBoundingClientRect();
    const board = { x: box.x, y: box.y, width: box.width, height: box.height };
    return { board, cells: node.querySelectorAll(".cell").length };
  });
  const placed = await page.locator("[data-testid=board] .cell.mine, [data-testid=board] .cell.theirs").count();
  const pushes = await page.locator("[data-testid=pushes] li").allTextContents();
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(
    JSON.stringify({ name, result, moves, cells, placed, pushes, board, viewport: PHONE, failures }),
  );
} catch (error) {
  // What the player saw when it went wrong, for the test's failure message.
  const seen = page ? await page.locator("body").innerText().catch(() => "") : "";
  if (page) await page.screenshot({ path: screenshot, fullPage: true }).catch(() => {});
  console.error(`${error.message}\n--- the page said:\n${seen}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
