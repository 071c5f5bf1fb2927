// Fair boosters in the browser (services/collection/FAIRNESS.md, hmac-sha256-v1): the
// commitment in force (the server seed's hash, the client seed, the next booster's
// number), a client seed the player sets (which reveals the server seed in force), and
// every booster recomputed here, with the browser's own SHA-256 and HMAC, from the
// revealed seeds, the published odds and the catalog. Found from outside: only the
// terminal client could check a booster; the page offered no seed and no check.
import { Code, ConnectError } from "@connectrpc/connect";
import { api, authed, requestId } from "./api.js";
import { el } from "./dom.js";
import { actionButton as button } from "./controls.js";
import type { Page } from "./state.js";
import { Side, type BoosterDraw, type BoosterOdds, type Character, type SeedCommitment, type ServerSeed } from "./gen/triad/v1/common_pb.js";

const ALGORITHM = "hmac-sha256-v1";

export const fairness = {
  commitment: null as SeedCommitment | null,
  /** What the last check found, in words, and each booster that differs. */
  verdict: "",
  differing: [] as string[],
  revealed: "",
  clientSeed: "",
  /** A booster's price in coins (the published odds'). */
  price: 0n,
};

/** Every page of a listing, in order (``read`` one page from its token). */
export async function allPages<T>(read: (token: string) => Promise<{ items: T[]; next: string }>): Promise<T[]> {
  const found: T[] = [];
  let token = "";
  do {
    const page = await read(token);
    found.push(...page.items);
    token = page.next;
  } while (token);
  return found;
}

/** The commitment in force, and a booster's price. */
export async function readCommitment(): Promise<void> {
  const [commitment, odds] = await Promise.all([authed(() => api.getSeedCommitment({})), authed(() => api.getBoosterOdds({}))]);
  fairness.commitment = commitment.commitment ?? null;
  fairness.price = odds.odds?.priceCoins ?? 0n;
}

/** The section of the cards screen: the commitment, the client seed, the check. */
export function fairnessPanel(page: Page): HTMLElement {
  const c = fairness.commitment;
  // No maxlength, no trimming: the seed is what was typed, or refused in words (found
  // from outside: 65 characters were cut to 64 and spaces trimmed, unsaid).
  const seed = el("input", { name: "client-seed", placeholder: "1 to 64 letters, digits, signs", value: fairness.clientSeed });
  seed.addEventListener("input", () => void (fairness.clientSeed = seed.value));
  const said = c
    ? `Your next booster is number ${c.nextCounter} of server seed ${c.serverSeedHash.slice(0, 16)}… (its SHA-256, committed before the draw) and your client seed "${c.clientSeed}".`
    : "";
  return el(
    "section",
    { class: "fairness", "data-testid": "fairness" },
    el("h2", {}, "Fair boosters"),
    el("p", { "data-testid": "commitment" }, said),
    el("p", {}, "Setting a new client seed reveals the server seed in force; then every booster drawn from it can be checked here."),
    el("label", {}, "Client seed ", seed),
    button("Set it and reveal the seed", "set-seed", page, setClientSeed),
    button("Check my boosters", "verify", page, verifyBoosters),
    fairness.revealed ? el("p", { "data-testid": "revealed" }, fairness.revealed) : "",
    fairness.verdict ? el("p", { "data-testid": "verdict" }, fairness.verdict) : "",
    el("ul", {}, ...fairness.differing.map((line) => el("li", { class: "error" }, line))),
  );
}

async function setClientSeed(): Promise<void> {
  const clientSeed = fairness.clientSeed;
  if (!clientSeed) throw new ConnectError("Type a client seed first: 1 to 64 ASCII letters, digits or signs.", Code.InvalidArgument);
  const reply = await authed(() => api.setClientSeed({ requestId: requestId(), clientSeed }));
  fairness.commitment = reply.commitment ?? fairness.commitment;
  const old = reply.revealedSeed;
  const boosters = old?.drawCount === 1n ? "1 booster" : `${old?.drawCount ?? 0} boosters`;
  fairness.revealed = old ? `Revealed: server seed ${old.serverSeed} (${boosters} drawn from it).` : "";
  fairness.clientSeed = "";
}

