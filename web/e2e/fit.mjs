// Scenarios of web/e2e/play.mjs about what fits a desk's 1280x720 window without
// scrolling (and a phone's 390x844 across), run by tests/e2e/test_browser_fit.py against
// a backend whose turn lasts 4 s. play.mjs lends its players; each scenario returns what
// it saw, printed by play.mjs as one JSON line.
//
//   fits:     two players at desks meet at a 5×5 table (two blocked cells), then at a
//             4×4 one, each forfeited at once: the board, the hand and Forfeit in the
//             window; the 5×5 board across a phone too; the rules line of each;
//   missedFit: a practice match whose first turn the player misses: the banner that
//             says so, the board and the hand in the window;
//   pickFit:  a Difference table forfeited by its host: the winner reloads her page and
//             finds the cards to pick in the window;
//   elementalCell: at a 5×5 Elemental table, a card placed on a marked cell: the cell's
//             element, the card's own and the +1 or -1 it gets, each readable;
//   names:    at a 5×5 Elemental All Open table on a phone, a few cards placed: every
//             card name in the hands and on the board shown whole, none cut short; and
//             the scores line of Bea's page, Ann's name 20 letters long;
//   longNames: two returning players' saved decks of the catalog's longest names
//             (params.names: the players, each deck "Long names") at a 5×5 Elemental table: at a desk's
//             window and a phone's, every card face's name whole and no text over another;
//   badges:   a 4×4 table (at 1024x600) played until a capture is marked with its cause: the badge
//             leaves the card's four values readable.

const DESK = { width: 1280, height: 720 };
const PHONE = { width: 390, height: 844 };

