// Scenarios of web/e2e/play.mjs about what an outside review of the Skirmish screens
// found (tests/e2e/test_browser_battle_review.py). play.mjs lends its players; each
// scenario returns what it saw, printed by play.mjs as one JSON line.
//
//   planned: a practice battle against the CPU with Tor Bastion (Bulwark swift, Slam and
//            Quake slow), Hollis Grave and Moss (Raise Wraith and Sprout summon: two, so
//            that one is seen even when the CPU defeats the other's character first),
//            started through the API: the hand as the formation is
//            set; then each turn a character's swift card before its slow one, and cheap
//            cards until one left in the hand is too dear, until both were seen: what the
//            plan list says of when each acts, what a card too dear says, how a summon's
//            target and a Special's star are told; then given up, on a phone;
//   deskGiveUp: at a 1280x720 window, a practice battle played a few turns (the last
//            turn's log under the plan): where Give up, its confirmation and Commit stand, and
//            how large the fields' labels are; then given up.
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { gatewayCall, turnResolved } from "./battles.mjs";

const DESK = { width: 1280, height: 720 };
const GROUPS = ["swift", "normal", "slow"];
const SUMMONS = ["hollis.raise", "moss.sprout"];
const TEAM = ["bastion", "hollis", "moss"];

/** A practice battle against a random CPU with ``team``, started through the API (the
 * lobby draws a random team), shown at its formation. */
async function practice(page, team) {
  const request = new BinaryWriter()
    .tag(1, WireType.LengthDelimited)
    .string(`e2e${Date.now()}${Math.random().toString(16).slice(2)}`) // request_id
    .tag(2, WireType.Varint)
    .int32(1); // bot_level: random
  for (const character of team) request.tag(3, WireType.LengthDelimited).string(character);
  const started = await gatewayCall(page, "StartPracticeBattle", request.finish());
  await page.reload(); // the battle in progress comes back with the session
  await page.waitForSelector("[data-testid=battle][data-status=formation]");
  return started;
}

/** The cards of the hand as drawn: id, owner (the id's head), group (the last word of
 * the line under its name), cost, whether it may be tapped, and what it says. */
function hand(page) {
  return page.evaluate((groups) =>
    [...document.querySelectorAll("[data-testid=battle-hand] .skill")].map((node) => {
      const who = node.querySelector(".skill-who")?.textContent ?? "";
      return {
        id: node.dataset.card,
        owner: (node.dataset.card ?? "").split(".")[0],
        group: groups.find((g) => new RegExp(`\\b${g}\\b`).test(who.split(" · ").at(-1) ?? "")) ?? "",
        cost: Number(/(\d+)E/.exec(node.querySelector(".skill-head")?.textContent ?? "")?.[1] ?? 0),
        usable: !node.disabled,
        set: node.classList.contains("set"),
        cooling: Boolean(node.querySelector(".cooling")),
        who,
        text: node.textContent ?? "",
        title: node.getAttribute("title") ?? "",
      };
    }), GROUPS);
}

/** Taps the card ``id`` and, if it asks for one, the first target that may be tapped;
 * false (the aim cancelled) when it has none. */
async function tap(page, id) {
  await page.click(`[data-testid=battle-hand] .skill[data-card="${id}"]`);
  if (!(await page.textContent("[data-testid=battle-prompt]")).includes("tap its target")) return true;
  const squares = page.locator(".square.target:not(:disabled)");
  if ((await squares.count()) === 0) {
    await page.click("button[name=cancel-aim]");
    return false;
  }
  await squares.first().click();
  return true;
}

/** The Energy left to plan with, as the prompt says it. */
async function left(page) {
  return Number(/(\d+) Energy left/.exec((await page.textContent("[data-testid=battle-prompt]")) ?? "")?.[1] ?? -1);
}

/** "turn" once the page asks for a plan, "end" once the battle is over. */
function nextTurn(page) {
  return Promise.race([
    page.waitForSelector("[data-testid=battle-result]", { timeout: 60_000 }).then(() => "end"),
    page.waitForSelector("button[name=commit]", { timeout: 60_000 }).then(() => "turn"),
  ]);
}

async function giveUp(page) {
  await page.click("button[name=give-up]");
  await page.click("button[name=give-up-confirm]");
  await page.waitForSelector("[data-testid=battle-result]");
  return {
    result: (await page.textContent("[data-testid=battle-result]"))?.trim() ?? "",
    status: (await page.textContent("[data-testid=battle-status]"))?.trim() ?? "",
  };
}

