// The gateway's public API over gRPC-Web, from the page's own origin (the gateway's
// web port), with the player's tokens: one client, as generated from proto/.
import { createClient, ConnectError, Code, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { TriadGateway } from "./gen/triad/v1/gateway_pb.js";
import type { AuthTokens } from "./gen/triad/v1/gateway_pb.js";

const STORAGE_KEY = "triad-tokens";

interface Kept {
  name: string;
  access: string;
  refresh: string;
}

let kept: Kept | null = load();

function load(): Kept | null {
  try {
    const text = sessionStorage.getItem(STORAGE_KEY);
    return text ? (JSON.parse(text) as Kept) : null;
  } catch {
    return null;
  }
}

export function signedIn(): string | null {
  return kept?.name ?? null;
}

export function keepTokens(name: string, tokens: AuthTokens | undefined): void {
  if (!tokens) throw new Error("the gateway sent no tokens");
  kept = { name, access: tokens.accessToken, refresh: tokens.refreshToken };
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(kept));
}

export function forgetTokens(): void {
  kept = null;
  sessionStorage.removeItem(STORAGE_KEY);
}

const bearer: Interceptor = (next) => async (req) => {
  if (kept) req.header.set("authorization", `Bearer ${kept.access}`);
  return next(req);
};

const transport = createGrpcWebTransport({
  baseUrl: location.origin,
  useBinaryFormat: true,
  interceptors: [bearer],
  // Every call has a deadline (sent as grpc-timeout); the session stream opts out.
  defaultTimeoutMs: 15_000,
});

export const api = createClient(TriadGateway, transport);

/** A fresh idempotency key for one action (a retry reuses its own). */
export function requestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A refresh under way: every call that meets an expired token waits on this one. */
let refreshing: Promise<boolean> | null = null;

/**
 * The access token expired: trade the refresh token for a new pair, once however many
 * calls met the expiry at the same moment (the refresh token is good for one trade; a
 * second trade of it would be refused). The tokens are forgotten only when the gateway
 * refuses the refresh token itself; a refresh that failed on the way (offline, slowed
 * down) keeps them, to try again.
 */
export function refreshTokens(): Promise<boolean> {
  refreshing ??= refreshOnce().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

async function refreshOnce(): Promise<boolean> {
  const held = kept;
  if (!held) return false;
  try {
    const reply = await api.refreshToken({ requestId: requestId(), refreshToken: held.refresh });
    // Logged out (or in as someone else) while the refresh was on its way: not kept.
    if (kept !== held) return false;
    keepTokens(held.name, reply.tokens);
    return true;
  } catch (error) {
    if (ConnectError.from(error).code === Code.Unauthenticated && kept === held) forgetTokens();
    return false;
  }
}

/** ``action``, once more after a token refresh if the access token had expired. */
export async function authed<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (ConnectError.from(error).code === Code.Unauthenticated && (await refreshTokens())) {
      return await action();
    }
    throw error;
  }
}

/** What the gateway said, in its own words (its refusals are written for players). */
export function reason(error: unknown): string {
  if (unreached(error)) return "the server is out of reach; try again in a moment";
  const failure = ConnectError.from(error);
  return heldInWords(failure.rawMessage || failure.message);
}

/** The gateway was not reached: fetch failed (offline, refused: a TypeError such as
 * "Failed to fetch"), something between answered HTTP, not gRPC-Web, or nothing said. */
export function unreached(error: unknown): boolean {
  const failure = ConnectError.from(error);
  const between = failure.cause instanceof TypeError || /^HTTP \d{3}\b/.test(failure.rawMessage);
  return between || (failure.code === Code.Unavailable && !failure.rawMessage);
}

/** The matchmaker names the ticket or table that holds the player in full (the terminal
 * needs its id to cancel or close it); the page has buttons for those instead: "you host
 * an open table: close it first (Close the table, in the lobby)", not its 36-character id. */
function heldInWords(said: string): string {
  return said
    .replace(/you already have queued ticket \S+: cancel it first \([^)]*\)/, "you are in a queue: leave it first (Leave the queue, in the lobby)")
    .replace(/you already host open table \S+: close it first/, "you host an open table: close it first (Close the table, in the lobby)")
    .replace(/you are joining table \S+ right now/, "you are joining a table right now");
}

/** The table a refusal names as holding the player ("you already host open table ID"),
 * or "": the refusal goes when that table does. */
export function heldTable(error: unknown): string {
  return /open table (\S+): close it first/.exec(ConnectError.from(error).rawMessage)?.[1] ?? "";
}
