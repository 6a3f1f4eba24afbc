/**
 * The SSRF guard: before fetch_url connects anywhere, the host is resolved (every address it
 * has) and refused when any address is not on the public internet (src/protocol/ip-range.ts),
 * unless the owner allows private addresses or names the host, the address or a range holding
 * it in [tools.fetch] allow_hosts. The caller connects to the address returned here and to no
 * other, so a second DNS answer (rebinding) cannot change where the request goes.
 */
import { lookup } from "node:dns/promises";
import { HomedError } from "../../src/protocol/errors.ts";
import { type Cidr, formatIp, inCidr, nonPublicReason, parseCidr, parseIp } from "../../src/protocol/ip-range.ts";

export interface GuardPolicy {
  allowPrivate: boolean;
  /** Host names (exact, or "*.example.org" for its subdomains), addresses and CIDR ranges. */
  allowHosts: readonly string[];
}

/** Resolves a host name to every address it has (IP literals, canonical form). */
export type Resolve = (host: string) => Promise<string[]>;

const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Where to connect: the checked address, and the host name for Host and TLS (SNI, certificate). */
export interface PinnedTarget {
  /** The address to connect to, as it goes in a URL (IPv6 bracketed). */
  address: string;
  /** The URL's host name, without brackets. */
  host: string;
  /** The URL named an address, not a host name (no SNI then). */
  literal: boolean;
}

function hostMatches(host: string, pattern: string): boolean {
  const p = pattern.toLowerCase();
  if (p.startsWith("*.")) return host.endsWith(p.slice(1)) && host.length > p.length - 1;
  return host === p;
}

/**
 * Resolve `url`'s host and check every address; the first allowed one (IPv4 preferred: a host
 * without an IPv6 route still connects) is where the request must go.
 * @throws HomedError "denied" naming the host, the address and why, with what the owner can set
 */
export async function pinTarget(
  url: URL,
  policy: GuardPolicy,
  tool: string,
  resolve: Resolve = systemResolve,
): Promise<PinnedTarget> {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  const literal = parseIp(host);
  let addresses: string[];
  if (literal) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch (err) {
      throw new HomedError(
        "upstream",
        `${tool}: cannot resolve ${host}: ${(err as Error).message}`,
        {},
        { cause: err },
      );
    }
    if (addresses.length === 0) throw new HomedError("upstream", `${tool}: ${host} has no address`);
  }
  const allowed: Cidr[] = [];
  let hostAllowed = false;
  for (const entry of policy.allowHosts) {
    const cidr = parseCidr(entry);
    if (cidr) allowed.push(cidr);
    else if (hostMatches(host, entry)) hostAllowed = true;
  }
  for (const a of addresses) {
    const ip = parseIp(a);
    if (!ip) throw new HomedError("upstream", `${tool}: ${host} resolved to ${a}, which is not an address`);
    const why = nonPublicReason(ip);
    if (!why || policy.allowPrivate || hostAllowed || allowed.some((r) => inCidr(ip, r))) continue;
    const shown = literal ? host : `${host} resolves to ${formatIp(ip)}, which`;
    throw new HomedError(
      "denied",
      `${tool}: ${shown} is not a public address (${why}); it is refused unless the owner sets ` +
        `[tools.fetch] allow_private = true or lists it in allow_hosts`,
      { host, address: a, reason: why },
    );
  }
  const pick = addresses.find((a) => !a.includes(":")) ?? (addresses[0] as string);
  return { address: pick.includes(":") ? `[${pick}]` : pick, host, literal: literal !== null };
}
