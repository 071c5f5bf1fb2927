// The lobby's scenarios of web/e2e/play.mjs (its header says what each plays): tables and
// challenges, cards and decks, the Auction House, Draft. play.mjs lends its players and
// helpers; each scenario returns what it saw, printed by play.mjs as one JSON line.
import { buy } from "./market.mjs";

/** The scenarios, on ``kit``: player(), queuedPair(), playOut(), hostAndJoin(), finalScreen(), the
 * screenshot path and the test's params. */
export function lobbyScenarios(kit) {
  const { player, queuedPair, playOut, hostAndJoin, finalScreen, screenshot, params } = kit;
  return { tables, challenges, cards, auction, market, draft, difference };

  async function tables() {
    const ann = await player();
    const bea = await player();
    await ann.selectOption("select[name=board]", "4");
    const { hosted, listed } = await hostAndJoin(ann, bea);
    await Promise.all([ann, bea].map((page) => page.waitForSelector("[data-testid=board]")));
    const moves = await playOut([ann, bea]);
    const finals = [await finalScreen(ann), await finalScreen(bea)];
    await ann.screenshot({ path: screenshot, fullPage: true });
    for (const page of [ann, bea]) {
      await page.click("button[name=lobby]");
      await page.waitForSelector("[data-testid=lobby]");
    }
    // A 3×3 table, seen by Bea, closed by Ann: Bea's Join is refused in words and the row goes.
    await ann.selectOption("select[name=board]", "3");
    await ann.click("button[name=host]");
    await ann.waitForSelector("[data-testid=hosted]");
    await bea.click("button[name=tables]");
    const again = bea.locator(`[data-testid=open-tables] li:has-text("${ann.playerName}")`);
    const tableId = await again.getAttribute("data-table");
    await ann.click("button[name=close-table]");
    await ann.waitForSelector("button[name=host]");
    // Bea joins it from the list she read before: told whose table and why, and the
    // row leaves her list without another look.
    await again.locator("button[name=join]").click();
    const refused = (await bea.locator(".error[role=alert]").textContent())?.trim() ?? "";
    await bea.waitForFunction(
      (id) => !document.querySelector(`[data-testid=open-tables] li[data-table="${id}"]`),
      tableId,
    );
    await ann.locator("[data-testid=pushes] li", { hasText: "your table closed" }).first().waitFor();
    const pushes = await ann.locator("[data-testid=pushes] li").allTextContents();
    return { players: finals, hosted, listed, moves, closedTable: tableId, refused, pushes };
  }

  async function challenges() {
    const ann = await player();
    const bea = await player();
    await ann.fill("input[name=challenged]", bea.playerName);
    await ann.click("button[name=host]");
    const hosted = (await ann.textContent("[data-testid=hosted]")) ?? "";
    const offer = (await bea.textContent("[data-testid=challenge]")) ?? "";
    await bea.click("[data-testid=challenge] button[name=accept]");
    const accepted = await forfeited(ann, bea);
    // The second challenge is declined: the challenger's table goes, and they are told.
    await ann.fill("input[name=challenged]", bea.playerName);
    await ann.click("button[name=host]");
    await ann.waitForSelector("[data-testid=hosted]");
    await bea.click("[data-testid=challenge] button[name=decline]");
    await ann.waitForSelector("button[name=host]");
    const declined = await ann.locator("[data-testid=pushes] li").allTextContents();
    const declinedNotice = (await ann.textContent("[data-testid=notice]"))?.trim() ?? "";
    // Find Game: Bea's public table, found by Ann with the same rules chosen (All Open,
    // Elemental and Same Wall besides Same, Plus and Combo).
    await ann.fill("input[name=challenged]", "");
    for (const page of [ann, bea]) {
      await page.selectOption("select[name=visibility]", { label: "all open" });
      await page.check("input[name=elemental]");
      await page.check("input[name=sameWall]");
    }
    await bea.click("button[name=host]");
    await bea.waitForSelector("[data-testid=hosted]");
    await ann.click("button[name=find]");
    const found = await forfeited(ann, bea);
    await bea.screenshot({ path: screenshot, fullPage: true });
    return { names: [ann.playerName, bea.playerName], hosted, offer, accepted, declined, declinedNotice, found };
  }

  /** Both players at the board of a match just started; the first forfeits (asked twice)
   * and both go back to the lobby. What each saw: the rules line, the result, the pushes. */
  async function forfeited(first, second) {
    await Promise.all([first, second].map((page) => page.waitForSelector("[data-testid=board]")));
    const rules = (await first.textContent(".rules")) ?? "";
    await first.click("button[name=forfeit]");
    await first.click("button[name=forfeit-confirm]");
    const seen = [];
    for (const page of [first, second]) {
      const result = (await page.textContent("[data-testid=result]", { timeout: 30_000 }))?.trim() ?? "";
      const pushes = await page.locator("[data-testid=pushes] li").allTextContents();
      seen.push({ result, pushes });
      await page.click("button[name=lobby]");
      await page.waitForSelector("[data-testid=lobby]");
    }
    return { rules, first: seen[0], second: seen[1] };
  }

  async function cards() {
    const page = await player();
    await page.click("button[name=cards]");
    await page.waitForSelector("[data-testid=collection] [data-copy]");
    const coins = async () => Number(((await page.textContent("[data-testid=balance]")) ?? "").split(" ")[0]);
    const owned = () => page.locator("[data-testid=collection] [data-copy]").count();
    const before = { coins: await coins(), owned: await owned() };
    await page.click("button[name=booster]");
    await page.waitForSelector("[data-testid=opened] [data-copy]");
    const opened = await page.locator("[data-testid=opened] [data-copy]").count();
    const after = { coins: await coins(), owned: await owned() };
    // Five copies the deck rules allow (different characters, at most one 5★ and two 4★+).
    const chosen = await legalFive(page, "[data-testid=collection] [data-copy]");
    const pick = (c) => page.click(`[data-testid=collection] [data-copy="${c.id}"]`);
    for (const c of chosen.slice(0, 4)) await pick(c);
    await page.fill("input[name=deck-name]", "Web deck");
    await page.click("button[name=save-deck]");
    const refused = (await page.textContent("[role=alert]")) ?? "";
    await pick(chosen[4]);
    await page.click("button[name=save-deck]");
    await page.waitForSelector("[data-testid=decks] li:has-text('Web deck')");
    const saved = (await page.textContent("[data-testid=decks]")) ?? "";
    await page.click("[data-testid=cards] button[name=lobby]");
    await page.waitForSelector("[data-testid=lobby]");
    await page.selectOption("select[name=deck]", { label: "Web deck" });
    await page.click("button[name=practice]");
    await page.waitForSelector("[data-testid=board]");
    const hand = await page.locator(".hand.mine .card .name").allTextContents();
    await page.screenshot({ path: screenshot, fullPage: true });
    await page.click("button[name=forfeit]");
    await page.click("button[name=forfeit-confirm]");
    await page.waitForSelector("[data-testid=result]");
    return { before, opened, after, chosen: chosen.map((c) => c.name), refused, saved, hand };
  }

  async function auction() {
    const ann = await player();
    const bea = await player();
    for (const page of [ann, bea]) {
      await page.click("button[name=auction]");
      await page.waitForSelector("[data-testid=auction]");
    }
    const listFirst = async (price, hours = "48") => {
      await ann.fill("input[name=price]", String(price));
      await ann.selectOption("select[name=hours]", hours);
      await ann.click("button[name=list]");
      const item = ann.locator(`[data-testid=mine] li[data-status=open]:has-text("${price} coins")`);
      await item.waitFor();
      return {
        listing: await item.getAttribute("data-listing"),
        copy: await item.locator("[data-copy]").getAttribute("data-copy"),
        onSaleSeconds: Number(await item.getAttribute("data-on-sale-seconds")),
        text: (await item.textContent()) ?? "",
      };
    };
    // A price of 12.5 coins: refused in words before anything is sent.
    await ann.fill("input[name=price]", "12.5");
    await ann.click("button[name=list]");
    const fractional = (await ann.textContent(".error[role=alert]"))?.trim() ?? "";
    const sold = await listFirst(7);
    await bea.click("button[name=reload]");
    const coins = async (page) => Number(/(\d+) coins/.exec((await page.textContent("[data-testid=auction] [data-testid=balance]")) ?? "")?.[1]);
    const balance = [await coins(bea)];
    const offer = bea.locator(`[data-testid=market] li[data-listing="${sold.listing}"]`);
    const offered = (await offer.textContent()) ?? "";
    const kept = await buy(offer, () => coins(bea)); // Buy, "Keep looking", then Buy and "Yes"
    await bea.locator("[data-testid=pushes] li", { hasText: "bought" }).waitFor();
    await ann.waitForSelector(`[data-testid=mine] li[data-listing="${sold.listing}"][data-status=sold]`);
    const stillOffered = await ann.locator(`[data-testid=market] li[data-listing="${sold.listing}"]`).count();
    await bea.waitForFunction((before) => !document.querySelector("[data-testid=auction] [data-testid=balance]")?.textContent?.startsWith(`${before} `), balance[0]);
    balance.push(await coins(bea));
    const annPushes = await ann.locator("[data-testid=pushes] li").allTextContents();
    const beaPushes = await bea.locator("[data-testid=pushes] li").allTextContents();
    // The second listing, on sale for 12 hours, is withdrawn.
    const withdrawn = await listFirst(9, "12");
    const wrapped = await ann.$$eval("[data-testid=auction] li button", (all) => all.filter((b) => { const r = document.createRange(); r.selectNodeContents(b); return r.getClientRects().length > 1; }).map((b) => b.textContent));
    await bea.click("button[name=reload]"); // Bea sees it on sale, then Ann withdraws it
    const stale = bea.locator(`[data-testid=market] li[data-listing="${withdrawn.listing}"]`);
    await stale.waitFor();
    await ann.locator(`[data-testid=mine] li[data-listing="${withdrawn.listing}"] button[name=cancel-listing]`).click();
    await ann.waitForSelector(`[data-testid=mine] li[data-listing="${withdrawn.listing}"][data-status=cancelled]`);
    await buy(stale);
    const late = { said: (await bea.textContent(".error[role=alert]"))?.trim() ?? "", shown: await stale.count() };
    await ann.screenshot({ path: screenshot, fullPage: true });
    // A third on sale: Ann's collection shows it so, and it cannot go in a deck.
    const onSale = await listFirst(11);
    await ann.click("[data-testid=auction] button[name=lobby]");
    await ann.click("button[name=cards]");
    const listedCard = ann.locator(`[data-testid=collection] [data-copy="${onSale.copy}"]`);
    await listedCard.waitFor();
    const held = {
      badge: (await listedCard.locator("[data-testid=held]").textContent()) ?? "",
      disabled: await listedCard.isDisabled(),
      others: await ann.locator("[data-testid=collection] [data-testid=held]").count(),
    };
    // The bought copy is in the buyer's collection.
    await bea.click("[data-testid=auction] button[name=lobby]");
    await bea.click("button[name=cards]");
    await bea.waitForSelector("[data-testid=collection] [data-copy]");
    const bought = await bea.locator(`[data-testid=collection] [data-copy="${sold.copy}"]`).count();
    return { names: [ann.playerName, bea.playerName], offered, annPushes, beaPushes, bought, sold, withdrawn, fractional, held, balance, late, wrapped, kept, stillOffered };
  }

  /** The Auction House's filters and pages on listings the test made through the API
   * (``params``: the highest price, the stars and a character's name to filter by). */
  async function market() {
    const page = await player();
    // Queued for Ranked, the player gets queue pushes (its window widens) while at the
    // Auction House: each draws the page again, as a player types a price.
    await page.selectOption("select[name=mode]", { label: "ranked" });
    await page.click("button[name=queue]");
    await page.waitForSelector("[data-testid=queue]");
    await page.click("button[name=auction]");
    await page.waitForSelector("[data-testid=auction]");
    const items = "[data-testid=market] li[data-listing]";
    const listed = () => page.locator(items).evaluateAll((found) => found.map((li) => li.dataset.listing));
    const shown = async () => ({ ids: await listed(), more: (await page.locator("button[name=more]").count()) > 0 });
    /** A filter changed: the market busy at once, then from its first page once answered. */
    const filtered = async (change) => {
      await change();
      await page.waitForSelector("[data-testid=market][aria-busy=false]", { state: "attached" });
      return shown();
    };
    const noElement = await filtered(() => page.selectOption("select[name=element]", { label: "none" }));
    const stars = await filtered(() => page.selectOption("select[name=stars]", { label: `${params.stars}★` }));
    // A negative price is refused in the page's words, and no listing is shown for it.
    await page.fill("input[name=max-price]", "-1");
    const negative = await filtered(() => page.press("input[name=max-price]", "Enter"));
    const refusal = (await page.textContent(".error[role=alert]"))?.trim() ?? "";
    // Past any listing's price (found from outside: "cannot encode ... invalid int64"): a
    // highest price of 1e21 bounds nothing, and a listing at it is refused in words.
    await page.fill("input[name=max-price]", "1e21");
    const unbounded = await filtered(() => page.press("input[name=max-price]", "Enter"));
    const unboundedSaid = await page.locator(".error[role=alert]").allTextContents();
    await page.fill("input[name=price]", "1e21");
    await page.click("button[name=list]");
    await page.locator(".error[role=alert]", { hasText: "price" }).waitFor();
    const dearRefusal = (await page.textContent(".error[role=alert]"))?.trim() ?? "";
    // The price typed while a queue push draws the page: every key kept, and the focus.
    await page.fill("input[name=max-price]", "");
    const price = String(params.maxPrice);
    await page.keyboard.type(price.slice(0, -1));
    const pushes = await page.locator("[data-testid=pushes] li").count();
    await page.waitForFunction((n) => document.querySelectorAll("[data-testid=pushes] li").length > n, pushes, {
      timeout: 30_000,
    });
    await page.keyboard.type(price.slice(-1));
    const typed = await page.inputValue("input[name=max-price]");
    const typingFocus = await page.evaluate(() => document.activeElement?.getAttribute("name") ?? "");
    const cheap = await filtered(() => page.keyboard.press("Enter"));
    // Out of the queue (its panel is the lobby's), and back: the filters are kept.
    await page.click("[data-testid=auction] button[name=lobby]");
    await page.click("[data-testid=queue] button[name=cancel]");
    await page.waitForFunction(() => !document.querySelector("[data-testid=queue]"));
    await page.click("button[name=auction]");
    await page.waitForSelector("[data-testid=market] li[data-listing]");
    const kept = await page.evaluate(() =>
      ["element", "stars", "max-price"].map((name) => document.querySelector(`[name=${name}]`).value),
    );
    await page.locator("[data-testid=filters]").scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshot });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator("[data-testid=filters]").scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshot.replace(/\.png$/, "-desk.png") });
    // More, until the last page: each appends the next page, and is gone on the last.
    const pages = [await shown()];
    while (pages.at(-1).more && pages.length < 10) {
      const count = pages.at(-1).ids.length;
      await page.click("button[name=more]");
      await page.waitForFunction(
        ([found, n]) => document.querySelectorAll(found).length > n || !document.querySelector("button[name=more]"),
        [items, count],
      );
      pages.push(await shown());
    }
    const holo = await filtered(() => page.selectOption("select[name=holo]", { label: "holo only" }));
    const holoCards = await page.locator(`${items} .card.holo`).count();
    // Each holo card marks the one side its +1 is on; a plain card none.
    const holoSides = await page.locator(`${items} .card.holo .holo-side`).count();
    const empty = (await page.textContent("[data-testid=market]")) ?? "";
    await filtered(() => page.selectOption("select[name=holo]", { label: "holo or plain" }));
    const character = await filtered(() => page.selectOption("select[name=character]", { label: params.character }));
    // One of the character's listings bought: gone from the market, the purchase told.
    const bought = character.ids[0];
    await buy(page.locator(`[data-testid=market] li[data-listing="${bought}"]`));
    await page.waitForSelector(`[data-testid=market] li[data-listing="${bought}"]`, { state: "detached" });
    await page.locator("[data-testid=pushes] li", { hasText: "bought" }).waitFor();
    const after = await shown();
    const plainSides = await page.locator(`${items} .card:not(.holo) .holo-side`).count();
    const said = await page.locator("[data-testid=pushes] li").allTextContents();
    const seen = { noElement, stars, negative, refusal, typed, typingFocus, cheap, kept, pages, character };
    Object.assign(seen, { unbounded, unboundedSaid, dearRefusal });
    return { ...seen, holo: { ...holo, holoCards, holoSides, plainSides, empty }, bought, after, pushes: said };
  }

  async function difference() {
    const ann = await player();
    const bea = await player();
    await ann.selectOption("select[name=visibility]", { label: "closed" });
    await ann.selectOption("select[name=trade]", { label: "trade difference" });
    await ann.click("button[name=host]");
    const hosted = (await ann.textContent("[data-testid=hosted]")) ?? "";
    await bea.click("button[name=tables]");
    await bea.locator(`[data-testid=open-tables] li:has-text("${ann.playerName}") button[name=join]`).click();
    await Promise.all([ann, bea].map((page) => page.waitForSelector("[data-testid=board]")));
    await playOut([ann, bea]);
    const finals = [await finalScreen(ann), await finalScreen(bea)];
    const winner = finals[0].result.startsWith("You won") ? ann : finals[1].result.startsWith("You won") ? bea : null;
    if (!winner) {
      await ann.screenshot({ path: screenshot, fullPage: true });
      return { hosted, players: finals, trade: null }; // a draw trades nothing
    }
    const loser = winner === ann ? bea : ann;
    const title = (await winner.textContent("[data-testid=trade] h2")) ?? "";
    const waiting = (await loser.textContent("[data-testid=trade]")) ?? "";
    const d = Number(/take (\w+) of/.exec(title)?.[1].replace("one", "1"));
    const offered = winner.locator("[data-testid=trade] [data-copy]");
    const names = [];
    const take = winner.locator("[data-testid=trade] button[name=take]");
    const labels = [];
    for (let i = 0; i < d; i++) {
      if (d > 1) labels.push((await take.textContent()) ?? "");
      names.push((await offered.nth(i).locator(".name").textContent()) ?? "");
      await offered.nth(i).click();
    }
    if (d > 1) {
      // One too many tapped, then put back: the button says so, then takes the d.
      if ((await offered.count()) > d) {
        await offered.nth(d).click();
        labels.push((await take.textContent()) ?? "");
        await offered.nth(d).click();
      }
      labels.push((await take.textContent()) ?? "");
      await take.click();
    }
    const said = [];
    for (const page of [winner, loser]) {
      await page.waitForFunction(
        () => / took /.test(document.querySelector("[data-testid=trade]")?.textContent ?? ""),
        undefined,
        { timeout: 30_000 },
      );
      said.push((await page.textContent("[data-testid=trade]")) ?? "");
    }
    await winner.screenshot({ path: screenshot, fullPage: true });
    return { hosted, players: finals, trade: { title, waiting, d, names, labels, winner: said[0], loser: said[1] } };
  }

  async function draft() {
    const [ann, bea] = await queuedPair("draft");
    await Promise.all([ann, bea].map((page) => page.waitForSelector("[data-testid=draft]")));
    const picked = [];
    let stars = "";
    for (const page of [ann, bea]) {
      for (let opened = 0; opened < 3; opened++) {
        await page.locator("button[name=open-booster]:not(:disabled)").first().click();
        await page.waitForFunction(
          (n) => document.querySelectorAll("button[name=pick]").length >= 5 * n,
          opened + 1,
        );
      }
      stars ||= (await page.locator("button[name=pick] .stars").first().textContent()) ?? "";
      const chosen = await legalFive(page, "button[name=pick]");
      for (const [i, c] of chosen.entries()) {
        await page.click(`button[data-card="${c.id}"]`);
        const done = i === chosen.length - 1 && page === bea;
        // The second player's last pick starts the match: the draft screen gives way to it.
        await page.waitForSelector(done ? "[data-testid=board]" : `button[data-card="${c.id}"].picked`);
      }
      picked.push(chosen.map((c) => c.name));
    }
    await Promise.all([ann, bea].map((page) => page.waitForSelector("[data-testid=board]")));
    const hands = [];
    for (const page of [ann, bea]) hands.push(await page.locator(".hand.mine .card .name").allTextContents());
    const moves = await playOut([ann, bea]);
    const finals = [await finalScreen(ann), await finalScreen(bea)];
    await ann.screenshot({ path: screenshot, fullPage: true });
    return { players: finals, picked, hands, moves, stars };
  }
}

/** Five of the cards ``selector`` finds (copies or draft cards) that make a legal deck:
 * different characters, at most one 5★ and two 4★ or higher (RULES.md 2), the lowest
 * stars first. Each: its id (data-copy or data-card), character, stars and name. */
export async function legalFive(page, selector) {
  return page.evaluate((found) => {
    const cards = [...document.querySelectorAll(found)].map((n) => ({
      id: n.dataset.copy ?? n.dataset.card,
      character: n.dataset.character,
      stars: Number(n.dataset.stars),
      name: n.querySelector(".name")?.textContent ?? "",
    }));
    cards.sort((a, b) => a.stars - b.stars);
    const deck = [];
    for (const c of cards) {
      if (deck.length === 5 || deck.some((p) => p.character === c.character)) continue;
      const high = deck.filter((p) => p.stars >= 4).length;
      if (c.stars >= 4 && (high >= 2 || (c.stars === 5 && deck.some((p) => p.stars === 5)))) continue;
      deck.push(c);
    }
    return deck;
  }, selector);
}
