// Scenarios of web/e2e/play.mjs found by the third review from outside, run by
// tests/e2e/test_browser_outside.py. play.mjs lends its players; each scenario returns
// what it saw, printed by play.mjs as one JSON line.
//
//   battleQueue: Ann queues for a Skirmish battle (BATTLE.md 6's Battle queue) and
//             reloads the page; Bea queues too: both are shown the battle they are
//             paired into;
//   tableDeck: Ann saves five of her cards as a deck, picks it in the lobby and
//             challenges Bea to a Closed table: the hand she is dealt; then she opens a
//             public table with it and Bea, on Random, finds it with Find a game;
//   battleLeft: Bea accepts Ann's Skirmish challenge and her page closes: Ann is told
//             when the CPU takes her seat; once the CPU plays for her (2 s in tests/e2e/test_browser_away.py) each is told what
//             that means, Bea on logging in again; Ann ends the battle;
//   tradeStars: Bea forfeits a Closed Trade One table to Ann: the five cards Ann
//             chooses from, as her page draws them, beside Bea's collection;
//   elements: a phone's 5×5 table with house hands (13 cards a hand, narrow): how each
//             card's element is drawn (its lines, and clear of the bottom side);
//   seenCards: a Three Open table: the cards of Ann's hand marked as seen, beside the
//             cards of hers Bea's page shows.
//   fairBoosters: Ann opens two boosters and checks them (not yet: their seed is in
//             force), sets a client seed (the server seed is revealed) and checks them
//             again: recomputed in the page from the seeds, the odds and the catalog.
//   ownDecks: Ann unticks house hands at a 4×4 table: the trade rule offered, then a
//             Closed Trade One table with Random decks, which Bea joins from the list: the
//             eight cards each brings.

