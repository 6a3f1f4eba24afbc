/**
 * The SSRF guard: before fetch_url connects anywhere, the host is resolved (every address it
 * has) and refused when any address is not on the public internet (src/shared/ip-range.ts),
 * unless the owner allows private addresses or names the host, the address or a range holding
 * it in [tools.fetch] allow_hosts. The caller connects to the address returned here and to no
 * other, so a second DNS answer (rebinding) cannot change where the request goes.
 */
import { lookup } from "node:dns/promises";
import { HomedError } from "../../src/protocol/errors.ts";
import { type AddressPolicy, parseIp, refusedAddress } from "../../src/shared/ip-range.ts";

export type GuardPolicy = AddressPolicy;

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
  const bad = addresses.find((a) => !parseIp(a));
  if (bad) throw new HomedError("upstream", `${tool}: ${host} resolved to ${bad}, which is not an address`);
  const refused = refusedAddress(host, addresses, policy);
  if (refused) {
    const shown = literal ? host : `${host} resolves to ${refused.shown}, which`;
    throw new HomedError(
      "denied",
      `${tool}: ${shown} is not a public address (${refused.why}); it is refused unless the owner lists ` +
        `it in [tools.fetch] allow_hosts (or on the settings page) or sets allow_private = true`,
      { host, address: refused.address, reason: refused.why },
    );
  }
  const pick = addresses.find((a) => !a.includes(":")) ?? (addresses[0] as string);
  return { address: pick.includes(":") ? `[${pick}]` : pick, host, literal: literal !== null };
}
