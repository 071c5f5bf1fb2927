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
//             tests/e2e/test_browser_tokens.py): what her push log and page say.

/** The scenarios, on ``kit``: player(), queuedPair() and the screenshot path. */
export function endingScenarios(kit) {
  const { player, queuedPair, screenshot } = kit;
  return { idleDraft, missedTwice, forfeitedAtOnce, tradeBlocked, draftPractice, tokenExpired };

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