/** The scenarios, on ``kit``: player(), returning() and the screenshot path. */
export function reviewScenarios(kit) {
  const { player, returning, screenshot } = kit;
  return { battleQueue, tableDeck, battleLeft, tradeStars, elements, seenCards, ownDecks, fairBoosters };

  async function fairBoosters() {
    const ann = await player();
    await ann.click("button[name=cards]");
    const commitment = ann.locator("[data-testid=commitment]");
    await commitment.filter({ hasText: "number 0" }).waitFor();
    const before = (await commitment.textContent()) ?? "";
    const button = (await ann.textContent("button[name=booster]")) ?? "";
    for (const n of [1, 2]) {
      await ann.click("button[name=booster]");
      await commitment.filter({ hasText: `number ${n} ` }).waitFor();
    }
    const verdict = async () => {
      await ann.click("button[name=verify]");
      return (await ann.locator("[data-testid=verdict]").textContent()) ?? "";
    };
    const pending = await verdict();
    await ann.fill("input[name=client-seed]", "x".repeat(65)); // refused whole, not cut to 64
    await ann.click("button[name=set-seed]");
    const tooLong = (await ann.textContent(".error[role=alert]"))?.trim() ?? "";
    await ann.fill("input[name=client-seed]", "ann's lucky words");
    await ann.click("button[name=set-seed]");
    const revealed = (await ann.locator("[data-testid=revealed]").textContent()) ?? "";
    await ann.locator("[data-testid=verdict]").evaluate((node) => node.remove()); // the next one anew
    const checked = await verdict();
    const after = (await commitment.textContent()) ?? "";
    await ann.screenshot({ path: screenshot, fullPage: true });
    return { before, button, pending, tooLong, revealed, checked, after, differing: await ann.locator("[data-testid=fairness] li").allTextContents() };
  }

  async function ownDecks() {
    const ann = await player();
    const bea = await player();
    await ann.selectOption("select[name=board]", "4");
    const offeredWithHouse = !(await ann.isDisabled("select[name=trade]"));
    await ann.uncheck("input[name=house-hands]");
    const offered = !(await ann.isDisabled("select[name=trade]"));
    await ann.selectOption("select[name=visibility]", { label: "closed" });
    await ann.selectOption("select[name=trade]", { label: "trade one" });
    await ann.click("button[name=host]");
    const hosted = (await ann.textContent("[data-testid=hosted]"))?.trim() ?? "";
    await bea.click("button[name=tables]");
    const row = bea.locator(`[data-testid=open-tables] li:has-text("${ann.playerName}")`);
    await row.locator("button[name=join]").click();
    await Promise.all([ann, bea].map((page) => page.waitForSelector("[data-testid=match][data-status=playing]")));
    const rules = (await bea.textContent(".match .rules"))?.trim() ?? "";
    const hands = [await ann.locator(".hand.mine .card").count(), await bea.locator(".hand.mine .card").count()];
    await bea.screenshot({ path: screenshot, fullPage: true });
    return { offeredWithHouse, offered, hosted, rules, hands };
  }

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

  async function tableDeck() {
    const ann = await player();
    const bea = await player();
    await ann.click("button[name=cards]");
    await ann.waitForSelector("[data-testid=collection] .card");
    // Five different characters, the fewest stars first: a legal deck of a starter's.
    const deck = await ann.locator("[data-testid=collection] .card").evaluateAll((nodes) => {
      const picked = new Map();
      for (const node of nodes.sort((a, b) => Number(a.dataset.stars) - Number(b.dataset.stars))) {
        if (picked.size < 5 && !picked.has(node.dataset.character)) picked.set(node.dataset.character, node.dataset.copy);
      }
      return [...picked.values()];
    });
    for (const copy of deck) await ann.click(`[data-testid=collection] [data-copy="${copy}"]`);
    await ann.fill("input[name=deck-name]", "mine");
    await ann.click("button[name=save-deck]");
    await ann.waitForSelector("[data-deck]");
    await ann.click("button[name=lobby]");
    await ann.selectOption("select[name=deck]", { label: "mine" });
    await ann.selectOption("select[name=visibility]", { label: "closed" });
    await ann.fill("input[name=challenged]", bea.playerName);
    await ann.click("button[name=host]");
    const challenged = (await ann.textContent("[data-testid=hosted]"))?.trim() ?? "";
    await bea.locator("[data-testid=challenge] button[name=accept]").click();
    await ann.waitForSelector("[data-testid=match][data-status=playing]");
    const hand = await ann.locator(".hand.mine .card").evaluateAll((nodes) => nodes.map((n) => n.dataset.card));
    await ann.click("button[name=forfeit]");
    await ann.click("button[name=forfeit-confirm]");
    await Promise.all([ann, bea].map((page) => page.waitForSelector("[data-testid=result]")));
    for (const page of [ann, bea]) await page.click("button[name=lobby]");
    await ann.fill("input[name=challenged]", "");
    await ann.click("button[name=host]");
    const hosted = (await ann.textContent("[data-testid=hosted]"))?.trim() ?? "";
    await bea.selectOption("select[name=visibility]", { label: "closed" });
    await bea.click("button[name=find]");
    await Promise.all([ann, bea].map((page) => page.waitForSelector("[data-testid=match][data-status=playing]")));
    const found = (await bea.textContent("[data-testid=match]"))?.includes(ann.playerName) ?? false;
    const again = await ann.locator(".hand.mine .card").evaluateAll((nodes) => nodes.map((n) => n.dataset.card));
    await ann.screenshot({ path: screenshot, fullPage: true });
    return { deck, challenged, hand, hosted, found, again };
  }

  async function battleLeft() {
    const ann = await player();
    const bea = await player();
    await ann.fill("input[name=challenged]", bea.playerName);
    await ann.click("button[name=host-battle]");
    await bea.locator("[data-testid=challenge] button[name=accept]").click();
    for (const page of [ann, bea]) {
      await page.waitForSelector("[data-testid=battle][data-status=formation]");
      await page.click("button[name=formation]");
    }
    await ann.waitForSelector("[data-testid=battle][data-status=selection]");
    await bea.context().close();
    // Told at once that she is away and when the CPU takes her seat, then that it did.
    const leaving = (await ann.locator("[data-testid=battle-away]").textContent({ timeout: 10_000 }))?.trim() ?? "";
    await ann.waitForSelector("[data-testid=battle-left]", { timeout: 30_000 });
    const told = (await ann.textContent("[data-testid=battle-left]"))?.trim() ?? "";
    const awayAfter = await ann.locator("[data-testid=battle-away]").count();
    const buttons = await ann.locator("[data-testid=battle] button[name]").evaluateAll((nodes) =>
      nodes.map((n) => n.getAttribute("name")).filter((name) => !["formation", "commit"].includes(name)),
    );
    const back = await returning(bea.playerName);
    await back.waitForSelector("[data-testid=battle]");
    const away = (await back.textContent("[data-testid=battle-prompt]"))?.trim() ?? "";
    await ann.click("button[name=end-battle]");
    await ann.waitForSelector("[data-testid=battle-result]");
    const result = (await ann.textContent("[data-testid=battle-result]"))?.trim() ?? "";
    await ann.screenshot({ path: screenshot, fullPage: true });
    return { names: [ann.playerName, bea.playerName], told, buttons, away, result, leaving, awayAfter };
  }

  async function tradeStars() {
    const ann = await player();
    const bea = await player();
    await bea.click("button[name=cards]");
    await bea.waitForSelector("[data-testid=collection] .card");
    const stars = Object.fromEntries(
      await bea.locator("[data-testid=collection] .card").evaluateAll((nodes) =>
        nodes.map((n) => [n.dataset.copy, `${n.dataset.stars}★`]),
      ),
    );
    await bea.click("button[name=lobby]");
    await ann.selectOption("select[name=visibility]", { label: "closed" });
    await ann.selectOption("select[name=trade]", { label: "trade one" });
    await ann.fill("input[name=challenged]", bea.playerName);
    await ann.click("button[name=host]");
    await bea.locator("[data-testid=challenge] button[name=accept]").click();
    await bea.waitForSelector("[data-testid=match][data-status=playing]");
    await bea.click("button[name=forfeit]");
    await bea.click("button[name=forfeit-confirm]");
    await ann.waitForSelector("[data-testid=trade] [data-copy]");
    const offered = await ann.locator("[data-testid=trade] [data-copy]").evaluateAll((nodes) =>
      nodes.map((n) => [n.dataset.copy, n.querySelector(".stars")?.textContent ?? ""]),
    );
    await ann.screenshot({ path: screenshot, fullPage: true });
    return { stars, offered };
  }

  async function elements() {
    const ann = await player();
    const bea = await player();
    await ann.selectOption("select[name=board]", "5");
    await ann.fill("input[name=challenged]", bea.playerName);
    await ann.click("button[name=host]");
    await bea.locator("[data-testid=challenge] button[name=accept]").click();
    await ann.waitForSelector("[data-testid=match][data-status=playing]");
    await ann.waitForSelector(".hand.mine .card .element");
    const drawn = await ann.locator(".hand.mine .card .face").evaluateAll((faces) =>
      faces
        .filter((face) => face.querySelector(".element"))
        .map((face) => {
          const element = face.querySelector(".element");
          const box = element.getBoundingClientRect();
          const bottom = face.querySelector(".bottom").getBoundingClientRect();
          const lines = Math.round(box.height / (1.25 * parseFloat(getComputedStyle(element).fontSize)));
          return { text: element.textContent, lines, clear: box.left >= bottom.right, width: face.getBoundingClientRect().width };
        }),
    );
    await ann.screenshot({ path: screenshot, fullPage: true });
    return { drawn };
  }

  async function seenCards() {
    const ann = await player();
    const bea = await player();
    await ann.selectOption("select[name=visibility]", { label: "three open" });
    await ann.fill("input[name=challenged]", bea.playerName);
    await ann.click("button[name=host]");
    await bea.locator("[data-testid=challenge] button[name=accept]").click();
    await Promise.all([ann, bea].map((page) => page.waitForSelector("[data-testid=match][data-status=playing]")));
    const seen = await ann.locator(".hand.mine .card:has(.seen) .name").allTextContents();
    const unseen = await ann.locator(".hand.mine .card:not(:has(.seen)) .name").allTextContents();
    const shown = await bea.locator(".hand.theirs .card:not(.hidden) .name").allTextContents();
    await ann.screenshot({ path: screenshot, fullPage: true });
    return { seen, unseen, shown };
  }
}
