// What an outside review of Realm matches found on the match screen and in the lobby,
// played through web/e2e/play.mjs (which lends its players) for
// tests/e2e/test_browser_realm.py; each scenario returns what it saw.
//
//   realmFaces: Ann on a phone (390x844) hosts a 4×4 Realm table with every module and
//             Realm Sudden Death; Bea at a desk (1280x800) joins; they place six cards:
//             each card's Realm tag (hands and board) measured as drawn, the rules line
//             and the cards' elements read; then Ann forfeits;
//   realmPractice: a new player without a saved deck ticks Realm Triad, Lair and Cursed
//             for a practice against a bot, starts it, places a card, and forfeits;
//   realmTold: Ann on a phone (390x844) hosts a 4×4 Realm table with Type Advantage,
//             Alignment Clash, Lair and Cursed; Bea at a desk (1280x800) joins; they play
//             it out, each first the cards whose hex or Rot marks are widest, the second
//             mover declaring Lair beside the first card: the last move's words after it
//             and after each move, and every hex and Rot mark measured against its cell's
//             values, each page at both sizes at the end.

const DESK = { width: 1280, height: 800 };

/** The scenarios, on ``kit``: player(), playTurn(), hostAndJoin() and the screenshot path. */
export function realmViewScenarios(kit) {
  const { player, playTurn, hostAndJoin, screenshot } = kit;
  return { realmFaces, realmPractice, realmTold };

  async function realmFaces() {
    const ann = await player();
    const bea = await player({ viewport: DESK });
    await ann.selectOption("select[name=board]", "4");
    await ann.check("input[name=suddenDeath]");
    await ann.check("input[name=realm]");
    for (const name of ["typeAdvantage", "alignmentClash", "lair", "resistance", "cursed"]) {
      await ann.check(`input[name=realm-${name}]`);
    }
    const { hosted } = await hostAndJoin(ann, bea);
    const players = [ann, bea];
    await Promise.all(players.map((page) => page.waitForSelector("[data-testid=realm]")));
    const start = await Promise.all(players.map(facesSeen));
    let placed = 0;
    const deadline = Date.now() + 60_000;
    while (placed < 6 && Date.now() < deadline) {
      let played = false;
      for (const page of players) {
        if (placed >= 6 || (await page.locator(".hand.mine .card:not(:disabled)").count()) === 0) continue;
        await playTurn(page);
        placed += 1;
        played = true;
      }
      if (!played) await ann.waitForTimeout(100);
    }
    // Both pages drawn with every card placed so far.
    const drawn = (n) => document.querySelectorAll("[data-testid=board] .cell.mine, [data-testid=board] .cell.theirs").length >= n;
    await Promise.all(players.map((page) => page.waitForFunction(drawn, placed)));
    const played = await Promise.all(players.map(facesSeen));
    await ann.screenshot({ path: screenshot, fullPage: true });
    await bea.screenshot({ path: screenshot.replace(/\.png$/, "-desk.png") });
    await ann.click("button[name=forfeit]");
    await ann.click("button[name=forfeit-confirm]");
    await ann.waitForSelector("[data-testid=result]");
    return { hosted, placed, start, played };
  }

  async function realmPractice() {
    const page = await player();
    await page.check("input[name=practice-realm]");
    await page.check("input[name=practice-realm-lair]");
    await page.check("input[name=practice-realm-cursed]");
    await page.screenshot({ path: screenshot.replace(/\.png$/, "-lobby.png") });
    await page.click("button[name=practice]");
    await page.waitForSelector("[data-testid=realm]");
    const rules = (await page.textContent(".rules")) ?? "";
    const hand = await page.locator(".hand.mine .card").count();
    const tags = await page.locator(".hand.mine .realm-tag").allTextContents();
    await page.waitForSelector(".hand.mine .card:not(:disabled)", { timeout: 30_000 });
    const lairOffered = await page.locator("input[name=lair]").count();
    await playTurn(page);
    const hexes = await page.locator("[data-testid=board] .hex").allTextContents();
    const lines = await page.locator("[data-testid=realm] li").allTextContents();
    await page.screenshot({ path: screenshot, fullPage: true });
    await page.click("button[name=forfeit]");
    await page.click("button[name=forfeit-confirm]");
    const result = (await page.textContent("[data-testid=result]"))?.trim() ?? "";
    return { rules, hand, tags, lairOffered, hexes, lines, result };
  }

  async function realmTold() {
    const ann = await player();
    const bea = await player({ viewport: DESK });
    await ann.selectOption("select[name=board]", "4");
    await ann.check("input[name=realm]");
    for (const name of ["typeAdvantage", "alignmentClash", "lair", "cursed"]) {
      await ann.check(`input[name=realm-${name}]`);
    }
    await hostAndJoin(ann, bea);
    const players = [ann, bea];
    await Promise.all(players.map((page) => page.waitForSelector("[data-testid=realm]")));
    const marks = []; // every mark as drawn after every move, on both pages
    const lines = new Set();
    let lair = null; // both pages once the Lair beside the first card is told
    let moves = 0;
    const deadline = Date.now() + 150_000;
    while (moves < 16 && Date.now() < deadline) {
      const ready = await Promise.all(players.map((p) => p.locator(".hand.mine .card:not(:disabled)").count()));
      const mover = players[ready.findIndex((n) => n > 0)];
      if (!mover) {
        await ann.waitForTimeout(100);
        continue;
      }
      const inHand = await mover.locator(".hand.mine .card").count();
      if (moves === 1) await mover.check("input[name=lair]");
      await mover.locator(".hand.mine .card:not(:disabled)").nth(await widestMarks(mover)).click();
      await mover.locator(".cell.empty:not(:disabled)").first().click(); // the second beside the first
      await mover.waitForFunction((left) => document.querySelectorAll(".hand.mine .card").length < left, inHand);
      moves += 1;
      const drawn = (n) => document.querySelectorAll("[data-testid=board] .cell.mine, [data-testid=board] .cell.theirs").length >= n;
      await Promise.all(players.map((page) => page.waitForFunction(drawn, moves)));
      const seen = await Promise.all(players.map(toldSeen));
      for (const one of seen) {
        marks.push(...one.marks);
        one.lines.forEach((line) => lines.add(line));
      }
      if (moves === 2) lair = seen;
    }
    await Promise.all(players.map((page) => page.waitForSelector("[data-testid=result]", { timeout: 30_000 })));
    const end = await Promise.all(players.map(toldSeen));
    await ann.screenshot({ path: screenshot, fullPage: true });
    await bea.screenshot({ path: screenshot.replace(/\.png$/, "-desk.png") });
    await ann.setViewportSize(DESK);
    await bea.setViewportSize(PHONE);
    end.push(...(await Promise.all(players.map(toldSeen))));
    return { moves, lair, lines: [...lines], marks, end };
  }
}

