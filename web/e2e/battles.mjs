// The scenarios of web/e2e/play.mjs about Skirmish (a practice battle against the CPU,
// challenges to a battle) and coming back to a queue (its header says what each plays).
// play.mjs lends its players; each scenario returns what it saw, printed by play.mjs as
// one JSON line.
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";

/** The scenarios, on ``kit``: player() and the screenshot path. */
export function battleScenarios(kit) {
  const { player, screenshot } = kit;
  return { battle, challenged, requeued, ended, lobbyBattle };

  async function battle() {
    const page = await player();
    await page.selectOption("select[name=battle-level]", { label: "random" });
    await page.click("button[name=battle]");
    await page.waitForSelector("[data-testid=battle][data-status=formation]");
    // Three squares of my own field, one per character in the team's order.
    const formation = [[0, 1], [1, 0], [2, 2]];
    for (const [row, col] of formation) {
      await page.click(`[data-testid=field-mine] [data-row="${row}"][data-col="${col}"]`);
    }
    const ready = (await page.textContent("[data-testid=battle-prompt]"))?.trim() ?? "";
    await page.click("button[name=formation]");
    await page.waitForSelector("[data-testid=battle][data-status=selection]");
    const placed = await page.evaluate(() =>
      [...document.querySelectorAll("[data-testid=field-mine] .square.unit")].map(
        (n) => `${n.dataset.row},${n.dataset.col}`,
      ),
    );
    const turns = [];
    let resumed = "";
    for (let turn = 0; turn < 15; turn++) {
      const next = await Promise.race([
        page.waitForSelector("[data-testid=battle-result]", { timeout: 60_000 }).then(() => "end"),
        page.waitForSelector("button[name=commit]", { timeout: 60_000 }).then(() => "turn"),
      ]);
      if (next === "end") break;
      const status = await page.textContent("[data-testid=battle-status]");
      const energy = await page.textContent("[data-testid=battle-prompt]");
      let set = 0;
      for (let pick = 0; pick < 3; pick++) {
        const usable = page.locator("[data-testid=battle-hand] .skill:not(:disabled)");
        if ((await usable.count()) === 0) break;
        await usable.first().click();
        if ((await page.textContent("[data-testid=battle-prompt]")).includes("tap its target")) {
          const targets = page.locator(".square.target:not(:disabled)");
          if ((await targets.count()) === 0) {
            await page.click("button[name=cancel-aim]");
            break;
          }
          await targets.first().click();
        }
        set += 1;
      }
      const plan = await page.locator("[data-testid=plan] li").allTextContents();
      if (turns.length === 0) await page.screenshot({ path: screenshot.replace(/\.png$/, "-turn.png"), fullPage: true });
      await page.click("button[name=commit]");
      // The turn resolves (the CPU commits at once): a new turn, or the end.
      await turnResolved(page, status);
      const log = await page.locator("[data-testid=battle-log] li").allTextContents();
      const folded = await page.evaluate(() => {
        const box = document.querySelector("[data-testid=battle-log]");
        return box ? box.scrollHeight > box.clientHeight + 1 : false;
      });
      turns.push({ status, energy, set, plan, log, folded });
      if (turns.length === 2) {
        // A reload mid-battle: the session's opening brings the battle back as it stands.
        const before = await page.textContent("[data-testid=battle-status]");
        await page.reload();
        await page.waitForSelector("[data-testid=battle]");
        resumed = (await page.textContent("[data-testid=battle-status]")) ?? "";
        if (resumed !== before) throw new Error(`reloaded on ${resumed}, not ${before}`);
      }
    }
    const result = (await page.textContent("[data-testid=battle-result]"))?.trim() ?? "";
    const final = await page.evaluate(() => {
      const box = (selector) => {
        const b = document.querySelector(selector).getBoundingClientRect();
        return { x: b.x, y: b.y, width: b.width, height: b.height };
      };
      return {
        status: document.querySelector("[data-testid=battle-status]").textContent,
        mine: box("[data-testid=field-mine]"),
        theirs: box("[data-testid=field-theirs]"),
        lines: [...document.querySelectorAll(".team-line")].map((n) => n.textContent),
        log: [...document.querySelectorAll("[data-testid=battle-log] li")].map((n) => n.textContent),
        logFolded: (({ scrollHeight, clientHeight }) => scrollHeight > clientHeight + 1)(document.querySelector("[data-testid=battle-log]")),
        squares: document.querySelectorAll("[data-testid^=field-] .square").length,
      };
    });
    const pushes = await page.locator("[data-testid=pushes] li").allTextContents();
    await page.screenshot({ path: screenshot, fullPage: true });
    await page.click("button[name=battle-lobby]");
    await page.waitForSelector("[data-testid=lobby]");
    // A second battle: the front column kept (no square tapped), then given up (asked
    // twice) on turn 1.
    await page.click("button[name=battle]");
    await page.waitForSelector("[data-testid=battle][data-status=formation]");
    await page.click("button[name=formation]");
    await page.waitForSelector("[data-testid=battle][data-status=selection]");
    const front = await page.evaluate(() =>
      [...document.querySelectorAll("[data-testid=field-mine] .square.unit")].map(
        (n) => `${n.dataset.row},${n.dataset.col}`,
      ),
    );
    // Every unit's name whole on the phone (wrapped, never cut short).
    const cutNames = await page.evaluate(() =>
      [...document.querySelectorAll("[data-testid^=field-] .unit-name")]
        .filter((n) => n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 1)
        .map((n) => n.textContent),
    );
    const outside = await page.evaluate(() =>
      [...document.querySelectorAll("[data-testid^=field-] .square.unit")].flatMap((square) => {
        const box = square.getBoundingClientRect();
        return [...square.children]
          .filter((part) => {
            const p = part.getBoundingClientRect();
            return p.top < box.top - 1 || p.bottom > box.bottom + 1;
          })
          .map((part) => part.textContent);
      }),
    );
    await page.click("button[name=give-up]");
    await page.click("button[name=give-up-confirm]");
    const gaveUp = (await page.textContent("[data-testid=battle-result]"))?.trim() ?? "";
    await page.click("button[name=battle-lobby]");
    await page.waitForSelector("[data-testid=lobby]");
    return { name: page.playerName, ready, placed, turns, resumed, result, final, pushes, front, gaveUp, cutNames, outside };
  }

  async function challenged() {
    // Clocks apart from UTC and from each other: each is told the expiry on her own.
    const ann = await player({ timezoneId: "Asia/Kolkata" });
    const bea = await player({ timezoneId: "Asia/Tokyo" });
    const cid = await player();
    // Cid, then Ann, challenge Bea to a Skirmish battle.
    for (const host of [cid, ann]) {
      await host.fill("input[name=challenged]", bea.playerName);
      await host.click("button[name=host-battle]");
      await host.waitForSelector("[data-testid=hosted]");
    }
    const hosted = (await ann.textContent("[data-testid=hosted]")) ?? "";
    const fromAnn = bea.locator(`[data-testid=challenge]:has-text("${ann.playerName}")`);
    const fromCid = bea.locator(`[data-testid=challenge]:has-text("${cid.playerName}")`);
    await fromCid.waitFor();
    const offer = (await fromAnn.textContent()) ?? "";
    const kind = await fromAnn.getAttribute("data-kind");
    // After a reload the two are still there (the session's opening lists them).
    await bea.reload();
    await fromAnn.waitFor();
    await fromCid.waitFor();
    const reloaded = await bea.locator("[data-testid=challenge][data-kind=battle]").count();
    // Cid's is declined: his table goes, and he is told.
    await fromCid.locator("button[name=decline]").click();
    await fromCid.waitFor({ state: "detached" });
    await cid.waitForSelector("button[name=host-battle]");
    const declined = await cid.locator("[data-testid=pushes] li", { hasText: "declined" }).count();
    // Ann's is accepted: both are in the battle, setting their formations.
    await fromAnn.locator("button[name=accept]").click();
    const formation = "[data-testid=battle][data-status=formation]";
    await Promise.all([ann, bea].map((page) => page.waitForSelector(formation)));
    // The accepted challenge's card goes with its own push, which may come just after the
    // battle's: wait for it a while, then count what is left.
    const gone = () => document.querySelectorAll("[data-testid=challenge]").length === 0;
    await bea.waitForFunction(gone, null, { timeout: 10_000 }).catch(() => {});
    const left = await bea.locator("[data-testid=challenge]").count();
    // Both keep the front column; Bea plays a card on turn 1, Ann passes.
    for (const page of [ann, bea]) await page.click("button[name=formation]");
    const selection = "[data-testid=battle][data-status=selection] button[name=commit]";
    await Promise.all([ann, bea].map((page) => page.waitForSelector(selection)));
    const turn = (await bea.textContent("[data-testid=battle-status]")) ?? "";
    await bea.locator("[data-testid=battle-hand] .skill:not(:disabled)").first().click();
    if ((await bea.textContent("[data-testid=battle-prompt]")).includes("tap its target")) {
      await bea.locator(".square.target:not(:disabled)").first().click();
    }
    const plan = await bea.locator("[data-testid=plan] li").allTextContents();
    await bea.click("button[name=commit]");
    await ann.click("button[name=commit]");
    const next = (page) =>
      page.waitForFunction(
        (before) => {
          const status = document.querySelector("[data-testid=battle-status]")?.textContent;
          return document.querySelector("[data-testid=battle-result]") || (status && status !== before);
        },
        turn,
        { timeout: 30_000 },
      );
    await Promise.all([ann, bea].map(next));
    const after = await Promise.all([ann, bea].map((page) => page.textContent("[data-testid=battle-status]")));
    const log = await bea.locator("[data-testid=battle-log] li").allTextContents();
    await bea.screenshot({ path: screenshot, fullPage: true });
    // Ann gives up: the battle is over for both.
    await ann.click("button[name=give-up]");
    await ann.click("button[name=give-up-confirm]");
    const results = await Promise.all(
      [ann, bea].map(async (page) => (await page.textContent("[data-testid=battle-result]"))?.trim() ?? ""),
    );
    const pushes = await bea.locator("[data-testid=pushes] li").allTextContents();
    const names = [ann.playerName, bea.playerName, cid.playerName];
    return { names, hosted, offer, kind, reloaded, declined, left, turn, plan, after, log, results, pushes };
  }

  async function requeued() {
    const page = await player();
    // Roulette, alone: after the first status the queue sends no push (no rating window
    // widens, no bot takes the seat).
    await page.selectOption("select[name=mode]", { label: "roulette" });
    await page.click("button[name=queue]");
    await page.waitForSelector("[data-testid=queue]");
    await page.waitForTimeout(2_000);
    const before = (await page.textContent("[data-testid=queue] p")) ?? "";
    const reloaded = Date.now();
    await page.reload();
    await page.waitForSelector("[data-testid=lobby]");
    let shownAfter = null;
    try {
      await page.waitForSelector("[data-testid=queue]", { timeout: 5_000 });
      shownAfter = Date.now() - reloaded;
    } catch {
      // not shown: the old page waited for the queue's next push
    }
    const after = shownAfter === null ? "" : ((await page.textContent("[data-testid=queue] p")) ?? "");
    const pushes = await page.locator("[data-testid=pushes] li").allTextContents();
    const mode = await page.$eval("select[name=mode]", (s) => s.selectedOptions[0]?.textContent ?? "");
    await page.screenshot({ path: screenshot, fullPage: true });
    if (shownAfter !== null) {
      await page.click("[data-testid=queue] button[name=cancel]");
      await page.waitForFunction(() => !document.querySelector("[data-testid=queue]"));
    }
    return { before, shownAfter, after, pushes, mode };
  }

  async function lobbyBattle() {
    return await openBattleTable(player, screenshot);
  }

  async function ended() {
    const ann = await player();
    const bea = await player();
    // Ann forfeits a practice match and stays on its end screen; then she challenges Bea
    // to a Skirmish battle through the API, and Bea accepts on her page.
    await ann.click("button[name=practice]");
    await ann.waitForSelector("[data-testid=board]");
    await ann.click("button[name=forfeit]");
    await ann.click("button[name=forfeit-confirm]");
    const result = (await ann.textContent("[data-testid=result]"))?.trim() ?? "";
    const challenge = await challengeToBattle(ann, bea.playerName);
    const fromAnn = bea.locator(`[data-testid=challenge]:has-text("${ann.playerName}")`);
    await fromAnn.locator("button[name=accept]").click();
    const formation = "[data-testid=battle][data-status=formation]";
    await bea.waitForSelector(formation);
    // Ann, still on the match's end screen, is shown the battle.
    const shown = await ann
      .waitForSelector(formation, { timeout: 10_000 })
      .then(() => true)
      .catch(() => false);
    const status = shown ? ((await ann.textContent("[data-testid=battle-status]")) ?? "") : "";
    const board = await ann.locator("[data-testid=board]").count();
    const pushes = await ann.locator("[data-testid=pushes] li").allTextContents();
    await ann.screenshot({ path: screenshot, fullPage: true });
    if (shown) {
      // Ann gives up: the battle is over for both.
      await ann.click("button[name=give-up]");
      await ann.click("button[name=give-up-confirm]");
      await bea.waitForSelector("[data-testid=battle-result]");
    }
    return { names: [ann.playerName, bea.playerName], result, challenge, shown, status, board, pushes };
  }
}

