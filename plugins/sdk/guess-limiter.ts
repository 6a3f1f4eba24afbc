/**
 * Slows down guessing a secret a listener checks: the web login token (bearer, session cookie,
 * POST /api/login), A2A peer tokens, the QQ channel's access token. One limiter per listener
 * counts every kind of credential it checks together, so guessing through two doors is no
 * faster than through one. Per client, the first FREE_FAILURES wrong credentials cost nothing; each one after that blocks the
 * client for twice as long as the last, from BASE_BLOCK_MS up to MAX_BLOCK_MS. While a client is
 * blocked its credentials are not checked at all (429 with Retry-After), so a guess during the
 * block tells it nothing. A right credential clears its record; a record is forgotten after
 * FORGET_MS without a failure. At the cap that is about four guesses an hour instead of thousands
 * a second.
 *
 * A client is its source address (an IPv6 client its /64, which one host usually holds whole;
 * every loopback address together).
 * Clients behind one reverse proxy share its address, so one of them guessing slows all of them;
 * forwarded-for headers are not trusted, since anyone can send them.
 */
import { mappedIPv4, parseIPv4, parseIPv6 } from "../../src/shared/ip-address.ts";

/** What a guarded check found; blocked: not checked at all (too many wrong ones before). */
export type GuessCheck = { result: "ok" | "wrong" } | { result: "blocked"; retryAfter: number };

const FREE_FAILURES = 5;
const BASE_BLOCK_MS = 1000;
const MAX_BLOCK_MS = 15 * 60 * 1000;
/** Longer than MAX_BLOCK_MS, so a client at the cap never waits itself back to free guesses. */
const FORGET_MS = 60 * 60 * 1000;
/** Records kept at most; past it the longest-quiet client is forgotten (memory stays bounded). */
const MAX_CLIENTS = 10_000;

interface Client {
  failures: number;
  lastFailure: number;
  blockedUntil: number;
}

/** The key a remote address is counted under: IPv4 as is, IPv6 by its /64. */
export function clientKey(address: string): string {
  if (parseIPv4(address)) return address;
  const g = parseIPv6(address);
  if (!g) return address;
  const v4 = mappedIPv4(g);
  if (v4) return v4.join(".");
  return `${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(":")}::/64`;
}

/** What every loopback address (127.0.0.0/8, ::1) is counted under by the guess limit. */
export const LOOPBACK_CLIENT = "loopback";

/**
 * The key a guesser is counted under: clientKey, but every loopback address as one — 127.0.0.2
 * is the same machine as 127.0.0.1, not a fresh client with five free guesses.
 */
export function guesserKey(address: string): string {
  const key = clientKey(address);
  if (/^127\./.test(key)) return LOOPBACK_CLIENT;
  const g = parseIPv6(address);
  return g?.slice(0, 7).every((x) => x === 0) && g[7] === 1 ? LOOPBACK_CLIENT : key;
}

export class GuessLimiter {
  /** Oldest failure first: a record is re-inserted on every failure. */
  private readonly clients = new Map<string, Client>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Whole seconds `address` must wait before its credentials are checked again; 0 = check now. */
  retryAfter(address: string): number {
    const c = this.clients.get(guesserKey(address));
    const left = c ? c.blockedUntil - this.now() : 0;
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /**
   * Run `verify` for a credential `address` presented, unless the address is blocked; a right
   * one clears the address's record, a wrong one counts against it.
   */
  async check(address: string, verify: () => boolean | Promise<boolean>): Promise<GuessCheck> {
    const retryAfter = this.retryAfter(address);
    if (retryAfter > 0) return { result: "blocked", retryAfter };
    const right = await verify();
    if (right) this.succeeded(address);
    else this.failed(address);
    return { result: right ? "ok" : "wrong" };
  }

  failed(address: string): void {
    const key = guesserKey(address);
    const now = this.now();
    this.forgetQuiet(now);
    const old = this.clients.get(key);
    const failures = (old && now - old.lastFailure < FORGET_MS ? old.failures : 0) + 1;
    const over = failures - FREE_FAILURES;
    const blockedUntil = over >= 0 ? now + Math.min(BASE_BLOCK_MS * 2 ** over, MAX_BLOCK_MS) : 0;
    this.clients.delete(key);
    this.clients.set(key, { failures, lastFailure: now, blockedUntil });
    if (this.clients.size > MAX_CLIENTS) this.clients.delete(this.clients.keys().next().value as string);
  }

  succeeded(address: string): void {
    this.clients.delete(guesserKey(address));
  }

  /** Drop records quiet for FORGET_MS; the map is in failure order, so stop at the first live one. */
  private forgetQuiet(now: number): void {
    for (const [key, c] of this.clients) {
      if (now - c.lastFailure < FORGET_MS) break;
      this.clients.delete(key);
    }
  }
}
