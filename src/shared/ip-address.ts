/**
 * IP address literals, parsed exactly. Used to decide what counts as this machine (the listen
 * address, a Host header) and to group HTTP clients by address, so a prefix or substring test
 * never stands in for parsing: "127.attacker.example" and "127.0.0.1.nip.io" are names, not
 * addresses.
 */

/**
 * The four bytes of a dotted-quad IPv4 literal in canonical form; null for anything else.
 * Shorthand and octal forms (127.1, 0177.0.0.1) are refused: browsers never send them and
 * resolvers disagree about what they mean.
 */
export function parseIPv4(s: string): number[] | null {
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  const bytes: number[] = [];
  for (const p of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    bytes.push(n);
  }
  return bytes;
}

/**
 * The eight 16-bit groups of an IPv6 literal (no brackets, no zone id); null when it is not one.
 * A trailing dotted quad (::ffff:127.0.0.1) is accepted, as the address syntax allows.
 */
export function parseIPv6(s: string): number[] | null {
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (text: string, last: boolean): number[] | null => {
    if (text === "") return [];
    const out: number[] = [];
    const pieces = text.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] as string;
      if (last && i === pieces.length - 1 && piece.includes(".")) {
        const b = parseIPv4(piece);
        if (!b) return null;
        out.push(((b[0] as number) << 8) | (b[1] as number), ((b[2] as number) << 8) | (b[3] as number));
      } else if (/^[0-9A-Fa-f]{1,4}$/.test(piece)) {
        out.push(parseInt(piece, 16));
      } else {
        return null;
      }
    }
    return out;
  };
  const head = groups(halves[0] as string, halves.length === 1);
  const tail = halves.length === 2 ? groups(halves[1] as string, true) : [];
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const zeros = 8 - head.length - tail.length;
  if (zeros < 1) return null;
  return [...head, ...new Array<number>(zeros).fill(0), ...tail];
}

/** IPv6 groups of an IPv4-mapped address (::ffff:a.b.c.d) as IPv4 bytes; null otherwise. */
export function mappedIPv4(groups: number[]): number[] | null {
  if (!groups.slice(0, 5).every((g) => g === 0) || groups[5] !== 0xffff) return null;
  const hi = groups[6] as number;
  const lo = groups[7] as number;
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
}

/**
 * True for an IP literal only this machine can reach: 127.0.0.0/8, ::1, and 127.0.0.0/8 mapped
 * into IPv6. IPv6 may be bracketed ([::1]). Names, "localhost" included, are not literals.
 */
export function isLoopbackAddress(literal: string): boolean {
  const bracketed = /^\[(.*)\]$/.exec(literal);
  if (bracketed || literal.includes(":")) {
    const g = parseIPv6(bracketed ? (bracketed[1] as string) : literal);
    if (!g) return false;
    if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return true;
    return mappedIPv4(g)?.[0] === 127;
  }
  return parseIPv4(literal)?.[0] === 127;
}
