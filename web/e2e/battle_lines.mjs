// Scenarios of web/e2e/play.mjs about what a Skirmish screen says besides its fields
// (web/src/battle_lines.ts: the facts the terminal's battle screen shows), run by
// tests/e2e/test_browser_battle.py (marked) and test_browser_battles.py (decided).
// play.mjs lends its players; each scenario returns what it saw, printed by play.mjs as
// one JSON line.
//
//   marked:  a practice battle against the CPU with Hollis Grave (Wither burns 4 for 3
//            turns, Raise Wraith summons), Lio Wisp (Haste: SPD +4 for 2 turns) and Pax
//            Ironleaf, started through the API (the lobby draws a random team): each
//            turn Wither on an enemy, Raise onto a square one of the team stands on (a
//            reservation; once seen, onto a free square: a Wraith on the field), Haste
//            on an ally, and cheap cards besides to draw others; the screen's lines and
//            what its squares say under the HP read at each turn's start, until all
//            were seen;
//   decided: Ann challenges Bea; Bea commits one aimed card on turn 1, then both pass
//            to the end of turn 10: what each page says of the plan committed, of
//            Sudden Death on turn 8, and of the decision that ends it.
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { gatewayCall, turnResolved } from "./battles.mjs";

/** The lines of the battle screen said in words, by their data-testid ("" if absent). */
const LINES = ["battle-marks", "battle-spd", "battle-reserved", "battle-sudden-death"];

function lines(page) {
  return page.evaluate(
    (ids) => Object.fromEntries(ids.map((id) => [id, document.querySelector(`[data-testid=${id}]`)?.textContent ?? ""])),
    LINES,
  );
}

/** What the squares of both fields say under each unit's HP: summons' and characters'. */
function cells(page) {
  return page.evaluate(() => {
    const said = (units) => [...document.querySelectorAll(units)].map((u) => u.textContent ?? "");
    return { summons: said(".square.unit.summon .marks"), characters: said(".square.unit:not(.summon) .marks") };
  });
}