const PHONE = { width: 390, height: 844 };

/** The index among a page's playable hand cards of the one whose marks are widest on the
 * board: a silence (Aberration, Fey), then a Rot (Undead, Ooze, Plant), else the first. */
async function widestMarks(page) {
  const tags = await page.locator(".hand.mine .card:not(:disabled) .realm-tag").allTextContents();
  for (const kinds of [["Abe", "Fey"], ["Und", "Ooz", "Pla"]]) {
    const found = tags.findIndex((tag) => kinds.includes(tag.slice(0, 3)));
    if (found >= 0) return found;
  }
  return 0;
}

/** One page's Realm panel and marks as drawn: the panel's lines (each whole in the window,
 * the panel in it at a desk), and every hex and Rot mark on the board: its text, whether
 * it is whole and inside its cell, and the values, name, tag or cause it covers. */
async function toldSeen(page) {
  return page.evaluate(() => {
    const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5 && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
    const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const marks = [];
    for (const mark of document.querySelectorAll("[data-testid=board] .hex, [data-testid=board] .rot")) {
      const cell = mark.closest(".cell");
      const rect = mark.getBoundingClientRect();
      const others = [...cell.querySelectorAll(".top, .left, .right, .bottom, .name, .realm-tag, .cause")];
      marks.push({
        width: innerWidth,
        cell: Math.round(cell.getBoundingClientRect().width),
        text: mark.textContent,
        whole: mark.scrollWidth <= mark.clientWidth + 1 && rect.width > 0,
        contained: inside(rect, cell.getBoundingClientRect()),
        overlaps: others.filter((n) => meets(n.getBoundingClientRect(), rect)).map((n) => n.className),
      });
    }
    const panel = document.querySelector("[data-testid=realm]");
    const box = panel.getBoundingClientRect();
    const items = [...panel.querySelectorAll("li")];
    return {
      width: innerWidth,
      lines: items.map((n) => n.textContent),
      across: document.documentElement.scrollWidth <= innerWidth && items.every((n) => n.getBoundingClientRect().right <= innerWidth + 0.5),
      inWindow: box.bottom <= innerHeight + 0.5,
      marks,
    };
  });
}

/** One page's Realm cards as drawn: each tag (where it is, its text, its type size in
 * px, whether its box holds it whole, inside its card and clear of the card's values,
 * hex and Rot), the rules line and the elements shown on cards. */
async function facesSeen(page) {
  return page.evaluate(() => {
    const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5 && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
    const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const tags = [];
    for (const tag of document.querySelectorAll(".face .realm-tag")) {
      const box = tag.closest(".card, .cell");
      const rect = tag.getBoundingClientRect();
      // The words' own width (a span's box may be wider than its words, or narrower) on
      // the span's line (a font's content area is taller than its line of 1.1).
      const range = document.createRange();
      range.selectNodeContents(tag);
      const words = range.getBoundingClientRect();
      const text = { left: words.left, right: words.right, top: rect.top, bottom: rect.bottom };
      const others = [...box.querySelectorAll(".top, .left, .right, .bottom, .hex, .rot, .name")];
      tags.push({
        where: tag.closest(".hand.mine") ? "hand" : tag.closest(".hand.theirs") ? "theirs" : "board",
        text: tag.textContent,
        px: parseFloat(getComputedStyle(tag).fontSize),
        whole: tag.scrollWidth <= tag.clientWidth + 1,
        contained: inside(text, box.getBoundingClientRect()) && inside(rect, box.getBoundingClientRect()),
        overlaps: others.filter((n) => meets(n.getBoundingClientRect(), text)).map((n) => n.className),
      });
    }
    return {
      tags,
      placed: document.querySelectorAll("[data-testid=board] .cell.mine, [data-testid=board] .cell.theirs").length,
      rules: document.querySelector(".rules")?.textContent ?? "",
      elements: [...document.querySelectorAll(".face .element")].map((n) => n.textContent),
      width: innerWidth,
    };
  });
}