/** A battle table open to anyone (BATTLE.md 6, custom battles in the lobby): Ann opens
 * it with no one named; Bea looks for tables, finds it among them and joins it. */
async function openBattleTable(player, screenshot) {
  const ann = await player({ timezoneId: "Asia/Kolkata" }); // told the expiry on her clock
  const bea = await player({ timezoneId: "Asia/Tokyo" }); // the tables' expiry on hers
  await ann.click("button[name=host-battle]");
  const hosted = (await ann.textContent("[data-testid=hosted]")) ?? "";
  await bea.click("button[name=tables]");
  const row = bea.locator(`[data-testid=open-tables] li:has-text("${ann.playerName}")`);
  await row.waitFor();
  const listed = (await row.textContent()) ?? "";
  await row.locator("button[name=join]").click();
  const formation = "[data-testid=battle][data-status=formation]";
  const both = await Promise.all(
    [ann, bea].map((page) =>
      page
        .waitForSelector(formation, { timeout: 15_000 })
        .then(() => true)
        .catch(() => false),
    ),
  );
  await bea.screenshot({ path: screenshot, fullPage: true });
  if (both[0]) {
    await ann.click("button[name=give-up]");
    await ann.click("button[name=give-up-confirm]");
    await bea.waitForSelector("[data-testid=battle-result]");
  }
  return { names: [ann.playerName, bea.playerName], hosted, listed, both };
}

