/**
 * IP ranges for an SSRF guard: which addresses a tool that fetches on a model's behalf must not
 * reach unless the owner allows it (private, loopback, link-local, CGNAT, multicast, reserved),
 * and CIDR ranges the owner names ("10.0.0.0/8", "fd00::/8"). Built on ip-address.ts's exact
 * parsing, so "127.1" or "0x7f.0.0.1" are never addresses here (a resolver returns canonical
 * forms; anything else is a name and goes through DNS).
 */
import { mappedIPv4, parseIPv4, parseIPv6 } from "./ip-address.ts";

/** An address as 4 (IPv4) or 16 (IPv6) bytes. */
export type IpBytes = number[];

/** The bytes of an IPv4 or IPv6 literal (IPv6 may be bracketed); null for names. */
export function parseIp(literal: string): IpBytes | null {
  const bracketed = /^\[(.*)\]$/.exec(literal);
  const s = bracketed ? (bracketed[1] as string) : literal;
  if (s.includes(":")) {
    const g = parseIPv6(s);
    return g ? g.flatMap((x) => [x >> 8, x & 0xff]) : null;
  }
  return bracketed ? null : parseIPv4(s);
}

export interface Cidr {
  bytes: IpBytes;
  prefix: number;
}

/** "10.0.0.0/8", "fd00::/8", "[::1]" or a bare address (a /32 or /128); null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const m = /^(.*?)(?:\/(\d{1,3}))?$/.exec(text);
  if (!m) return null;
  const bytes = parseIp(m[1] as string);
  if (!bytes) return null;
  const prefix = m[2] === undefined ? bytes.length * 8 : Number(m[2]);
  return prefix <= bytes.length * 8 ? { bytes, prefix } : null;
}

/** Whether `ip` lies in `range` (an IPv4 address never matches an IPv6 range, nor the reverse). */
export function inCidr(ip: IpBytes, range: Cidr): boolean {
  if (ip.length !== range.bytes.length) return false;
  let bits = range.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((ip[i] as number) & mask) !== ((range.bytes[i] as number) & mask)) return false;
  }
  return true;
}

const range = (text: string): Cidr => parseCidr(text) as Cidr;

/** IPv4 ranges that are not the public internet, each with the word an error message uses. */
const IPV4_BLOCKED: [Cidr, string][] = [
  [range("0.0.0.0/8"), "this-network"],
  [range("10.0.0.0/8"), "private"],
  [range("100.64.0.0/10"), "carrier-grade NAT"],
  [range("127.0.0.0/8"), "loopback"],
  [range("169.254.0.0/16"), "link-local"],
  [range("172.16.0.0/12"), "private"],
  [range("192.0.0.0/24"), "IETF protocol"],
  [range("192.168.0.0/16"), "private"],
  [range("198.18.0.0/15"), "benchmarking"],
  [range("224.0.0.0/4"), "multicast"],
  [range("240.0.0.0/4"), "reserved"],
];

const IPV6_BLOCKED: [Cidr, string][] = [
  [range("::/128"), "unspecified"],
  [range("::1/128"), "loopback"],
  [range("fc00::/7"), "private (unique local)"],
  [range("fe80::/10"), "link-local"],
  [range("fec0::/10"), "site-local"],
  [range("ff00::/8"), "multicast"],
  [range("64:ff9b:1::/48"), "NAT64 local-use"],
  [range("100::/64"), "discard-only"],
  [range("2001:db8::/32"), "documentation"],
];

/**
 * IPv6 prefixes that carry IPv4 addresses, each with where they are: a packet to such an address
 * reaches (through a translator or tunnel) the IPv4 host it names, so it is judged by that
 * address. IPv4-compatible ::/96, SIIT's IPv4-translated ::ffff:0:0:0/96 and the NAT64 well-known
 * prefix 64:ff9b::/96 carry it in the last 32 bits; 6to4 (2002::/16) in bits 16–47; Teredo
 * (2001::/32) the server in bits 32–63 and the client in the last 32, inverted (XOR 0xffffffff).
 */
const IPV6_EMBEDDING_V4: [Cidr, (ip: IpBytes) => IpBytes[]][] = [
  [range("::/96"), (ip) => [ip.slice(12)]],
  [range("::ffff:0:0:0/96"), (ip) => [ip.slice(12)]],
  [range("64:ff9b::/96"), (ip) => [ip.slice(12)]],
  [range("2002::/16"), (ip) => [ip.slice(2, 6)]],
  [range("2001::/32"), (ip) => [ip.slice(4, 8), ip.slice(12).map((b) => b ^ 0xff)]],
];

/**
 * Why `ip` is not a public internet address ("loopback", "private", …), or null when it is.
 * IPv6 addresses that carry an IPv4 one (IPv4-mapped ::ffff:a.b.c.d, and IPV6_EMBEDDING_V4)
 * are judged by every IPv4 address they carry, so 127.0.0.1 cannot hide inside IPv6. The NAT64
 * local-use prefix 64:ff9b:1::/48 places the IPv4 address where its operator chose, so all of it
 * is refused.
 */
export function nonPublicReason(ip: IpBytes): string | null {
  if (ip.length === 4) return IPV4_BLOCKED.find(([r]) => inCidr(ip, r))?.[1] ?? null;
  const hit = IPV6_BLOCKED.find(([r]) => inCidr(ip, r));
  if (hit) return hit[1];
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip[i] as number) << 8) | (ip[i + 1] as number));
  const mapped = mappedIPv4(groups);
  if (mapped) return nonPublicReason(mapped);
  for (const [r, carried] of IPV6_EMBEDDING_V4) {
    if (!inCidr(ip, r)) continue;
    for (const v4 of carried(ip)) {
      const why = nonPublicReason(v4);
      if (why) return why;
    }
  }
  return null;
}

/** An address's canonical text: dotted quad, or IPv6 groups in hex (uncompressed). */
export function formatIp(ip: IpBytes): string {
  if (ip.length === 4) return ip.join(".");
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((ip[i] as number) << 8) | (ip[i + 1] as number)).toString(16));
  return groups.join(":");
}

/** What the owner lets a tool reach beyond the public internet ([tools.fetch], [tools.browser]). */
export interface AddressPolicy {
  /** Every private, loopback and link-local address. */
  allowPrivate: boolean;
  /** Host names (exact, or "*.example.org" for its subdomains), addresses and CIDR ranges. */
  allowHosts: readonly string[];
}

function hostMatches(host: string, pattern: string): boolean {
  const p = pattern.toLowerCase();
  if (p.startsWith("*.")) return host.endsWith(p.slice(1)) && host.length > p.length - 1;
  return host === p;
}

/**
 * The first of `host`'s `addresses` that `policy` does not let a tool reach, with why ("a
 * loopback address"); null when every one is public or allowed. One such address refuses the
 * host: a connection could go to any of them. An entry of `addresses` that is not an address
 * is refused too.
 */
export function refusedAddress(
  host: string,
  addresses: readonly string[],
  policy: AddressPolicy,
): { address: string; shown: string; why: string } | null {
  if (policy.allowPrivate) return null;
  const allowed: Cidr[] = [];
  for (const entry of policy.allowHosts) {
    const cidr = parseCidr(entry);
    if (cidr) allowed.push(cidr);
    else if (hostMatches(host, entry)) return null;
  }
  for (const a of addresses) {
    const ip = parseIp(a);
    const why = ip ? nonPublicReason(ip) : "not an address";
    if (!why || (ip && allowed.some((r) => inCidr(ip, r)))) continue;
    return { address: a, shown: ip ? formatIp(ip) : a, why };
  }
  return null;
}