/** The scenarios, on ``kit``: player() and the screenshot path. */
export function battleReviewScenarios(kit) {
  const { player, screenshot } = kit;
  return { planned, deskGiveUp };

  async function planned() {
    const page = await player();
    const started = await practice(page, TEAM);
    const formationHand = await hand(page);
    const seen = { summons: [], specials: [], legend: "" };
    const note = async () => {
      for (const card of await hand(page)) if (SUMMONS.includes(card.id)) seen.summons.push(card.who);
      seen.specials.push(
        ...(await page.evaluate(() =>
          [...document.querySelectorAll("[data-testid=battle-hand] .special")].map((n) => ({
            title: n.getAttribute("title") ?? "",
            label: n.getAttribute("aria-label") ?? "",
          })),
        )),
      );
    };
    await note();
    await page.click("button[name=formation]"); // the front column
    let mixed = null;
    let dear = null;
    for (let turn = 0; turn < 8 && !(mixed && dear && seen.summons.length); turn++) {
      const next = await nextTurn(page);
      if (next === "end") break;
      const status = (await page.textContent("[data-testid=battle-status]")) ?? "";
      await note();
      seen.legend = (await page.locator("[data-testid=battle-legend]").textContent().catch(() => "")) ?? "";
      if (!mixed) {
        // A character's card of an earlier group, then one of a later group.
        const cards = (await hand(page)).filter((c) => c.usable && c.group);
        const energy = await left(page);
        const pairs = cards.flatMap((a) =>
          cards
            .filter((b) => b.owner === a.owner && GROUPS.indexOf(b.group) > GROUPS.indexOf(a.group))
            .filter((b) => a.cost + b.cost <= energy)
            .map((b) => [a, b]),
        );
        for (const [first, second] of pairs) {
          if (!(await tap(page, first.id))) continue;
          if (await tap(page, second.id)) {
            mixed = { first, second, plan: await page.locator("[data-testid=plan] li").allTextContents() };
            break;
          }
          await page.click("[data-testid=plan] li button.drop"); // the first taken back
        }
      }
      // Cheap cards until one left in the hand costs more than the Energy left.
      for (let pick = 0; pick < 4 && !dear; pick++) {
        const energy = await left(page);
        const cards = await hand(page);
        const over = cards.find((c) => !c.set && !c.cooling && c.cost > energy);
        if (over) {
          dear = { ...over, left: energy };
          break;
        }
        const cheap = cards.filter((c) => c.usable && !SUMMONS.includes(c.id)).sort((a, b) => a.cost - b.cost);
        if (!cheap.length || !(await tap(page, cheap[0].id))) break;
      }
      if (turn === 0) await page.screenshot({ path: screenshot.replace(/\.png$/, "-turn.png"), fullPage: true });
      await page.click("button[name=commit]");
      await turnResolved(page, status);
    }
    await page.screenshot({ path: screenshot, fullPage: true });
    // No summon card may be drawn in the turns above, or the CPU may end the battle
    // first (found in a fresh clone's run): fresh battles, their hands looked at over a
    // few passed turns, until one shows.
    for (let again = 0; again < 6 && !seen.summons.length; again++) {
      if (await page.locator("button[name=give-up]").count()) await giveUp(page);
      await practice(page, TEAM);
      await note();
      await page.click("button[name=formation]");
      for (let turn = 0; turn < 3 && !seen.summons.length; turn++) {
        const next = await nextTurn(page);
        if (next === "end") break;
        const status = (await page.textContent("[data-testid=battle-status]")) ?? "";
        await note();
        await page.click("button[name=commit]"); // an empty plan passes the turn
        await turnResolved(page, status);
      }
    }
    // A battle that reached its tenth turn while the loop looked for all three has no
    // Give up left (found in a fresh clone's run): the wording is checked on a new one.
    if (!(await page.locator("button[name=give-up]").count())) await practice(page, TEAM);
    const ended = await giveUp(page);
    return { started, formationHand, mixed, dear, seen, ended };
  }

  async function deskGiveUp() {
    const page = await player();
    await page.setViewportSize(DESK);
    const started = await practice(page, ["bastion", "hollis", "moss"]);
    const labels = await page.evaluate(() =>
      [...document.querySelectorAll(".field-label")].map((n) => ({
        text: n.textContent ?? "",
        size: parseFloat(getComputedStyle(n).fontSize),
      })),
    );
    await page.click("button[name=formation]");
    // Where a button stands with the page at its top: its bottom, and the window's height.
    const where = (name) =>
      page.evaluate((name) => {
        window.scrollTo(0, 0);
        const box = document.querySelector(`button[name=${name}]`)?.getBoundingClientRect();
        return box ? { bottom: box.bottom, height: innerHeight } : null;
      }, name);
    const seen = [];
    for (let turn = 0; turn < 4; turn++) {
      const next = await nextTurn(page);
      if (next === "end") break;
      const status = (await page.textContent("[data-testid=battle-status]")) ?? "";
      for (let pick = 0; pick < 3; pick++) {
        const usable = (await hand(page)).filter((c) => c.usable);
        if (!usable.length || !(await tap(page, usable[0].id))) break;
      }
      const log = await page.locator("[data-testid=battle-log] li").count();
      const plan = await page.locator("[data-testid=plan] li").count();
      seen.push({ status, log, plan, giveUp: await where("give-up"), commit: await where("commit") });
      await page.click("button[name=commit]");
      await turnResolved(page, status);
    }
    await page.screenshot({ path: screenshot, fullPage: true });
    let confirm = null;
    if (await page.locator("button[name=give-up]").count()) {
      await page.click("button[name=give-up]");
      confirm = { yes: await where("give-up-confirm"), no: await where("give-up-cancel") };
      await page.click("button[name=give-up-confirm]");
      await page.waitForSelector("[data-testid=battle-result]");
    }
    return { started, labels, seen, confirm };
  }
}