/** The scenarios, on ``kit``: player() and the screenshot path. */
export function fitScenarios(kit) {
  const { player, returning, screenshot, params } = kit;
  return { fits, missedFit, pickFit, elementalCell, badges, names, longNames };

  async function longNames() {
    const [ann, bea] = await Promise.all(params.names.map((name) => returning(name)));
    for (const page of [ann, bea]) await page.selectOption("select[name=deck]", { label: "Long names" });
    for (const page of [ann, bea]) await page.setViewportSize(DESK);
    await ann.check("input[name=elemental]");
    await ann.selectOption("select[name=board]", "5");
    await ann.uncheck("input[name=house-hands]"); // the deck brought, not a house hand
    await seated(ann, bea, 5);
    // Ann's cards onto marked cells first (a cell's element line takes room from the card).
    let placed = 0;
    for (let move = 0; move < 8; move++) {
      const mover = await Promise.race(
        [ann, bea].map((page) => page.waitForSelector(".hand.mine .card:not(:disabled)").then(() => page)),
      );
      const inHand = await mover.locator(".hand.mine .card").count();
      await mover.locator(".hand.mine .card:not(:disabled)").first().click();
      const marked = mover.locator(".cell.empty[data-mark]:not(:disabled)");
      await ((await marked.count()) ? marked : mover.locator(".cell.empty:not(:disabled)")).first().click();
      await mover.waitForFunction((n) => document.querySelectorAll(".hand.mine .card").length < n, inHand);
      if (mover === ann) placed += 1;
    }
    await ann.waitForFunction(() => document.querySelectorAll(".cell.mine, .cell.theirs").length === 8);
    const seen = { placed, desk: await faceFaults(ann) };
    await ann.screenshot({ path: screenshot.replace(".png", "-desk.png") });
    await ann.setViewportSize(PHONE);
    seen.phone = await faceFaults(ann);
    await ann.screenshot({ path: screenshot, fullPage: true });
    return seen;
  }

  /** Every card face on ``page`` (board and hands): names not shown whole, and texts of
   * a card (or its cell's element line) over one another. */
  function faceFaults(page) {
    return page.evaluate(() => {
      const faces = [...document.querySelectorAll(".face")].filter((f) => (f.querySelector(".name")?.textContent ?? "?") !== "?");
      const cut = [];
      const broken = [];
      const overlaps = [];
      for (const face of faces) {
        const name = face.querySelector(".name");
        if (name.scrollWidth > name.clientWidth + 1 || name.scrollHeight > name.clientHeight + 1) cut.push(name.textContent);
        const text = name.firstChild;
        let at = 0;
        for (const word of text?.nodeType === Node.TEXT_NODE ? text.data.split(" ") : []) {
          const range = document.createRange(); // a word on two lines: broken mid-word
          range.setStart(text, at);
          range.setEnd(text, at + word.length);
          if (word && range.getClientRects().length > 1) broken.push(`${name.textContent}: ${word}`);
          at += word.length + 1;
        }
        const holder = face.closest(".cell") ?? face;
        // (a capture's cause badge lies over the name on purpose, the name its title)
        const texts = [...holder.querySelectorAll("span:not(.cause)")].filter((s) => s.getBoundingClientRect().width > 0 && s.textContent);
        for (const [i, a] of texts.entries()) {
          for (const b of texts.slice(i + 1)) {
            if (a.contains(b) || b.contains(a)) continue;
            const p = a.getBoundingClientRect();
            const q = b.getBoundingClientRect();
            if (!(p.right <= q.left || q.right <= p.left || p.bottom <= q.top || q.bottom <= p.top)) {
              overlaps.push(`${name.textContent}: ${a.textContent} / ${b.textContent}`);
            }
          }
        }
      }
      return { faces: faces.length, cut, broken, overlaps };
    });
  }

  async function names() {
    // As long as a name may be (20): the scores line must still pair each with its score.
    const ann = await player({ name: `Wmmmmmmmmmmm${Math.random().toString(16).slice(2, 10)}` });
    const bea = await player();
    await ann.check("input[name=elemental]");
    await ann.selectOption("select[name=visibility]", { label: "all open" });
    await seated(ann, bea, 5, 2);
    for (let move = 0; move < 4; move++) {
      // Whoever's cards come alive: read at once, Ann's page could still be waiting for
      // Bea's move and send the turn to Bea (found by review).
      const mover = await Promise.race(
        [ann, bea].map((page) => page.waitForSelector(".hand.mine .card:not(:disabled)").then(() => page)),
      );
      const inHand = await mover.locator(".hand.mine .card").count();
      await mover.locator(".hand.mine .card:not(:disabled)").first().click();
      await mover.locator(".cell.empty:not(:disabled)").nth(move * 3).click();
      await mover.waitForFunction((n) => document.querySelectorAll(".hand.mine .card").length < n, inHand);
    }
    await ann.waitForFunction(() => document.querySelectorAll(".cell.mine, .cell.theirs").length === 4);
    const seen = await ann.evaluate(() => {
      const where = (node) => (node.closest(".hand.mine") ? "hand" : node.closest(".hand") ? "theirs" : "board");
      const names = [...document.querySelectorAll(".face .name")].filter((n) => n.textContent !== "?");
      // A name shown whole neither runs past its box (an ellipsis) nor below it.
      const cut = names.filter((n) => n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 1);
      return { shown: names.map(where), cut: cut.map((n) => `${where(n)}: ${n.textContent}`) };
    });
    // Each score on the line of its own name, and the two sides apart.
    seen.scores = await bea.evaluate(() => {
      const box = (node) => node.getBoundingClientRect();
      const [mine, theirs] = [".score.mine", ".score.theirs"].map((side) => document.querySelector(side));
      const paired = [mine, theirs].every(
        (side) => Math.abs(box(side.querySelector(".points")).top - box(side.querySelector(".name")).top) < 2,
      );
      return { paired, apart: box(mine).right <= box(theirs).left, text: [mine.textContent, theirs.textContent] };
    });
    // Nor does the line push either page wider than the phone.
    seen.widths = await Promise.all(
      [ann, bea].map((page) => page.evaluate(() => document.documentElement.scrollWidth - innerWidth)),
    );
    await ann.screenshot({ path: screenshot, fullPage: true });
    return seen;
  }

  async function badges() {
    const ann = await player();
    const bea = await player();
    // A smaller desk's window: 4×4 cells as small as a Realm table's at 1280x720.
    for (const page of [ann, bea]) await page.setViewportSize({ width: 1024, height: 600 });
    await seated(ann, bea, 4);
    const covered = (page) =>
      page.evaluate(() => {
        const found = [];
        for (const badge of document.querySelectorAll(".cell .cause")) {
          const p = badge.getBoundingClientRect();
          for (const value of badge.parentElement.querySelectorAll(".face .top, .face .left, .face .right, .face .bottom")) {
            // The digit's own box (its text), not the grid area it is centred in.
            const range = document.createRange();
            range.selectNodeContents(value);
            const q = range.getBoundingClientRect();
            const apart = p.right <= q.left || q.right <= p.left || p.bottom <= q.top || q.bottom <= p.top;
            if (!apart) found.push(`${badge.textContent} over ${value.className} ${value.textContent}`);
          }
        }
        const words = [...document.querySelectorAll(".cell .cause")].map((b) => b.textContent);
        return { badges: words.length, words, found };
      });
    const seen = { badges: 0, words: [], found: [] };
    for (let move = 0; move < 16 && seen.badges === 0; move++) {
      // Whoever's cards come alive: read at once, Ann's page could still be waiting for
      // Bea's move and send the turn to Bea (found by review).
      const mover = await Promise.race(
        [ann, bea].map((page) => page.waitForSelector(".hand.mine .card:not(:disabled)").then(() => page)),
      );
      const inHand = await mover.locator(".hand.mine .card").count();
      await mover.locator(".hand.mine .card:not(:disabled)").first().click();
      await mover.locator(".cell.empty:not(:disabled)").first().click();
      await mover.waitForFunction((n) => document.querySelectorAll(".hand.mine .card").length < n, inHand);
      await ann.waitForFunction(
        (n) => document.querySelectorAll(".cell.mine, .cell.theirs").length > n, move, { timeout: 10_000 },
      );
      const now = await covered(ann);
      seen.badges = now.badges;
      seen.words = now.words;
      seen.found.push(...now.found);
    }
    await ann.screenshot({ path: screenshot });
    return seen;
  }

  async function elementalCell() {
    const ann = await player();
    const bea = await player();
    for (const page of [ann, bea]) await page.setViewportSize(DESK);
    await ann.check("input[name=elemental]");
    await seated(ann, bea, 5);
    const mover = (await ann.locator(".hand.mine .card:not(:disabled)").count()) ? ann : bea;
    const card = mover.locator(".hand.mine .card:not(:disabled)").first();
    const element = (await card.locator(".element").allTextContents())[0] ?? "";
    await card.click();
    const cell = await mover.locator(".cell.empty[data-mark]:not(:disabled)").first().getAttribute("data-cell");
    await mover.click(`.cell[data-cell="${cell}"]`);
    await mover.waitForSelector(`.cell[data-cell="${cell}"].mine`);
    const seen = await mover.evaluate((index) => {
      const node = document.querySelector(`.cell[data-cell="${index}"]`);
      const box = (selector) => node.querySelector(selector)?.getBoundingClientRect() ?? null;
      const texts = [...node.querySelectorAll("span")].filter((s) => s.getBoundingClientRect().width > 0);
      const overlaps = [];
      for (const [i, a] of texts.entries()) {
        for (const b of texts.slice(i + 1)) {
          if (a.contains(b) || b.contains(a)) continue; // a part of the other
          const p = a.getBoundingClientRect();
          const q = b.getBoundingClientRect();
          const apart = p.right <= q.left || q.right <= p.left || p.bottom <= q.top || q.bottom <= p.top;
          if (!apart && a.textContent && b.textContent) overlaps.push([a.textContent, b.textContent]);
        }
      }
      return { mark: node.dataset.mark, text: node.innerText.replace(/\s+/g, " "), overlaps, element: !!box(".face .element") };
    }, cell);
    await mover.screenshot({ path: screenshot });
    return { ...seen, cardElement: element };
  }

  /** Where the match's parts end on ``page``, and how far the page scrolls. */
  function measure(page) {
    return page.evaluate(() => {
      const bottom = (selector) => {
        const nodes = [...document.querySelectorAll(selector)];
        return nodes.length ? Math.max(...nodes.map((n) => n.getBoundingClientRect().bottom)) : -1;
      };
      const right = (selector) => {
        const nodes = [...document.querySelectorAll(selector)];
        return nodes.length ? Math.max(...nodes.map((n) => n.getBoundingClientRect().right)) : -1;
      };
      const board = document.querySelector("[data-testid=board]")?.getBoundingClientRect();
      return {
        board: bottom("[data-testid=board]"),
        boardWidth: board?.width ?? 0,
        hand: bottom(".hand.mine .card"),
        forfeit: bottom("button[name=forfeit]"),
        pick: bottom("[data-testid=trade] [data-copy]"),
        right: Math.max(right("[data-testid=board]"), right(".hand.mine .card")),
        scrollHeight: document.documentElement.scrollHeight,
        scrollWidth: document.documentElement.scrollWidth,
        height: innerHeight,
        width: innerWidth,
      };
    });
  }

  /** Ann challenges Bea to a table of ``board`` (and ``blocked`` cells); both seated. */
  async function seated(ann, bea, board, blocked = 0) {
    await ann.selectOption("select[name=board]", String(board));
    if (blocked) await ann.selectOption("select[name=blocked]", String(blocked));
    await ann.fill("input[name=challenged]", bea.playerName);
    await ann.click("button[name=host]");
    await bea.locator("[data-testid=challenge] button[name=accept]").click();
    await Promise.all([ann, bea].map((page) => page.waitForSelector("[data-testid=match][data-status=playing]")));
  }

  async function forfeit(ann, bea) {
    await ann.click("button[name=forfeit]");
    await ann.click("button[name=forfeit-confirm]");
    for (const page of [ann, bea]) {
      await page.waitForSelector("[data-testid=result]");
      await page.click("button[name=lobby]");
      await page.waitForSelector("[data-testid=lobby]");
    }
  }

  async function fits() {
    const ann = await player();
    const bea = await player();
    for (const page of [ann, bea]) await page.setViewportSize(DESK);
    const seen = {};
    for (const [board, blocked] of [[5, 2], [4, 0]]) {
      await seated(ann, bea, board, blocked);
      seen[board] = [await measure(ann), await measure(bea)];
      seen[`rules${board}`] = (await ann.textContent(".match .rules"))?.trim() ?? "";
      if (board === 5) {
        await bea.setViewportSize(PHONE);
        seen.phone = await measure(bea);
        await bea.setViewportSize(DESK);
        await ann.screenshot({ path: screenshot });
      }
      await forfeit(ann, bea);
    }
    return seen;
  }

  async function missedFit() {
    const page = await player();
    await page.setViewportSize(DESK);
    await page.click("button[name=practice]");
    await page.waitForSelector("[data-testid=notice]:has-text('missed your turn')", { timeout: 30_000 });
    await page.waitForSelector(".hand.mine .card:not(:disabled)");
    const seen = await measure(page);
    const notice = (await page.textContent("[data-testid=notice]"))?.trim() ?? "";
    await page.screenshot({ path: screenshot });
    return { ...seen, notice };
  }

  async function pickFit() {
    const ann = await player();
    const bea = await player();
    await bea.setViewportSize(DESK);
    await ann.selectOption("select[name=visibility]", { label: "closed" });
    await ann.selectOption("select[name=trade]", { label: "trade difference" });
    await seated(ann, bea, 3);
    await ann.click("button[name=forfeit]");
    await ann.click("button[name=forfeit-confirm]");
    await bea.waitForSelector("[data-testid=trade] [data-copy]", { timeout: 30_000 });
    const atEnd = await measure(bea);
    await bea.reload();
    await bea.waitForSelector("[data-testid=trade] [data-copy]");
    const reloaded = await measure(bea);
    await bea.waitForTimeout(1_000); // a tick of the page's clocks
    const clock = await bea.evaluate(() => {
      const node = document.querySelector("[data-testid=trade] [data-deadline]");
      return node ? { text: node.textContent.trim(), left: node.dataset.left ?? "" } : null;
    });
    await bea.screenshot({ path: screenshot });
    return { atEnd, reloaded, clock };
  }
}