/** The scenarios, on ``kit``: player() and the screenshot path. */
export function battleLineScenarios(kit) {
  const { player, screenshot } = kit;
  return { marked, decided };

  async function marked() {
    const page = await player();
    const request = new BinaryWriter()
      .tag(1, WireType.LengthDelimited)
      .string(`e2e${Date.now()}${Math.random().toString(16).slice(2)}`) // request_id
      .tag(2, WireType.Varint)
      .int32(1); // bot_level: random
    for (const character of ["hollis", "wisp", "pax"]) request.tag(3, WireType.LengthDelimited).string(character);
    const started = await gatewayCall(page, "StartPracticeBattle", request.finish());
    await page.reload(); // the battle in progress comes back with the session
    await page.waitForSelector("[data-testid=battle][data-status=formation]");
    const formation = await lines(page);
    await page.click("button[name=formation]"); // the front column: squares 0 0, 1 0, 2 0
    // Raise Wraith onto a square the team stands on until its reservation is seen (the
    // opponent's summons may be reserved too), then onto a free one: a Wraith stands.
    const reserved = () => seen.some((s) => s["battle-reserved"].includes("your Wraith"));
    const wanted = () => [
      ["hollis.wither", "[data-testid=field-theirs] .square.target"],
      ["hollis.raise", `[data-testid=field-mine] .square${reserved() ? ":not(.unit)" : ".unit"}.target`],
      ["wisp.haste", "[data-testid=field-mine] .square.target"],
    ];
    const seen = [];
    const all = () =>
      seen.some((s) => / turn ends?/.test(s["battle-marks"])) &&
      seen.some((s) => / for \d turns?/.test(s["battle-spd"])) &&
      reserved() &&
      seen.some((s) => s.summons.length);
    for (let turn = 0; turn < 10 && !all(); turn++) {
      const next = await Promise.race([
        page.waitForSelector("[data-testid=battle-result]", { timeout: 60_000 }).then(() => "end"),
        page.waitForSelector("button[name=commit]", { timeout: 60_000 }).then(() => "turn"),
      ]);
      if (next === "end") break;
      const status = (await page.textContent("[data-testid=battle-status]")) ?? "";
      seen.push({ status, ...(await lines(page)), ...(await cells(page)) });
      if (all()) break;
      const played = [];
      for (const [card, target] of wanted()) {
        if (await tap(page, page.locator(`[data-testid=battle-hand] .skill[data-card="${card}"]:not(:disabled)`), target)) {
          played.push(card);
        }
      }
      // Cards besides, so that the hand draws others next turn (unused cards stay).
      for (let pick = 0; pick < 2; pick++) {
        if (!(await tap(page, page.locator("[data-testid=battle-hand] .skill:not(:disabled)"), ".square.target"))) break;
      }
      seen.at(-1).played = played;
      await page.click("button[name=commit]");
      await turnResolved(page, status);
    }
    await page.screenshot({ path: screenshot, fullPage: true });
    if (await page.locator("button[name=give-up]").count()) {
      await page.click("button[name=give-up]");
      await page.click("button[name=give-up-confirm]");
      await page.waitForSelector("[data-testid=battle-result]");
    }
    return { started, formation, seen, ended: await lines(page) };
  }

  async function decided() {
    const ann = await player();
    const bea = await player();
    const both = [ann, bea];
    await ann.fill("input[name=challenged]", bea.playerName);
    await ann.click("button[name=host-battle]");
    await ann.waitForSelector("[data-testid=hosted]");
    await bea.locator(`[data-testid=challenge]:has-text("${ann.playerName}") button[name=accept]`).click();
    await Promise.all(both.map((page) => page.waitForSelector("[data-testid=battle][data-status=formation]")));
    for (const page of both) await page.click("button[name=formation]");
    const selection = "[data-testid=battle][data-status=selection] button[name=commit]";
    await Promise.all(both.map((page) => page.waitForSelector(selection)));
    const first = await Promise.all(both.map(lines));
    // Bea commits a card aimed at a unit or a line; Ann has not committed yet.
    const aimed = ["single", "cross", "row", "column", "ally"].map((r) => `.skill[data-range=${r}]:not(:disabled)`);
    if (!(await tap(bea, bea.locator(`[data-testid=battle-hand] :is(${aimed.join(", ")})`), ".square.target"))) {
      throw new Error("Bea holds no aimed card she can play on turn 1");
    }
    const planned = await bea.locator("[data-testid=plan] li").allTextContents();
    await bea.click("button[name=commit]");
    await bea.waitForSelector("[data-testid=battle-prompt]:has-text('Plan committed')");
    const committed = await bea.locator(".team-line", { hasText: "Your plan" }).allTextContents();
    const sudden = [];
    for (let turn = 1; turn <= 10; turn++) {
      const status = (await ann.textContent("[data-testid=battle-status]")) ?? "";
      if (turn >= 8) sudden.push({ status, said: await Promise.all(both.map(lines)) });
      // Bea's turn 1 is committed; each page passes every other turn.
      for (const page of turn === 1 ? [ann] : both) await page.click("button[name=commit]");
      await Promise.all(both.map((page) => turnResolved(page, status, 30_000)));
      if (await ann.locator("[data-testid=battle-result]").count()) break;
    }
    const results = await Promise.all(both.map(async (page) => (await page.textContent("[data-testid=battle-result]"))?.trim() ?? ""));
    const ended = await Promise.all(both.map(lines));
    await bea.screenshot({ path: screenshot, fullPage: true });
    return { first, planned, committed, sudden, results, ended };
  }
}

/** Taps the first of ``cards`` and, if it asks for one, the first of ``targets`` that may
 * be tapped; false (the aim cancelled) when there is no such card or target. */
async function tap(page, cards, targets) {
  if ((await cards.count()) === 0) return false;
  await cards.first().click();
  if (!(await page.textContent("[data-testid=battle-prompt]")).includes("tap its target")) return true;
  const squares = page.locator(`${targets}:not(:disabled)`);
  if ((await squares.count()) === 0) {
    await page.click("button[name=cancel-aim]");
    return false;
  }
  await squares.first().click();
  return true;
}