/** CreateTable for a Skirmish battle challenging ``name``, called from ``page`` with its
 * tokens but not by its screens (which host only from the lobby), nor from a second page
 * (its session would replace the first's); the call's grpc-status, "0" when hosted. */
async function challengeToBattle(page, name) {
  const request = new BinaryWriter()
    .tag(1, WireType.LengthDelimited)
    .string(`e2e${Date.now()}${Math.random().toString(16).slice(2)}`) // request_id
    .tag(2, WireType.LengthDelimited)
    .fork()
    .tag(3, WireType.Varint)
    .bool(true) // settings.battle
    .join()
    .tag(4, WireType.LengthDelimited)
    .string(name) // challenged_player_name
    .finish();
  return await gatewayCall(page, "CreateTable", request);
}

/** ``method`` of the gateway called from ``page`` with its tokens and the encoded
 * ``request`` (gRPC-Web, as the page speaks it); the call's grpc-status, "0" when done. */
/** Waits for the turn shown as ``status`` to resolve: a new turn to plan, or the end. */
export function turnResolved(page, status, timeout = 60_000) {
  return page.waitForFunction(
    (before) =>
      document.querySelector("[data-testid=battle-result]") ||
      (document.querySelector("[data-testid=battle-status]")?.textContent !== before &&
        document.querySelector("button[name=commit]")),
    status,
    { timeout },
  );
}

export async function gatewayCall(page, method, request) {
  return await page.evaluate(async ([method, bytes]) => {
    const { access } = JSON.parse(sessionStorage.getItem("triad-tokens"));
    const body = new Uint8Array(5 + bytes.length);
    new DataView(body.buffer).setUint32(1, bytes.length); // a data frame: flag 0, length
    body.set(bytes, 5);
    const reply = await fetch(`/triad.v1.TriadGateway/${method}`, {
      method: "POST",
      headers: {
        "content-type": "application/grpc-web+proto",
        "x-grpc-web": "1",
        authorization: `Bearer ${access}`,
      },
      body,
    });
    const text = new TextDecoder().decode(await reply.arrayBuffer());
    return reply.headers.get("grpc-status") ?? /grpc-status: ?(\d+)/.exec(text)?.[1] ?? `HTTP ${reply.status}`;
  }, [method, [...request]]);
}