/** Every booster of the player recomputed here and compared card by card. */
async function verifyBoosters(): Promise<void> {
  const [draws, seeds, odds, catalog] = await Promise.all([
    allPages((pageToken) => authed(() => api.listBoosterDraws({ pageSize: 200, pageToken })).then((r) => ({ items: r.draws, next: r.nextPageToken }))),
    allPages((pageToken) => authed(() => api.listServerSeeds({ pageSize: 200, pageToken })).then((r) => ({ items: r.seeds, next: r.nextPageToken }))),
    authed(() => api.getBoosterOdds({})).then((r) => r.odds),
    allPages((pageToken) => authed(() => api.listCatalog({ pageSize: 200, pageToken })).then((r) => ({ items: r.characters, next: r.nextPageToken }))),
  ]);
  if (!odds) throw new ConnectError("The server published no odds to check against.", Code.Unavailable);
  const byId = new Map(seeds.map((s) => [s.seedId, s]));
  let pending = 0;
  let matched = 0;
  fairness.differing = [];
  for (const draw of draws) {
    const seed = byId.get(draw.seedId);
    if (!seed?.serverSeed) {
      pending += 1;
      continue;
    }
    const problems = await check(draw, seed, odds, catalog);
    if (problems.length) fairness.differing.push(`Booster ${draw.counter} (${draw.drawId.slice(0, 8)}) DIFFERS: ${problems.join("; ")}`);
    else matched += 1;
  }
  const checked = draws.length - pending;
  const waiting = pending ? `; ${pending} wait${pending === 1 ? "s" : ""} for their server seed to be revealed (set a new client seed)` : "";
  fairness.verdict = draws.length
    ? `${matched} of ${checked} checkable boosters match what the seeds give${waiting}.`
    : "You opened no booster yet.";
}

async function check(draw: BoosterDraw, seed: ServerSeed, odds: BoosterOdds, catalog: Character[]): Promise<string[]> {
  if (draw.algorithm && draw.algorithm !== ALGORITHM) return [`drawn with ${draw.algorithm}; this page knows ${ALGORITHM}`];
  const problems: string[] = [];
  const key = hexBytes(seed.serverSeed);
  if (hex(new Uint8Array(await crypto.subtle.digest("SHA-256", key))) !== seed.serverSeedHash) {
    problems.push("the revealed server seed does not hash to its commitment");
  }
  if (draw.serverSeedHash !== seed.serverSeedHash) problems.push("the draw names another commitment than its seed's");
  const source = new DrawSource(await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]), draw.clientSeed, draw.counter);
  const slots = [...odds.slots].sort((a, b) => a.slotIndex - b.slotIndex);
  const holoIn10000 = Math.round(odds.holoProbability * 10_000);
  for (const [index, slot] of slots.entries()) {
    let weights = [...slot.starOdds].sort((a, b) => a.stars - b.stars).map((s): [number, number] => [s.stars, Number(s.weight)]);
    if (draw.pityApplied && index === slots.length - 1) weights = weights.filter(([stars]) => stars >= (odds.pity?.minStars ?? 0));
    const stars = await source.weighted(weights);
    const ofRank = catalog.filter((c) => c.stars === stars).sort((a, b) => (a.characterId < b.characterId ? -1 : a.characterId > b.characterId ? 1 : 0));
    const character = ofRank[await source.uniform(ofRank.length)];
    const holo = (await source.uniform(10_000)) < holoIn10000;
    const s = character?.sides;
    const candidates = s ? ([[Side.TOP, s.top], [Side.RIGHT, s.right], [Side.BOTTOM, s.bottom], [Side.LEFT, s.left]] as const).filter(([, v]) => v < 10).map(([side]) => side) : [];
    const side = holo && candidates.length ? candidates[await source.uniform(candidates.length)] : Side.UNSPECIFIED;
    const got = draw.copies[index];
    if (!got || got.character?.characterId !== character?.characterId) {
      problems.push(`card ${index} is ${got?.character?.name ?? "missing"}, the seeds give ${character?.name ?? "none"}`);
    } else if (got.holo !== holo || got.holoSide !== side) {
      problems.push(`card ${index}'s holo differs from the seeds'`);
    }
  }
  if (draw.copies.length !== slots.length) problems.push(`${draw.copies.length} cards drawn, ${slots.length} expected`);
  return problems;
}

/** Unbiased integers from the HMAC-SHA256 stream of one booster (FAIRNESS.md). */
class DrawSource {
  private words: number[] = [];
  private block = 0;
  constructor(private key: CryptoKey, private clientSeed: string, private counter: bigint) {}

  private async next(): Promise<number> {
    if (!this.words.length) {
      const message = new TextEncoder().encode(`${this.clientSeed}:${this.counter}:${this.block++}`);
      const digest = new DataView(await crypto.subtle.sign("HMAC", this.key, message));
      for (let offset = 0; offset < digest.byteLength; offset += 4) this.words.push(digest.getUint32(offset));
    }
    return this.words.shift()!;
  }

  async uniform(n: number): Promise<number> {
    const limit = Math.floor(2 ** 32 / n) * n;
    for (;;) {
      const word = await this.next();
      if (word < limit) return word % n;
    }
  }

  async weighted(weights: [number, number][]): Promise<number> {
    let r = await this.uniform(weights.reduce((sum, [, w]) => sum + w, 0));
    for (const [stars, weight] of weights) {
      if (r < weight) return stars;
      r -= weight;
    }
    throw new Error("unreachable: r < total");
  }
}

function hexBytes(text: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}
