// The "desk" scenario of web/e2e/play.mjs (its header says what it plays): one player at
// a 1280x800 window, by keyboard where a player would use one. play.mjs lends its
// players; the scenario returns what it saw, printed by play.mjs as one JSON line.

const DESK = { width: 1280, height: 800 };

/** The scenario, on ``kit``: player() and the screenshot path. */
export function deskScenarios(kit) {
  const { player, screenshot } = kit;
  return { desk, lateReply };

  async function desk() {
    const page = await player();
    await page.setViewportSize(DESK);
    // House hands never trade: a 4×4 table offers no trade rule; a 3×3 one does.
    await page.selectOption("select[name=board]", "4");
    const tradeAt4 = !(await page.isDisabled("select[name=trade]"));
    await page.selectOption("select[name=board]", "3");
    const tradeAt3 = !(await page.isDisabled("select[name=trade]"));
    // The host's two buttons stand apart, as every row of buttons does.
    const hostGap = await page.evaluate(() => {
      const box = (name) => document.querySelector(`button[name=${name}]`).getBoundingClientRect();
      return box("host-battle").left - box("host").right;
    });
    // Find Game with rules no open table has: refused in the page's words.
    await page.selectOption("select[name=visibility]", { label: "closed" });
    await page.selectOption("select[name=trade]", { label: "trade all" });
    await page.click("button[name=find]");
    const findRefusal = (await page.textContent(".error[role=alert]"))?.trim() ?? "";
    // Queued, the player types a name while the queue's pushes arrive (Ranked's window
    // widens after a few seconds, and is pushed): no keystroke lost.
    await page.selectOption("select[name=mode]", { label: "ranked" });
    await page.click("button[name=queue]");
    await page.click("input[name=challenged]");
    await page.keyboard.type("abc");
    const before = await page.locator("[data-testid=pushes] li").count();
    await page.waitForFunction(
      (n) => document.querySelectorAll("[data-testid=pushes] li").length > n,
      before,
      { timeout: 30_000 },
    );
    await page.keyboard.type("def");
    const typed = await page.inputValue("input[name=challenged]");
    const typingFocus = await page.evaluate(() => document.activeElement?.getAttribute("name") ?? "");
    await page.click("[data-testid=queue] button[name=cancel]");
    // Out of the queue before Practice: clicked while the cancel is in flight, the start
    // may find her still queued and be refused (found by review).
    await page.waitForFunction(() => !document.querySelector("[data-testid=queue]"));
    await page.fill("input[name=challenged]", "");
    // A practice match, the first card placed by keyboard: the card taken with Enter keeps
    // the focus, Shift+Tab reaches an empty cell, Enter places it there.
    await page.click("button[name=practice]");
    await page.waitForSelector(".hand.mine .card:not(:disabled)", { timeout: 60_000 });
    const card = await page.locator(".hand.mine .card:not(:disabled)").first().getAttribute("data-card");
    await page.focus(`.hand.mine .card[data-card="${card}"]`);
    await page.keyboard.press("Enter");
    const pickedFocus = await page.evaluate(() => document.activeElement?.getAttribute("data-card") ?? "");
    await page.keyboard.press("Shift+Tab");
    const cell = await page.evaluate(() => document.activeElement?.getAttribute("data-cell") ?? "");
    await page.keyboard.press("Enter");
    await page.waitForFunction((id) => !document.querySelector(`.hand.mine .card[data-card="${id}"]`), card);
    // The whole match is in the window: the hand and the Forfeit button above its bottom.
    const fits = await page.evaluate(() => ({
      hand: document.querySelector(".hand.mine").getBoundingClientRect().bottom,
      forfeit: document.querySelector("button[name=forfeit]").getBoundingClientRect().bottom,
      board: document.querySelector("[data-testid=board]").getBoundingClientRect().width,
      height: innerHeight,
    }));
    await page.screenshot({ path: screenshot });
    await page.click("button[name=forfeit]");
    await page.click("button[name=forfeit-confirm]");
    await page.waitForSelector("[data-testid=result]");
    const pushes = await page.locator("[data-testid=pushes] li").allTextContents();
    return { tradeAt4, tradeAt3, hostGap, findRefusal, typed, typingFocus, card, pickedFocus, cell, fits, pushes };
  }

  /** Found by CI: the joiner's page followed the match twice, for the push that it was
   * found and for the join's reply, and the second dropped the card she had picked in
   * between: her cell clicks did nothing. Here Bea's join reply is held until she has
   * picked a card on her first turn. */
  async function lateReply() {
    const ann = await player();
    const bea = await player();
    let release = () => {};
    const held = new Promise((resolve) => (release = resolve));
    await bea.route("**/triad.v1.TriadGateway/JoinTable", async (route) => {
      const response = await route.fetch(); // joined: the push goes out meanwhile
      await held;
      await route.fulfill({ response });
    });
    await ann.click("button[name=host]");
    // Her table open before Bea looks (found by a run: looked at first, the list lacked it).
    await ann.waitForSelector("[data-testid=hosted]");
    await bea.click("button[name=tables]");
    await bea.locator(`[data-testid=open-tables] li:has-text("${ann.playerName}") button[name=join]`).click();
    const turn = (page) => page.waitForSelector(".hand.mine .card:not(:disabled)", { timeout: 30_000 }).then(() => page);
    if ((await Promise.race([turn(ann), turn(bea)])) === ann) {
      await ann.locator(".hand.mine .card:not(:disabled)").first().click();
      await ann.locator(".cell.empty:not(:disabled)").first().click();
      await turn(bea);
    }
    const inHand = await bea.locator(".hand.mine .card").count();
    await bea.locator(".hand.mine .card:not(:disabled)").first().click();
    const picked = await bea.locator(".hand.mine .card.selected").count();
    // The reply's follow asks for the view and draws the page again: a new board.
    await bea.evaluate(() => (document.querySelector("[data-testid=board]").dataset.before = "1"));
    const viewed = bea.waitForResponse("**/triad.v1.TriadGateway/GetMatchView");
    release();
    await viewed;
    await bea.waitForFunction(() => !document.querySelector("[data-testid=board][data-before]"));
    const kept = await bea.locator(".hand.mine .card.selected").count();
    const open = await bea.locator(".cell.empty:not(:disabled)").count();
    if (open) {
      await bea.locator(".cell.empty:not(:disabled)").first().click();
      await bea.waitForFunction((n) => document.querySelectorAll(".hand.mine .card").length < n, inHand);
    }
    const placed = inHand - (await bea.locator(".hand.mine .card").count());
    await bea.screenshot({ path: screenshot });
    return { picked, kept, open, placed };
  }
}
