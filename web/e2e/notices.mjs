// The scenarios of web/e2e/play.mjs about what reaches a player away from the lobby (its
// header says what each plays): a challenge answered from another screen, and the
// queue's clock between pushes, and a match or a battle that ended while its player was
// away.
// play.mjs lends its players; each scenario returns what it saw, printed by play.mjs as
// one JSON line.

/** The scenarios, on ``kit``: player(), returning() and the screenshot path. */
export function noticeScenarios(kit) {
  const { player, returning, screenshot } = kit;
  return { away, clock, missed, battleMissed, elsewhere, unreached };

  /** A move made while the server cannot be reached, three ways: the connection
   * refused, a proxy's HTML 503, the browser offline. What the page says each time; and
   * after a reload while the gateway cannot be reached. */
  async function unreached() {
    const page = await player();
    await page.click("button[name=practice]");
    await page.waitForSelector(".hand.mine .card:not(:disabled)");
    const place = "**/triad.v1.TriadGateway/PlaceCard";
    const said = async () => {
      // The last try's words go first, so that what is read is this try's.
      await page.evaluate(() => document.querySelector(".error[role=alert]")?.remove());
      if ((await page.locator(".cell.empty:not(:disabled)").count()) === 0) {
        await page.locator(".hand.mine .card:not(:disabled)").first().click(); // still selected after a failure
      }
      await page.locator(".cell.empty:not(:disabled)").first().click();
      return (await page.textContent(".error[role=alert]"))?.trim() ?? "";
    };
    await page.route(place, (route) => route.abort("connectionrefused"));
    const refused = await said();
    await page.unroute(place);
    await page.route(place, (route) =>
      route.fulfill({ status: 503, body: "<html>Service Unavailable</html>", contentType: "text/html" }),
    );
    const proxied = await said();
    await page.unroute(place);
    await page.context().setOffline(true);
    const offline = await said();
    await page.context().setOffline(false);
    // The next try, answered 1.5 s late: the last refusal leaves the screen as it starts.
    await page.route(place, async (route) => {
      await new Promise((done) => setTimeout(done, 1500));
      await route.continue();
    });
    const alert = page.locator(".error[role=alert]:not([data-testid])");
    const shownBefore = await alert.isVisible();
    if ((await page.locator(".cell.empty:not(:disabled)").count()) === 0) {
      await page.locator(".hand.mine .card:not(:disabled)").first().click();
    }
    const inHand = await page.locator(".hand.mine .card").count();
    await page.locator(".cell.empty:not(:disabled)").first().click();
    const shownDuring = await alert.isVisible();
    await page.waitForFunction((n) => document.querySelectorAll(".hand.mine .card").length < n, inHand);
    const shownAfter = await alert.count();
    await page.unroute(place);
    // Reloaded while the gateway is out of reach (its every call refused): the page says
    // it is not up to date, and stops saying so once its session opens again.
    const gateway = /triad\.v1\.TriadGateway\//;
    await page.route(gateway, (route) => route.abort("connectionrefused"));
    const logged = await page.locator("[data-testid=pushes] li").allTextContents();
    await page.reload();
    const banner = (await page.textContent("[data-testid=unreached]"))?.trim() ?? "";
    await page.screenshot({ path: screenshot, fullPage: true });
    await page.unroute(gateway);
    await page.waitForSelector("[data-testid=unreached]", { state: "detached", timeout: 20_000 });
    const resumed = await page.locator("[data-testid=board]").count();
    const log = { before: logged, after: await page.locator("[data-testid=pushes] li").allTextContents() };
    return { refused, proxied, offline, shownBefore, shownDuring, shownAfter, banner, resumed, log };
  }

  /** Ann plays a practice match, then logs in on a second page: the first says it
   * stopped updating; a move made on the second is seen on the first once she takes the
   * game back there ("Play here"), and then the second says so in turn. */
  async function elsewhere() {
    const first = await player();
    await first.click("button[name=practice]");
    await first.waitForSelector(".hand.mine .card:not(:disabled)");
    const rules = (await first.textContent(".rules"))?.trim() ?? "";
    const second = await returning(first.playerName);
    await second.waitForSelector(".hand.mine .card:not(:disabled)");
    const told = (await first.textContent("[data-testid=elsewhere]"))?.trim() ?? "";
    const inHand = await second.locator(".hand.mine .card").count();
    await second.locator(".hand.mine .card:not(:disabled)").first().click();
    await second.locator(".cell.empty:not(:disabled)").first().click();
    await second.waitForFunction((n) => document.querySelectorAll(".hand.mine .card").length < n, inHand);
    const stale = await first.locator(".hand.mine .card").count();
    await first.click("button[name=play-here]");
    await first.waitForFunction((n) => document.querySelectorAll(".hand.mine .card").length < n, inHand);
    const caughtUp = await first.locator(".hand.mine .card").count();
    const banner = await first.locator("[data-testid=elsewhere]").count();
    const secondTold = (await second.textContent("[data-testid=elsewhere]"))?.trim() ?? "";
    await second.screenshot({ path: screenshot, fullPage: true });
    return { rules, told, inHand, stale, caughtUp, banner, secondTold };
  }

  /** Ann's page closes mid-match; she stays away past the disconnect grace, then logs
   * in again on a new page: the match's end screen, and the notice in words. */
  async function missed() {
    const ann = await player();
    const bea = await player({ timezoneId: "Asia/Tokyo" }); // her clock is not UTC
    await ann.fill("input[name=challenged]", bea.playerName);
    await ann.click("button[name=host]");
    await bea.locator("[data-testid=challenge] button[name=accept]").click();
    await Promise.all([ann, bea].map((page) => page.waitForSelector("[data-testid=board]")));
    await ann.context().close();
    // Until the grace runs out, Bea's page says Ann is not connected and until when.
    const awayLine = (await bea.textContent("[data-testid=away]", { timeout: 10_000 }))?.trim() ?? "";
    const told = bea.locator("[data-testid=notice]", { hasText: "lost their connection" });
    const awayNotice = (await told.textContent({ timeout: 10_000 }))?.trim() ?? "";
    const beaResult = (await bea.textContent("[data-testid=result]", { timeout: 30_000 }))?.trim() ?? "";
    const back = await returning(ann.playerName);
    const result = (await back.textContent("[data-testid=result]"))?.trim() ?? "";
    const notice = (await back.textContent("[data-testid=notice]"))?.trim() ?? "";
    await back.screenshot({ path: screenshot, fullPage: true });
    return { names: [ann.playerName, bea.playerName], awayLine, awayNotice, beaResult, result, notice };
  }

  /** Ann's page closes in a practice battle; the CPU takes her side over and the battle
   * ends, lost; she logs in again on a new page: the battle's end, and the notice. */
  async function battleMissed() {
    const ann = await player();
    await ann.click("button[name=battle]");
    await ann.waitForSelector("[data-testid=battle][data-status=formation]");
    await ann.context().close();
    // The grace (2 s in the test), then the CPU's turns: time enough on a busy machine.
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    const back = await returning(ann.playerName);
    const result = (await back.textContent("[data-testid=battle-result]"))?.trim() ?? "";
    const notice = (await back.textContent("[data-testid=notice]"))?.trim() ?? "";
    await back.screenshot({ path: screenshot, fullPage: true });
    return { result, notice };
  }

  async function away() {
    const ann = await player();
    const bea = await player();
    const cid = await player();
    await bea.click("button[name=cards]");
    await bea.waitForSelector("[data-testid=cards]");
    // Cid, then Ann, challenge Bea while she looks at her cards.
    for (const host of [cid, ann]) {
      await host.fill("input[name=challenged]", bea.playerName);
      await host.click("button[name=host]");
      await host.waitForSelector("[data-testid=hosted]");
    }
    const fromAnn = bea.locator(`[data-testid=challenge]:has-text("${ann.playerName}")`);
    const fromCid = bea.locator(`[data-testid=challenge]:has-text("${cid.playerName}")`);
    const offer = (await fromAnn.textContent()) ?? "";
    await fromCid.waitFor();
    const screen = await bea.getAttribute("#app > section:not(.notices)", "data-testid");
    await fromAnn.locator("button[name=accept]").click();
    await Promise.all([ann, bea].map((page) => page.waitForSelector("[data-testid=board]")));
    // Seated at Ann's match, Bea still sees Cid's challenge; accepting it is refused.
    const seatedOffer = (await fromCid.textContent()) ?? "";
    await fromCid.locator("button[name=accept]").click();
    const refusal = (await bea.textContent(".error[role=alert]"))?.trim() ?? "";
    const stillSeated = await bea.locator("[data-testid=board]").count();
    await bea.screenshot({ path: screenshot, fullPage: true });
    // Ann forfeits; from the finished match, Bea accepts Cid's challenge after all.
    await ann.click("button[name=forfeit]");
    await ann.click("button[name=forfeit-confirm]");
    const first = (await bea.textContent("[data-testid=result]", { timeout: 30_000 }))?.trim() ?? "";
    await fromCid.locator("button[name=accept]").click();
    await cid.waitForSelector("[data-testid=board]");
    await bea.waitForSelector("[data-testid=match][data-status=playing]");
    await cid.click("button[name=forfeit]");
    await cid.click("button[name=forfeit-confirm]");
    const second = (await bea.textContent("[data-testid=result]", { timeout: 30_000 }))?.trim() ?? "";
    // Back to the lobby means the lobby, not the cards screen she accepted from.
    await bea.click("button[name=lobby]");
    await bea.waitForSelector("[data-testid=lobby], [data-testid=cards]");
    const back = await bea.getAttribute("#app > section:not(.notices)", "data-testid");
    const left = await bea.locator("[data-testid=challenge]").count();
    const pushes = await bea.locator("[data-testid=pushes] li").allTextContents();
    const names = [ann.playerName, bea.playerName, cid.playerName];
    return { names, screen, offer, seatedOffer, refusal, stillSeated, first, second, back, left, pushes };
  }

  async function clock() {
    const page = await player();
    // Every interval the page sets and clears from here on, counted.
    await page.evaluate(() => {
      const live = new Set();
      const set = window.setInterval.bind(window);
      const clear = window.clearInterval.bind(window);
      window.setInterval = (...args) => {
        const id = set(...args);
        live.add(id);
        return id;
      };
      window.clearInterval = (id) => {
        live.delete(id);
        clear(id);
      };
      window.liveIntervals = () => live.size;
    });
    const intervals = () => page.evaluate(() => window.liveIntervals());
    // Unranked, alone: no window to widen and a bot seat only after 20 s, so the queue's
    // pushes stop once the ticket is told queued.
    await page.selectOption("select[name=mode]", { label: "unranked" });
    await page.click("button[name=queue]");
    await page.waitForSelector("[data-testid=queue]");
    // The panel is drawn from the enqueue's reply; the push telling the ticket queued
    // comes apart from it, and counted late it would look like a push of the clock.
    await page.locator("[data-testid=pushes] li", { hasText: "queue:" }).first().waitFor();
    await page.waitForTimeout(300);
    const queuePushes = () => page.locator("[data-testid=pushes] li", { hasText: "queue:" }).count();
    const said = () => page.textContent("[data-testid=queue] p");
    const before = { text: await said(), pushes: await queuePushes() };
    await page.waitForTimeout(2_200);
    const after = { text: await said(), pushes: await queuePushes() };
    const queued = await intervals();
    // Off to the cards and back, then out of the queue: the clock stops with its screen.
    await page.click("button[name=cards]");
    await page.waitForSelector("[data-testid=cards]");
    const onCards = await intervals();
    await page.click("button[name=lobby]");
    await page.waitForSelector("[data-testid=queue]");
    const back = await intervals();
    await page.click("[data-testid=queue] button[name=cancel]");
    await page.waitForFunction(() => !document.querySelector("[data-testid=queue]"));
    const left = await intervals();
    await page.screenshot({ path: screenshot, fullPage: true });
    return { before, after, intervals: { queued, onCards, back, left } };
  }
}
