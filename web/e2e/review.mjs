// Scenarios of web/e2e/play.mjs found by the third review from outside, run by
// tests/e2e/test_browser_outside.py. play.mjs lends its players; each scenario returns
// what it saw, printed by play.mjs as one JSON line.
//
//   battleQueue: Ann queues for a Skirmish battle (BATTLE.md 6's Battle queue) and
//             reloads the page; Bea queues too: both are shown the battle they are
//             paired into;

/** The scenarios, on ``kit``: player() and the screenshot path. */
export function reviewScenarios(kit) {
  const { player, screenshot } = kit;
  return { battleQueue };

  async function battleQueue() {
    const ann = await player();
    const bea = await player();
    await ann.selectOption("select[name=mode]", { label: "skirmish battle" });
    await ann.click("button[name=queue]");
    await ann.waitForSelector("[data-testid=queue]");
    await ann.reload(); // the ticket shown again from the session's opening
    await ann.waitForSelector("[data-testid=queue]");
    const queued = (await ann.textContent("[data-testid=queue] p"))?.trim() ?? "";
    const practice = await ann.locator("[data-testid=queue] button[name=switch]").count();
    await bea.selectOption("select[name=mode]", { label: "skirmish battle" });
    await bea.click("button[name=queue]");
    const formation = "[data-testid=battle][data-status=formation]";
    await Promise.all([ann, bea].map((page) => page.waitForSelector(formation, { timeout: 30_000 })));
    const opponents = await Promise.all(
      [ann, bea].map(async (page) => (await page.locator(".team-line").first().textContent())?.trim() ?? ""),
    );
    const queues = await Promise.all([ann, bea].map((page) => page.locator("[data-testid=queue]").count()));
    await ann.screenshot({ path: screenshot, fullPage: true });
    return { names: [ann.playerName, bea.playerName], queued, practice, opponents, queues };
  }
}
